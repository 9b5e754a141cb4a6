"""Patches: what a patches view lists, as numpy columns (pure numpy, no Qt).

A patch is one box to crop: a ranked detection (with its verdict, score and IoU), a missed
object, or an object of a class. ``PatchSelection`` says which (a ``kind`` of ``KINDS``, a
class, an optional image subset and score floor) and in what order; ``patch_table`` reads them
from a result set's per-class views (``families.views.ClassView``: evaluation, missed objects,
false-positive diagnosis) without evaluating anything, and ``PatchTable`` holds the answer.

Each patch has a ``role`` (an index into ``core.palette.ROLES``: how the window colours and
names it). A detection's role is its false-positive kind where it was diagnosed (so the counts
per role are the diagnosis's ``FalsePositives.counts()``; both wrong-class kinds are
``fp_wrong_class``), else its verdict's (``tp``, ``duplicate``, ``ignored``, and an undiagnosed
false positive is ``fp_background``). Objects are ``missed`` or ``gt``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.core.palette import ROLES
from vocviewer.evaluation.analysis import FalsePositives, FPKind
from vocviewer.evaluation.confusion import missed_at
from vocviewer.evaluation.drawn import Thresholds, class_threshold, is_drawn
from vocviewer.evaluation.result import ClassEvaluation, Verdict

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

#: What may be selected, with its words in the window.
KIND_LABELS: dict[str, str] = {
    "fp": "False positives (all kinds)",
    "background": "FP: background",
    "localization": "FP: poor localisation",
    "wrong_class": "FP: wrong class",
    "duplicate": "FP: duplicate",
    "tp": "True positives",
    "detections": "All detections",
    "missed": "Missed objects (FN)",
    "objects": "Objects of the class",
}
KINDS: tuple[str, ...] = tuple(KIND_LABELS)
#: Orders a table may be sorted in, with their words.
SORT_LABELS: dict[str, str] = {"score": "Score", "iou": "IoU", "class": "Class", "image": "Image"}
SORTS: tuple[str, ...] = tuple(SORT_LABELS)
#: The detection roles each detection kind selects.
_DETECTION_ROLES: dict[str, tuple[str, ...]] = {
    "fp": ("fp_background", "fp_localization", "fp_wrong_class", "duplicate"),
    "background": ("fp_background",),
    "localization": ("fp_localization",),
    "wrong_class": ("fp_wrong_class",),
    "duplicate": ("duplicate",),
    "tp": ("tp",),
    "detections": ("tp", "fp_background", "fp_localization", "fp_wrong_class", "duplicate"),
}
_ROLE = {name: i for i, name in enumerate(ROLES)}
#: ``FPKind`` → role index (``-1``: no kind).
_KIND_ROLE = np.full(len(FPKind), -1, dtype=np.int8)
for _kind, _name in (
    (FPKind.DUPLICATE, "duplicate"),
    (FPKind.LOCALIZATION, "fp_localization"),
    (FPKind.SIMILAR, "fp_wrong_class"),
    (FPKind.OTHER, "fp_wrong_class"),
    (FPKind.BACKGROUND, "fp_background"),
):
    _KIND_ROLE[_kind] = _ROLE[_name]
#: ``Verdict`` → role index.
_VERDICT_ROLE = np.full(len(Verdict), _ROLE["unevaluated"], dtype=np.int8)
for _verdict, _name in (
    (Verdict.TP, "tp"),
    (Verdict.FP, "fp_background"),
    (Verdict.DUPLICATE, "duplicate"),
    (Verdict.IGNORED, "ignored"),
):
    _VERDICT_ROLE[_verdict] = _ROLE[_name]


class ClassViewLike(Protocol):
    """What ``patch_table`` reads of a class's view (``families.views.ClassView``)."""

    @property
    def evaluation(self) -> ClassEvaluation: ...

    @property
    def missed(self) -> IntArray: ...

    @property
    def false_positives(self) -> FalsePositives | None: ...


@dataclass(frozen=True, eq=False)
class PatchSelection:
    """Which patches, in what order: ``kind`` (``KINDS``), ``class_index`` (-1: every class),
    ``sort`` (``SORTS``; missing values last either way), ``descending``, ``min_score`` (the
    drawn threshold, one or per class: ``drawn.is_drawn`` drops the detections not drawn; an
    object counts as missed when no drawn true positive matched it), ``images`` (image rows to
    keep; ``None``: all) and the boxes a view's filter keeps, ``detections`` bool (D,) over the
    result set's rows and ``objects`` bool (O,) (``None``: all)."""

    kind: str = "fp"
    class_index: int = -1
    sort: str = "score"
    descending: bool = True
    min_score: Thresholds = -math.inf
    images: IntArray | None = None
    detections: npt.NDArray[np.bool_] | None = None
    objects: npt.NDArray[np.bool_] | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"a patch kind is one of {KINDS}, not {self.kind!r}")
        if self.sort not in SORTS:
            raise ValueError(f"patches sort by one of {SORTS}, not {self.sort!r}")


@dataclass(frozen=True, eq=False)
class PatchTable:
    """One row per patch, in display order; every column has the same length ``N``.

    role : int8          index into ``core.palette.ROLES``
    image : int64        image row
    box : float64 (N, 4) xyxy, the dataset's box convention
    score : float64      the detection's score (NaN for an object)
    iou : float64        detection: overlap with its class's best object (the protocol's
                         ``best_iou``, else the diagnosis's ``same_iou``); object: the best such
                         overlap of a detection that took it as its candidate; NaN: none
    label : int64        class index
    detection : int64    row in the result set's ``Detections`` (-1: an object)
    object : int64       object row (a detection's candidate object; -1: none)
    rank : int64         the detection's rank in its class (-1: an object)
    """

    role: npt.NDArray[np.int8]
    image: IntArray
    box: FloatArray
    score: FloatArray
    iou: FloatArray
    label: IntArray
    detection: IntArray
    object: IntArray
    rank: IntArray

    def __len__(self) -> int:
        return len(self.image)

    def take(self, rows: npt.ArrayLike) -> PatchTable:
        """The patches at ``rows``, in that order."""
        r = np.asarray(rows, dtype=np.int64)
        return PatchTable(*(getattr(self, f)[r] for f in _FIELDS))

    def counts(self) -> dict[str, int]:
        """Number of patches per role name (roles with none left out)."""
        found = np.bincount(self.role.astype(np.int64), minlength=len(ROLES))
        return {ROLES[i]: int(n) for i, n in enumerate(found) if n}


_FIELDS = ("role", "image", "box", "score", "iou", "label", "detection", "object", "rank")


def empty_table() -> PatchTable:
    z = np.zeros(0, dtype=np.int64)
    return PatchTable(
        np.zeros(0, np.int8), z, np.zeros((0, 4)), np.zeros(0), np.zeros(0), z, z, z, z
    )


def detection_roles(ev: ClassEvaluation, fp: FalsePositives | None) -> npt.NDArray[np.int8]:
    """int8 (D,): the role index of each rank of ``ev`` (module docstring)."""
    role = _VERDICT_ROLE[ev.verdict.astype(np.int64)]
    if fp is not None and len(fp.kind) == len(role):
        by_kind = _KIND_ROLE[fp.kind.astype(np.int64)]
        role = np.where(by_kind >= 0, by_kind, role).astype(np.int8)
    return role


def _detections(
    view: ClassViewLike, boxes: FloatArray, wanted: npt.NDArray[np.bool_], min_score: Thresholds
) -> PatchTable:
    ev, fp = view.evaluation, view.false_positives
    role = detection_roles(ev, fp)
    keep = wanted[role.astype(np.int64)] & is_drawn(
        ev.score, class_threshold(min_score, ev.class_index)
    )
    iou = ev.best_iou.astype(np.float64)
    obj = ev.best_gt.astype(np.int64)
    if fp is not None and len(fp.same_iou) == len(iou):
        iou = np.where(np.isnan(iou), fp.same_iou, iou)
        obj = np.where(obj < 0, fp.same_gt, obj)
    r = np.flatnonzero(keep)
    return PatchTable(
        role[r],
        ev.image_index[r].astype(np.int64),
        boxes[ev.order[r]],
        ev.score[r].astype(np.float64),
        iou[r],
        np.full(len(r), ev.class_index, dtype=np.int64),
        ev.order[r].astype(np.int64),
        obj[r],
        r.astype(np.int64),
    )


def _objects(
    dataset: Dataset, view: ClassViewLike | None, rows: IntArray, missed_only: bool, floor: float
) -> PatchTable:
    """Object rows ``rows`` of one class (its ``view``, if evaluated): ``missed`` or ``gt``;
    ``floor``: the class's drawn threshold."""
    n_obj = len(dataset.objects)
    missed = np.zeros(n_obj, dtype=bool)
    best = np.full(n_obj, np.nan)
    if view is not None:
        ev = view.evaluation
        missed[view.missed[(view.missed >= 0) & (view.missed < n_obj)]] = True
        missed = missed_at(dataset, {ev.class_index: ev}, missed, floor)  # the drawn rule's
        has = (ev.best_gt >= 0) & np.isfinite(ev.best_iou)
        if floor > -math.inf:
            has &= is_drawn(ev.score, floor)
        got = np.full(n_obj, -np.inf)
        np.maximum.at(got, ev.best_gt[has], ev.best_iou[has])
        best = np.where(np.isfinite(got), got, np.nan)
    if missed_only:
        rows = rows[missed[rows]]
    obj = dataset.objects
    role = np.where(missed[rows], _ROLE["missed"], _ROLE["gt"]).astype(np.int8)
    none = np.full(len(rows), -1, dtype=np.int64)
    return PatchTable(
        role,
        obj.image_index[rows].astype(np.int64),
        obj.box[rows].astype(np.float64),
        np.full(len(rows), np.nan),
        best[rows],
        obj.label[rows].astype(np.int64),
        none,
        rows.astype(np.int64),
        none.copy(),
    )


def concat(tables: Iterable[PatchTable]) -> PatchTable:
    parts = list(tables)
    if not parts:
        return empty_table()
    return PatchTable(*(np.concatenate([getattr(t, f) for t in parts]) for f in _FIELDS))


def patch_table(
    dataset: Dataset,
    views: Iterable[ClassViewLike],
    detection_boxes: FloatArray,
    selection: PatchSelection,
) -> PatchTable:
    """The patches ``selection`` selects among the detection ``views`` of one result set
    (``detection_boxes``: its ``Detections.box``), sorted as it says. Objects of a class need no
    view (without one, none is missed); missed objects come from the views only."""
    sel = selection
    by_class = {
        v.evaluation.class_index: v
        for v in views
        if v.evaluation.task == "det"
        and (sel.class_index < 0 or v.evaluation.class_index == sel.class_index)
    }
    parts: list[PatchTable] = []
    if sel.kind in _DETECTION_ROLES:
        wanted = np.zeros(len(ROLES), dtype=bool)
        wanted[[_ROLE[r] for r in _DETECTION_ROLES[sel.kind]]] = True
        parts = [
            _detections(by_class[k], detection_boxes, wanted, sel.min_score)
            for k in sorted(by_class)
        ]
    else:
        labels = dataset.objects.label
        classes = (
            sorted(by_class)
            if sel.kind == "missed"
            else ([sel.class_index] if sel.class_index >= 0 else sorted(set(labels.tolist())))
        )
        for k in classes:
            rows = np.flatnonzero(labels == k).astype(np.int64)
            floor = class_threshold(sel.min_score, k)
            parts.append(_objects(dataset, by_class.get(k), rows, sel.kind == "missed", floor))
    table = concat(parts)
    keep = np.ones(len(table.image), dtype=bool)
    if sel.images is not None:
        listed = np.zeros(len(dataset.images), dtype=bool)
        listed[np.asarray(sel.images, dtype=np.int64)] = True
        keep &= listed[table.image]
    det, obj = table.detection >= 0, table.detection < 0
    if sel.detections is not None and len(sel.detections) == len(detection_boxes):
        keep[det] &= sel.detections[table.detection[det]]
    if sel.objects is not None and len(sel.objects) == len(dataset.objects):
        keep[obj] &= sel.objects[table.object[obj]]
    table = table.take(np.flatnonzero(keep))
    return table.take(sort_order(table, sel.sort, sel.descending))


def sort_order(table: PatchTable, sort: str, descending: bool = True) -> IntArray:
    """Rows of ``table`` sorted by ``sort`` (``SORTS``), missing values (NaN) last either way;
    ties by score (highest first), then image and row, so the order is fully determined."""
    primary = {
        "score": table.score,
        "iou": table.iou,
        "class": table.label.astype(np.float64),
        "image": table.image.astype(np.float64),
    }[sort]
    missing = np.isnan(primary)
    key = np.where(missing, 0.0, -primary if descending else primary)
    tie = np.where(np.isnan(table.score), np.inf, -table.score)
    order = np.lexsort((table.object, table.detection, table.image, tie, key, missing))
    return order.astype(np.int64)
