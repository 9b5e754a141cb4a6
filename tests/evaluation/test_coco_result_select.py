"""``CocoEvalResult``: ``ap()`` / ``ar()`` select as ``summarize()`` does (fancy indexing, then
``np.mean(s[s > -1])``), bit for bit, whatever is selected (an area, cap or IoU the params
lack, one named twice, a category); ``scores`` is ``np.stack`` of the categories' scores, made
when first read and carried through ``dataclasses.replace``."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from vocviewer.core.results import is_made
from vocviewer.families.coco.evaluate import CocoEvalResult, CocoParams, evaluate_coco
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results

MINI = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "coco-mini" / "annotations"
pytestmark = pytest.mark.skipif(not MINI.is_dir(), reason="coco-mini not available")


def _summarize_select(
    r: CocoEvalResult, arr: np.ndarray, iou: float | None, area: str, cap: int, cat: int | None
) -> float:
    """pycocotools' ``_summarize``: ``np.where`` on the IoU, lists of area / cap positions."""
    a = [i for i, name in enumerate(r.area_ranges) if name == area]
    m = [i for i, c in enumerate(r.max_dets) if c == cap]
    if iou is not None:
        arr = arr[np.where(iou == r.iou_thresholds)[0]]
    if cat is not None:
        k = int(np.flatnonzero(r.category_ids == cat)[0])
        arr = arr[..., k : k + 1, :, :]
    s = arr[..., a, :][..., m]
    return float(np.mean(s[s > -1])) if len(s[s > -1]) else -1.0


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> list[CocoEvalResult]:
    from tests.parity.test_coco_parity import gen_bbox

    ann = MINI / "instances_val2017.json"
    res = tmp_path_factory.mktemp("select") / "dt.json"
    res.write_text(json.dumps(gen_bbox(json.loads(ann.read_text()), seed=3)))
    ds = read_coco(ann, masks=False)
    rs = read_coco_results(ds, res)
    twice = CocoParams(
        area_ranges=((0, 1e10), (0, 32**2), (0, 1e10)), area_names=("all", "small", "all")
    )
    return [evaluate_coco(ds, rs, p) for p in (CocoParams(), twice)]


def test_ap_and_ar_as_summarize(results: list[CocoEvalResult]) -> None:
    for r in results:
        cats = [None, int(r.category_ids[0]), int(r.category_ids[-1])]
        for iou in (None, 0.5, 0.75, 0.55, 0.52):  # (0.52: no such threshold)
            for area in ("all", "small", "medium", "tiny"):
                for cap in (1, 10, 100, 7):
                    for cat in cats:
                        for arr, pick in ((r.precision, r.ap), (r.recall, r.ar)):
                            want = _summarize_select(r, arr, iou, area, cap, cat)
                            got = pick(iou, area, cap, cat)
                            assert np.float64(got).tobytes() == np.float64(want).tobytes()


def test_scores_stacked_when_read(results: list[CocoEvalResult]) -> None:
    r = results[0]
    assert not is_made(r, "scores")
    again = dataclasses.replace(r, notes=("x",))
    want = np.stack([c.scores for c in r.categories], axis=2)
    assert r.scores.shape == want.shape and np.array_equal(r.scores, want)
    assert is_made(r, "scores")
    assert np.array_equal(again.scores, want)
