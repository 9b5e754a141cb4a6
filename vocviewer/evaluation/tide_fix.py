"""TIDE's oracle fixes and its AP, from per-detection TIDE evidence (``tide.TideEvidence``).

Each scenario rebuilds the per-class list of ranked data points exactly as ``tidecv``'s
``TIDERun.fix_errors`` does, then scores it with ``tidecv``'s ``APDataObject.get_ap``:

- the baseline keeps every evaluated, non-ignored detection in processing order (image, then
  descending score); a fixed list holds the error data points first (processing order) and the
  true positives after them, and both are then sorted by descending score, stably — so on equal
  scores a former error ranks before a true positive, as in ``tidecv``;
- AP: precision ``tp / n`` made non-increasing from the right, sampled at recall
  ``0, 0.01, ..., 1`` by ``searchsorted(recall, x, "left")`` (0 past the end), summed left to right
  (Python's ``sum``), ``/ 101 * 100``; 0 for a class without positives;
- mAP: the mean over the classes that have a data point or a positive (``is_empty`` is false).

Units: AP points (0-100).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from vocviewer.evaluation.tide import TideEvidence

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

#: Error kind codes in ``TideEvidence.kind``.
NOT_EVALUATED, TRUE_POSITIVE, CLS, LOC, BOTH, DUPE, BKG = -1, 0, 1, 2, 3, 4, 5
#: tidecv's main error types in its order, with their ``kind`` code (Miss is a ground-truth error).
MAIN_TYPES: tuple[str, ...] = ("Cls", "Loc", "Both", "Dupe", "Bkg", "Miss")
SPECIAL_TYPES: tuple[str, ...] = ("FalsePos", "FalseNeg")
KIND_OF: dict[str, int] = {"Cls": CLS, "Loc": LOC, "Both": BOTH, "Dupe": DUPE, "Bkg": BKG}
#: ``x_range`` of ``get_ap``: the 101 recall levels ``x / 100``.
RECALL_LEVELS: FloatArray = np.arange(101, dtype=np.float64) / 100.0


def tidecv_ap(
    label: IntArray,
    score: FloatArray,
    tp: BoolArray,
    tie: IntArray,
    num_gt: IntArray,
) -> tuple[FloatArray, BoolArray]:
    """Per-class AP as ``tidecv`` computes it.

    ``label``, ``score``, ``tp``, ``tie`` (D,) are the data points; ``tie`` orders equal scores
    (smaller first: the data points' insertion order). ``num_gt`` int64 (K,) positives per class.

    Returns ``ap`` float64 (K,) in AP points (0 for an empty class) and ``counted`` bool (K,):
    whether the class enters the mean (it has a data point or a positive).
    """
    k = len(num_gt)
    order = np.lexsort((tie, -score, label))
    lab, hit = label[order], tp[order]
    bounds = np.searchsorted(lab, np.arange(k + 1), side="left")
    counted = (np.diff(bounds) > 0) | (num_gt != 0)
    ap = np.zeros(k, dtype=np.float64)
    for c in np.flatnonzero(counted & (num_gt > 0)).tolist():
        seg = hit[bounds[c] : bounds[c + 1]]
        n = len(seg)
        if n == 0:
            continue
        ctp = np.cumsum(seg, dtype=np.int64)
        precision = np.maximum.accumulate((ctp / np.arange(1, n + 1))[::-1])[::-1]
        recall = ctp / int(num_gt[c])
        idx = np.searchsorted(recall, RECALL_LEVELS, side="left")
        y = np.where(idx < n, precision[np.minimum(idx, n - 1)], 0.0)
        ap[c] = sum(y.tolist()) / len(y) * 100
    return ap, counted


def mean_ap(ap: FloatArray, counted: BoolArray) -> float:
    """``get_mAP``: the mean of the counted classes' AP (0 when none is counted)."""
    values = ap[counted].tolist()
    return sum(values) / len(values) if values else 0.0


def scenario_aps(ev: TideEvidence, n_classes: int) -> dict[str, tuple[FloatArray, BoolArray]]:
    """Per-class ``(ap, counted)`` of the baseline (key ``"AP"``), of fixing each main error type
    and of the two special oracles, keyed by ``MAIN_TYPES`` / ``SPECIAL_TYPES`` names."""
    pos = ev.position
    evaluated = pos >= 0
    kind, label, score = ev.kind, ev.label, ev.score
    tp = kind == TRUE_POSITIVE
    fp = evaluated & (kind > 0) & ~ev.ignored  # errors with a data point of their own
    gt_pos = np.bincount(ev.gt_label[ev.gt_counted], minlength=n_classes).astype(np.int64)
    missed = np.bincount(ev.gt_label[ev.gt_missed], minlength=n_classes).astype(np.int64)
    false_neg = ev.gt_counted & ~ev.gt_matched
    n_fn = np.bincount(ev.gt_label[false_neg], minlength=n_classes).astype(np.int64)
    target_label = np.where(ev.gt >= 0, ev.gt_label[np.maximum(ev.gt, 0)], -1)

    out: dict[str, tuple[FloatArray, BoolArray]] = {}
    base = tp | fp
    out["AP"] = tidecv_ap(label[base], score[base], tp[base], pos[base], gt_pos)
    # fixed lists: error data points first (tie key = position), true positives after them
    shift = np.int64(len(pos))
    tie = np.where(tp, pos + shift, pos)
    for name in MAIN_TYPES[:-1]:
        code = KIND_OF[name]
        keep = tp | (fp & (kind != code))
        fixed = evaluated & (kind == code) & ev.fixable
        rows = keep | fixed
        lab = np.where(fixed & (kind == CLS), target_label, label)
        out[name] = tidecv_ap(lab[rows], score[rows], (tp | fixed)[rows], tie[rows], gt_pos)
    rows = tp | fp
    out["Miss"] = tidecv_ap(label[rows], score[rows], tp[rows], tie[rows], gt_pos - missed)
    oracle_score = np.where(tp, 1.0, 0.0)
    out["FalsePos"] = tidecv_ap(label[rows], oracle_score[rows], tp[rows], tie[rows], gt_pos)
    out["FalseNeg"] = tidecv_ap(label[rows], score[rows], tp[rows], tie[rows], gt_pos - n_fn)
    return out
