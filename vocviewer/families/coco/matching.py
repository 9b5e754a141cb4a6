"""COCOeval's greedy matching, vectorised over images, area ranges and IoU thresholds.

``evaluateImg`` matches the detections of one (image, category) by descending score; each takes
the best still-available ground truth. We run all (image, category) groups of one category in
lockstep: step ``r`` handles every group's ``r``-th ranked detection at once, for every area range
and threshold. Groups never share ground truth, so one step's updates never conflict.

Rules reproduced (``cocoeval.py`` ``evaluateImg``):

- candidates need similarity ``>= min(t, 1 - 1e-10)``; matched non-crowd GT are unavailable,
  crowd GT stay available;
- regular (non-ignored) GT come first: the best regular candidate wins, ties to the **later** GT;
  only when no regular GT qualifies is the best ignored GT taken (again ties to the later one);
- a detection matched to an ignored GT is ignored;
- a NaN similarity (a result with a NaN width, height or keypoint) passes the comparison and
  lets the next available GT through whatever its similarity (``_nan_scan``).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


def _last_best(
    ok: BoolArray, sim: npt.NDArray[np.float64], starts: IntArray, seg: IntArray
) -> IntArray:
    """Per segment (and leading axes), the last entry position with the maximal ``sim`` among
    ``ok`` entries; -1 where none is ``ok``. ``ok`` is (..., E); ``seg`` maps entries to
    segments."""
    key = np.where(ok, sim, -np.inf)
    best = np.maximum.reduceat(key, starts, axis=-1)
    pos = np.arange(key.shape[-1])
    hit = ok & (key == best[..., seg])
    last = np.maximum.reduceat(np.where(hit, pos, -1), starts, axis=-1)
    return np.asarray(last, dtype=np.int64)


def _nan_scan(
    avail: BoolArray,
    sim: npt.NDArray[np.float64],
    thr: npt.NDArray[np.float64],
    best: IntArray,
    starts: IntArray,
) -> IntArray:
    """``best``, redone by ``evaluateImg``'s own loop where a segment has an available pair with
    a NaN similarity: ``if ious[d, g] < iou: continue`` lets a NaN through and, once ``iou`` is
    NaN, the next available GT too (whatever its similarity). Rare: a plain loop."""
    nan = np.isnan(sim)
    if not nan.any():
        return best
    has_nan = np.maximum.reduceat(avail & nan, starts, axis=-1)
    ends = np.r_[starts[1:], avail.shape[-1]]
    out = best.copy()
    for a, t, g in zip(*np.nonzero(has_nan), strict=True):
        iou, m = thr[t], -1
        for e in range(int(starts[g]), int(ends[g])):
            if avail[a, t, e] and not sim[e] < iou:
                iou, m = sim[e], e
        out[a, t, g] = m
    return out


def greedy_match(
    ent_det: IntArray,
    ent_gt: IntArray,
    ent_sim: npt.NDArray[np.float64],
    det_rank: IntArray,
    thresholds: npt.NDArray[np.float64],
    gt_ignore: BoolArray,
    gt_crowd: BoolArray,
    n_det: int,
) -> IntArray:
    """Match detections to ground truth as ``evaluateImg`` does.

    Parameters
    ----------
    ent_det, ent_gt : int64 (E,)
        Candidate pairs (detection row, GT row), sorted by detection then GT in the group's GT
        order; pairs must belong to the same (image, category) group.
    ent_sim : float64 (E,)
        IoU / OKS of each pair.
    det_rank : int64 (D,)
        Rank of each detection within its group (0 = highest score).
    thresholds : float64 (T,)
        IoU thresholds.
    gt_ignore : bool (A, G)
        Ignore flag of each GT per area range.
    gt_crowd : bool (G,)
        Crowd GT (never used up).

    Returns
    -------
    int64 (A, T, D)
        The matched GT row, or -1.
    """
    n_area, n_gt = gt_ignore.shape
    thr = np.minimum(np.asarray(thresholds, dtype=np.float64), 1 - 1e-10)
    match = np.full((n_area, len(thr), n_det), -1, dtype=np.int64)
    nan_det = np.zeros(n_det, dtype=bool)
    nan_det[ent_det[np.isnan(ent_sim)]] = True  # their every pair may be taken (see below)
    keep = (ent_sim >= thr.min()) | nan_det[ent_det] if len(thr) else np.zeros(len(ent_sim), bool)
    d, g, s = ent_det[keep], ent_gt[keep], ent_sim[keep]
    if len(d) == 0:
        return match
    order = np.argsort(det_rank[d], kind="stable")
    d, g, s = d[order], g[order], s[order]
    ranks = det_rank[d]
    cuts = np.flatnonzero(np.diff(ranks)) + 1
    taken = np.zeros((n_area, len(thr), n_gt), dtype=bool)
    for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, len(d)], strict=True):
        dd, gg, ss = d[lo:hi], g[lo:hi], s[lo:hi]
        new_seg = np.r_[True, dd[1:] != dd[:-1]]
        starts = np.flatnonzero(new_seg)
        seg = np.cumsum(new_seg) - 1
        avail = ~taken[:, :, gg] | gt_crowd[gg]
        ok = avail & (ss >= thr[:, None])
        regular = ~gt_ignore[:, gg][:, None, :]
        best_reg = _last_best(ok & regular, ss, starts, seg)
        best_ign = _last_best(ok & ~regular, ss, starts, seg)
        pos_reg = _nan_scan(avail & regular, ss, thr, best_reg, starts)
        pos_ign = _nan_scan(avail & ~regular, ss, thr, best_ign, starts)
        chosen = np.where(pos_reg >= 0, pos_reg, pos_ign)
        a_i, t_i, s_i = np.nonzero(chosen >= 0)
        gsel = gg[chosen[a_i, t_i, s_i]]
        match[a_i, t_i, dd[starts[s_i]]] = gsel
        taken[a_i, t_i, gsel] = True
    return match
