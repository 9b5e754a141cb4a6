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
    n_rows = len(areas) * n_thr
    row_npig = np.repeat(npig[areas], n_thr)
    tp_rows, fp_rows = _flat(tp, areas), _flat(fp, areas)  # (area range, threshold) rows
    done: dict[int, int] = {}  # detections kept -> the cap computed with them
    for m, cap in enumerate(max_dets):
        sel = order[rank[order] < cap]
        s_sorted = score[sel]
        nd = len(sel)
        if len(areas) == 0:
            continue
        if nd in done:  # caps keep nested sets: as many detections means the same ones
            m0 = done[nd]
            recall[:, :, m], precision[..., m], scores[..., m] = (
                recall[:, :, m0],
                precision[..., m0],
                scores[..., m0],
            )
            continue
        done[nd] = m
        # every row at once; counts summed in int32 (several times faster than int64 here)
        tp_cum = np.cumsum(tp_rows[:, sel], axis=1, dtype=np.int32)
        tp_sum = tp_cum.astype(np.float64)
        fp_sum = np.cumsum(fp_rows[:, sel], axis=1, dtype=np.int32).astype(np.float64)
        pr = tp_sum / (fp_sum + tp_sum + _EPS)
        rc = tp_sum[:, -1] / row_npig if nd else np.zeros(n_rows)
        recall[:, areas, m] = rc.reshape(len(areas), n_thr).T
        pr = np.maximum.accumulate(pr[:, ::-1], axis=1)[:, ::-1]
        idx = _recall_index(tp_cum, row_npig, rec_thrs)
        inside = idx < nd
        safe = np.where(inside, idx, 0)
        got = np.take_along_axis(pr, safe, axis=1) if nd else np.zeros(idx.shape)
        q = np.where(inside, got, 0.0).reshape(len(areas), n_thr, n_rec)
        ss = np.where(inside, s_sorted[safe] if nd else 0.0, 0.0).reshape(q.shape)
        precision[:, :, areas, m] = q.transpose(1, 2, 0)
        scores[:, :, areas, m] = ss.transpose(1, 2, 0)
    return CategoryCurves(precision, recall, scores, order)


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
