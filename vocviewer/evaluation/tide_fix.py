"""TIDE's oracle fixes and its AP, from per-detection TIDE evidence (``tide_evidence.TideEvidence``).

Each scenario rebuilds the per-class list of ranked data points exactly as ``tidecv``'s
``TIDERun.fix_errors`` does, then scores it with ``tidecv``'s ``APDataObject.get_ap``:

- the baseline keeps every evaluated, non-ignored detection in processing order (image, then
  descending score); a fixed list holds the error data points first (processing order) and the
  true positives after them, and both are then sorted by descending score, stably — so on equal
  scores a former error ranks before a true positive, as in ``tidecv``;
- AP: precision ``tp / n`` made non-increasing from the right, sampled at recall
  ``0, 0.01, ..., 1`` by ``searchsorted(recall, x, "left")`` (0 past the end), summed left to right
  (Python's ``sum``), ``/ 101 * 100``; 0 for a class without positives;
- mAP: the mean over the classes that have a data point or a positive (``is_empty`` is false),
  summed in the order ``tidecv``'s dict of classes was filled, so the result is bit-identical.

Units: AP points (0-100).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vocviewer.evaluation.tide_evidence import (
    CLS,
    KIND_OF,
    MAIN_TYPES,
    TRUE_POSITIVE,
    TideEvidence,
)

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

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


def mean_ap(ap: FloatArray, counted: BoolArray, order: IntArray) -> float:
    """``get_mAP``: the mean of the counted classes' AP, summed in ``order`` (the order in which
    ``tidecv``'s dict of classes first met them); 0 when no class is counted."""
    values = ap[order[counted[order]]].tolist()
    return sum(values) / len(values) if values else 0.0


def _first_met(keys: list[IntArray], cls: IntArray, then: IntArray) -> IntArray:
    """Classes ordered by the smallest ``keys`` tuple (lexicographic) among their entries, then
    the classes without entries in the order ``then``."""
    o = np.lexsort(tuple(reversed(keys))) if len(cls) else np.zeros(0, dtype=np.int64)
    _, first = np.unique(cls[o], return_index=True)
    met = cls[o][np.sort(first)]
    rest = then[~np.isin(then, met)]
    return np.concatenate((met, rest)).astype(np.int64)


def base_class_order(ev: TideEvidence, rows: BoolArray, n_classes: int) -> IntArray:
    """Classes in the order the baseline's ``ClassedAPDataObject`` first meets them: image by
    image, its positives (annotation order), then its data points (processing order)."""
    gt_rows = np.flatnonzero(ev.gt_counted)
    det_rows = np.flatnonzero(rows)
    cls = np.concatenate((ev.gt_label[gt_rows], ev.label[det_rows]))
    image = np.concatenate((ev.gt_image[gt_rows], ev.image_index[det_rows]))
    stage = np.concatenate((np.zeros(len(gt_rows), np.int64), np.ones(len(det_rows), np.int64)))
    idx = np.concatenate((gt_rows, ev.position[det_rows]))
    return _first_met([image, stage, idx], cls, np.arange(n_classes))


Scenario = tuple[FloatArray, BoolArray, IntArray]


def scenario_aps(ev: TideEvidence, n_classes: int) -> dict[str, Scenario]:
    """Per-class ``(ap, counted, order)`` of the baseline (key ``"AP"``), of fixing each main
    error type and of the two special oracles (keys ``MAIN_TYPES``, ``SPECIAL_TYPES``); ``order``
    is the summation order of ``mean_ap``."""
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

    out: dict[str, Scenario] = {}
    base = tp | fp
    order = base_class_order(ev, base, n_classes)
    out["AP"] = (*tidecv_ap(label[base], score[base], tp[base], pos[base], gt_pos), order)
    # fixed lists: error data points first (tie key = position), true positives after them;
    # their classes are met first by the errors' data points, then in the baseline's order
    shift = np.int64(len(pos))
    tie = np.where(tp, pos + shift, pos)

    def fixed(lab: IntArray, sc: FloatArray, hit: BoolArray, t: IntArray, n: IntArray) -> Scenario:
        err = t < shift
        return (*tidecv_ap(lab, sc, hit, t, n), _first_met([t[err]], lab[err], order))

    for name in MAIN_TYPES[:-1]:
        code = KIND_OF[name]
        keep = tp | (fp & (kind != code))
        fix = evaluated & (kind == code) & ev.fixable
        rows = keep | fix
        lab = np.where(fix & (kind == CLS), target_label, label)
        out[name] = fixed(lab[rows], score[rows], (tp | fix)[rows], tie[rows], gt_pos)
    rows = tp | fp
    out["Miss"] = fixed(label[rows], score[rows], tp[rows], tie[rows], gt_pos - missed)
    oracle_score = np.where(tp, 1.0, 0.0)
    out["FalsePos"] = fixed(label[rows], oracle_score[rows], tp[rows], tie[rows], gt_pos)
    out["FalseNeg"] = fixed(label[rows], score[rows], tp[rows], tie[rows], gt_pos - n_fn)
    return out
