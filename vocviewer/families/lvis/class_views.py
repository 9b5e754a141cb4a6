"""COCO's ``coco_class`` for many categories at once (LVIS has 1,203).

``class_views`` gives, for every ``(k, raw)``, the ``ClassView`` that
``coco_view.coco_class(dataset, raw, k, choice, recall_thresholds, pair_iou, exclude)`` gives,
value for value: the running precision and recall, each true positive's box IoU and the missed
objects are computed over all the categories' detections in whole-array steps (running counts
per category are differences of one cumulative sum: integers, exact), and each category takes
its slice; only its curve and AP (``coco_view.coco_curve``, ``CocoCategoryEvaluation.ap``)
are its own calls.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.evaluation.result import ClassEvaluation, Verdict
from vocviewer.families.coco.evaluate import CocoCategoryEvaluation
from vocviewer.families.coco.view import coco_curve
from vocviewer.families.views import IOU_CHOICES, ClassView, PairIoU, ViewChoice, threshold_index

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

__all__ = ["class_views"]


def _running(is_hit: npt.NDArray[np.bool_], starts: IntArray, lengths: IntArray) -> FloatArray:
    """Per segment (``starts``, ``lengths``), the running count of ``is_hit``, as float64."""
    total = np.concatenate(([0], np.cumsum(is_hit)))
    running: FloatArray = (total[1:] - np.repeat(total[starts], lengths)).astype(np.float64)
    return running


def _missed(
    dataset: Dataset,
    classes: IntArray,
    verdict: npt.NDArray[np.int8],
    matched: IntArray,
    exclude: npt.NDArray[np.bool_],
) -> list[IntArray]:
    """``missed_rows`` of each class of ``classes``: its objects (less ``exclude``) that no
    true positive (``verdict``, ``matched``: every class's ranks) matched."""
    want = ~np.asarray(exclude, dtype=bool)
    want[matched[(verdict == Verdict.TP) & (matched >= 0)]] = False
    label = dataset.objects.label
    rows = np.flatnonzero(want & np.isin(label, classes))
    rows = rows[np.argsort(label[rows], kind="stable")]  # by class, ascending rows
    bounds = np.searchsorted(label[rows], np.stack((classes, classes + 1)), "left")
    return [rows[a:b].astype(np.int64) for a, b in bounds.T.tolist()]


def class_views(
    dataset: Dataset,
    raws: Sequence[tuple[int, CocoCategoryEvaluation]],
    choice: ViewChoice,
    recall_thresholds: FloatArray,
    pair_iou: PairIoU | None,
    exclude: npt.NDArray[np.bool_],
) -> list[ClassView]:
    """``coco_class`` of each ``(k, raw)`` (``raw`` of class ``k``; protocol thresholds; a
    class at most once), in the order given; see the module docstring."""
    if not raws:
        return []
    t = threshold_index(np.linspace(0.5, 0.95, raws[0][1].verdict.shape[0]), choice.iou)
    lengths = np.array([len(r.det_rows) for _, r in raws], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    npos = np.array([int(r.npig[0]) for _, r in raws], dtype=np.int64)
    order = np.concatenate([r.det_rows for _, r in raws])
    verdict = np.concatenate([r.verdict[t] for _, r in raws]).astype(np.int8)
    matched = np.concatenate([r.matched_gt[t] for _, r in raws])
    tp = _running(verdict == Verdict.TP, starts, lengths)
    fp = _running(verdict == Verdict.FP, starts, lengths)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(tp + fp > 0, tp / np.maximum(tp + fp, 1.0), np.nan)
        per_rank = np.repeat(npos, lengths)
        recall = np.where(per_rank > 0, tp / np.maximum(per_rank, 1), np.nan)
    best_iou = np.full(len(order), np.nan)
    if pair_iou is not None:
        hit = np.flatnonzero((verdict == Verdict.TP) & (matched >= 0))
        best_iou[hit] = pair_iou(order[hit], matched[hit])
    no_duplicate = np.full(len(order), -1, dtype=np.int64)
    classes = np.array([k for k, _ in raws], dtype=np.int64)
    missed = _missed(dataset, classes, verdict, matched, exclude)
    out = []
    for i, (k, raw) in enumerate(raws):
        a, b = int(starts[i]), int(starts[i] + lengths[i])
        ev = ClassEvaluation(
            class_index=k,
            class_name=dataset.classes[k],
            task="det",
            npos=int(npos[i]),
            has_results=True,
            ndet=b - a,
            order=raw.det_rows,
            image_index=raw.image_index,
            score=raw.score,
            verdict=verdict[a:b],
            best_gt=matched[a:b],
            best_iou=best_iou[a:b],
            duplicate_of=no_duplicate[a:b],
            precision=precision[a:b],
            recall=recall[a:b],
            ap=raw.ap,
        )
        area, rt, curve, ap_at = coco_curve(raw, t, choice.area, recall_thresholds)
        out.append(ClassView(ev, missed[i], rt, curve, ap_at, IOU_CHOICES[t], raw, area))
    return out
