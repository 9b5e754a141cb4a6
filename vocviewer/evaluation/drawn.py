"""The one rule for which detections are *drawn* at a score threshold (pure numpy, no Qt).

A detection is drawn — shown on the image, listed as drawn, counted in the image list's error
counts and the grid's tags, in the confusion matrix and the comparison of two result sets, and
the only kind of true positive that finds an object (``confusion.missed_at``) — iff its score is
at least the threshold: ``score >= threshold``. A NaN score is never drawn.

The threshold is one number for every class, or one per class (``Thresholds``: a float64 (K,)
array indexed by ``Dataset`` class index, the "deployment thresholds" of
``vocviewer analyze --deploy-thresholds``). ``per_class_thresholds`` turns such thresholds and
an offset into the per-class thresholds drawn at (``clip(threshold[k] + offset, 0, 1)``);
``class_threshold`` and ``detection_threshold`` read one class's or every detection's threshold
out of either form, so that every consumer asks ``is_drawn`` the same question.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]
#: one threshold for every class, or one per class (``Dataset`` class index): float64 (K,), or
#: a tuple of K floats where the thresholds must compare and hash (``threshold_key``)
Thresholds = float | FloatArray | tuple[float, ...]


def is_drawn(score: npt.ArrayLike, threshold: float | npt.ArrayLike) -> BoolArray:
    """bool, ``score``'s shape: whether each score is drawn at ``threshold`` (one number, or
    one per score: ``detection_threshold``)."""
    with np.errstate(invalid="ignore"):
        return np.asarray(np.asarray(score) >= np.asarray(threshold), dtype=bool)


def per_class_thresholds(base: npt.ArrayLike, offset: float) -> FloatArray:
    """float64 (K,): the per-class thresholds ``base`` (K,) moved by ``offset``, clamped to
    [0, 1] (a class is drawn at ``clip(base[k] + offset, 0, 1)``)."""
    return np.clip(np.asarray(base, dtype=np.float64) + float(offset), 0.0, 1.0)


def class_threshold(threshold: Thresholds, class_index: int) -> float:
    """The threshold of class ``class_index`` (one number: itself)."""
    if isinstance(threshold, np.ndarray | tuple):
        return float(threshold[class_index])
    return float(threshold)


def detection_threshold(threshold: Thresholds, labels: npt.ArrayLike) -> float | FloatArray:
    """Each detection's threshold, from its class ``labels`` (int, any shape): float64 of
    ``labels``' shape per class; one number as it is."""
    if isinstance(threshold, np.ndarray | tuple):
        per_class = np.asarray(threshold, dtype=np.float64)
        return np.asarray(per_class[np.asarray(labels, dtype=np.int64)], dtype=np.float64)
    return float(threshold)


def threshold_key(threshold: Thresholds) -> float | tuple[float, ...]:
    """A hashable, comparable form of ``threshold`` (for caches kept per threshold)."""
    if isinstance(threshold, np.ndarray | tuple):
        return tuple(float(t) for t in threshold)
    return float(threshold)
