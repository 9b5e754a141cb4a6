"""COCO's ``coco_class`` for many categories at once (a run of categories the matching kernel
finished together; LVIS's 1,203).

``class_views`` gives, for every ``(k, raw)``, the ``ClassView`` that
``coco_view.coco_class(dataset, raw, k, choice, recall_thresholds, pair_iou, exclude)`` gives,
value for value: the running precision and recall, each true positive's IoU (the one the
matching kept, ``raw.tp_iou0``, where ``coco_class`` takes it) and the missed objects are
computed over all the categories' detections in whole-array steps (running counts per category
are differences of one cumulative sum: integers, exact), and each category takes its slice (its
matched objects are ``raw``'s own row, as in ``coco_class``). A few dozen numpy calls per run
instead of as many per category: far fewer stretches of Python between them, each of which
waits for the interpreter lock where another thread (the window's) runs Python.

The curves and APs (``coco_curve``, which ``coco_class`` takes from here as well, and
``CocoCategoryEvaluation.ap``) are means of each category's entries > -1: a category whose entries are all defined (the usual
case: COCO's accumulation fills a curve or leaves it all -1) is averaged in one row-wise
reduction over all of them (``_means``: the same pairwise sum of the same elements as its own
``np.mean``), any other alone.
"""

from __future__ import annotations

import functools
import math
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer import kernel
from vocviewer.core.dataset import Dataset
from vocviewer.evaluation.result import ClassEvaluation, Verdict
from vocviewer.families.coco.evaluate import CocoCategoryEvaluation, CocoParams
from vocviewer.families.views import (
    _NO_DUPLICATE,
    AREA_CHOICES,
    IOU_CHOICES,
    ClassView,
    PairIoU,
    ViewChoice,
    threshold_index,
)

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

__all__ = [
    "COCO_AREAS",
    "class_views",
    "coco_aps",
    "coco_curve",
    "coco_curves",
    "protocol_thresholds",
]
#: COCO area ranges, in the order of the precision array's axis 2 (keypoints: no "small").
COCO_AREAS: tuple[str, ...] = AREA_CHOICES


@functools.cache
def protocol_thresholds(n: int) -> FloatArray:
    """COCO's ``n`` IoU thresholds .50:.95 (read-only; one array per ``n``)."""
    out = np.linspace(0.5, 0.95, n)
    out.flags.writeable = False
    return out


def coco_curve(
    raw: Any, t: int, area: str, recall_thresholds: FloatArray, params: CocoParams | None = None
) -> tuple[str, FloatArray, FloatArray, float]:
    """``raw``'s curve at threshold index ``t`` and area range ``area`` (``all`` where the task
    has no such range; the largest detection cap): the area used, the recall thresholds where
    precision is defined, that precision and its mean (``ap_at``; NaN if none)."""
    areas = COCO_AREAS if raw.precision.shape[2] == 4 else ("all", "medium", "large")
    areas = areas if params is None else params.area_names
    area = area if area in areas else "all"
    curve = raw.precision[t, :, areas.index(area), -1]
    ok = curve > -1
    ap_at = float(np.mean(curve[ok])) if np.any(ok) else math.nan
    return area, np.asarray(recall_thresholds)[ok], curve[ok], ap_at


def _running(is_hit: npt.NDArray[np.bool_], starts: IntArray, lengths: IntArray) -> FloatArray:
    """Per segment (``starts``, ``lengths``), the running count of ``is_hit``, as float64."""
    total = np.concatenate(([0], np.cumsum(is_hit)))
    running: FloatArray = (total[1:] - np.repeat(total[starts], lengths)).astype(np.float64)
    return running


def _ranked(
    verdict: npt.NDArray[np.int8], starts: IntArray, lengths: IntArray, npos: IntArray
) -> tuple[FloatArray, FloatArray]:
    """Each category's running precision and recall (its ranks ``starts[i]`` ..
    ``+ lengths[i]`` of ``verdict``; NaN before a counted rank, recall NaN without
    positives): ``views.ranked_evaluation``'s, in one pass of the ``_diagnose`` kernel where it
    is built (the same IEEE operations), else in whole-array numpy steps."""
    module = kernel.load("_diagnose")
    if module is not None:
        bounds = np.append(starts, starts[-1] + lengths[-1]).astype(np.int64)
        codes = int(Verdict.TP), int(Verdict.FP)
        out: tuple[FloatArray, FloatArray] = module.ranked(verdict, bounds, npos * 1.0, *codes)
        return out
    tp = _running(verdict == Verdict.TP, starts, lengths)
    fp = _running(verdict == Verdict.FP, starts, lengths)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(tp + fp > 0, tp / np.maximum(tp + fp, 1.0), np.nan)
        per_rank = np.repeat(npos, lengths)
        recall = np.where(per_rank > 0, tp / np.maximum(per_rank, 1), np.nan)
    return precision, recall


def _means(rows: FloatArray) -> FloatArray:
    """Per row of ``rows`` float64 (K, n), ``np.mean(row[row > -1])`` bit for bit (NaN where
    none): the rows with every entry defined in one reduction along the rows (numpy sums each
    contiguous row pairwise, as it sums the row alone), the others one by one."""
    out = np.full(len(rows), np.nan)
    defined = rows > -1
    full = defined.all(axis=1)
    if rows.shape[1]:
        out[full] = np.mean(rows[full], axis=1)
    for k in np.flatnonzero(~full & defined.any(axis=1)).tolist():
        out[k] = np.mean(rows[k][defined[k]])
    return out


def _curves(
    raws: Sequence[tuple[int, CocoCategoryEvaluation]],
    t: int,
    area: str,
    recall_thresholds: FloatArray,
) -> list[tuple[str, FloatArray, FloatArray, float]] | None:
    """``coco_curve(raw, t, area, recall_thresholds)`` of every raw, or ``None`` where their
    precision arrays are not all of COCO's four area ranges (then each takes its own call)."""
    if any(raw.precision.shape[2] != len(COCO_AREAS) for _, raw in raws):
        return None
    area = area if area in COCO_AREAS else "all"
    a = COCO_AREAS.index(area)
    curves = np.stack([raw.precision[t, :, a, -1] for _, raw in raws])  # (K, R)
    ok = curves > -1
    ap_at: list[float] = _means(curves).tolist()
    rt = np.asarray(recall_thresholds)
    return [(area, rt[ok[i]], curves[i][ok[i]], ap_at[i]) for i in range(len(raws))]


def coco_curves(
    raws: Sequence[tuple[int, Any]], t: int, area: str, recall_thresholds: FloatArray
) -> list[tuple[str, FloatArray, FloatArray, float]]:
    """``coco_curve(raw, t, area, recall_thresholds)`` of every ``(k, raw)``, in one step where
    their precision arrays are all of COCO's four area ranges (``_curves``)."""
    curves = _curves(raws, t, area, recall_thresholds) if raws else []
    if curves is None:
        return [coco_curve(raw, t, area, recall_thresholds) for _, raw in raws]
    return curves


#: each category evidence's ``ap`` (held weakly): it does not change with the threshold or area
_AP: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()


def coco_aps(raws: Sequence[tuple[int, Any]]) -> list[float]:
    """``raw.ap`` of every ``(k, raw)`` (``CocoCategoryEvaluation.ap``, value for value), those
    not asked before in one step (``_aps``), kept per raw."""
    new = [(k, raw) for k, raw in raws if raw not in _AP]
    shapes = {raw.precision.shape[:2] if raw.precision.ndim == 4 else None for _, raw in new}
    fresh = _aps(new) if len(shapes) == 1 and None not in shapes else [r.ap for _, r in new]
    for (_, raw), ap in zip(new, fresh, strict=True):
        _AP[raw] = ap
    return [_AP[raw] for _, raw in raws]


def _aps(raws: Sequence[tuple[int, CocoCategoryEvaluation]]) -> list[float]:
    """``raw.ap`` of every raw (AP over IoU .50:.95, area all, largest cap; NaN if none)."""
    every = np.stack([raw.precision[:, :, 0, -1] for _, raw in raws])  # (K, T, R)
    aps: list[float] = _means(every.reshape(len(raws), -1)).tolist()
    return aps


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
    t = threshold_index(protocol_thresholds(raws[0][1].verdict.shape[0]), choice.iou)
    lengths = np.array([len(r.det_rows) for _, r in raws], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    npos = np.array([int(r.npig[0]) for _, r in raws], dtype=np.int64)
    order = np.concatenate([r.det_rows for _, r in raws])
    verdict = np.concatenate([r.verdict[t] for _, r in raws]).astype(np.int8)
    matched = np.concatenate([r.matched_gt[t] for _, r in raws])
    precision, recall = _ranked(verdict, starts, lengths, npos)
    best_iou = np.full(len(order), np.nan)
    kept = [t == 0 and pair_iou is not None and r.tp_iou0 is not None for _, r in raws]
    if pair_iou is not None and not all(kept):
        ask = (verdict == Verdict.TP) & (matched >= 0)
        for i in np.flatnonzero(kept).tolist():  # (their IoU is the matching's: none asked)
            ask[starts[i] : starts[i] + lengths[i]] = False
        hit = np.flatnonzero(ask)
        best_iou[hit] = pair_iou(order[hit], matched[hit])
    classes = np.array([k for k, _ in raws], dtype=np.int64)
    missed = _missed(dataset, classes, verdict, matched, exclude)
    curves = _curves(raws, t, choice.area, recall_thresholds)
    aps = _aps(raws)
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
            best_gt=raw.matched_gt[t],
            best_iou=best_iou[a:b] if raw.tp_iou0 is None or not kept[i] else raw.tp_iou0,
            duplicate_of=np.broadcast_to(_NO_DUPLICATE, (b - a,)),  # read-only, no memory
            precision=precision[a:b],
            recall=recall[a:b],
            ap=aps[i],
        )
        if curves is not None:
            area, rt, curve, ap_at = curves[i]
        else:
            area, rt, curve, ap_at = coco_curve(raw, t, choice.area, recall_thresholds)
        out.append(ClassView(ev, missed[i], rt, curve, ap_at, IOU_CHOICES[t], raw, area))
    return out
