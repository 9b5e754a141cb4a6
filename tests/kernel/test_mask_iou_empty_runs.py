"""Mask IoU of masks whose runs hold empty runs after the first (a results file may carry
them; pycocotools' encoder never writes one): ``rleToBbox`` skips them and ``rleIou``'s joint
walk stops where both masks' next runs are empty at once. ``mask_iou_pairs`` (the evaluation's)
equals pycocotools' ``iou`` pair by pair: on the kernel with the detections decoded or kept as
strings, and on the numpy path."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.kernel.switch import numpy_path
from tests.kernel.test_rle_strings_table import _table
from vocviewer import kernel
from vocviewer.core import rle_columns as rc
from vocviewer.families.coco.columns import RleTable
from vocviewer.families.coco.similarity import mask_iou_pairs

pm = pytest.importorskip("pycocotools.mask")
pytestmark = pytest.mark.skipif(kernel.load("_json") is None, reason="kernels not built")


@st.composite
def masks(draw: st.DrawFn, h: int, w: int) -> list[int]:
    """Runs of an ``h`` x ``w`` mask: few cuts, often repeated (empty runs), summing to h * w."""
    cuts = draw(st.lists(st.integers(0, h * w), max_size=7))
    cuts += draw(st.lists(st.sampled_from([0, *cuts]), max_size=3))  # (repeats: empty runs)
    edges = [0, *sorted(cuts), h * w]
    return [b - a for a, b in itertools.pairwise(edges)]


@st.composite
def scenes(draw: st.DrawFn) -> tuple[list[list[int]], list[list[int]], int, int]:
    h, w = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    det = draw(st.lists(masks(h, w), min_size=1, max_size=5))
    gt = draw(st.lists(masks(h, w), min_size=1, max_size=5))
    return det, gt, h, w


def _columns(runs: list[list[int]], h: int, w: int) -> RleTable:
    parts = [np.array(r, dtype=np.int64) for r in runs]
    offsets = np.concatenate(([0], np.cumsum([len(p) for p in parts]))).astype(np.int64)
    size = np.full(len(runs), h, np.int64), np.full(len(runs), w, np.int64)
    return RleTable(np.concatenate(parts), offsets, *size)


@settings(max_examples=400, deadline=None)
@given(scenes())
def test_mask_iou_of_empty_runs_as_pycocotools(scene: tuple) -> None:  # type: ignore[type-arg]
    det_runs, gt_runs, h, w = scene
    det, gt = _columns(det_runs, h, w), _columns(gt_runs, h, w)
    crowd_of_gt = np.arange(len(gt_runs)) % 3 == 2
    rles = [
        [{"size": [h, w], "counts": s.encode()} for s in rc.to_strings(t.counts, t.offsets)]
        for t in (det, gt)
    ]
    want = np.asarray(pm.iou(*rles, crowd_of_gt)).reshape(-1)
    di = np.repeat(np.arange(len(det_runs)), len(gt_runs))
    gi = np.tile(np.arange(len(gt_runs)), len(det_runs))
    pair = (di, gi, crowd_of_gt[gi], det.bboxes(), gt.bboxes())
    strings = _table(rc.to_strings(det.counts, det.offsets), det.height, det.width)
    assert strings is not None
    assert mask_iou_pairs(det, gt, *pair).tobytes() == want.tobytes()
    assert mask_iou_pairs(strings, gt, *pair).tobytes() == want.tobytes()
    with numpy_path():
        assert mask_iou_pairs(det, gt, *pair).tobytes() == want.tobytes()


def test_a_walk_that_stops_early() -> None:
    """Both masks end a foreground run at pixel 2 and go on with an empty run: rleIou counts
    nothing after it, so masks of IoU 2 / 3 measure 1 / 1 (their pixel 1 alone)."""
    det = _columns([[1, 1, 0, 1, 1]], 2, 2)  # pixels 1 and 2 set
    gt = _columns([[1, 1, 0, 2]], 2, 2)  # pixels 1, 2 and 3 set
    want = np.asarray(
        pm.iou(
            [{"size": [2, 2], "counts": rc.to_strings(det.counts, det.offsets)[0].encode()}],
            [{"size": [2, 2], "counts": rc.to_strings(gt.counts, gt.offsets)[0].encode()}],
            [0],
        )
    ).reshape(-1)
    assert want.tolist() == [1.0]
    pair = (np.array([0]), np.array([0]), np.zeros(1, bool), det.bboxes(), gt.bboxes())
    assert mask_iou_pairs(det, gt, *pair).tolist() == [1.0]
    with numpy_path():
        assert mask_iou_pairs(det, gt, *pair).tolist() == [1.0]
