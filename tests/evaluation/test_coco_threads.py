"""``evaluate_coco`` evaluates categories in threads: every array equals the serial
``iter_evaluate_coco`` + ``collect_coco`` (segm too, whose mask boxes are built once, shared)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vocviewer.core import masks as mk
from vocviewer.evaluation.coco import CocoParams, collect_coco, evaluate_coco, iter_evaluate_coco
from vocviewer.formats.coco import read_coco
from vocviewer.formats.coco_results import read_coco_results


def _workload(rng: np.random.Generator) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    h, w = 30, 40
    images = [{"id": i + 1, "height": h, "width": w} for i in range(12)]
    cats = [{"id": c, "name": f"c{c}"} for c in range(1, 15)]
    anns, dets = [], []
    for im in images:
        for _ in range(6):
            x, y = rng.uniform(0, 25), rng.uniform(0, 18)
            bw, bh = rng.uniform(3, 14), rng.uniform(3, 11)
            c = int(rng.integers(1, 15))
            poly = [x, y, x + bw, y, x + bw, y + bh, x, y + bh]
            anns.append(
                {
                    "id": len(anns) + 1,
                    "image_id": im["id"],
                    "category_id": c,
                    "bbox": [x, y, bw, bh],
                    "area": bw * bh,
                    "iscrowd": 0,
                    "segmentation": [poly],
                }
            )
            for _ in range(3):
                m = np.zeros((h, w), dtype=bool)
                x0, y0 = int(x + rng.integers(-2, 3)), int(y + rng.integers(-2, 3))
                m[max(y0, 0) : int(y0 + bh), max(x0, 0) : int(x0 + bw)] = True
                seg = {"size": [h, w], "counts": mk.to_string(mk.encode(m))}
                c2 = c if rng.random() < 0.8 else int(rng.integers(1, 15))
                dets.append(
                    {
                        "image_id": im["id"],
                        "category_id": c2,
                        "score": round(float(rng.random()), 2),
                        "segmentation": seg,
                    }
                )
    return {"images": images, "categories": cats, "annotations": anns}, dets


@pytest.mark.parametrize("task", ["bbox", "segm"])
def test_threads_give_the_serial_numbers(tmp_path: Path, task: str) -> None:
    gt, dets = _workload(np.random.default_rng(3))
    (tmp_path / "gt.json").write_text(json.dumps(gt))
    (tmp_path / "dt.json").write_text(json.dumps(dets))
    ds = read_coco(tmp_path / "gt.json", masks=task == "segm")
    rs = read_coco_results(ds, tmp_path / "dt.json", task=task)
    params = CocoParams.for_task(task)
    threaded = evaluate_coco(ds, rs, params)
    serial = collect_coco(tuple(iter_evaluate_coco(ds, rs, params)), params, rs)
    assert len(threaded.categories) == len(serial.categories) == 14
    for name in ("precision", "recall", "scores", "category_ids"):
        np.testing.assert_array_equal(getattr(threaded, name), getattr(serial, name))
    for a, b in zip(threaded.categories, serial.categories, strict=True):
        for name in ("det_rows", "verdict", "matched_gt", "npig"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert (threaded.precision > 0.5).any()
