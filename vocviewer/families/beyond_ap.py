"""The analyses beyond AP over one evaluation's ``Evidence`` (``evaluation.analyses``): the
operating point (P / R / F1 / F-beta against the score threshold, best thresholds, the confusion
matrix at a chosen threshold), calibration (D-ECE, reliability bins) and optimal LRP, at the IoU
the verdicts were decided at. The same record (``BeyondAP``) serves ``vocviewer analyze``'s
text and JSON, the Python API and the window's pages, so their numbers are one.

JSON (``BeyondAP.to_dict``)::

    {"iou", "operating_point": {"beta", "rule", "thresholds": {class: t | null},
                                "per_class": {class: {"best", "curve"}}, "overall": {...}},
     "confusion": {..., "row_normalised"} | absent,
     "calibration": {"bins", "sample_threshold", "multivariate", "overall": {"n", "d_ece",
                     "d_mce", "bins"}, "per_class": {class: {...}}},
     "lrp": {"tau", "moLRP", "moLRP_loc", "moLRP_fp", "moLRP_fn", "per_class": {...}} | absent}

LRP needs each true positive's IoU (``ClassEvaluation.best_iou``: box tasks); elsewhere it is
left out with a note. No Qt; nothing prints.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analyses.calibration import Calibration, calibration, relative_boxes
from vocviewer.evaluation.analyses.lrp import LRPResult, optimal_lrp
from vocviewer.evaluation.analyses.operating_point import (
    OperatingPoint,
    operating_point,
    row_normalised,
)
from vocviewer.evaluation.confusion import ConfusionMatrix, confusion_matrix
from vocviewer.evaluation.result import ClassEvaluation
from vocviewer.families.evidence import Evidence, collect
from vocviewer.families.registry import benchmark_of


@dataclass(frozen=True)
class BeyondOptions:
    """What the user chose: F-beta's ``beta``; a target precision or recall for the best
    threshold (none: by F-beta); calibration ``bins`` and ``sample_threshold``; ``multivariate``
    D-ECE over confidence x box cx, cy, w, h; the confusion matrix's ``threshold`` (``None``:
    the overall best; NaN: no matrix)."""

    beta: float = 1.0
    target_precision: float | None = None
    target_recall: float | None = None
    bins: int = 10
    sample_threshold: int = 1
    multivariate: bool = False
    threshold: float | None = None


@dataclass(frozen=True, eq=False)
class BeyondAP:
    """The operating point, calibration (``overall`` and per class index) and LRP (``None``
    where the evidence has no TP IoUs, ``lrp_note`` says why) of one result set."""

    iou: float
    options: BeyondOptions
    op: OperatingPoint
    overall: Calibration
    per_class: dict[int, Calibration]
    lrp: LRPResult | None
    confusion: ConfusionMatrix | None = None
    lrp_note: str = ""
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        o = self.options
        out: dict[str, Any] = {"iou": self.iou, "operating_point": self.op.to_dict()}
        if self.confusion is not None:
            cm = self.confusion.to_dict()
            cm["row_normalised"] = row_normalised(self.confusion.counts).tolist()
            out["confusion"] = cm
        out["calibration"] = {
            "bins": o.bins,
            "sample_threshold": o.sample_threshold,
            "multivariate": o.multivariate,
            "overall": self.overall.to_dict(),
            "per_class": {c.name: c.to_dict() for c in self.per_class.values()},
        }
        if self.lrp is not None:
            out["lrp"] = self.lrp.to_dict()
        else:
            out["lrp_note"] = self.lrp_note
        return out


def evidence_for(dataset: Dataset, results: ResultSet, image_set: str | None = None) -> Evidence:
    """One evaluation of ``results`` at the family's official choice (verdicts at its IoU)."""
    bench = benchmark_of(dataset)
    choice = bench.view_settings(dataset).default_choice()
    if image_set is not None:
        choice = replace(choice, image_set=image_set)
    return collect(bench.evaluate_views(dataset, results, choice, diagnose=False), choice)


def _boxes(
    dataset: Dataset, results: ResultSet, evs: list[ClassEvaluation]
) -> dict[int, np.ndarray] | None:
    """Per class index the relative ``cx, cy, w, h`` of each rank (``None``: an image without
    size)."""
    img = dataset.images
    out = {}
    for e in evs:
        w, h = img.width[e.image_index], img.height[e.image_index]
        if np.any(w <= 0) or np.any(h <= 0):
            return None
        out[e.class_index] = relative_boxes(results.detections.box[e.order], w, h, dataset.plus_one)
    return out


def beyond_ap(
    dataset: Dataset,
    results: ResultSet,
    evidence: Evidence,
    options: BeyondOptions | None = None,
) -> BeyondAP:
    """The analyses beyond AP of ``results`` from its ``evidence`` (module docstring)."""
    o = options or BeyondOptions()
    evs = list(evidence.evaluations("det"))
    views = evidence.views("det")
    iou = views[0].iou if views else evidence.choice.iou
    op = operating_point(evs, o.beta, o.target_precision, o.target_recall)
    notes: list[str] = []
    boxes = None
    if o.multivariate:
        boxes = _boxes(dataset, results, evs)
        if boxes is None:
            notes.append("multivariate D-ECE needs every image's size: confidence only")
    overall = calibration("overall", evs, o.bins, o.sample_threshold, boxes)
    per = {
        e.class_index: calibration(e.class_name, [e], o.bins, o.sample_threshold, boxes)
        for e in evs
    }
    lrp, note = None, ""
    try:
        lrp = optimal_lrp(evs, iou)
    except ValueError as err:
        note = f"LRP left out: {err}"
    cm = None
    t = o.threshold
    if t is None and op.overall_best is not None:
        t = float(op.overall.thresholds[op.overall_best])
    if t is not None and not math.isnan(t):
        missed = np.zeros(len(dataset.objects), dtype=bool)
        for v in views:
            missed[v.missed] = True
        by_class = {e.class_index: e for e in evs}
        cm = confusion_matrix(
            dataset,
            results,
            by_class,
            missed,
            score_threshold=t,
            iou_threshold=iou,
            plus_one=dataset.plus_one,
        )
    return BeyondAP(iou, o, op, overall, per, lrp, cm, note, notes)


def beyond_text(name: str, b: BeyondAP) -> str:
    """A printed table: per class the best threshold with P / R / F-beta, D-ECE and oLRP."""
    fb = "F1" if b.op.beta == 1 else f"F{b.op.beta:g}"
    lines = [
        f"{name}: operating point ({b.op.rule}), calibration ({b.options.bins} bins) and "
        f"optimal LRP at IoU {b.iou:.2f}",
        f"{'class':<16} {'thr':>7} {'P':>6} {'R':>6} {fb:>6} {'D-ECE':>7} {'oLRP':>6} {'oLRPthr':>7}",
    ]

    def cells(curve: Any, i: int | None, cal: Calibration, lrp: Any) -> str:
        if i is None:
            op = f"{'-':>7} {'-':>6} {'-':>6} {'-':>6}"
        else:
            d = curve.at(float(curve.thresholds[i]))
            op = f"{d['threshold']:7.3f} {d['precision']:6.3f} {d['recall']:6.3f} {d['fbeta']:6.3f}"
        ece = "-" if math.isnan(cal.d_ece) else f"{cal.d_ece:.4f}"
        ol = "-" if lrp is None else f"{lrp.olrp:.3f}"
        th = "-" if lrp is None or math.isnan(lrp.threshold) else f"{lrp.threshold:.3f}"
        return f"{op} {ece:>7} {ol:>6} {th:>7}"

    per_lrp = b.lrp.per_class if b.lrp is not None else {}
    for k, c in b.op.per_class.items():
        row = cells(c, b.op.best[k], b.per_class[k], per_lrp.get(k))
        lines.append(f"{c.name[:16]:<16} {row}")
    mol = None if b.lrp is None else b.lrp.molrp
    overall = cells(b.op.overall, b.op.overall_best, b.overall, None)
    lines.append(f"{'overall':<16} {overall}" + ("" if mol is None else f"  moLRP {mol:.4f}"))
    lines.append(
        f"D-MCE (overall) {b.overall.d_mce:.4f}" if not math.isnan(b.overall.d_mce) else ""
    )
    if b.lrp_note:
        lines.append(b.lrp_note)
    lines += b.notes
    return "\n".join(x for x in lines if x) + "\n"
