"""Detection calibration: D-ECE and its maximum (Küppers et al., "Multivariate confidence
calibration for object detection", CVPR-W 2020), as ``netcal.metrics.ECE(detection=True)``
computes them.

Samples are a class's counted ranks at the protocol's IoU (``ClassEvaluation``): a ``TP`` is
matched (1); ``FP`` and ``DUPLICATE`` are not (0); ``IGNORED`` ranks are left out. Every feature
(the confidence first, then optionally the box's centre x, y, width and height relative to its
image, all in [0, 1]) is clipped to ``[eps, 1 - eps]`` (float64's eps) and cut into ``bins``
equal-width bins over [0, 1] (``numpy.linspace`` edges; a bin holds ``[low, high)``, the last its
upper edge too). Over the joint bins: ``precision_b`` = the mean match, ``confidence_b`` = the
mean clipped confidence; bins with fewer than ``sample_threshold`` samples count as calibrated.
``D-ECE = sum_b (n_b / N) |precision_b - confidence_b|`` (``N``: every sample); its maximum
(``D-MCE``) is ``max_b |precision_b - confidence_b|`` (0 if no bin qualifies).

As an analysis (``ANALYSIS``, ``vocviewer analyze --calibration``): the pooled and per-class
calibration of the detection classes (``--multivariate``: over confidence x box ``cx, cy, w,
h`` relative to the image, which needs every image's size) and the figure ``reliability_<set>``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.evaluation.analyses.base import Analysis, Subject, TextPart, option
from vocviewer.evaluation.render import beyond_ap_svg as svg
from vocviewer.evaluation.result import ClassEvaluation, Verdict

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
#: The box features of the multivariate D-ECE, after the confidence.
BOX_FEATURES: tuple[str, ...] = ("cx", "cy", "w", "h")


@dataclass(frozen=True, eq=False)
class Calibration:
    """One class's (or the pooled) calibration.

    ``d_ece``, ``d_mce``: over the joint bins (NaN with no sample); the reliability diagram over
    the confidence alone: ``edges`` float64 (B + 1,), per bin ``count`` int64 (B,),
    ``precision`` / ``confidence`` float64 (B,) (NaN below ``sample_threshold``); ``members``:
    per confidence bin, the samples' ``(class index, rank)`` pairs (int64 (n, 2))."""

    name: str
    n: int
    d_ece: float
    d_mce: float
    edges: FloatArray
    count: IntArray
    precision: FloatArray
    confidence: FloatArray
    members: tuple[IntArray, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON: ``n``, ``d_ece``, ``d_mce`` and the diagram's ``bins``."""
        return {
            "n": self.n,
            "d_ece": _num(self.d_ece),
            "d_mce": _num(self.d_mce),
            "bins": {
                "edges": self.edges.tolist(),
                "count": self.count.tolist(),
                "precision": [_num(x) for x in self.precision.tolist()],
                "confidence": [_num(x) for x in self.confidence.tolist()],
            },
        }


def _num(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def bin_indices(values: FloatArray, bins: int) -> IntArray:
    """The equal-width bin (0 .. ``bins`` - 1) of each value in [0, 1] (module docstring)."""
    edges = np.linspace(0.0, 1.0, bins + 1)
    idx = np.searchsorted(edges, values, side="right") - 1
    return np.clip(idx, 0, bins - 1).astype(np.int64)


def d_ece(
    features: npt.ArrayLike,
    matched: npt.ArrayLike,
    bins: int | Sequence[int] = 10,
    sample_threshold: int = 1,
) -> tuple[float, float]:
    """``(D-ECE, D-MCE)`` of samples ``features`` float (N,) or (N, F) (the confidence first)
    with their match ``matched`` (N,) 0/1; ``bins`` per feature (one int: the same for all)."""
    x = np.asarray(features, dtype=np.float64)
    if len(x) == 0:
        return math.nan, math.nan
    x = x.reshape(len(x), -1)
    y = np.asarray(matched, dtype=np.float64)
    n, f = x.shape
    nb = [bins] * f if isinstance(bins, int) else list(bins)
    if len(nb) != f:
        raise ValueError(f"{len(nb)} bin counts for {f} features")
    eps = np.finfo(np.float64).eps
    x = np.clip(x, eps, 1.0 - eps)
    flat = np.ravel_multi_index(tuple(bin_indices(x[:, i], nb[i]) for i in range(f)), nb)
    size = int(np.prod(nb))
    count = np.bincount(flat, minlength=size)
    ok = count >= max(sample_threshold, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        prec = np.bincount(flat, weights=y, minlength=size) / count
        conf = np.bincount(flat, weights=x[:, 0], minlength=size) / count
    gap = np.where(ok, np.abs(prec - conf), 0.0)
    return float(np.sum(gap * count / n)), float(np.max(gap))


def _samples(evs: Sequence[ClassEvaluation]) -> tuple[FloatArray, FloatArray, IntArray]:
    """Counted ranks of ``evs``: (score, matched 0/1, (class index, rank) pairs)."""
    scores, hits, who = [], [], []
    for e in evs:
        r = np.flatnonzero(e.verdict != Verdict.IGNORED).astype(np.int64)
        scores.append(np.asarray(e.score, dtype=np.float64)[r])
        hits.append((e.verdict[r] == Verdict.TP).astype(np.float64))
        who.append(np.stack([np.full(len(r), e.class_index, dtype=np.int64), r], axis=1))
    if not scores:
        return np.zeros(0), np.zeros(0), np.zeros((0, 2), dtype=np.int64)
    return np.concatenate(scores), np.concatenate(hits), np.concatenate(who)


def calibration(
    name: str,
    evs: Sequence[ClassEvaluation],
    bins: int = 10,
    sample_threshold: int = 1,
    boxes: dict[int, FloatArray] | None = None,
) -> Calibration:
    """The calibration of the counted ranks of ``evs`` pooled (one class: its own). ``boxes``
    (multivariate): per class index, float64 (D, 4) relative ``cx, cy, w, h`` of each rank."""
    score, hit, who = _samples(evs)
    if boxes is not None:
        rel = [boxes[e.class_index][e.verdict != Verdict.IGNORED] for e in evs]
        feats = np.column_stack([score, np.concatenate(rel) if rel else np.zeros((0, 4))])
    else:
        feats = score[:, None]
    ece, mce = d_ece(feats, hit, bins, sample_threshold)
    eps = np.finfo(np.float64).eps
    conf = np.clip(score, eps, 1.0 - eps)
    idx = bin_indices(conf, bins)
    count = np.bincount(idx, minlength=bins).astype(np.int64)
    ok = count >= max(sample_threshold, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        prec = np.where(ok, np.bincount(idx, weights=hit, minlength=bins) / count, np.nan)
        mean_conf = np.where(ok, np.bincount(idx, weights=conf, minlength=bins) / count, np.nan)
    members = tuple(who[idx == b] for b in range(bins))
    edges = np.linspace(0.0, 1.0, bins + 1)
    return Calibration(name, len(score), ece, mce, edges, count, prec, mean_conf, members)


def relative_boxes(
    box: npt.ArrayLike, width: npt.ArrayLike, height: npt.ArrayLike, plus_one: bool = False
) -> FloatArray:
    """float64 (N, 4) ``cx, cy, w, h`` of ``x1, y1, x2, y2`` boxes relative to their image's
    ``width`` / ``height`` (``plus_one``: VOC's inclusive pixels add 1 to the sizes)."""
    b = np.asarray(box, dtype=np.float64).reshape(-1, 4)
    one = 1.0 if plus_one else 0.0
    w = np.asarray(width, dtype=np.float64)
    h = np.asarray(height, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.column_stack(
            [
                (b[:, 0] + b[:, 2] + one) / 2 / w,
                (b[:, 1] + b[:, 3] + one) / 2 / h,
                (b[:, 2] - b[:, 0] + one) / w,
                (b[:, 3] - b[:, 1] + one) / h,
            ]
        )


def reliability_svg(title: str, cal: Calibration) -> str:
    """The reliability diagram of ``cal``: bars of each bin's precision, the diagonal, the
    bins' mean confidence as dots; D-ECE and D-MCE in the legend."""
    out = svg.frame(title, "confidence", "precision (matched)", 0.0, 1.0)
    out.append(
        f'<line x1="{svg.x_of(0, 0, 1):.2f}" y1="{svg.y_of(0):.2f}" x2="{svg.x_of(1, 0, 1):.2f}" y2="{svg.y_of(1):.2f}" '
        'stroke="#9e9e9e" stroke-dasharray="4 3"/>'
    )
    e = cal.edges
    for b in range(len(cal.count)):
        p = cal.precision[b]
        if math.isnan(p):
            continue
        x0, x1 = svg.x_of(float(e[b]), 0, 1), svg.x_of(float(e[b + 1]), 0, 1)
        out.append(
            f'<rect x="{x0 + 1:.2f}" y="{svg.y_of(float(p)):.2f}" width="{x1 - x0 - 2:.2f}" '
            f'height="{svg.y_of(0) - svg.y_of(float(p)):.2f}" fill="#1f6fb2" fill-opacity="0.75"/>'
        )
        c = cal.confidence[b]
        out.append(
            f'<circle cx="{svg.x_of(float(c), 0, 1):.2f}" cy="{svg.y_of(float(c)):.2f}" r="3" fill="#d81b60"/>'
        )
    ece = "-" if math.isnan(cal.d_ece) else f"{cal.d_ece:.4f}"
    mce = "-" if math.isnan(cal.d_mce) else f"{cal.d_mce:.4f}"
    out += svg.legend([("precision", "#1f6fb2"), ("confidence", "#d81b60")])
    out.append(
        f'<text x="{svg.LEFT + svg.PW + 10}" y="{svg.TOP + 60}" font-size="11">D-ECE {ece}</text>'
    )
    out.append(
        f'<text x="{svg.LEFT + svg.PW + 10}" y="{svg.TOP + 76}" font-size="11">D-MCE {mce}</text>'
    )
    out.append(
        f'<text x="{svg.LEFT + svg.PW + 10}" y="{svg.TOP + 92}" font-size="11">n {cal.n}</text>'
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"


# --- the analysis (``ANALYSIS``) --------------------------------------------------------------
@dataclass(frozen=True)
class CalibrationOptions:
    """``vocviewer analyze --calibration``'s options."""

    bins: int = option(10, "calibration bins per feature (10)")
    sample_threshold: int = option(1, "bins with fewer samples count as calibrated (1)", "N")
    multivariate: bool = option(False, "D-ECE over confidence x box cx, cy, w, h")


def check_options(o: CalibrationOptions) -> None:
    if o.bins < 1:
        raise ValueError(f"--bins needs at least 1 bin, got {o.bins}")


@dataclass(frozen=True, eq=False)
class CalibrationAnalysis:
    """The pooled calibration (``overall``) and each class's by class index, with its
    ``options`` and ``notes`` (what could not be honoured)."""

    options: CalibrationOptions
    overall: Calibration
    per_class: dict[int, Calibration]
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        o = self.options
        return {
            "calibration": {
                "bins": o.bins,
                "sample_threshold": o.sample_threshold,
                "multivariate": o.multivariate,
                "overall": self.overall.to_dict(),
                "per_class": {c.name: c.to_dict() for c in self.per_class.values()},
            }
        }

    def text(self) -> TextPart:
        """Per class its D-ECE; D-MCE (overall) under the table."""

        def ece(c: Calibration) -> str:
            return f"{'-' if math.isnan(c.d_ece) else f'{c.d_ece:.4f}':>7}"

        mce = self.overall.d_mce
        return TextPart(
            f"calibration ({self.options.bins} bins)",
            f"{'D-ECE':>7}",
            {k: ece(c) for k, c in self.per_class.items()},
            f"{'-':>7}",
            ece(self.overall),
            notes=("" if math.isnan(mce) else f"D-MCE (overall) {mce:.4f}", *self.notes),
        )

    def figures(self, title: str) -> list[tuple[str, str]]:
        return [("reliability", reliability_svg(title, self.overall))]


def _boxes(s: Subject, evs: Sequence[ClassEvaluation]) -> dict[int, FloatArray] | None:
    """Per class index the relative ``cx, cy, w, h`` of each rank (``None``: an image without
    size)."""
    ds, img = s.dataset, s.dataset.images
    out = {}
    for e in evs:
        w, h = img.width[e.image_index], img.height[e.image_index]
        if np.any(w <= 0) or np.any(h <= 0):
            return None
        box = s.results.detections.box[e.order]
        out[e.class_index] = relative_boxes(box, w, h, ds.plus_one)
    return out


def compute(s: Subject, o: CalibrationOptions) -> CalibrationAnalysis:
    """The calibration of ``s``'s detection classes, pooled and per class."""
    evs = list(s.evidence.evaluations("det"))
    notes: tuple[str, ...] = ()
    boxes = None
    if o.multivariate:
        boxes = _boxes(s, evs)
        if boxes is None:
            notes = ("multivariate D-ECE needs every image's size: confidence only",)
    overall = calibration("overall", evs, o.bins, o.sample_threshold, boxes)
    per = {
        e.class_index: calibration(e.class_name, [e], o.bins, o.sample_threshold, boxes)
        for e in evs
    }
    return CalibrationAnalysis(o, overall, per, notes)


ANALYSIS = Analysis(
    "calibration",
    "Calibration: reliability diagram (D-ECE)",
    "D-ECE / D-MCE and reliability bins",
    CalibrationOptions,
    compute,
    check_options,
    figures=("reliability",),
)
