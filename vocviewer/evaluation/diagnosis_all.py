"""The false-positive diagnosis of every class at once (``analysis.classify_false_positives``
over the classes' ranks laid end to end): one pass of numpy over the concatenated columns and
one overlap search (``pair_overlaps.remembered_best_all``) for the detections of every class not
searched before, instead of ~20 numpy calls per class. Each class's ``FalsePositives`` is the
one ``classify_false_positives`` gives, value for value (its arrays are views of the shared
columns)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis import (
    MIN_OVERLAP,
    SIMILAR_GROUPS,
    FalsePositives,
    FPKind,
    classify_false_positives,
    classify_kinds,
    similarity_group,
)
from vocviewer.evaluation.kept_by_identity import KeptByIdentity
from vocviewer.evaluation.pair_overlaps import Bests, remembered_best_all, searched_by_rank
from vocviewer.evaluation.result import ClassEvaluation, Verdict
from vocviewer.kernel import load as load_kernel

IntArray = npt.NDArray[np.int64]


def similar_classes(
    classes: Sequence[str], names: Mapping[int, str], groups: Mapping[str, frozenset[str]]
) -> list[list[int]]:
    """Per class index, the other classes of its similarity group (as ``classify_false_positives``
    finds them for a class named ``names[k]``; classes not in ``names``: none)."""
    members: dict[str, list[int]] = {}
    out: list[list[int]] = [[] for _ in classes]
    for k, name in names.items():
        g = similarity_group(name, groups)
        if g is None:
            continue
        if g not in members:
            group = groups[g]
            members[g] = [j for j, c in enumerate(classes) if c in group]
        out[k] = [j for j in members[g] if j != k]
    return out


def classify_all_false_positives(
    dataset: Dataset,
    results: ResultSet,
    evaluations: Sequence[ClassEvaluation],
    *,
    plus_one: bool = True,
    min_overlap: float = MIN_OVERLAP,
    groups: Mapping[str, frozenset[str]] = SIMILAR_GROUPS,
    iou_threshold: float | None = None,
) -> list[FalsePositives]:
    """``classify_false_positives`` of each of ``evaluations`` (one per class, all from
    ``results``; the same arguments for all), in their order."""
    det = [ev for ev in evaluations if ev.task == "det"]
    if len({ev.class_index for ev in det}) != len(det):  # a class twice: one at a time
        return [
            classify_false_positives(
                dataset,
                results,
                ev,
                plus_one=plus_one,
                min_overlap=min_overlap,
                groups=groups,
                iou_threshold=iou_threshold,
            )
            for ev in evaluations
        ]
    sizes = np.array([len(ev) if ev.task == "det" else 0 for ev in evaluations], dtype=np.int64)
    bounds = np.concatenate(([0], np.cumsum(sizes))).tolist()
    cut = [ev for ev, n in zip(evaluations, sizes.tolist(), strict=True) if n]
    n, k = int(bounds[-1]), load_kernel("_diagnose")
    kind, confused = np.zeros(0, dtype=np.int8), np.full(0, -1, dtype=np.int64)
    confused_iou, same_iou = np.full(0, np.nan), np.full(0, np.nan)
    same_gt = np.full(0, -1, dtype=np.int64)
    if cut:
        verdict = np.concatenate([ev.verdict for ev in cut])
        same_gt = np.concatenate([ev.best_gt for ev in cut], dtype=np.int64)
        same_iou = np.concatenate([ev.best_iou for ev in cut], dtype=np.float64)
        rules = (plus_one, min_overlap, groups, iou_threshold)
        if k is not None:  # the kernel makes the kinds and confusions
            kind, confused, confused_iou, same_gt, same_iou = _diagnose_kernel(
                k, dataset, results, cut, (verdict, same_gt, same_iou), *rules
            )
        else:
            kind = np.zeros(n, dtype=np.int8)
            confused = np.full(n, -1, dtype=np.int64)
            confused_iou = np.full(n, np.nan)
            columns = (verdict, same_gt, same_iou, kind, confused, confused_iou)
            _diagnose(dataset, results, cut, columns, *rules)
    out = []
    for ev, lo, hi in zip(evaluations, bounds[:-1], bounds[1:], strict=True):
        if ev.task != "det":  # as classify_false_positives leaves it
            m = len(ev)
            fp = FalsePositives(
                np.zeros(m, dtype=np.int8),
                np.full(m, -1, dtype=np.int64),
                np.full(m, np.nan),
                ev.best_gt.astype(np.int64),
                ev.best_iou.astype(np.float64),
            )
        else:
            part = slice(lo, hi)
            fp = FalsePositives(
                kind[part], confused[part], confused_iou[part], same_gt[part], same_iou[part]
            )
        out.append(fp)
    return out


def _searched(
    dataset: Dataset,
    results: ResultSet,
    evaluations: list[ClassEvaluation],
    needed: IntArray,
    groups: Mapping[str, frozenset[str]],
    plus_one: bool,
) -> Bests:
    """``remembered_best_all`` of the ``needed`` ranks (of ``evaluations`` laid end to end)."""
    names = {ev.class_index: ev.class_name for ev in evaluations}
    similar = similar_classes(dataset.classes, names, groups)
    order, image, cls = lay_out(evaluations)
    return remembered_best_all(dataset, results, order, image, cls, similar, plus_one, needed)


def search_ahead(
    dataset: Dataset,
    results: ResultSet,
    evaluations: Sequence[ClassEvaluation],
    groups: Mapping[str, frozenset[str]] = SIMILAR_GROUPS,
) -> None:
    """Search the overlaps of every rank of ``evaluations`` (one per class, from ``results``)
    that the diagnosis has not searched yet (``remembered_best_all``, kept): the false
    positives at another IoU threshold (a re-derive) then only look theirs up (the window
    does this once its evaluation is diagnosed: ~4 ms that a new threshold no longer waits
    for)."""
    cut = [ev for ev in evaluations if ev.task == "det" and len(ev)]
    if len({ev.class_index for ev in cut}) == len(cut) and cut:
        every = np.arange(sum(len(ev) for ev in cut), dtype=np.int64)
        _searched(dataset, results, cut, every, groups, dataset.plus_one)
        _searched_by_rank(dataset, results, cut, groups, dataset.plus_one)  # (kept)


def _searched_by_rank(
    dataset: Dataset,
    results: ResultSet,
    evaluations: list[ClassEvaluation],
    groups: Mapping[str, frozenset[str]],
    plus_one: bool,
) -> Bests | None:
    """``searched_by_rank`` of the ranks of ``evaluations`` laid end to end: every rank's
    search where all were searched before (``search_ahead``), else ``None``."""
    names = {ev.class_index: ev.class_name for ev in evaluations}
    similar = similar_classes(dataset.classes, names, groups)
    order, _, cls = lay_out(evaluations)
    return searched_by_rank(dataset, results, order, cls, similar, plus_one)


#: the last two ``laid_out`` by the ``order`` arrays each was made of (the same ranked
#: detections again at another threshold: no new copies; two: the window's two result sets)
_LAID: KeptByIdentity[tuple[IntArray, IntArray, IntArray]] = KeptByIdentity(2)


def lay_out(evaluations: Sequence[ClassEvaluation]) -> tuple[IntArray, IntArray, IntArray]:
    """``laid_out`` of ``evaluations``' ranked detections (one per class, in class order):
    what a later re-derive at another IoU threshold reads (the window lays them out when the
    diagnosis of its evaluation ends, so its first re-derive does not)."""
    orders = [ev.order for ev in evaluations]
    images = [ev.image_index for ev in evaluations]
    return laid_out(orders, images, [ev.class_index for ev in evaluations])


def laid_out(
    orders: Sequence[IntArray], images: Sequence[IntArray], classes: Sequence[int]
) -> tuple[IntArray, IntArray, IntArray]:
    """The detection rows ``orders``, their image rows ``images`` and each rank's class of
    ranked detections laid end to end, int64 each (kept for the last ``orders`` asked,
    ``_LAID``: the same arrays again at another threshold give the same columns, not new
    copies)."""
    nonempty = [i for i, o in enumerate(orders) if len(o)]  # (empty ones add no rank)
    orders, images = [orders[i] for i in nonempty], [images[i] for i in nonempty]
    classes = [classes[i] for i in nonempty]
    kept = _LAID.get(orders)
    if kept is not None:
        return kept
    cls = np.repeat(np.asarray(classes, dtype=np.int64), [len(o) for o in orders])
    order = np.concatenate(orders).astype(np.int64, copy=False)
    image = np.concatenate(images).astype(np.int64, copy=False)
    for a in (order, image, cls):
        a.flags.writeable = False
    return _LAID.put(orders, (order, image, cls))


_CODES = np.array([Verdict.FP, Verdict.DUPLICATE], dtype=np.int8)
_KINDS = np.array(
    [FPKind.DUPLICATE, FPKind.LOCALIZATION, FPKind.SIMILAR, FPKind.OTHER, FPKind.BACKGROUND],
    dtype=np.int8,
)


def _diagnose_kernel(
    k: ModuleType,
    dataset: Dataset,
    results: ResultSet,
    evaluations: list[ClassEvaluation],
    columns: tuple[npt.NDArray[Any], ...],
    plus_one: bool,
    min_overlap: float,
    groups: Mapping[str, frozenset[str]],
    iou_threshold: float | None,
) -> tuple[npt.NDArray[Any], ...]:
    """``_diagnose`` in one pass of the compiled kernel ``_diagnose``: the new columns kind,
    confused, confused_iou, same_gt, same_iou."""
    verdict, same_gt, same_iou = columns[:3]
    bests = _searched_by_rank(dataset, results, evaluations, groups, plus_one)
    needed: IntArray | None = None  # (every rank searched: the kernel finds the needed ones)
    if bests is None:
        needed = k.needed(verdict, same_iou, min_overlap, int(Verdict.FP))
        bests = _searched(dataset, results, evaluations, needed, groups, plus_one)
    col = bests.col
    if col is None:
        col = np.arange(len(needed) if needed is not None else 0, dtype=np.int32)
    thr = math.nan if iou_threshold is None else float(iou_threshold)
    return tuple(
        k.diagnose(
            verdict,
            same_gt,
            same_iou,
            needed,
            col,
            bests.best,
            bests.iou,
            thr,
            iou_threshold is not None,
            min_overlap,
            _CODES,
            _KINDS,
            True,  # same_gt, same_iou: this pass's own columns, written over
        )
    )


def _diagnose(
    dataset: Dataset,
    results: ResultSet,
    evaluations: list[ClassEvaluation],
    columns: tuple[npt.NDArray[Any], ...],
    plus_one: bool,
    min_overlap: float,
    groups: Mapping[str, frozenset[str]],
    iou_threshold: float | None,
) -> None:
    """``classify_false_positives``' steps over the concatenated ranks of ``evaluations``
    (each with ranks): ``columns`` = verdict, same_gt, same_iou (filled in where measured),
    kind, confused, confused_iou (written)."""
    verdict, same_iou = columns[0], columns[2]
    fp = verdict == np.int8(Verdict.FP)
    unmeasured = fp & np.isnan(same_iou)
    needed = np.flatnonzero(unmeasured | (fp & ~(same_iou >= min_overlap)))
    bests = _searched(dataset, results, evaluations, needed, groups, plus_one)
    classify_kinds(columns, needed, unmeasured, bests, min_overlap, iou_threshold)
