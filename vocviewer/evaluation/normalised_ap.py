"""Normalised precision and AP (IJCV 2015 §4.1, eq. 5-6; Hoiem et al. 2012), beside ``ap.py``.

Precision depends on how common a class is; the normalised measures replace the class's own
positive (and negative) counts by constants shared by all classes, so classes compare fairly:

* classification (eq. 5): ``TPR·N̄pos / (TPR·N̄pos + FPR·N̄neg)`` with ``TPR = ctp/npos``,
  ``FPR = cfp/nneg`` and ``N̄pos``, ``N̄neg`` the average numbers of positive and negative images
  over the classes;
* detection (eq. 6): ``TPR·N̄pos / (TPR·N̄pos + FP)`` with ``FP`` the cumulative false positives of
  the class and ``N̄pos`` the average number of positives (non-difficult objects) per class.

The paper "averages normalised precisions computed at a range of recalls"; here that average is
the evaluation's own AP rule (``"allpoints"`` or ``"11point"``) applied to the normalised curve.
The constants default to the paper's choice (``default_normalisers``) and can be overridden.
Ranks are treated as in ``ap.voc_precision_recall``: an ignored item keeps its slot, 0/0 is NaN.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from vocviewer.evaluation.ap import voc_ap_11_point, voc_ap_all_points
from vocviewer.evaluation.result import ClassEvaluation, EvalResult, Verdict
from vocviewer.kernel import load as load_kernel

FloatArray = npt.NDArray[np.float64]


def normalised_precision_det(
    tp: npt.ArrayLike, fp: npt.ArrayLike, npos: int, n_pos: float
) -> tuple[FloatArray, FloatArray]:
    """Eq. 6 at every rank: ``(normalised precision, recall)``, float64 (D,) each.

    >>> normalised_precision_det([1, 0, 1], [0, 1, 0], npos=2, n_pos=4)[0].tolist()
    [1.0, 0.6666666666666666, 0.8]
    """
    ctp = np.cumsum(np.asarray(tp, dtype=np.float64))
    cfp = np.cumsum(np.asarray(fp, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        rec = ctp / float(npos)
        prec = rec * n_pos / (rec * n_pos + cfp)
    return prec, rec


def normalised_precision_cls(
    tp: npt.ArrayLike, fp: npt.ArrayLike, npos: int, nneg: int, n_pos: float, n_neg: float
) -> tuple[FloatArray, FloatArray]:
    """Eq. 5 at every rank: ``(normalised precision, recall = TPR)``, float64 (D,) each."""
    ctp = np.cumsum(np.asarray(tp, dtype=np.float64))
    cfp = np.cumsum(np.asarray(fp, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        tpr = ctp / float(npos)
        fpr = cfp / float(nneg)
        prec = tpr * n_pos / (tpr * n_pos + fpr * n_neg)
    return prec, tpr


def negatives(evaluation: ClassEvaluation) -> int:
    """Negative examples of a class: cls — ranked images with label -1 (every listed image is
    ranked, so this is the ground truth's count); det — not defined, 0."""
    return evaluation.counts()["fp"] if evaluation.task == "cls" else 0


def mean_positives(npos: npt.ArrayLike) -> float:
    """The paper's ``N̄pos``: the mean number of positives over the classes that have any (a class
    without positives has no AP and is in no mean); NaN if none has."""
    n = np.asarray(npos, dtype=np.float64)
    have = n[n > 0]
    return float(have.mean()) if len(have) else float("nan")


def default_normalisers(result: EvalResult) -> tuple[float, float]:
    """The paper's constants: ``(N̄pos, N̄neg)``, the mean over the evaluated classes with
    positives of the number of positives and (classification) negatives. ``N̄neg`` is NaN for
    detection."""
    if not result.classes:
        raise ValueError("no classes were evaluated")
    n_pos = mean_positives([c.npos for c in result.classes])
    if result.task != "cls":
        return n_pos, float("nan")
    counted = [c for c in result.classes if c.npos > 0]
    return n_pos, float(np.mean([negatives(c) for c in counted])) if counted else float("nan")


def normalised_ap(
    evaluation: ClassEvaluation, ap_rule: str, n_pos: float, n_neg: float | None = None
) -> float:
    """Normalised AP of one class: ``ap_rule`` applied to the eq. 5 (cls) or eq. 6 (det) curve.

    ``n_neg`` is required for classification."""
    tp = evaluation.verdict == Verdict.TP
    fp = evaluation.verdict >= Verdict.FP
    if evaluation.task == "cls":
        if n_neg is None:
            raise ValueError("classification needs n_neg (eq. 5)")
        prec, rec = normalised_precision_cls(
            tp, fp, evaluation.npos, negatives(evaluation), n_pos, n_neg
        )
    else:
        prec, rec = normalised_precision_det(tp, fp, evaluation.npos, n_pos)
    if ap_rule == "allpoints":
        return voc_ap_all_points(rec, prec)
    if ap_rule == "11point":
        return voc_ap_11_point(rec, prec)
    raise ValueError(f"unknown AP rule {ap_rule!r}")


def normalised_aps(
    result: EvalResult, n_pos: float | None = None, n_neg: float | None = None
) -> dict[str, float]:
    """Normalised AP per class name under ``result.ap_rule``; ``n_pos``/``n_neg`` default to
    ``default_normalisers(result)``."""
    d_pos, d_neg = default_normalisers(result)
    n_pos = d_pos if n_pos is None else n_pos
    n_neg = d_neg if n_neg is None else n_neg
    return {
        c.class_name: normalised_ap(c, result.ap_rule, n_pos, n_neg if c.task == "cls" else None)
        for c in result.classes
    }


def normalised_ap_101(
    tp: npt.ArrayLike,
    fp: npt.ArrayLike,
    npos: int,
    n_pos: float,
    recall_thresholds: npt.ArrayLike,
) -> float:
    """Eq. 6's curve averaged with COCO's rule (``COCOeval.accumulate``): the precision made
    non-increasing from the right, sampled at the first rank reaching each recall threshold
    (0 past the last rank), then the mean. NaN without positives.

    >>> normalised_ap_101([1, 0, 1], [0, 1, 0], npos=2, n_pos=2, recall_thresholds=[0.5, 1.0])
    0.8333333333333333
    """
    if npos == 0:
        return float("nan")
    prec, rec = normalised_precision_det(tp, fp, npos, n_pos)
    rt = np.asarray(recall_thresholds, dtype=np.float64)
    if len(prec) == 0:
        return 0.0
    env = np.maximum.accumulate(np.nan_to_num(prec)[::-1])[::-1]
    at = np.searchsorted(rec, rt, side="left")
    q = np.where(at < len(env), env[np.minimum(at, len(env) - 1)], 0.0)
    return float(np.mean(q))


#: COCO's 101 recall thresholds (``np.linspace(0, 1, 101)``, as ``COCOeval.Params``).
COCO_RECALL_THRESHOLDS = np.linspace(0.0, 1.0, 101)


def normalised_det_ap(evaluation: ClassEvaluation, ap_rule: str, n_pos: float) -> float:
    """Detection normalised AP (eq. 6) of one class whose AP follows ``ap_rule``: ``"allpoints"``
    or ``"11point"`` (VOC's, ``normalised_ap``) or ``"coco101"`` (COCO's 101-point average,
    ``normalised_ap_101``). Duplicates count as false positives, ignored ranks as neither;
    NaN without positives."""
    if evaluation.npos == 0:
        return float("nan")
    if ap_rule != "coco101":
        return normalised_ap(evaluation, ap_rule, n_pos)
    v = evaluation.verdict
    return normalised_ap_101(
        v == Verdict.TP, v >= Verdict.FP, evaluation.npos, n_pos, COCO_RECALL_THRESHOLDS
    )


def normalised_det_aps_101(evaluations: Sequence[ClassEvaluation], n_pos: float) -> list[float]:
    """``normalised_det_ap(ev, "coco101", n_pos)`` of each detection evaluation, value for
    value: eq. 6's sampled envelope of every class in one pass of the compiled kernel
    ``_diagnose`` where it is built (each class's mean then taken as ``normalised_ap_101``
    takes it), else class by class."""
    k = load_kernel("_diagnose")
    if k is None or not evaluations:
        return [normalised_det_ap(ev, "coco101", n_pos) for ev in evaluations]
    sizes = np.array([len(ev.verdict) for ev in evaluations], dtype=np.int64)
    bounds = np.concatenate(([0], np.cumsum(sizes)))
    verdict = np.concatenate([ev.verdict for ev in evaluations]).astype(np.int8, copy=False)
    npos = np.array([ev.npos for ev in evaluations], dtype=np.float64)
    rt = COCO_RECALL_THRESHOLDS
    q = k.normalised_101(verdict, bounds, npos, n_pos, rt, int(Verdict.TP), int(Verdict.FP))
    return [
        math.nan if ev.npos == 0 else 0.0 if n == 0 else float(np.mean(q[i]))
        for i, (ev, n) in enumerate(zip(evaluations, sizes.tolist(), strict=True))
    ]
