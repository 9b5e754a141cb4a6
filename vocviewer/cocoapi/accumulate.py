"""``COCOeval.accumulate`` and ``summarize`` over plain arrays and ``evalImgs`` dicts.

``accumulate_eval_imgs`` is pycocotools' own accumulation (its BSD-licensed ``cocoeval.py``),
vectorised per (category, area, cap) but reading the same ``evalImgs`` entries; ``COCOeval`` uses
it only when the fast path cannot answer: ``evalImgs`` replaced by the caller (torchvision's
distributed evaluator merges them), or ``params`` changed between ``evaluate()`` and
``accumulate()``. ``summary`` is ``summarize()``'s arithmetic and printed lines.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


def accumulate_eval_imgs(
    eval_imgs: list[Any], p: Any, pe: Any
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """precision / scores ``(T, R, K, A, M)`` and recall ``(T, K, A, M)`` from ``evalImgs``
    evaluated with params ``pe`` and read with params ``p``, exactly as pycocotools."""
    t_n, r_n = len(p.iouThrs), len(p.recThrs)
    k_n = len(p.catIds) if p.useCats else 1
    a_n, m_n = len(p.areaRng), len(p.maxDets)
    precision = -np.ones((t_n, r_n, k_n, a_n, m_n))
    recall = -np.ones((t_n, k_n, a_n, m_n))
    scores = -np.ones((t_n, r_n, k_n, a_n, m_n))
    set_k = set(pe.catIds if pe.useCats else [-1])
    set_a = set(map(tuple, pe.areaRng))
    set_m = set(pe.maxDets)
    set_i = set(pe.imgIds)
    k_list = [n for n, k in enumerate(p.catIds) if k in set_k]
    m_list = [m for m in p.maxDets if m in set_m]
    a_list = [n for n, a in enumerate(map(tuple, p.areaRng)) if a in set_a]
    i_list = [n for n, i in enumerate(p.imgIds) if i in set_i]
    i0, a0 = len(pe.imgIds), len(pe.areaRng)
    rec_thrs = np.asarray(p.recThrs)
    for k, k0 in enumerate(k_list):
        for a, a1 in enumerate(a_list):
            base = k0 * a0 * i0 + a1 * i0
            found = [eval_imgs[base + i] for i in i_list]
            entries = [e for e in found if e is not None]
            if not entries:
                continue
            for m, max_det in enumerate(m_list):
                dt_scores = np.concatenate([e["dtScores"][0:max_det] for e in entries])
                inds = np.argsort(-dt_scores, kind="mergesort")
                sorted_scores = dt_scores[inds]
                dtm = np.concatenate([e["dtMatches"][:, 0:max_det] for e in entries], axis=1)
                dt_ig = np.concatenate([e["dtIgnore"][:, 0:max_det] for e in entries], axis=1)
                dtm, dt_ig = dtm[:, inds], dt_ig[:, inds]
                gt_ig = np.concatenate([e["gtIgnore"] for e in entries])
                npig = np.count_nonzero(gt_ig == 0)
                if npig == 0:
                    continue
                tps = np.logical_and(dtm, np.logical_not(dt_ig))
                fps = np.logical_and(np.logical_not(dtm), np.logical_not(dt_ig))
                tp_sum = np.cumsum(tps, axis=1).astype(dtype=float)
                fp_sum = np.cumsum(fps, axis=1).astype(dtype=float)
                nd = tp_sum.shape[1]
                for t in range(len(tp_sum)):
                    tp, fp = tp_sum[t], fp_sum[t]
                    rc = tp / npig
                    pr = tp / (fp + tp + np.spacing(1))
                    recall[t, k, a, m] = rc[-1] if nd else 0
                    pr = np.maximum.accumulate(pr[::-1])[::-1]
                    idx = np.searchsorted(rc, rec_thrs, side="left")
                    ok = idx < nd
                    q, ss = np.zeros(r_n), np.zeros(r_n)
                    # pycocotools fills up to the first index past the end, then stops
                    stop = int(np.argmin(ok)) if not ok.all() else r_n
                    q[:stop] = pr[idx[:stop]]
                    ss[:stop] = sorted_scores[idx[:stop]]
                    precision[t, :, k, a, m] = q
                    scores[t, :, k, a, m] = ss
    return precision, recall, scores


def _mean(s: FloatArray) -> float:
    kept = s[s > -1]
    return -1.0 if len(kept) == 0 else float(np.mean(kept))


def summary(
    p: Any, ev: dict[str, Any], emit: Callable[[str], None] | None = None
) -> tuple[npt.NDArray[np.float64], list[str]]:
    """``summarize()``: the stats vector (12 for bbox / segm, 10 for keypoints) and its lines,
    each passed to ``emit`` as soon as it is computed (pycocotools prints the lines before one
    that raises, e.g. ``maxDets=[1]``'s ``IndexError``)."""
    lines: list[str] = []
    fmt = " {:<18} {} @[ IoU={:<9} | area={:>6s} | maxDets={:>3d} ] = {:0.3f}"

    def one(ap: int, iou: float | None = None, area: str = "all", max_dets: int = 100) -> float:
        title = "Average Precision" if ap == 1 else "Average Recall"
        kind = "(AP)" if ap == 1 else "(AR)"
        iou_str = f"{p.iouThrs[0]:0.2f}:{p.iouThrs[-1]:0.2f}" if iou is None else f"{iou:0.2f}"
        aind = [i for i, lbl in enumerate(p.areaRngLbl) if lbl == area]
        mind = [i for i, m in enumerate(p.maxDets) if m == max_dets]
        s = ev["precision"] if ap == 1 else ev["recall"]
        if iou is not None:
            s = s[np.where(iou == p.iouThrs)[0]]
        s = s[:, :, :, aind, mind] if ap == 1 else s[:, :, aind, mind]
        value = _mean(s)
        lines.append(fmt.format(title, kind, iou_str, area, max_dets, value))
        if emit is not None:
            emit(lines[-1])
        return value

    if p.iouType == "keypoints":
        stats = np.zeros((10,))
        for i, (ap, kw) in enumerate(
            [
                (1, {}),
                (1, {"iou": 0.5}),
                (1, {"iou": 0.75}),
                (1, {"area": "medium"}),
                (1, {"area": "large"}),
                (0, {}),
                (0, {"iou": 0.5}),
                (0, {"iou": 0.75}),
                (0, {"area": "medium"}),
                (0, {"area": "large"}),
            ]
        ):
            stats[i] = one(ap, max_dets=20, **kw)  # type: ignore[arg-type]
        return stats, lines
    m = p.maxDets
    stats = np.zeros((12,))
    stats[0] = one(1)
    stats[1] = one(1, iou=0.5, max_dets=m[2])
    stats[2] = one(1, iou=0.75, max_dets=m[2])
    stats[3] = one(1, area="small", max_dets=m[2])
    stats[4] = one(1, area="medium", max_dets=m[2])
    stats[5] = one(1, area="large", max_dets=m[2])
    stats[6] = one(0, max_dets=m[0])
    stats[7] = one(0, max_dets=m[1])
    stats[8] = one(0, max_dets=m[2])
    stats[9] = one(0, area="small", max_dets=m[2])
    stats[10] = one(0, area="medium", max_dets=m[2])
    stats[11] = one(0, area="large", max_dets=m[2])
    return stats, lines
