"""Parity with the ``lvis`` package's ``LVISEval`` (0.5.3): the 13 summary numbers, the full
precision and recall arrays and every category's AP, on generated federated data (several seeds;
bbox, segm from RLE and segm from RLE + bbox) and on small hand-made cases. See ``lvis_data`` for
the traps the generated files hold; ``test_the_generated_files_hold_every_trap`` checks they do.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vocviewer.families.coco.columns import CocoAnnotations
from vocviewer.families.lvis.columns import LvisAnnotations

pytest.importorskip("lvis")
pytest.importorskip("pycocotools")

from tests.parity.lvis_data import lvis_eval, write_lvis
from vocviewer.evaluation.result import Verdict
from vocviewer.families.coco.evaluate import CocoParams, evaluate_coco
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results
from vocviewer.families.lvis import evaluate as ev_lvis
from vocviewer.families.lvis.columns import LvisResults
from vocviewer.families.lvis.evaluate import LvisEvalResult, evaluate_lvis
from vocviewer.families.lvis.reader import read_lvis, read_lvis_results

#: the largest difference seen in any comparison of this module (reported by the last test)
MAX_DIFF: list[float] = [0.0]


def category_ap(precision: np.ndarray) -> np.ndarray:
    """Per category: the mean of ``precision[:, :, k, area all]`` over entries > -1 (NaN if
    none), computed from ``LVISEval.eval["precision"]``."""
    out = np.full(precision.shape[2], np.nan)
    for k in range(precision.shape[2]):
        s = precision[:, :, k, 0]
        if (s > -1).any():
            out[k] = float(np.mean(s[s > -1]))
    return out


def ours(ann: Path, res: Path, task: str) -> LvisEvalResult:
    ds = read_lvis(ann, masks=task == "segm")
    return evaluate_lvis(ds, read_lvis_results(ds, res, task=task), task)


def compare(ann: Path, res: Path, task: str) -> LvisEvalResult:
    """Assert vocviewer and ``LVISEval`` agree to 1e-9 on everything; return ours."""
    ref = lvis_eval(ann, res, task)
    got = ours(ann, res, task)
    summary = got.summary()
    assert list(summary) == list(ref.results)
    diffs = [abs(summary[k] - float(v)) for k, v in ref.results.items()]
    for name in ("precision", "recall"):
        assert getattr(got, name).shape == ref.eval[name].shape, name
        diffs.append(float(np.abs(getattr(got, name) - ref.eval[name]).max(initial=0)))
    ap_ref = category_ap(ref.eval["precision"])
    ap_got = np.array([c.ap for c in got.categories])
    assert np.array_equal(np.isnan(ap_ref), np.isnan(ap_got))
    diffs.append(float(np.nanmax(np.abs(ap_got - ap_ref), initial=0)))
    assert got.category_ids.tolist() == ref.params.cat_ids
    MAX_DIFF[0] = max(MAX_DIFF[0], *diffs)
    assert max(diffs) <= 1e-9, diffs
    return got


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("kind", ["bbox", "segm", "segm+bbox"])
def test_generated_federated_data(tmp_path: Path, seed: int, kind: str) -> None:
    ann, res = write_lvis(tmp_path, seed, kind=kind, ignore=seed % 2 == 1, crowded=1 + seed % 2)
    compare(ann, res, "bbox" if kind == "bbox" else "segm")


def test_box_results_evaluated_as_masks(tmp_path: Path) -> None:
    """Box results for segm: ``LVISResults`` gives each its box polygon as the mask."""
    ann, res = write_lvis(tmp_path, 7, kind="bbox")
    compare(ann, res, "segm")


def test_the_generated_files_hold_every_trap(tmp_path: Path) -> None:
    """Each federated rule decides something in the generated files, and dropping it would
    change the numbers: this is what makes the parity above mean something."""
    ann, res = write_lvis(tmp_path, 0, kind="bbox", ignore=True)
    ds = read_lvis(ann, masks=False)
    rs = read_lvis_results(ds, res)
    sel = ev_lvis.select(ds, rs)
    counts = np.bincount(sel.status, minlength=4)
    assert all(counts > 0), counts  # evaluated, over the cap, zero area, unverified
    lv = ds.data(LvisAnnotations)
    assert set(lv.frequency.tolist()) == {"r", "c", "f"}
    assert lv.ignore.any() and (~sel.object_evaluated).any()  # ignore flags, an area-0 object
    assert ds.data(CocoAnnotations).iscrowd.any()  # crowd flags LVIS never looks at
    result = compare(ann, res, "bbox")
    assert np.isnan([c.ap for c in result.categories]).sum() >= 2  # categories without GT
    # entries of a category the file lacks take places among an image's 300
    bare = ev_lvis.select(ds, rs.with_data(LvisResults.empty()))
    assert not np.array_equal(bare.status, sel.status)
    # an unmatched detection of a not-exhaustive category is ignored, not a false positive
    ne_ignored = 0
    for c in result.categories:
        on = sel.status[c.det_rows] == ev_lvis.EVALUATED
        ne = sel.not_exhaustive[c.det_rows] & on & (c.matched_gt[0] < 0)
        assert (c.verdict[0][ne] == Verdict.IGNORED).all()
        ne_ignored += int(ne.sum())
        assert (c.verdict[:, ~on] == Verdict.IGNORED).all()  # not evaluated: IGNORED
    assert ne_ignored > 0
    # COCO's rules on the same files give other numbers
    coco_gt = read_coco(ann, masks=False)
    coco = evaluate_coco(coco_gt, read_coco_results(coco_gt, res), CocoParams.for_task("bbox"))
    assert abs(coco.ap() - result.summary()["AP"]) > 1e-3


# --- hand-made cases ------------------------------------------------------------------------
def _doc(anns: list[dict[str, Any]], freq: tuple[str, ...] = ("c", "f")) -> dict[str, Any]:
    images = [
        {
            "id": 5,
            "width": 200,
            "height": 150,
            "coco_url": "http://x/val2017/5.jpg",
            "neg_category_ids": [3],
            "not_exhaustive_category_ids": [],
        },
        {
            "id": 2,
            "width": 200,
            "height": 150,
            "coco_url": "http://x/val2017/2.jpg",
            "neg_category_ids": [],
            "not_exhaustive_category_ids": [1],
        },
    ]
    cats = [
        {"id": 3, "name": "b", "frequency": freq[1]},
        {"id": 1, "name": "a", "frequency": freq[0]},
    ]
    for a in anns:
        x, y, w, h = a["bbox"]
        a.setdefault("area", w * h)
        a.setdefault("segmentation", [[x, y, x, y + h, x + w, y + h, x + w, y]])
    return {"images": images, "annotations": anns, "categories": cats}


def _det(img: int, cat: int, box: list[float], score: float) -> dict[str, Any]:
    return {"image_id": img, "category_id": cat, "bbox": box, "score": score}


CASES = {
    "gt_id_zero_and_ignore": (
        [
            {"id": 0, "image_id": 5, "category_id": 1, "bbox": [10, 10, 40, 40]},
            {"id": 7, "image_id": 5, "category_id": 1, "bbox": [100, 10, 40, 40], "ignore": 1},
            {"id": 8, "image_id": 2, "category_id": 3, "bbox": [10, 10, 40, 40], "iscrowd": 1},
        ],
        [
            _det(5, 1, [10, 10, 40, 40], 0.9),  # matches GT id 0: counted unmatched
            _det(5, 1, [101, 10, 40, 40], 0.8),  # matches an ignored GT: ignored
            _det(5, 3, [10, 100, 30, 30], 0.7),  # negative category: a false positive
            _det(2, 3, [12, 10, 40, 40], 0.6),  # iscrowd means nothing: a true positive
            _det(2, 3, [12, 11, 40, 40], 0.5),  # and this one a false positive
            _det(2, 1, [50, 50, 20, 20], 0.4),  # not exhaustive, unmatched: ignored
        ],
    ),
    "area_bounds_and_ties": (
        [
            {"id": 1, "image_id": 5, "category_id": 1, "bbox": [0, 0, 32, 32]},
            {"id": 2, "image_id": 5, "category_id": 1, "bbox": [60, 60, 96, 96]},
            {"id": 3, "image_id": 2, "category_id": 3, "bbox": [10, 10, 31, 33], "area": 1024.0},
            {"id": 4, "image_id": 2, "category_id": 3, "bbox": [90, 20, 5, 5], "area": 0.0},
        ],
        [
            _det(5, 1, [0, 0, 32, 32], 0.5),
            _det(5, 1, [1, 0, 32, 32], 0.5),
            _det(5, 1, [60, 60, 96, 96], 0.5),
            _det(2, 3, [10, 10, 31, 33], 0.5),
            _det(2, 3, [90, 20, 5, 5], 0.5),  # only the area-0 object is there: a false positive
            _det(2, 1, [0, 0, 2, 2], 0.9),  # not exhaustive on image 2
        ],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("freq", [("c", "f"), ("r", "r")])
def test_hand_made(tmp_path: Path, case: str, freq: tuple[str, ...]) -> None:
    """Also an empty frequency group (``APr`` / ``APf`` = -1)."""
    anns, dets = CASES[case]
    ann, res = tmp_path / "lvis.json", tmp_path / "res.json"
    ann.write_text(json.dumps(_doc([dict(a) for a in anns], freq)))
    res.write_text(json.dumps(dets))
    for task in ("bbox", "segm"):
        got = compare(ann, res, task)
        assert sum(v == -1 for v in got.summary().values()) >= 1  # an empty group or range


def test_max_difference_reported(capsys: pytest.CaptureFixture[str]) -> None:
    """Runs last in this module: the largest difference over every comparison above."""
    with capsys.disabled():
        sys.stdout.write(f"\nLVIS parity: max |vocviewer - LVISEval| = {MAX_DIFF[0]:.3g}\n")
    assert MAX_DIFF[0] <= 1e-9
