"""Confusion matrix of one result set, built from the protocol's own verdicts (pure numpy, no Qt).

Rows are classes: the detection's class, or for the ``missed`` column the object's class. Columns
are the ``K`` classes followed by ``EXTRA_COLUMNS``: ``duplicate`` (``K``), ``background``
(``K + 1``) and ``missed`` (``K + 2``). For every evaluated class ``k`` and every rank whose score
is ``>= score_threshold`` (one number, or per class: ``drawn.Thresholds``, row ``k`` at
``score_threshold[k]``):

* ``TP``        → ``(k, k)``;
* ``DUPLICATE`` → ``(k, duplicate)``;
* ``FP``        → ``(k, t)`` when an object of another class ``t != k`` in the same image
                  (difficult / crowd included) overlaps the detection by IoU ``>= iou_threshold``
                  — the most-overlapping one, the first object row on ties — else
                  ``(k, background)``. A poorly localised box on its own class is background;
* ``IGNORED``   → nowhere.

``(t, missed)`` counts the objects of class ``t`` that no counted TP matched: those flagged in
``missed`` (never matched at any score) plus those matched only by a TP below the score threshold.

The verdicts are never re-derived (DESIGN rule 5). Dropping the detections below a score threshold
does not change the verdicts of those kept: the protocols match greedily in decreasing score, so
a detection's verdict depends only on higher-ranked ones. Overlaps use ``core.boxes.overlap_pairs``
with the protocol's ``plus_one`` rule (VOC: inclusive pixels).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis import best_among
from vocviewer.evaluation.drawn import Thresholds, class_threshold, is_drawn
from vocviewer.evaluation.kept_by_identity import KeptByIdentity
from vocviewer.evaluation.result import ClassEvaluation, Verdict

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

#: Names of the columns after the ``K`` class columns, in order (offsets 0, 1, 2 from ``K``).
EXTRA_COLUMNS: tuple[str, ...] = ("duplicate", "background", "missed")


@dataclass(frozen=True, eq=False)
class ConfusionMatrix:
    """Counts and membership of a confusion matrix (see the module docstring for the cells).

    Attributes
    ----------
    classes
        Class names (``Dataset.classes``); ``K = len(classes)``.
    counts : int64 (K, K + 3)
        Cell counts; columns are the classes, then ``EXTRA_COLUMNS``.
    score_threshold
        Detections with ``score >= score_threshold`` are counted (per class: float64 (K,),
        class ``k``'s detections at ``score_threshold[k]``).
    iou_threshold
        Minimum IoU for a false positive to count as confused with another class.
    class_index, rank, column : int64 (N,)
        Every counted detection: its class (row), its rank in that class's ``ClassEvaluation``
        and its column; sorted by class, then rank.
    detection : int64 (N,)
        Its row in ``ResultSet.detections`` (``ClassEvaluation.order[rank]``).
    confused_gt : int64 (N,)
        Other-class columns: the object row (``Dataset.objects``) it lies on; else -1.
    confused_iou : float64 (N,)
        Its IoU with ``confused_gt`` (NaN where that is -1).
    missed_object, missed_class : int64 (M,)
        Objects counted in the ``missed`` column (ascending row) and their class.
    """

    classes: tuple[str, ...]
    counts: IntArray
    score_threshold: float | FloatArray
    iou_threshold: float
    class_index: IntArray
    rank: IntArray
    column: IntArray
    detection: IntArray
    confused_gt: IntArray
    confused_iou: FloatArray
    missed_object: IntArray
    missed_class: IntArray

    @property
    def duplicate_column(self) -> int:
        return len(self.classes)

    @property
    def background_column(self) -> int:
        return len(self.classes) + 1

    @property
    def missed_column(self) -> int:
        return len(self.classes) + 2

    @property
    def column_labels(self) -> tuple[str, ...]:
        """Class names followed by ``EXTRA_COLUMNS``."""
        return self.classes + EXTRA_COLUMNS

    def detections_in(self, row: int, column: int) -> IntArray:
        """Ranks (in class ``row``'s ``ClassEvaluation``, ascending) of the detections counted in
        cell ``(row, column)``; empty for the ``missed`` column (see ``objects_in``)."""
        ranks: IntArray = self.rank[(self.class_index == row) & (self.column == column)]
        return ranks

    def objects_in(self, row: int) -> IntArray:
        """Object rows of class ``row`` counted in the ``missed`` column (ascending)."""
        rows: IntArray = self.missed_object[self.missed_class == row]
        return rows

    def to_csv(self) -> str:
        """The counts as CSV: a header row (``detected \\ lies on`` and the column labels), then
        one row per class."""
        lines = [",".join(["detected \\ lies on", *self.column_labels])]
        lines += [
            ",".join([name, *map(str, row)])
            for name, row in zip(self.classes, self.counts.tolist(), strict=True)
        ]
        return "\n".join(lines) + "\n"

    def class_threshold(self, class_index: int) -> float:
        """The score threshold class ``class_index``'s detections were counted at."""
        return class_threshold(self.score_threshold, class_index)

    def threshold_words(self) -> str:
        """``score ≥ 0.50``, or ``score ≥ per-class thresholds (0.20 to 0.70)``."""
        t = self.score_threshold
        if not isinstance(t, np.ndarray):
            return f"score ≥ {t:.2f}"
        lo, hi = (float(t.min()), float(t.max())) if len(t) else (0.0, 0.0)
        return f"score ≥ per-class thresholds ({lo:.2f} to {hi:.2f})"

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python form for JSON: classes, column labels, thresholds and counts."""
        return {
            "classes": list(self.classes),
            "columns": list(self.column_labels),
            "score_threshold": (
                self.score_threshold.tolist()
                if isinstance(self.score_threshold, np.ndarray)
                else float(self.score_threshold)
            ),
            "iou_threshold": float(self.iou_threshold),
            "counts": self.counts.tolist(),
        }


def missed_at(
    dataset: Dataset,
    evaluations: Mapping[int, ClassEvaluation],
    missed: BoolArray,
    score_threshold: Thresholds,
) -> BoolArray:
    """bool (O,): objects of the evaluated classes missed when only detections scoring
    ``>= score_threshold`` (per class: ``score_threshold[k]``) count — those in ``missed``
    (no TP at any score) plus those matched only by a TP scoring below the threshold."""
    out = missed & np.isin(dataset.objects.label, list(evaluations))
    evs = list(evaluations.values())
    if len(evs) > 1 and all(ev.score.dtype == np.float64 for ev in evs):  # all at once
        tp = np.flatnonzero(np.concatenate([ev.verdict for ev in evs]) == Verdict.TP)
        score = _laid_scores(evs)[tp]
        if isinstance(score_threshold, np.ndarray | tuple):
            per_class = [class_threshold(score_threshold, ev.class_index) for ev in evs]
            bounds = np.cumsum([len(ev) for ev in evs])
            at: float | FloatArray = np.array(per_class, dtype=np.float64)[
                np.searchsorted(bounds, tp, side="right")
            ]
        else:
            at = float(score_threshold)
        best_gt = np.concatenate([ev.best_gt for ev in evs])[tp]
        out[best_gt[~is_drawn(score, at) & (best_gt >= 0)]] = True
        return out
    for ev in evs:
        late_tp = (
            ~is_drawn(ev.score, class_threshold(score_threshold, ev.class_index))
            & (ev.verdict == Verdict.TP)
            & (ev.best_gt >= 0)
        )
        out[ev.best_gt[late_tp]] = True
    return out


#: the last two ``_laid_scores`` by the score arrays each was made of (the same ranked
#: detections at another IoU threshold: no new copy)
_SCORES: KeptByIdentity[FloatArray] = KeptByIdentity(2)


def _laid_scores(evaluations: list[ClassEvaluation]) -> FloatArray:
    """The scores of ``evaluations`` laid end to end (read-only; kept, ``_SCORES``)."""
    key = [ev.score for ev in evaluations]
    score = _SCORES.get(key)
    if score is None:
        score = np.concatenate(key)
        score.flags.writeable = False
        _SCORES.put(key, score)
    return score


def confusion_matrix(
    dataset: Dataset,
    results: ResultSet,
    evaluations: Mapping[int, ClassEvaluation],
    missed: BoolArray,
    *,
    score_threshold: Thresholds,
    iou_threshold: float,
    plus_one: bool,
) -> ConfusionMatrix:
    """Confusion matrix of the detection ``evaluations`` at a score and an IoU threshold.

    Parameters
    ----------
    dataset, results
        What ``evaluations`` were computed from (``ClassEvaluation.order`` indexes
        ``results.detections``; ``best_gt`` indexes ``dataset.objects``).
    evaluations
        Class index → detection ``ClassEvaluation`` (classes absent here contribute nothing).
    missed : bool (O,)
        Over ``dataset.objects``: the objects that count as positives and that no TP matched at
        any score (``analysis.missed_objects`` of each class, on the evaluated images).
    score_threshold
        Only ranks with ``score >= score_threshold`` are counted (per class, float64 (K,):
        class ``k``'s ranks with ``score >= score_threshold[k]``; ``drawn.Thresholds``).
    iou_threshold
        Other-class overlap needed for a false positive to count as a confusion; normally the
        protocol's own threshold.
    plus_one
        The protocol's overlap rule (VOC, ILSVRC: ``True``; COCO, VisDrone: ``False``).
    """
    obj = dataset.objects
    n_classes = len(dataset.classes)
    missed = np.asarray(missed, dtype=bool)
    if missed.shape != (len(obj),):
        raise ValueError(f"missed has shape {missed.shape}, expected ({len(obj)},)")
    counts = np.zeros((n_classes, n_classes + len(EXTRA_COLUMNS)), dtype=np.int64)
    parts: list[tuple[IntArray, IntArray, IntArray, IntArray, IntArray, FloatArray]] = []
    for k in sorted(evaluations):
        ev = evaluations[k]
        if ev.task != "det":
            raise ValueError(f"class {ev.class_name!r}: a confusion matrix needs detections")
        kept = is_drawn(ev.score, class_threshold(score_threshold, k))
        verdict = ev.verdict
        column = np.full(len(ev), -1, dtype=np.int64)
        column[verdict == Verdict.TP] = k
        column[verdict == Verdict.DUPLICATE] = n_classes
        fp = np.flatnonzero(kept & (verdict == Verdict.FP))
        confused = np.full(len(ev), -1, dtype=np.int64)
        confused_iou = np.full(len(ev), np.nan)
        if len(fp):
            box = results.detections.box[ev.order[fp]]
            others = np.flatnonzero(obj.label != k).astype(np.int64)
            best, ov = best_among(dataset, ev.image_index[fp], box, others, plus_one)
            on = (best >= 0) & (np.nan_to_num(ov, nan=-np.inf) >= iou_threshold)
            confused[fp[on]] = best[on]
            confused_iou[fp[on]] = ov[on]
            column[fp] = np.where(on, obj.label[np.maximum(confused[fp], 0)], n_classes + 1)
        rank = np.flatnonzero(kept & (column >= 0)).astype(np.int64)
        counts[k] += np.bincount(column[rank], minlength=counts.shape[1])
        cls = np.full(len(rank), k, dtype=np.int64)
        parts.append((cls, rank, column[rank], ev.order[rank], confused[rank], confused_iou[rank]))
    missed_object = np.flatnonzero(missed_at(dataset, evaluations, missed, score_threshold)).astype(
        np.int64
    )
    missed_class = obj.label[missed_object].astype(np.int64)
    counts[:, n_classes + 2] = np.bincount(missed_class, minlength=n_classes)
    empty = np.zeros(0, dtype=np.int64)
    cols = [np.concatenate([p[i] for p in parts]) if parts else empty for i in range(6)]
    return ConfusionMatrix(
        classes=tuple(dataset.classes),
        counts=counts,
        score_threshold=(
            np.array(score_threshold, dtype=np.float64)
            if isinstance(score_threshold, np.ndarray | tuple)
            else float(score_threshold)
        ),
        iou_threshold=float(iou_threshold),
        class_index=cols[0].astype(np.int64),
        rank=cols[1].astype(np.int64),
        column=cols[2].astype(np.int64),
        detection=cols[3].astype(np.int64),
        confused_gt=cols[4].astype(np.int64),
        confused_iou=cols[5].astype(np.float64),
        missed_object=missed_object,
        missed_class=missed_class,
    )
