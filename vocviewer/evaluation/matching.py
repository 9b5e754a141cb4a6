"""Shared, vectorised matching primitives.

``best_overlaps`` finds, for every detection, the ground-truth box of the same image with the
largest overlap (first in annotation order on ties) without a Python loop over boxes: it expands
all (detection, same-image ground truth) pairs with ``np.repeat`` and reduces per detection
(where the compiled kernel ``vocviewer.kernel._match`` is built, one loop there does the same).
``first_claims`` turns "candidate per detection, in rank order" into who claims each candidate
first — VOC's greedy assignment, since VOC never falls back to a second-best box.
``greedy_with_fallback`` is the greedy assignment of protocols that do fall back (ILSVRC): each
detection, in priority order, takes its most preferred ground truth that is still free.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vocviewer.core.boxes import overlap_pairs
from vocviewer.kernel import load as load_kernel

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


def group_offsets(sorted_keys: IntArray, n_groups: int) -> IntArray:
    """``offsets[g]:offsets[g+1]`` is the run of ``g`` in ``sorted_keys`` (int64, length n+1)."""
    return np.searchsorted(sorted_keys, np.arange(n_groups + 1), side="left").astype(np.int64)


def same_image_pairs(det_image: IntArray, gt_offsets: IntArray) -> tuple[IntArray, IntArray]:
    """Every (detection, ground truth of the same image) pair, detection-major.

    ``gt_offsets`` as in ``best_overlaps``. Returns ``pair_det``, ``pair_gt`` int64 (P,), pairs
    of each detection contiguous and in annotation order.
    """
    start = gt_offsets[det_image]
    count = gt_offsets[det_image + 1] - start
    total = int(count.sum())
    pair_det = np.repeat(np.arange(len(det_image), dtype=np.int64), count)
    seg_start = np.cumsum(count) - count
    within = np.arange(total, dtype=np.int64) - np.repeat(seg_start, count)
    return pair_det, np.repeat(start, count) + within


def best_overlaps(
    det_image: IntArray,
    det_box: FloatArray,
    gt_offsets: IntArray,
    gt_box: FloatArray,
    *,
    plus_one: bool,
) -> tuple[IntArray, FloatArray]:
    """Largest-overlap ground truth of each detection's image.

    Parameters
    ----------
    det_image : int64 (D,)
        Image row of each detection (any order).
    det_box : float64 (D, 4)
        Detection boxes, xyxy.
    gt_offsets : int64 (I + 1,)
        Ground truth of image ``i`` is ``gt_box[gt_offsets[i]:gt_offsets[i+1]]``, in annotation
        order.
    gt_box : float64 (G, 4)
        Ground-truth boxes, xyxy.
    plus_one
        Inclusive-pixel sizes (VOC) or not; see ``core.boxes.overlap_pairs``.

    Returns
    -------
    best : int64 (D,)
        Row in ``gt_box`` of the considered box with the largest overlap, the first in annotation
        order on ties (the official strict ``>`` scan), or -1 if no box is considered
        (no positive-area intersection, or only NaN overlaps).
    best_overlap : float64 (D,)
        Its overlap; NaN where ``best`` is -1.
    """
    d = len(det_image)
    if d and len(gt_box) and (k := load_kernel("_match")) is not None:
        out: tuple[IntArray, FloatArray] = k.best_overlaps(
            det_image, det_box, gt_offsets, gt_box, plus_one
        )
        return out
    best = np.full(d, -1, dtype=np.int64)
    best_ov = np.full(d, np.nan)
    if d == 0 or len(gt_box) == 0:
        return best, best_ov
    pair_det, pair_gt = same_image_pairs(det_image, gt_offsets)
    total = len(pair_det)
    if total == 0:
        return best, best_ov
    count = gt_offsets[det_image + 1] - gt_offsets[det_image]
    seg_start = np.cumsum(count) - count  # first pair of each detection
    _, ov = overlap_pairs(det_box[pair_det], gt_box[pair_gt], plus_one=plus_one)
    ov = np.where(np.isnan(ov), -np.inf, ov)  # NaN never wins a strict ">" scan
    has = count > 0
    seg_max = np.full(d, -np.inf)
    seg_max[has] = np.maximum.reduceat(ov, seg_start[has])
    is_max = (ov == seg_max[pair_det]) & (ov > -np.inf)
    pos = np.where(is_max, np.arange(total, dtype=np.int64), total)
    first = np.full(d, total, dtype=np.int64)
    first[has] = np.minimum.reduceat(pos, seg_start[has])
    found = first < total
    best[found] = pair_gt[first[found]]
    best_ov[found] = ov[first[found]]
    return best, best_ov


def first_claims(candidate: IntArray, eligible: npt.NDArray[np.bool_]) -> IntArray:
    """Greedy claims in rank order, without fallback.

    ``candidate[r]`` is the ground truth wanted by rank ``r``; only ``eligible`` ranks claim.
    Returns ``claimed_by`` int64 (R,): for each eligible rank, the rank that claimed its candidate
    first (itself for the winner); -1 for ineligible ranks.
    """
    claimed_by = np.full(len(candidate), -1, dtype=np.int64)
    ranks = np.flatnonzero(eligible)
    if len(ranks) == 0:
        return claimed_by
    _, first, inverse = np.unique(candidate[ranks], return_index=True, return_inverse=True)
    claimed_by[ranks] = ranks[first][inverse]
    return claimed_by


def greedy_with_fallback(
    pair_det: IntArray,
    pair_gt: IntArray,
    preference: IntArray,
    det_priority: IntArray,
    n_det: int,
    n_gt: int,
) -> IntArray:
    """Sequential greedy assignment with fallback, computed in vectorised rounds.

    Each detection, in ``det_priority`` order (smaller first), takes the most preferred of its
    candidate ground truths (``pair_*``: the qualifying pairs) that no earlier detection took.
    ``preference`` int64 (P,) ranks a detection's candidates (smaller = preferred; distinct per
    detection). A round resolves every detection that is the earliest undecided claimant of each
    of its still-free candidates — such detections share no candidate — so the earliest
    undecided detection always resolves and the result equals the sequential scan.

    Returns ``taken`` int64 (n_det,): the ground truth each detection took, or -1.
    """
    taken = np.full(n_det, -1, dtype=np.int64)
    free = np.ones(n_gt, dtype=bool)
    order = np.lexsort((det_priority[pair_det], pair_gt))  # by ground truth, then priority
    pd, pg, pref = pair_det[order], pair_gt[order], preference[order]
    while len(pd):
        first = np.ones(len(pd), dtype=bool)
        first[1:] = pg[1:] != pg[:-1]
        blocked = np.zeros(n_det, dtype=bool)
        blocked[pd[~first]] = True
        ready = np.flatnonzero(~blocked[pd])
        ready = ready[np.lexsort((pref[ready], pd[ready]))]
        head = np.ones(len(ready), dtype=bool)
        head[1:] = pd[ready][1:] != pd[ready][:-1]
        chosen = ready[head]
        taken[pd[chosen]] = pg[chosen]
        free[pg[chosen]] = False
        keep = blocked[pd] & free[pg]
        pd, pg, pref = pd[keep], pg[keep], pref[keep]
    return taken
