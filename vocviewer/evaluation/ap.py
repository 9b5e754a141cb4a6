"""Precision/recall and average precision, exactly as the official code computes them.

Every function takes per-rank arrays (position ``r`` = the item ranked ``r``). Sums run left to right
in rank order (MATLAB's sequential ``sum``), so results agree with the devkit to the last bits in
practice (PROTOCOLS.md §0.5).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

#: MATLAB's ``0:0.1:1`` (VOC2007 11-point recall levels), bit for bit (PROTOCOLS.md §0.1).
#: Level 4 is one ulp above 0.3; levels 7 and 8 are the doubles nearest 0.6 and 0.7, unlike
#: ``np.arange``/``np.linspace``. Hard-coded on purpose: do not generate.
VOC07_RECALL_LEVELS: tuple[float, ...] = (
    0.0,
    0.1,
    0.2,
    0.30000000000000004,
    0.4,
    0.5,
    0.6,
    0.7,
    0.8,
    0.9,
    1.0,
)

FloatArray = npt.NDArray[np.float64]


def voc_precision_recall(
    tp: npt.ArrayLike, fp: npt.ArrayLike, npos: int
) -> tuple[FloatArray, FloatArray]:
    """VOC's curves (``VOCevaldet.m:110-113``): ``rec = cumsum(tp)/npos``, ``prec = tp/(tp+fp)``.

    ``tp``/``fp`` are per-rank 0/1 indicators; an ignored item has both 0 and keeps its slot, so
    precision is NaN where only ignored items have been seen, and recall is NaN when ``npos = 0``.

    Returns ``(precision, recall)``, float64 (D,) each.
    """
    ctp = np.cumsum(np.asarray(tp, dtype=np.float64))
    cfp = np.cumsum(np.asarray(fp, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        rec = ctp / float(npos)
        prec = ctp / (ctp + cfp)
    return prec, rec


def voc_ap_all_points(recall: npt.ArrayLike, precision: npt.ArrayLike) -> float:
    """Area under the monotone precision envelope at every recall step (``VOCap.m``, VOC2010+).

    ``mrec = [0, rec, 1]``, ``mpre = [0, prec, 0]``; ``mpre[i] = max(mpre[i], mpre[i+1])`` from
    right to left with MATLAB's NaN-skipping ``max``; then ``Σ (mrec[i] − mrec[i−1]) · mpre[i]``
    over the steps where recall changes (NaN ≠ NaN counts as a change, so NaN recall gives NaN).

    >>> voc_ap_all_points([0.5, 0.5, 1.0], [1.0, 0.5, 2 / 3])
    0.8333333333333333
    """
    rec = np.asarray(recall, dtype=np.float64)
    prec = np.asarray(precision, dtype=np.float64)
    mrec = np.concatenate(([0.0], rec, [1.0]))
    mpre = np.concatenate(([0.0], prec, [0.0]))
    mpre = np.fmax.accumulate(mpre[::-1])[::-1]
    i = np.flatnonzero(mrec[1:] != mrec[:-1]) + 1
    terms = (mrec[i] - mrec[i - 1]) * mpre[i]
    return float(np.cumsum(terms)[-1]) if len(terms) else 0.0


def voc_ap_11_point(recall: npt.ArrayLike, precision: npt.ArrayLike) -> float:
    """VOC2007–2009 11-point interpolated AP (``VOCevaldet.m:105-112`` of the 2007 devkit).

    For each level ``t`` of ``VOC07_RECALL_LEVELS`` in order: ``p`` = NaN-skipping max of
    precision where ``recall >= t`` (NaN if all such are NaN, 0 if there are none); ``ap += p/11``.
    A perfect detector scores 1.0000000000000002.
    """
    rec = np.asarray(recall, dtype=np.float64)
    prec = np.asarray(precision, dtype=np.float64)
    ap = 0.0
    for t in VOC07_RECALL_LEVELS:
        sel = prec[rec >= t]
        p = float(np.fmax.reduce(sel)) if len(sel) else 0.0
        ap = ap + p / 11
    return ap
