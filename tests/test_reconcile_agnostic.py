"""``vocviewer reconcile``'s what-if rule: class-agnostic matching, switched alone from COCO AP50,
equals pycocotools' AP50 with ``params.useCats = 0`` on the same files (generated data with
crowds, ties and several classes per image; coco-mini; the demo as COCO reads it)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.parity.test_coco_parity import MINI, gen_bbox, needs_mini
from tests.test_reconcile import _demo_as_coco, _pycocotools_ap50, _run, _telescopes

pytest.importorskip("pycocotools")
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval


def _agnostic_ap50(gt: dict[str, Any], dt: Path | list[dict[str, Any]]) -> float:
    with contextlib.redirect_stdout(io.StringIO()):
        coco = COCO()
        coco.dataset = gt
        coco.createIndex()
        res = coco.loadRes(str(dt) if isinstance(dt, Path) else dt)
        e = COCOeval(coco, res, "bbox")
        e.params.useCats = 0
        e.evaluate()
        e.accumulate()
        e.summarize()
    return float(e.stats[1])


def _check(payload: dict[str, Any], gt: dict[str, Any], dt: Path | list[dict[str, Any]]) -> float:
    _telescopes(payload)  # the path is unchanged by the rule beside it
    (w,) = payload["what_if"]
    assert (w["from"], w["rule"]) == ("COCO AP50", "class-agnostic matching")
    assert w["value"] == pytest.approx(_agnostic_ap50(gt, dt), abs=1e-12)
    base = payload["protocols"]["COCO AP50"]
    assert base == pytest.approx(_pycocotools_ap50(gt, dt), abs=1e-12)
    return float(w["change"])


def _generated(rng: np.random.Generator) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Three classes on top of each other, crowd regions, scores rounded to ties, more than
    100 detections on some images (the cap is per image when agnostic)."""
    images = [{"id": i + 1, "width": 300, "height": 300, "file_name": f"{i}.jpg"} for i in range(6)]
    anns: list[dict[str, Any]] = []
    dts: list[dict[str, Any]] = []
    for im in images:
        for _ in range(int(rng.integers(5, 30))):
            x, y = rng.uniform(0, 220, 2)
            w, h = rng.uniform(8, 70, 2)
            k = int(rng.integers(1, 4))
            anns.append(
                {
                    "id": len(anns) + 1,
                    "image_id": im["id"],
                    "category_id": k,
                    "bbox": [float(x), float(y), float(w), float(h)],
                    "area": float(w * h),
                    "iscrowd": int(rng.random() < 0.08),
                }
            )
            for _ in range(int(rng.integers(1, 5))):
                j = rng.normal(0, 0.15, 4) * [w, h, w, h]
                dts.append(
                    {
                        "image_id": im["id"],
                        "category_id": int(rng.integers(1, 4)) if rng.random() < 0.4 else k,
                        "score": float(np.round(rng.random(), 1)),
                        "bbox": [
                            float(x + j[0]),
                            float(y + j[1]),
                            float(abs(w + j[2])),
                            float(abs(h + j[3])),
                        ],
                    }
                )
    cats = [{"id": k, "name": f"c{k}"} for k in (1, 2, 3)]
    order = rng.permutation(len(dts))
    return {"images": images, "categories": cats, "annotations": anns}, [dts[i] for i in order]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_generated_agnostic_matching_is_pycocotools_use_cats_0(tmp_path: Path, seed: int) -> None:
    gt, dts = _generated(np.random.default_rng(seed))
    (tmp_path / "gt").mkdir()
    gt_path, dt_path = tmp_path / "gt" / "gt.json", tmp_path / "dt.json"
    gt_path.write_text(json.dumps(gt))
    dt_path.write_text(json.dumps(dts))
    payload = _run(tmp_path, str(gt_path), "--results", str(dt_path))
    assert abs(_check(payload, gt, dt_path)) > 1e-6  # wrong-class boxes become true positives


@needs_mini
def test_coco_mini_agnostic_matching(tmp_path: Path) -> None:
    gt_path = MINI / "instances_val2017.json"
    gt = json.loads(gt_path.read_text())
    dt = tmp_path / "dt.json"
    dt.write_text(json.dumps(gen_bbox(gt, seed=3)))
    _check(_run(tmp_path, str(gt_path), "--results", str(dt)), gt, dt)


def test_demo_agnostic_matching(demo: Any, tmp_path: Path) -> None:
    files = sorted((demo.results_dir / "Main").glob("comp4_det_val_*.txt"))
    payload = _run(tmp_path, str(demo.year_dir), "--results", *map(str, files))
    gt, dts = _demo_as_coco(demo.year_dir, files)
    _check(payload, gt, dts)
