"""COCOeval's ``accumulate`` for one category: precision / recall / score arrays.

For each area range and detection cap, the category's detections (each group's first ``maxDet``
by score) are ranked by a stable sort on descending score, ties by image (ascending id) and then
by rank within the image; precision ``tp / (tp + fp + eps)`` gets a right-to-left max envelope
and is sampled at the recall thresholds with ``searchsorted(side="left")`` (0 past the end).
Entries with no non-ignored ground truth stay -1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
_EPS = np.spacing(1)


@dataclass(frozen=True)
class CategoryCurves:
    """One category's accumulated arrays (-1 where undefined).

    precision, scores : float64 (T, R, A, M); recall : float64 (T, A, M);
    order : int64 (N,) positions (in the category's detection arrays) in global rank order.
    """

    precision: FloatArray
    recall: FloatArray
    scores: FloatArray
    order: npt.NDArray[np.int64]


def accumulate_category(
    score: FloatArray,
    image_pos: npt.NDArray[np.int64],
    rank: npt.NDArray[np.int64],
    tp: npt.NDArray[np.bool_],
    fp: npt.NDArray[np.bool_],
    npig: npt.NDArray[np.int64],
    rec_thrs: FloatArray,
    max_dets: tuple[int, ...],
) -> CategoryCurves:
    """Accumulate one category.

    Parameters
    ----------
    score, image_pos, rank : (N,)
        Each detection's score, its image's position in ascending image-id order and its rank
        within its (image, category) group.
    tp, fp : bool (A, T, N)
        True / false positive per area range and threshold (ignored: both False).
    npig : int64 (A,)
        Non-ignored ground truth per area range.
    """
    n_area, n_thr, _ = tp.shape
    n_rec, n_cap = len(rec_thrs), len(max_dets)
    precision = -np.ones((n_thr, n_rec, n_area, n_cap))
    recall = -np.ones((n_thr, n_area, n_cap))
    scores = -np.ones((n_thr, n_rec, n_area, n_cap))
    order = np.lexsort((rank, image_pos, -score))
    areas = np.flatnonzero(npig > 0)  # the others stay -1
    if len(areas) == 0:
        return CategoryCurves(precision, recall, scores, order)
    row_npig = np.repeat(npig[areas], n_thr)
    tp_rows, fp_rows = _flat(tp, areas), _flat(fp, areas)  # (area range, threshold) rows
    k_min = _k_min(row_npig, rec_thrs)  # the TP count each recall threshold needs
    tp_row, tp_det = np.nonzero(tp_rows)
    rank_sorted = rank[order]
    done: dict[int, int] = {}  # detections kept -> the cap computed with them
    for m, cap in enumerate(max_dets):
        sel = order[rank_sorted < cap]
        nd = len(sel)
        if nd in done:  # caps keep nested sets: as many detections means the same ones
            m0 = done[nd]
            recall[:, :, m], precision[..., m], scores[..., m] = (
                recall[:, :, m0],
                precision[..., m0],
                scores[..., m0],
            )
            continue
        done[nd] = m
        rc, q, ss = _curves(tp_row, tp_det, fp_rows, sel, score[sel], row_npig, k_min)
        recall[:, areas, m] = rc.reshape(len(areas), n_thr).T
        precision[:, :, areas, m] = q.reshape(len(areas), n_thr, n_rec).transpose(1, 2, 0)
        scores[:, :, areas, m] = ss.reshape(len(areas), n_thr, n_rec).transpose(1, 2, 0)
    return CategoryCurves(precision, recall, scores, order)


def _curves(
    tp_row: npt.NDArray[np.intp],
    tp_det: npt.NDArray[np.intp],
    fp_rows: npt.NDArray[np.bool_],
    sel: npt.NDArray[np.int64],
    s_sorted: FloatArray,
    row_npig: npt.NDArray[np.int64],
    k_min: npt.NDArray[np.int64],
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Recall (rows,), precision and score at each recall threshold (rows, R) of the detections
    ``sel`` (in rank order), from the TP entries ``(tp_row, tp_det)`` (row, detection) only.

    ``accumulate``'s precision ``tp / (tp + fp + eps)`` is flat or falls between two TPs, so its
    right-to-left max envelope at a TP is the max over that TP and the later ones; and the first
    position whose recall reaches a threshold is where the ``k_min``-th TP lies (position 0 when
    ``k_min`` is 0). So only the TPs' precisions are computed, with the same float operations as
    pycocotools' arrays: the FP count at each TP is the one dense pass."""
    n_rows, nd = len(row_npig), len(sel)
    if nd == 0:
        zeros = np.zeros(k_min.shape)
        return np.zeros(n_rows), zeros, zeros
    pos = np.full(fp_rows.shape[1], -1, dtype=np.int64)
    pos[sel] = np.arange(nd)
    p = pos[tp_det]
    kept = p >= 0
    key = np.sort(tp_row[kept] * nd + p[kept])  # by row, then rank position
    r, p = key // nd, key % nd
    count = np.bincount(r, minlength=n_rows)  # TPs per row
    first = np.cumsum(count) - count
    k = np.arange(len(r)) - first[r]  # 0-based TP number within its row
    fp_cum = np.take(fp_rows.view(np.uint8), sel, axis=1).astype(np.int32)  # C order (not [:, sel])
    np.cumsum(fp_cum, axis=1, out=fp_cum)
    tp_sum = (k + 1).astype(np.float64)
    pr = tp_sum / (fp_cum[r, p].astype(np.float64) + tp_sum + _EPS)
    width = max(int(count.max(initial=0)), 1)  # no row: no IoU threshold
    env = np.zeros((n_rows, width))  # precision >= 0: zero padding changes no maximum
    env[r, k] = pr
    env = np.maximum.accumulate(env[:, ::-1], axis=1)[:, ::-1]
    tp_pos = np.zeros((n_rows, width), dtype=np.int64)
    tp_pos[r, k] = p
    reach = k_min <= count[:, None]
    j = np.minimum(np.maximum(k_min, 1) - 1, width - 1)
    rows = np.arange(n_rows)[:, None]
    q = np.where(reach, env[rows, j], 0.0)  # (no TP at all: env is 0, as pr[0] is)
    idx = np.where(k_min == 0, 0, tp_pos[rows, j])
    ss = np.where(reach, s_sorted[idx], 0.0)
    return count.astype(np.float64) / row_npig, q, ss


def _k_min(npig: npt.NDArray[np.int64], rec_thrs: FloatArray) -> npt.NDArray[np.int64]:
    """The smallest TP count ``k`` with ``k / npig[i] >= rec_thrs[r]``, int64 (rows, R); int64's
    maximum where none is (a threshold above 1). Exact: ``k / npig`` is monotone in ``k``, and
    the smallest such ``k`` lies within a rounding of ``thr * npig``."""
    npig = np.asarray(npig, dtype=np.int64).reshape(-1, 1, 1)
    thr = rec_thrs[None, :, None]
    base = np.maximum(np.floor(thr * npig).astype(np.int64) - 2, 0)
    cand = base + np.arange(5)
    ok = cand / npig >= thr
    k_min = (np.argmax(ok, axis=2) + base[:, :, 0]).astype(np.int64)
    return np.where(ok.any(axis=2), k_min, np.iinfo(np.int64).max)


def _flat(flags: npt.NDArray[np.bool_], areas: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    """``flags[areas]`` (A, T, N) as (A * T, N), without a copy when every area is kept."""
    if len(areas) < flags.shape[0]:
        flags = flags[areas]
    return flags.reshape(flags.shape[0] * flags.shape[1], flags.shape[2])


def _recall_index(
    tp_cum: npt.NDArray[np.signedinteger[Any]], npig: npt.NDArray[np.int64], rec_thrs: FloatArray
) -> npt.NDArray[np.int64]:
    """``searchsorted(tp_cum[i] / npig[i], rec_thrs, side="left")`` for every row ``i`` at once:
    int64 (rows, R). Exact: ``k / npig`` is monotone in ``k``, so the first recall at or above a
    threshold is the first count at or above the smallest whole ``k`` whose quotient is."""
    n_rows, nd = tp_cum.shape
    npig = np.asarray(npig, dtype=np.int64).reshape(-1, 1, 1)
    thr = rec_thrs[None, :, None]
    base = np.maximum(np.floor(thr * npig).astype(np.int64) - 2, 0)
    cand = base + np.arange(5)  # the smallest k lies within a rounding of thr * npig
    ok = cand / npig >= thr
    k_min = (np.argmax(ok, axis=2) + base[:, :, 0]).astype(np.int64)
    top = max(nd, int(npig.max(initial=0)), int(tp_cum.max(initial=0))) + 1  # above every count
    k_min = np.minimum(np.where(ok.any(axis=2), k_min, top), top)
    stride = top + 1
    rows = np.arange(n_rows, dtype=np.int64)[:, None] * stride
    flat = np.searchsorted((tp_cum + rows).reshape(-1), (k_min + rows).reshape(-1))
    out = flat.reshape(n_rows, -1) - np.arange(n_rows, dtype=np.int64)[:, None] * nd
    return np.asarray(out, dtype=np.int64)
