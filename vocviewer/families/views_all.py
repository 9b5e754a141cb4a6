"""Every class's view at once, from stored ranked evidence (what re-deriving at another IoU
threshold does for 80 or 1,203 classes): ``views.ranked_evaluation``, ``views.missed_rows`` and
``views.diagnosed`` of all classes as a few numpy passes over their ranks laid end to end
(``evaluation.diagnosis_all``), instead of dozens of small calls per class. Each class's
evaluation, missed objects and diagnosis equal the per-class functions' value for value (the
per-rank arrays are views of the shared columns)."""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis import DiagnosisRules
from vocviewer.evaluation.diagnosis_all import classify_all_false_positives, laid_out
from vocviewer.evaluation.polylines import keep_polylines
from vocviewer.evaluation.result import ClassEvaluation, Verdict
from vocviewer.families.views import _NO_DUPLICATE, ClassView, PairIoU, ranked_evaluation
from vocviewer.kernel import load as load_kernel

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class Ranked:
    """One class's ranked evidence at one threshold (``views.ranked_evaluation``'s arguments):
    class ``k``, detection rows ``order`` in rank order, their ``image_index`` and ``score``,
    ``verdict`` int8 and ``matched`` object rows (-1: none), ``npos`` and ``ap``."""

    k: int
    order: IntArray
    image_index: IntArray
    score: FloatArray
    verdict: npt.NDArray[np.int8]
    matched: IntArray
    npos: int
    ap: float

    @classmethod
    def of_raw(cls, k: int, t: int, raw: Any, ap: float | None = None) -> Ranked:
        """Class ``k`` at threshold index ``t`` of a family's per-class record ``raw``
        (``det_rows``, ``image_index``, ``score``, ``verdict`` and ``matched_gt`` (T, N),
        ``npig``, ``ap``: e.g. COCO's ``CocoCategoryEvaluation``; ``ap``: its ``ap``, if
        known)."""
        return cls(
            k,
            raw.det_rows,
            raw.image_index,
            raw.score,
            raw.verdict[t],
            raw.matched_gt[t],
            int(raw.npig[0]),
            raw.ap if ap is None else ap,
        )

    def evaluation(
        self, dataset: Dataset, pair_iou: PairIoU | None = None, tp_iou: FloatArray | None = None
    ) -> ClassEvaluation:
        """``views.ranked_evaluation`` of this class alone."""
        return ranked_evaluation(
            dataset,
            self.k,
            self.order,
            self.image_index,
            self.score,
            self.verdict,
            self.matched,
            self.npos,
            self.ap,
            pair_iou,
            tp_iou,
        )


def _segment_cumsum(flags: npt.NDArray[np.bool_], bounds: IntArray) -> FloatArray:
    """``np.cumsum`` of each segment ``[bounds[i], bounds[i + 1])`` of ``flags``, as float64
    (exact: integer counts)."""
    c = np.cumsum(flags, dtype=np.int64)
    start = bounds[:-1]
    if not len(c):
        return c.astype(np.float64)
    base = np.where(start > 0, c[np.maximum(start - 1, 0)], 0)
    out: FloatArray = (c - np.repeat(base, np.diff(bounds))).astype(np.float64)
    return out


def ranked_evaluations(
    dataset: Dataset, parts: Sequence[Ranked], pair_iou: PairIoU | None = None
) -> list[ClassEvaluation]:
    """``views.ranked_evaluation`` of each of ``parts``, value for value."""
    return ranked_and_taken(dataset, parts, pair_iou)[0]


def ranked_and_taken(
    dataset: Dataset, parts: Sequence[Ranked], pair_iou: PairIoU | None = None
) -> tuple[list[ClassEvaluation], IntArray]:
    """``ranked_evaluations`` and the object rows their true positives matched (int64, for
    ``missed_rows_all``)."""
    if not parts:
        return [], np.zeros(0, dtype=np.int64)
    sizes = np.array([len(p.order) for p in parts], dtype=np.int64)
    bounds = np.concatenate(([0], np.cumsum(sizes)))
    verdict = np.concatenate([p.verdict for p in parts]).astype(np.int8, copy=False)
    is_tp = verdict == Verdict.TP
    npos = np.array([p.npos for p in parts], dtype=np.float64)
    k = load_kernel("_diagnose")
    lines = None  # (the kernel's: each class's PR polyline, made in the same pass)
    if k is not None:
        codes = int(Verdict.TP), int(Verdict.FP)
        precision, recall, lines = k.ranked(verdict, bounds, npos, *codes, True)
    else:
        tp = _segment_cumsum(is_tp, bounds)
        fp = _segment_cumsum(verdict == Verdict.FP, bounds)
        per_rank = np.repeat(npos, sizes)
        with np.errstate(invalid="ignore", divide="ignore"):
            precision = np.where(tp + fp > 0, tp / np.maximum(tp + fp, 1.0), np.nan)
            recall = np.where(per_rank > 0, tp / per_rank, np.nan)
    best_iou = np.full(len(verdict), np.nan)
    matched = np.concatenate([p.matched for p in parts])
    hit = np.flatnonzero(is_tp & (matched >= 0))
    if pair_iou is not None:
        order = laid_out(
            [p.order for p in parts], [p.image_index for p in parts], [p.k for p in parts]
        )[0]
        best_iou[hit] = pair_iou(order[hit], matched[hit])
    out = []
    for p, lo, hi in zip(parts, bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        n, at = hi - lo, slice(lo, hi)
        out.append(
            ClassEvaluation(
                class_index=p.k,
                class_name=dataset.classes[p.k],
                task="det",
                npos=int(p.npos),
                has_results=True,
                ndet=n,
                order=p.order,
                image_index=p.image_index,
                score=p.score,
                verdict=verdict[at],
                best_gt=p.matched,
                best_iou=best_iou[at],
                duplicate_of=np.broadcast_to(_NO_DUPLICATE, (n,)),
                precision=precision[at],
                recall=recall[at],
                ap=p.ap,
            )
        )
    if lines is not None:
        keep_polylines(out, lines)
    return out, matched[hit].astype(np.int64, copy=False)


def missed_rows_all(
    dataset: Dataset,
    evaluations: Sequence[ClassEvaluation],
    exclude: npt.NDArray[np.bool_] | None = None,
    taken: IntArray | None = None,
) -> list[IntArray]:
    """``views.missed_rows(dataset, ev, exclude)`` of each of ``evaluations`` (each matching
    only objects of its own class, as every protocol here does); ``taken``: the object rows
    their true positives matched, if known (``ranked_and_taken``)."""
    label = dataset.objects.label
    by_label, offsets = objects_by_label(dataset)
    unmatched = np.ones(len(label), dtype=bool) if exclude is None else ~exclude
    if taken is not None:
        unmatched[taken] = False
    else:
        for ev in evaluations:
            unmatched[ev.best_gt[(ev.verdict == Verdict.TP) & (ev.best_gt >= 0)]] = False
    out = []
    for ev in evaluations:
        k = ev.class_index
        rows = by_label[offsets[k] : offsets[k + 1]] if 0 <= k < len(offsets) - 1 else label[:0]
        out.append(rows[unmatched[rows]].astype(np.int64))
    return out


#: per dataset (held weakly): its object rows grouped by class, and each class's offsets
_BY_LABEL: weakref.WeakKeyDictionary[Dataset, tuple[IntArray, IntArray]] = (
    weakref.WeakKeyDictionary()
)


def objects_by_label(dataset: Dataset) -> tuple[IntArray, IntArray]:
    """Object rows grouped by class (ascending within each; rows of no class first) and each
    class's offsets into them, int64 (C + 1,); kept per dataset (the window works them out
    ahead of its first re-derive, ``EvaluationModel``)."""
    kept = _BY_LABEL.get(dataset)
    if kept is None:
        label = dataset.objects.label
        by_label = np.argsort(label, kind="stable").astype(np.int64)
        counts = np.bincount(label[label >= 0], minlength=len(dataset.classes))
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        kept = _BY_LABEL[dataset] = (by_label, offsets + np.count_nonzero(label < 0))
    return kept


def diagnosed_all(
    dataset: Dataset, results: ResultSet, views: Sequence[ClassView], rules: DiagnosisRules
) -> list[ClassView]:
    """``views.diagnosed`` of each of ``views`` (detection views, one per class, of one IoU
    threshold each; several thresholds: one pass per threshold)."""
    out = list(views)
    det = [i for i, v in enumerate(views) if v.evaluation.task == "det"]
    for iou in sorted({views[i].iou for i in det}):
        at = [i for i in det if views[i].iou == iou]
        fps = classify_all_false_positives(
            dataset,
            results,
            [views[i].evaluation for i in at],
            plus_one=dataset.plus_one,
            groups=rules.groups,
            iou_threshold=iou,
        )
        for i, fp in zip(at, fps, strict=True):
            out[i] = dataclasses.replace(views[i], false_positives=fp)
    return out
