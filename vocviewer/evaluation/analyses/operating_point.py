"""The operating point: precision, recall, F1 and F-beta against the score threshold.

From a class's ranked verdicts at the protocol's IoU (``ClassEvaluation``): at threshold ``t``
the detections kept are those drawn at ``t`` (``evaluation.drawn``: ``score >= t``); ``TP`` ranks
count as true positives, ``FP`` and ``DUPLICATE`` ranks as false positives, ``IGNORED`` ranks as
neither (the protocol ignores them). ``precision = TP / (TP + FP)``, ``recall = TP / npos``,
``F-beta = (1 + b²) P R / (b² P + R)`` (0 where ``P + R`` is 0). The candidate thresholds are the
distinct scores of counted ranks, descending: a threshold keeps every rank of its score (ties
together). ``overall`` pools every class's counted ranks under one threshold (micro average).

The best threshold of a class is the one of largest F-beta (the highest such threshold on ties),
or the lowest threshold whose precision reaches a target (the largest recall at that precision),
or the highest threshold whose recall reaches a target. None where no threshold qualifies.

As an analysis (``ANALYSIS``, ``vocviewer analyze --operating-point``): the curves and best
thresholds of the detection classes, the confusion matrix at a score threshold (``--threshold``;
default: the overall best; NaN: none), the figure ``threshold_<set>`` and the deployment
thresholds (``--deploy-thresholds``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.evaluation.analyses.base import (
    Analysis,
    Output,
    Subject,
    TextPart,
    option,
    verdict_iou,
)
from vocviewer.evaluation.confusion import ConfusionMatrix, confusion_matrix
from vocviewer.evaluation.render import beyond_ap_svg as svg
from vocviewer.evaluation.result import ClassEvaluation, Verdict

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
COLORS = {"precision": "#1f6fb2", "recall": "#d81b60", "F1": "#00897b", "F-beta": "#f9a825"}


@dataclass(frozen=True, eq=False)
class ThresholdCurve:
    """One class's (or the pooled) counts against the score threshold.

    thresholds : float64 (T,) distinct scores of counted ranks, descending; tp, fp : int64 (T,)
    counted at each; precision, recall, f1, fbeta : float64 (T,) (recall NaN if ``npos`` is 0);
    rank : int64 (T,) the last rank (0-based, in the class's ``ClassEvaluation``) kept at each
    threshold (-1 for the pooled curve); ``beta``: F-beta's beta."""

    name: str
    npos: int
    beta: float
    thresholds: FloatArray
    tp: IntArray
    fp: IntArray
    precision: FloatArray
    recall: FloatArray
    f1: FloatArray
    fbeta: FloatArray
    rank: IntArray

    def at(self, threshold: float) -> dict[str, float]:
        """Counts and rates when detections scoring ``>= threshold`` are kept."""
        i = int(np.searchsorted(-self.thresholds, -threshold, side="right")) - 1
        tp = int(self.tp[i]) if i >= 0 else 0
        fp = int(self.fp[i]) if i >= 0 else 0
        p, r = _rates(np.array([tp]), np.array([fp]), self.npos)
        return {
            "threshold": float(threshold),
            "tp": tp,
            "fp": fp,
            "fn": self.npos - tp,
            "precision": float(p[0]),
            "recall": float(r[0]),
            "f1": float(f_beta(p, r, 1.0)[0]),
            "fbeta": float(f_beta(p, r, self.beta)[0]),
        }

    def best(
        self, target_precision: float | None = None, target_recall: float | None = None
    ) -> int | None:
        """Index of the best threshold (module docstring), ``None`` if none qualifies."""
        if len(self.thresholds) == 0 or self.npos == 0:
            return None
        if target_precision is not None:
            ok = np.flatnonzero(self.precision >= target_precision)
            return int(ok[-1]) if len(ok) else None
        if target_recall is not None:
            ok = np.flatnonzero(self.recall >= target_recall)
            return int(ok[0]) if len(ok) else None
        return int(np.argmax(self.fbeta))

    def to_dict(self) -> dict[str, Any]:
        """The curve as plain lists (``null`` for NaN)."""
        return {
            "npos": self.npos,
            "thresholds": _list(self.thresholds),
            "precision": _list(self.precision),
            "recall": _list(self.recall),
            "f1": _list(self.f1),
            "fbeta": _list(self.fbeta),
        }


def _list(a: FloatArray) -> list[float | None]:
    return [None if math.isnan(x) else float(x) for x in a.tolist()]


def _rates(tp: IntArray, fp: IntArray, npos: int) -> tuple[FloatArray, FloatArray]:
    tpf = tp.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(tp + fp > 0, tpf / np.maximum(tp + fp, 1), np.nan)
        recall = tpf / npos if npos > 0 else np.full(len(tp), np.nan)
    return precision, recall


def f_beta(precision: FloatArray, recall: FloatArray, beta: float) -> FloatArray:
    """``(1 + b²) P R / (b² P + R)``; 0 where ``P + R`` is 0, NaN where either is NaN."""
    b2 = beta * beta
    den = b2 * precision + recall
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(den > 0, (1 + b2) * precision * recall / np.where(den > 0, den, 1), 0.0)
    out[np.isnan(precision) | np.isnan(recall)] = np.nan
    return np.asarray(out, dtype=np.float64)


def _curve(
    name: str,
    score: FloatArray,
    is_tp: npt.NDArray[np.bool_],
    ranks: IntArray,
    npos: int,
    beta: float,
) -> ThresholdCurve:
    """The curve of counted ranks ``score`` (descending) with their TP flags."""
    tp = np.cumsum(is_tp).astype(np.int64)
    fp = np.cumsum(~is_tp).astype(np.int64)
    last = np.flatnonzero(np.append(score[1:] != score[:-1], True)) if len(score) else ranks[:0]
    tp, fp = tp[last], fp[last]
    precision, recall = _rates(tp, fp, npos)
    return ThresholdCurve(
        name,
        int(npos),
        float(beta),
        score[last].astype(np.float64),
        tp,
        fp,
        precision,
        recall,
        f_beta(precision, recall, 1.0),
        f_beta(precision, recall, beta),
        ranks[last].astype(np.int64),
    )


def threshold_curve(ev: ClassEvaluation, beta: float = 1.0) -> ThresholdCurve:
    """One class's curve (module docstring)."""
    counted = np.flatnonzero(ev.verdict != Verdict.IGNORED).astype(np.int64)
    score = np.asarray(ev.score, dtype=np.float64)[counted]
    is_tp = ev.verdict[counted] == Verdict.TP
    return _curve(ev.class_name, score, is_tp, counted, ev.npos, beta)


def pooled_curve(evs: Sequence[ClassEvaluation], beta: float = 1.0) -> ThresholdCurve:
    """Every class's counted ranks under one threshold (micro average); ``rank`` is -1."""
    parts = [
        (e.score[e.verdict != Verdict.IGNORED], e.verdict[e.verdict != Verdict.IGNORED])
        for e in evs
    ]
    score = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0)
    verdict = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, np.int8)
    order = np.argsort(-score, kind="mergesort")
    npos = sum(e.npos for e in evs)
    ranks = np.full(len(order), -1, dtype=np.int64)
    return _curve("overall", score[order], verdict[order] == Verdict.TP, ranks, npos, beta)


@dataclass(frozen=True, eq=False)
class OperatingPoint:
    """Per class (``Dataset`` class index) and pooled curves, and the best threshold of each
    under one rule (``rule``: ``"f1"``, ``"f{beta}"``, ``"precision>=p"`` or ``"recall>=r"``)."""

    beta: float
    rule: str
    per_class: dict[int, ThresholdCurve]
    overall: ThresholdCurve
    best: dict[int, int | None]
    overall_best: int | None

    def thresholds(self) -> dict[str, float | None]:
        """The deployment thresholds: class name -> best threshold (``None``: none)."""
        out: dict[str, float | None] = {}
        for k, c in self.per_class.items():
            i = self.best[k]
            out[c.name] = None if i is None else float(c.thresholds[i])
        return out

    def to_dict(self, curves: bool = True) -> dict[str, Any]:
        """JSON: ``beta``, ``rule``, ``thresholds`` (deployment), ``per_class`` / ``overall``:
        ``{"best": {threshold, tp, fp, fn, precision, recall, f1, fbeta} | null, "curve"}``."""

        def one(c: ThresholdCurve, i: int | None) -> dict[str, Any]:
            best = None if i is None else c.at(float(c.thresholds[i]))
            entry: dict[str, Any] = {"best": _nulls(best)}
            if curves:
                entry["curve"] = c.to_dict()
            return entry

        return {
            "beta": self.beta,
            "rule": self.rule,
            "thresholds": self.thresholds(),
            "per_class": {c.name: one(c, self.best[k]) for k, c in self.per_class.items()},
            "overall": one(self.overall, self.overall_best),
        }


def _nulls(d: dict[str, float] | None) -> dict[str, float | None] | None:
    if d is None:
        return None
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in d.items()}


def operating_point(
    evs: Sequence[ClassEvaluation],
    beta: float = 1.0,
    target_precision: float | None = None,
    target_recall: float | None = None,
) -> OperatingPoint:
    """The curves of the detection classes ``evs`` and their best thresholds (one target at
    most; none: by F-beta). ``ValueError`` for a bad beta or target."""
    if not beta > 0:
        raise ValueError(f"beta must be positive, got {beta}")
    if target_precision is not None and target_recall is not None:
        raise ValueError("give a target precision or a target recall, not both")
    for t in (target_precision, target_recall):
        if t is not None and not 0 <= t <= 1:
            raise ValueError(f"a target must lie in [0, 1], got {t}")
    if target_precision is not None:
        rule = f"precision>={target_precision:g}"
    elif target_recall is not None:
        rule = f"recall>={target_recall:g}"
    else:
        rule = "f1" if beta == 1 else f"f{beta:g}"
    dets = [e for e in evs if e.task == "det"]
    per_class = {e.class_index: threshold_curve(e, beta) for e in dets}
    overall = pooled_curve(dets, beta)
    best = {k: c.best(target_precision, target_recall) for k, c in per_class.items()}
    return OperatingPoint(
        beta, rule, per_class, overall, best, overall.best(target_precision, target_recall)
    )


def row_normalised(counts: npt.ArrayLike, hide_diagonal: bool = False) -> FloatArray:
    """A confusion matrix's counts (K, C) divided by each row's sum (rows summing to 0 stay 0);
    ``hide_diagonal``: cells ``(k, k)`` set to NaN (not drawn) after normalising."""
    c = np.asarray(counts, dtype=np.float64)
    total = c.sum(axis=1, keepdims=True)
    out: FloatArray = np.divide(c, total, out=np.zeros_like(c), where=total > 0)
    if hide_diagonal:
        k = min(out.shape)
        out[np.arange(k), np.arange(k)] = np.nan
    return out


def threshold_svg(title: str, curve: ThresholdCurve, best: int | None) -> str:
    """Precision, recall, F1 (and F-beta if beta is not 1) against the score threshold (x: the
    scores' range, at least [0, 1]); a dashed line at the best threshold."""
    t = curve.thresholds
    lo = min(0.0, float(t.min())) if len(t) else 0.0
    hi = max(1.0, float(t.max())) if len(t) else 1.0
    out = svg.frame(title, "score threshold", "rate", lo, hi)
    series = [("precision", curve.precision), ("recall", curve.recall), ("F1", curve.f1)]
    if curve.beta != 1:
        series.append(("F-beta", curve.fbeta))
    legend = []
    for name, ys in series:
        pts = [
            f"{svg.x_of(float(a), lo, hi):.2f},{svg.y_of(float(b)):.2f}"
            for a, b in zip(t, ys, strict=True)
            if not math.isnan(b)
        ]
        if pts:
            out.append(
                f'<polyline points="{" ".join(pts)}" fill="none" stroke="{COLORS[name]}" '
                'stroke-width="2"/>'
            )
        label = f"F{curve.beta:g}" if name == "F-beta" else name
        legend.append((label, COLORS[name]))
    if best is not None:
        xb = svg.x_of(float(t[best]), lo, hi)
        out.append(
            f'<line x1="{xb:.2f}" y1="{svg.y_of(0):.2f}" x2="{xb:.2f}" y2="{svg.y_of(1):.2f}" '
            'stroke="#202124" stroke-dasharray="4 3"/>'
        )
        legend.append((f"best {float(t[best]):.3f}", "#202124"))
    out += svg.legend(legend)
    out.append("</svg>")
    return "\n".join(out) + "\n"


# --- the analysis (``ANALYSIS``) --------------------------------------------------------------
@dataclass(frozen=True)
class OperatingOptions:
    """``vocviewer analyze --operating-point``'s options."""

    beta: float = option(1.0, "F-beta's beta (1: F1)")
    target_precision: float | None = option(
        None, "best: lowest threshold with precision >= P", "P", float
    )
    target_recall: float | None = option(
        None, "best: highest threshold with recall >= R", "R", float
    )
    threshold: float | None = option(
        None, "the confusion matrix's score threshold (default: the overall best)", "T", float
    )


def check_options(o: OperatingOptions) -> None:
    """``ValueError`` naming the flag of a bad value."""
    if not o.beta > 0:
        raise ValueError(f"--beta must be positive, got {o.beta}")
    if o.target_precision is not None and o.target_recall is not None:
        raise ValueError("give --target-precision or --target-recall, not both")
    for flag, t in (
        ("--target-precision", o.target_precision),
        ("--target-recall", o.target_recall),
    ):
        if t is not None and not 0 <= t <= 1:
            raise ValueError(f"{flag} must lie in [0, 1], got {t}")


@dataclass(frozen=True, eq=False)
class OperatingAnalysis:
    """The operating point ``op`` and the confusion matrix at its threshold (``None``: none)."""

    op: OperatingPoint
    confusion: ConfusionMatrix | None = None

    def to_dict(self) -> dict[str, Any]:
        """``"operating_point"`` and, with a matrix, ``"confusion"`` (with ``row_normalised``)."""
        out: dict[str, Any] = {"operating_point": self.op.to_dict()}
        if self.confusion is not None:
            cm = self.confusion.to_dict()
            cm["row_normalised"] = row_normalised(self.confusion.counts).tolist()
            out["confusion"] = cm
        return out

    def text(self) -> TextPart:
        """Per class its best threshold with P, R and F-beta there."""
        op = self.op
        fb = "F1" if op.beta == 1 else f"F{op.beta:g}"
        blank = f"{'-':>7} {'-':>6} {'-':>6} {'-':>6}"

        def cells(curve: ThresholdCurve, i: int | None) -> str:
            if i is None:
                return blank
            d = curve.at(float(curve.thresholds[i]))
            return (
                f"{d['threshold']:7.3f} {d['precision']:6.3f} {d['recall']:6.3f} {d['fbeta']:6.3f}"
            )

        return TextPart(
            f"operating point ({op.rule})",
            f"{'thr':>7} {'P':>6} {'R':>6} {fb:>6}",
            {k: cells(c, op.best[k]) for k, c in op.per_class.items()},
            blank,
            cells(op.overall, op.overall_best),
        )

    def figures(self, title: str) -> list[tuple[str, str]]:
        return [("threshold", threshold_svg(title, self.op.overall, self.op.overall_best))]


def compute(s: Subject, o: OperatingOptions) -> OperatingAnalysis:
    """The operating point of ``s``'s detection classes and the confusion matrix at
    ``o.threshold`` (default: the overall best threshold)."""
    evs = list(s.evidence.evaluations("det"))
    op = operating_point(evs, o.beta, o.target_precision, o.target_recall)
    t = o.threshold
    if t is None and op.overall_best is not None:
        t = float(op.overall.thresholds[op.overall_best])
    if t is None or math.isnan(t):
        return OperatingAnalysis(op)
    ds = s.dataset
    missed = np.zeros(len(ds.objects), dtype=bool)
    for v in s.evidence.views("det"):
        missed[v.missed] = True
    cm = confusion_matrix(
        ds,
        s.results,
        {e.class_index: e for e in evs},
        missed,
        score_threshold=t,
        iou_threshold=verdict_iou(s),
        plus_one=ds.plus_one,
    )
    return OperatingAnalysis(op, cm)


ANALYSIS = Analysis(
    "operating_point",
    "Operating point: P / R / F1 against the threshold",
    "P / R / F1 / F-beta against the score threshold, best threshold per class, "
    "confusion matrix at a threshold",
    OperatingOptions,
    compute,
    check_options,
    (
        Output(
            "deploy_thresholds",
            "write the best threshold per class as JSON",
            "OUT",
            lambda r: r.op.thresholds(),
        ),
    ),
    ("threshold",),
)
