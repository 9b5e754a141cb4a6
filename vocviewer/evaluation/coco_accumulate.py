"""COCOeval's ``accumulate`` for one category: precision / recall / score arrays.

For each area range and detection cap, the category's detections (each group's first ``maxDet``
by score) are ranked by a stable sort on descending score, ties by image (ascending id) and then
by rank within the image; precision ``tp / (tp + fp + eps)`` gets a right-to-left max envelope
and is sampled at the recall thresholds with ``searchsorted(side="left")`` (0 past the end).
Entries with no non-ignored ground truth stay -1.
"""

from __future__ import annotations

from dataclasses import dataclass

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
    for m, cap in enumerate(max_dets):
        sel = order[rank[order] < cap]
        s_sorted = score[sel]
        nd = len(sel)
        for a in range(n_area):
            if npig[a] == 0:
                continue
            # one area range at a time: each numpy call stays short (a worker thread holds the
            # interpreter lock through it, and the window waits)
            tp_cum = np.cumsum(tp[a][:, sel], axis=1)
            tp_sum = tp_cum.astype(np.float64)
            fp_sum = np.cumsum(fp[a][:, sel], axis=1).astype(np.float64)
            pr = tp_sum / (fp_sum + tp_sum + _EPS)
            recall[:, a, m] = tp_sum[:, -1] / npig[a] if nd else 0.0
            pr = np.maximum.accumulate(pr[:, ::-1], axis=1)[:, ::-1]
            idx = _recall_index(tp_cum, int(npig[a]), rec_thrs)
            inside = idx < nd
            safe = np.where(inside, idx, 0)
            got = np.take_along_axis(pr, safe, axis=1) if nd else np.zeros(idx.shape)
            precision[:, :, a, m] = np.where(inside, got, 0.0)
            scores[:, :, a, m] = np.where(inside, s_sorted[safe] if nd else 0.0, 0.0)
    return CategoryCurves(precision, recall, scores, order)


def _recall_index(
    tp_cum: npt.NDArray[np.int64], npig: int, rec_thrs: FloatArray
) -> npt.NDArray[np.int64]:
    """``searchsorted(tp_cum[t] / npig, rec_thrs, side="left")`` for every row ``t`` at once:
    int64 (T, R). Exact: ``k / npig`` is monotone in ``k``, so the first recall at or above a
    threshold is the first count at or above the smallest whole ``k`` whose quotient is."""
    n_thr, nd = tp_cum.shape
    base = np.maximum(np.floor(rec_thrs * npig).astype(np.int64) - 2, 0)
    cand = base[:, None] + np.arange(5)  # the smallest k lies within a rounding of thr * npig
    k_min = np.argmax(cand / npig >= rec_thrs[:, None], axis=1) + base
    top = max(nd, npig, int(tp_cum.max(initial=0))) + 1  # above every count
    k_min = np.where((cand / npig >= rec_thrs[:, None]).any(axis=1), k_min, top)
    k_min = np.minimum(k_min, top)
    stride = top + 1
    rows = np.arange(n_thr, dtype=np.int64)[:, None] * stride
    flat = np.searchsorted((tp_cum + rows).reshape(-1), (k_min[None, :] + rows).reshape(-1))
    out = flat.reshape(n_thr, -1) - np.arange(n_thr, dtype=np.int64)[:, None] * nd
    return np.asarray(out, dtype=np.int64)
