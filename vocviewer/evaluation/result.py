"""Evaluation results that carry their evidence (DESIGN.md rule 5).

A ``ClassEvaluation`` holds one class's ranked list. Position ``r`` of every per-rank array refers to
the item ranked ``r`` (0-based): a detection for detection tasks, an image for classification.
``precision[r]`` and ``recall[r]`` are those of the top ``r + 1`` items, exactly as the official code
computes them (NaN where it gives NaN). The GUI draws from these arrays; it never re-derives a
verdict.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from enum import IntEnum

import numpy as np
import numpy.typing as npt


class Verdict(IntEnum):
    """What the protocol decided for one ranked item."""

    IGNORED = (
        0  #: neither TP nor FP (VOC: matched a difficult object / label-0 image); keeps its rank
    )
    TP = 1  #: true positive
    FP = 2  #: false positive: no overlap ≥ threshold (or a negative image)
    DUPLICATE = 3  #: false positive: its best ground truth was already taken by a higher rank


@dataclass(frozen=True, eq=False)
class ClassEvaluation:
    """One class's ranked evaluation.

    Attributes
    ----------
    class_index, class_name
        The class.
    task
        ``"det"`` or ``"cls"``.
    npos
        Number of positives (VOC det: non-difficult objects; cls: images with label 1).
    has_results
        Whether a results file for this class was given (no file ≠ empty file).
    ndet
        det: number of detections ranked; cls: number of images that received a score.
    order : int64 (D,)
        det: row in ``ResultSet.detections`` of the item at each rank; cls: row in
        ``Dataset.images`` (every listed image is ranked; unscored ones have score ``-inf``).
    image_index : int64 (D,)
        Image row of the item at each rank.
    score : float64 (D,)
        Score at each rank (non-increasing).
    verdict : int8 (D,)
        ``Verdict`` at each rank.
    best_gt : int64 (D,)
        det: the object row (``Dataset.objects``) the protocol picked as candidate — the one with
        the largest overlap, whether or not the overlap reached the threshold; -1 if no object of
        the class overlaps. cls: -1.
    best_iou : float64 (D,)
        Overlap with ``best_gt`` (NaN where ``best_gt`` is -1 or for cls).
    duplicate_of : int64 (D,)
        For ``DUPLICATE`` ranks: the rank of the detection that took the object; else -1.
    precision, recall : float64 (D,)
        After the top ``r + 1`` items (official formulas, NaN included).
    ap
        Average precision under ``EvalResult.ap_rule``.
    """

    class_index: int
    class_name: str
    task: str
    npos: int
    has_results: bool
    ndet: int
    order: npt.NDArray[np.int64]
    image_index: npt.NDArray[np.int64]
    score: npt.NDArray[np.float64]
    verdict: npt.NDArray[np.int8]
    best_gt: npt.NDArray[np.int64]
    best_iou: npt.NDArray[np.float64]
    duplicate_of: npt.NDArray[np.int64]
    precision: npt.NDArray[np.float64]
    recall: npt.NDArray[np.float64]
    ap: float

    def __len__(self) -> int:
        return len(self.order)

    @property
    def matched_gt(self) -> npt.NDArray[np.int64]:
        """Object row matched at each rank (TP, DUPLICATE or IGNORED), else -1."""
        hit = self.verdict != Verdict.FP
        return np.where(hit & (self.best_gt >= 0), self.best_gt, -1)

    def counts(self) -> dict[str, int]:
        """Number of ranks per verdict name."""
        v = self.verdict
        return {k.name.lower(): int(np.count_nonzero(v == k)) for k in Verdict}


@dataclass(frozen=True, eq=False)
class EvalResult:
    """A protocol's result over classes.

    Attributes
    ----------
    protocol
        ``"voc2007"`` (11-point AP) or ``"voc2012"`` (all-points AP) — the AP rule's family name.
    task
        ``"det"`` or ``"cls"``.
    image_set
        The evaluated image set (``"val"``, ``"test"``, ...).
    ap_rule
        ``"11point"`` or ``"allpoints"``.
    iou_threshold
        Overlap threshold (detection).
    classes
        One ``ClassEvaluation`` per evaluated class, in class order.
    notes
        Why the numbers may not be comparable with official ones (skipped rows, ...); empty when
        they are.
    """

    protocol: str
    task: str
    image_set: str
    ap_rule: str
    iou_threshold: float
    classes: tuple[ClassEvaluation, ...]
    notes: tuple[str, ...] = ()

    def __iter__(self) -> Iterator[ClassEvaluation]:
        return iter(self.classes)

    @property
    def official(self) -> bool:
        """True when nothing was skipped or changed relative to the official code."""
        return not self.notes

    def by_name(self, class_name: str) -> ClassEvaluation:
        """The evaluation of ``class_name``; ``KeyError`` if it was not evaluated."""
        for c in self.classes:
            if c.class_name == class_name:
                return c
        raise KeyError(class_name)

    def mean_ap(self) -> float:
        """Mean of the defined (non-NaN) APs of the classes that have a results file.

        The devkit computes no mean (PROTOCOLS.md §1.8); this is the conventional mAP. NaN if no
        class qualifies. ``mean_ap_excluded()`` names the classes left out."""
        aps = [c.ap for c in self.classes if c.has_results and not math.isnan(c.ap)]
        return float(np.mean(aps)) if aps else math.nan

    def mean_ap_excluded(self) -> dict[str, list[str]]:
        """Classes left out of ``mean_ap``: ``{"no_results": [...], "nan_ap": [...]}``."""
        return {
            "no_results": [c.class_name for c in self.classes if not c.has_results],
            "nan_ap": [c.class_name for c in self.classes if c.has_results and math.isnan(c.ap)],
        }


def pr_polyline(
    recall: npt.NDArray[np.float64], precision: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The points that draw a ranked precision/recall polyline (per-rank float arrays): the
    finite ones, less those inside a run of equal recall — there (false positives, ignored ranks)
    precision only falls, so the run's first and last points draw the same vertical segment as
    all of them. A 500,000-rank curve keeps a few thousand points.

    >>> pr_polyline(np.array([0.5, 0.5, 0.5, 1.0]), np.array([1.0, 0.5, 1 / 3, 0.5]))
    (array([0.5, 0.5, 1. ]), array([1.        , 0.33333333, 0.5       ]))
    """
    ok = np.isfinite(recall) & np.isfinite(precision)
    r, p = recall[ok], precision[ok]
    if len(r) < 3:
        return r, p
    same_prev = np.r_[False, r[1:] == r[:-1]]
    same_next = np.r_[r[:-1] == r[1:], False]
    keep = ~(same_prev & same_next)
    return r[keep], p[keep]
