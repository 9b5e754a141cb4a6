"""Parity with pycocotools: every summary number and the full precision / recall / scores arrays.

Real data: coco-mini (skipped when absent) with generated results (jittered, dropped, relabelled,
duplicated ground truth; fixed seeds) for bbox, segm and keypoints, ``useCats`` on and off.
Synthetic cases: areas exactly 32² / 96², crowd absorbing detections, GT id 0, score ties,
``maxDets`` cut by score.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pycocotools")
from pycocotools import mask as cmask
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval

from vocviewer.families.coco.evaluate import CocoParams, evaluate_coco, summary_lines
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results

MINI = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "coco-mini" / "annotations"
needs_mini = pytest.mark.skipif(not MINI.is_dir(), reason="coco-mini not available")


def gen_bbox(gt: dict[str, Any], seed: int = 0) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    cats = [c["id"] for c in gt["categories"]]
    out = []
    for a in gt["annotations"]:
        x, y, w, h = a["bbox"]
        for _ in range(rng.integers(0, 3)):  # 0 = dropped, 2 = duplicated
            j = rng.normal(0, 0.1, 4) * [w, h, w, h]
            c = a["category_id"] if rng.random() > 0.1 else int(rng.choice(cats))
            box = [x + j[0], y + j[1], max(0.5, w + j[2]), max(0.5, h + j[3])]
            out.append(
                {
                    "image_id": a["image_id"],
                    "category_id": c,
                    "bbox": [round(float(v), 2) for v in box],
                    "score": round(float(rng.random()), 2),
                }
            )
    for im in gt["images"]:
        for _ in range(rng.integers(0, 15)):
            w, h = float(rng.uniform(5, 200)), float(rng.uniform(5, 200))
            box = [
                float(rng.uniform(0, im["width"] - w)),
                float(rng.uniform(0, im["height"] - h)),
                w,
                h,
            ]
            out.append(
                {
                    "image_id": im["id"],
                    "category_id": int(rng.choice(cats)),
                    "bbox": box,
                    "score": round(float(rng.random()), 2),
                }
            )
    return out


def gen_segm(gt: dict[str, Any], seed: int = 1) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    imgs = {i["id"]: i for i in gt["images"]}
    cats = [c["id"] for c in gt["categories"]]
    out = []
    for a in gt["annotations"]:
        im = imgs[a["image_id"]]
        if not isinstance(a["segmentation"], list):
            continue
        for _ in range(rng.integers(0, 3)):
            polys = [list(np.asarray(p) + rng.normal(0, 2, len(p))) for p in a["segmentation"]]
            rle = cmask.merge(cmask.frPyObjects(polys, im["height"], im["width"]))
            c = a["category_id"] if rng.random() > 0.1 else int(rng.choice(cats))
            out.append(
                {
                    "image_id": a["image_id"],
                    "category_id": c,
                    "segmentation": {"size": rle["size"], "counts": rle["counts"].decode()},
                    "score": round(float(rng.random()), 2),
                }
            )
    return out


def gen_keypoints(gt: dict[str, Any], seed: int = 2) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    out = []
    for a in gt["annotations"]:
        if a["num_keypoints"] == 0 and rng.random() < 0.7:
            continue
        x, y, w, h = a["bbox"]
        kp = np.array(a["keypoints"], float).reshape(-1, 3)
        for _ in range(rng.integers(1, 3)):
            k = kp.copy()
            k[:, 0] = np.where(k[:, 2] > 0, k[:, 0], x + rng.random(17) * w)
            k[:, 1] = np.where(k[:, 2] > 0, k[:, 1], y + rng.random(17) * h)
            k[:, :2] += rng.normal(0, 0.05, (17, 2)) * [max(w, 1), max(h, 1)]
            k[:, 2] = 1
            out.append(
                {
                    "image_id": a["image_id"],
                    "category_id": 1,
                    "keypoints": [round(float(v), 2) for v in k.reshape(-1)],
                    "score": round(float(rng.random()), 2),
                }
            )
    return out


def run_both(ann: Path, res: Path, task: str, use_cats: bool) -> None:
    """Assert pycocotools and vocviewer agree on everything."""
    with contextlib.redirect_stdout(io.StringIO()) as buf:
        gt = COCO(str(ann))
        ev = COCOeval(gt, gt.loadRes(str(res)), task)
        ev.params.useCats = int(use_cats)
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    ds = read_coco(ann, masks=task == "segm")
    ours = evaluate_coco(
        ds, read_coco_results(ds, res, task=task), CocoParams.for_task(task, use_cats=use_cats)
    )
    for name in ("precision", "recall", "scores"):
        ref, got = ev.eval[name], getattr(ours, name)
        assert ref.shape == got.shape, name
        np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12, err_msg=name)
    np.testing.assert_allclose(list(ours.stats().values()), ev.stats, rtol=0, atol=1e-12)
    printed = buf.getvalue().splitlines()[-len(ev.stats) :]
    assert summary_lines(ours) == printed


@needs_mini
@pytest.mark.parametrize("use_cats", [True, False])
@pytest.mark.parametrize(
    ("task", "ann", "gen"),
    [
        ("bbox", "instances_val2017.json", gen_bbox),
        ("segm", "instances_val2017.json", gen_segm),
        ("keypoints", "person_keypoints_val2017.json", gen_keypoints),
    ],
)
def test_coco_mini(task: str, ann: str, gen: Any, use_cats: bool, tmp_path: Path) -> None:
    gt = json.loads((MINI / ann).read_text())
    res = tmp_path / "res.json"
    res.write_text(json.dumps(gen(gt)))
    run_both(MINI / ann, res, task, use_cats)


# --- synthetic cases ------------------------------------------------------------------------


def _write(tmp: Path, anns: list[dict[str, Any]], dets: list[dict[str, Any]]) -> tuple[Path, Path]:
    gt = {
        "images": [
            {"id": i, "width": 640, "height": 480, "file_name": f"{i}.jpg"} for i in (1, 2, 7)
        ],
        "categories": [{"id": 1, "name": "a"}, {"id": 3, "name": "b"}],
        "annotations": anns,
    }
    for a in anns:
        a.setdefault("iscrowd", 0)
        x, y, w, h = a["bbox"]
        a.setdefault("area", w * h)
        a.setdefault("segmentation", [[x, y, x, y + h, x + w, y + h, x + w, y]])
    (tmp / "gt.json").write_text(json.dumps(gt))
    (tmp / "dt.json").write_text(json.dumps(dets))
    return tmp / "gt.json", tmp / "dt.json"


def _det(img: int, cat: int, box: list[float], score: float) -> dict[str, Any]:
    return {"image_id": img, "category_id": cat, "bbox": box, "score": score}


SYNTHETIC = {
    "area_bounds": (
        [
            {"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 32, 32]},
            {"id": 2, "image_id": 1, "category_id": 1, "bbox": [100, 100, 96, 96]},
            {"id": 3, "image_id": 2, "category_id": 3, "bbox": [10, 10, 31, 33], "area": 1024.0},
        ],
        [
            _det(1, 1, [0, 0, 32, 32], 0.9),
            _det(1, 1, [100, 100, 96, 96], 0.8),
            _det(2, 3, [10, 10, 31, 33], 0.7),
            _det(2, 3, [300, 300, 32, 32], 0.6),
            _det(2, 3, [200, 200, 96, 96], 0.5),
        ],
    ),
    "crowd_absorbs": (
        [
            {"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 300, 300], "iscrowd": 1},
            {"id": 2, "image_id": 1, "category_id": 1, "bbox": [10, 10, 50, 50]},
        ],
        [
            _det(1, 1, [10, 10, 50, 50], 0.5),
            _det(1, 1, [12, 10, 50, 50], 0.9),
            _det(1, 1, [100, 100, 40, 40], 0.8),
            _det(1, 1, [150, 150, 40, 40], 0.7),
            _det(1, 1, [400, 400, 40, 40], 0.6),
        ],
    ),
    "gt_id_zero": (
        [
            {"id": 0, "image_id": 1, "category_id": 1, "bbox": [0, 0, 50, 50]},
            {"id": 5, "image_id": 2, "category_id": 1, "bbox": [0, 0, 50, 50]},
        ],
        [
            _det(1, 1, [0, 0, 50, 50], 0.9),
            _det(2, 1, [1, 0, 50, 50], 0.8),
            _det(1, 1, [0, 1, 50, 50], 0.3),
        ],
    ),
    "score_ties": (
        [
            {"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 50, 50]},
            {"id": 2, "image_id": 2, "category_id": 1, "bbox": [0, 0, 50, 50]},
            {"id": 3, "image_id": 7, "category_id": 3, "bbox": [0, 0, 50, 50]},
        ],
        [
            _det(7, 1, [0, 0, 50, 50], 0.5),
            _det(2, 1, [60, 60, 50, 50], 0.5),
            _det(1, 1, [0, 0, 50, 50], 0.5),
            _det(2, 1, [0, 0, 50, 50], 0.5),
            _det(7, 3, [0, 0, 51, 50], 0.5),
            _det(7, 3, [0, 0, 50, 50], 0.5),
        ],
    ),
}


@pytest.mark.parametrize("use_cats", [True, False])
@pytest.mark.parametrize("case", sorted(SYNTHETIC))
def test_synthetic(case: str, use_cats: bool, tmp_path: Path) -> None:
    anns, dets = SYNTHETIC[case]
    ann, res = _write(tmp_path, json.loads(json.dumps(anns)), dets)
    for task in ("bbox", "segm"):
        run_both(ann, res, task, use_cats)


@pytest.mark.parametrize("use_cats", [True, False])
def test_max_dets_cut_by_score(use_cats: bool, tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    anns = [
        {"id": i + 1, "image_id": 1, "category_id": 1, "bbox": [float(x), 20.0, 30.0, 30.0]}
        for i, x in enumerate(range(0, 600, 40))
    ]
    dets = [
        _det(
            1,
            1 if i % 3 else 3,
            [float(rng.uniform(0, 600)), 20.0, 30.0, 30.0],
            round(float(rng.random()), 2),
        )
        for i in range(250)
    ]
    ann, res = _write(tmp_path, anns, dets)
    run_both(ann, res, "bbox", use_cats)


def test_id0_fix_is_an_option(tmp_path: Path) -> None:
    anns, dets = SYNTHETIC["gt_id_zero"]
    ann, res = _write(tmp_path, json.loads(json.dumps(anns)), dets)
    ds = read_coco(ann)
    rs = read_coco_results(ds, res)
    quirk = evaluate_coco(ds, rs)
    fixed = evaluate_coco(ds, rs, CocoParams.for_task("bbox", fix_id0=True))
    assert fixed.ap(iou=0.5) > quirk.ap(iou=0.5)
    assert fixed.ap(iou=0.5) == pytest.approx(1.0)


def _runs_with_empty_ones(rng: np.random.Generator, size: int) -> list[int]:
    """Runs of a mask of ``size`` pixels cut at a few places, some cut twice (an empty run)."""
    cuts = rng.integers(0, size, int(rng.integers(2, 12))).tolist()
    cuts += rng.choice(cuts, int(rng.integers(1, 4))).tolist()
    edges = [0, *sorted(cuts), size]
    return [b - a for a, b in itertools.pairwise(edges)]


@pytest.mark.parametrize("use_cats", [True, False])
def test_masks_with_empty_runs(use_cats: bool, tmp_path: Path) -> None:
    """Ground truth (uncompressed RLE, crowd or not) and results (compressed strings) whose
    runs hold empty ones, which pycocotools' encoder never writes: ``rleToBbox`` skips them and
    ``rleIou``'s walk stops early where both masks go on with an empty run after a shared
    boundary (a result made from its object's own runs shares them all)."""
    rng = np.random.default_rng(11)
    anns, dets = [], []
    for img in (1, 2, 7):
        for k in range(4):
            runs = _runs_with_empty_ones(rng, 480 * 640)
            rle = cmask.frPyObjects({"size": [480, 640], "counts": runs}, 480, 640)
            box = [float(v) for v in cmask.toBbox(rle)]
            crowd = int(k == 3)
            anns.append(
                {"id": len(anns) + 1, "image_id": img, "category_id": 1 + 2 * (k % 2)}
                | {"bbox": box, "area": float(cmask.area(rle)), "iscrowd": crowd}
                | {"segmentation": {"size": [480, 640], "counts": runs}}
            )
            for variant in (runs, _runs_with_empty_ones(rng, 480 * 640)):
                r = cmask.frPyObjects({"size": [480, 640], "counts": variant}, 480, 640)
                seg = {"size": [480, 640], "counts": r["counts"].decode()}
                det = {"image_id": img, "category_id": 1 + 2 * (k % 2), "segmentation": seg}
                dets.append(det | {"score": round(float(rng.random()), 3)})
    ann, res = _write(tmp_path, anns, dets)
    run_both(ann, res, "segm", use_cats)
