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
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

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
