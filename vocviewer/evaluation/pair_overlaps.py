"""Overlaps of detections with every object of their image, reduced per wanted set of objects
(the false-positive diagnosis of ``analysis``: one overlap pass serves the detection's own class,
its similar classes and all other classes). ``BestOverlaps`` gives those three reductions, in one
pass of the compiled kernel ``vocviewer.kernel._match`` where it is built; ``remembered_best``
keeps them per result set, dataset and class, so another IoU threshold or area range (which
change which detections need them, never what they are) only looks them up;
``remembered_best_all`` does so for every class's detections at once."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core.boxes import overlap_pairs
from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.matching import same_image_pairs
from vocviewer.kernel import load as load_kernel

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


class PairOverlaps:
    """Overlaps of detections (``image`` int64 (D,), ``box`` float64 (D, 4) xyxy) with every
    object of their image, kept only where the boxes intersect (``overlap_pairs``' considered
    pairs, NaN overlaps dropped): ``det`` and ``gt`` (object rows) int64 (P,), detection-major
    and ascending object row within a detection; ``iou`` float64 (P,)."""

    def __init__(self, dataset: Dataset, image: IntArray, box: FloatArray, plus_one: bool) -> None:
        self.n = len(image)
        det, gt = same_image_pairs(image, dataset.object_offsets)
        obj, one = dataset.objects.box, 1.0 if plus_one else 0.0
        for lo, hi in ((0, 2), (1, 3)):  # overlap_pairs' iw > 0, then ih > 0, on columns only
            with np.errstate(all="ignore"):
                side = np.fmin(box[:, hi][det], obj[:, hi][gt])
                side -= np.fmax(box[:, lo][det], obj[:, lo][gt])
                side += one
            cut = np.flatnonzero(side > 0)
            det, gt = det[cut], gt[cut]
        _, ov = overlap_pairs(box[det], obj[gt], plus_one=plus_one)
        keep = ov > -np.inf  # False for NaN too
        self.det, self.gt, self.iou = det[keep], gt[keep], ov[keep]

    def best(self, wanted: npt.NDArray[np.bool_]) -> tuple[IntArray, FloatArray]:
        """Per detection, among pairs with ``wanted`` (bool (P,)), the object of the largest
        overlap, the first row on ties (-1: none) and that overlap (NaN where -1)."""
        best = np.full(self.n, -1, dtype=np.int64)
        best_ov = np.full(self.n, np.nan)
        sel = np.flatnonzero(wanted)
        if not len(sel):
            return best, best_ov
        det, ov = self.det[sel], self.iou[sel]
        start = np.flatnonzero(np.r_[True, det[1:] != det[:-1]])
        seg_max = np.maximum.reduceat(ov, start)
        size = np.diff(np.r_[start, len(sel)])
        pos = np.where(ov == np.repeat(seg_max, size), np.arange(len(sel)), len(sel))
        first = np.minimum.reduceat(pos, start)
        best[det[start]] = self.gt[sel[first]]
        best_ov[det[start]] = ov[first]
        return best, best_ov


class BestOverlaps:
    """Per detection (``image``, ``box``), the best-overlapping object of its image among those
    of its own class (``same``), of the ``similar`` classes, or of any ``other`` class:
    ``PairOverlaps(...).best(wanted)``, or one pass of the compiled kernel for all three."""

    def __init__(
        self,
        dataset: Dataset,
        image: IntArray,
        box: FloatArray,
        plus_one: bool,
        label: int,
        similar: list[int],
    ) -> None:
        self._labels, self._label, self._similar = dataset.objects.label, label, similar
        self._all: tuple[IntArray, FloatArray] | None = None
        k = load_kernel("_match") if len(image) else None
        if k is not None:
            kinds = np.full(len(dataset.classes), 2, dtype=np.uint8)
            kinds[similar] = 1
            kinds[label] = 0
            obj = dataset.objects
            self._all = k.best_by_kind(
                image, box, dataset.object_offsets, obj.box, kinds[obj.label], plus_one
            )
        else:
            self._pairs = PairOverlaps(dataset, image, box, plus_one)

    def all(self) -> tuple[IntArray, FloatArray]:
        """``of`` same, similar and other as rows of int64 (3, D) and float64 (3, D)."""
        if self._all is not None:
            return self._all[0], self._all[1]
        found = [self.of(w) for w in ("same", "similar", "other")]
        return np.stack([b for b, _ in found]), np.stack([o for _, o in found])

    def of(self, which: str) -> tuple[IntArray, FloatArray]:
        """``(best object row (-1: none), its overlap (NaN where -1))`` for ``which`` of
        ``same``, ``similar``, ``other``."""
        row = ("same", "similar", "other").index(which)
        if self._all is not None:
            return self._all[0][row], self._all[1][row]
        labels = self._labels[self._pairs.gt]
        if which == "similar":
            return self._pairs.best(np.isin(labels, self._similar))
        same = labels == self._label
        return self._pairs.best(same if which == "same" else ~same)


@dataclass(eq=False)
class _Rows:
    """``BestOverlaps.all`` of detection rows as searched: detection row ``r``'s in slot
    ``slot[r]`` (int32 (N,), -1: not searched yet) of ``best`` int64 and ``iou`` float64
    (N, 3) (a row's three reductions side by side; allocated empty, slots handed out in the
    order the rows were first searched — class by class, rank by rank — so that reading
    every class's ranks again reads the tables nearly in order, not at random) and ``key``
    int32 (N,): the search (``keys``: (label, similar classes) -> id) that filled the slot.
    A row's search depends only on the row (its image and box) and the key, never on the IoU
    threshold, area range or the ranks it came in."""

    slot: npt.NDArray[np.int32]
    best: IntArray
    iou: FloatArray
    key: npt.NDArray[np.int32]
    keys: dict[tuple[int, tuple[int, ...]], int]
    used: int = 0
    #: ``searched_by_rank``'s last answers: (rows, cls, their keys, each row's slot)
    by_rank: list[tuple[IntArray, IntArray, npt.NDArray[np.int32], npt.NDArray[np.int32]]] = field(
        default_factory=list
    )

    @classmethod
    def empty(cls, n: int) -> _Rows:
        best, iou = np.empty((n, 3), dtype=np.int64), np.empty((n, 3), dtype=np.float64)
        slot = np.full(n, -1, dtype=np.int32)
        return cls(slot, best, iou, np.empty(n, dtype=np.int32), {})

    def key_of(self, label: int, similar: list[int]) -> int:
        return self.keys.setdefault((int(label), tuple(sorted(similar))), len(self.keys))

    def put(
        self, rows: IntArray, key: npt.NDArray[np.int32], best: IntArray, iou: FloatArray
    ) -> npt.NDArray[np.int32]:
        """Keep the searches ``best``, ``iou`` ((3, M), ``BestOverlaps.all``) of ``rows`` (not
        searched before) in the next free slots; returns those slots."""
        slots = np.arange(self.used, self.used + len(rows), dtype=np.int32)
        self.used += len(rows)
        at = slice(int(slots[0]), self.used) if len(rows) else slice(0, 0)
        self.best[at], self.iou[at], self.key[at] = best.T, iou.T, key
        self.slot[rows] = slots
        return slots


@dataclass(frozen=True, eq=False)
class Bests:
    """What ``remembered_best`` found for the needed ranks: ``best`` int64 and ``iou`` float64
    (F, 3), the needed ranks' in rows ``col`` (M,) (``None``: rows 0 .. M - 1)."""

    best: IntArray
    iou: FloatArray
    col: npt.NDArray[np.integer[Any]] | None

    def take(self, which: int, at: IntArray) -> tuple[IntArray, FloatArray]:
        """Reduction ``which`` (0 same, 1 similar, 2 other class) of the needed ranks at
        positions ``at`` among them: (best object row (-1: none), its overlap)."""
        c = at if self.col is None else self.col[at]
        return self.best[c, which], self.iou[c, which]


#: per result set, per dataset (both held weakly: forgotten with them), per ``plus_one``
_KNOWN: weakref.WeakKeyDictionary[
    ResultSet, weakref.WeakKeyDictionary[Dataset, dict[bool, _Rows]]
] = weakref.WeakKeyDictionary()
#: ``remembered_best`` runs in more than one worker (re-derive, analyses): one at a time
_LOCK = threading.Lock()


def _rows_of(dataset: Dataset, results: ResultSet, plus_one: bool) -> _Rows:
    per = _KNOWN.setdefault(results, weakref.WeakKeyDictionary()).setdefault(dataset, {})
    known = per.get(bool(plus_one))
    if known is None:
        known = per[bool(plus_one)] = _Rows.empty(len(results.detections))
    return known


def remembered_best(
    dataset: Dataset,
    results: ResultSet,
    order: IntArray,
    image: IntArray,
    needed: IntArray,
    plus_one: bool,
    label: int,
    similar: list[int],
) -> Bests:
    """``BestOverlaps(dataset, image[needed], results' boxes of order[needed], plus_one, label,
    similar).all()`` for the ``needed`` ranks (int64 (M,)) of one class's ranked detections
    (``order``: their result rows, ``image``: their image rows; ``Bests.take`` reads them),
    each detection row searched once per result set, dataset, ``plus_one`` and (``label``,
    ``similar``) and remembered: the search does not depend on the IoU threshold or area
    range, so a later call (another choice) looks up what it knows and searches only the
    rows it has not seen."""
    rows = order[needed]

    def search(at: IntArray) -> tuple[IntArray, FloatArray]:
        return _search(dataset, results, order, image, needed[at], plus_one, label, similar)

    with _LOCK:
        known = _rows_of(dataset, results, plus_one)
        want = np.full(len(rows), known.key_of(label, similar), dtype=np.int32)
        return _looked_up(known, rows, want, search)


def remembered_best_all(
    dataset: Dataset,
    results: ResultSet,
    rows: IntArray,
    image: IntArray,
    cls: IntArray,
    similar: list[list[int]],
    plus_one: bool,
    at: IntArray | None = None,
) -> Bests:
    """``remembered_best`` of detection ``rows`` (int64 (M,), their images ``image`` and the
    classes ``cls`` they were ranked in; ``at``: only those at these positions) of every class
    at once: ``similar[k]``, class ``k``'s similar classes; the rows not searched before are
    searched in one pass (``best_by_class``)."""
    with _LOCK:
        known = _rows_of(dataset, results, plus_one)
        key_of = np.array([known.key_of(k, s) for k, s in enumerate(similar)], dtype=np.int32)
        k = load_kernel("_diagnose")
        if k is None or not len(known.key):
            if at is not None:
                rows, image, cls, at = rows[at], image[at], cls[at], None

            def search(i: IntArray) -> tuple[IntArray, FloatArray]:
                box = results.detections.box[rows[i]]
                return best_by_class(dataset, image[i], box, cls[i], similar, plus_one)

            return _looked_up(known, rows, key_of[cls], search)

        def search_at(i: IntArray) -> tuple[IntArray, FloatArray]:
            j = i if at is None else at[i]  # positions in rows, image, cls
            box = results.detections.box[rows[j]]
            return best_by_class(dataset, image[j], box, cls[j], similar, plus_one)

        col, fresh, other = k.lookup(known.slot, known.key, rows, cls, key_of, at)
        where = fresh if at is None else at[fresh]
        return _kept(known, rows[where], key_of[cls[where]], col, fresh, other, search_at)


def searched_by_rank(
    dataset: Dataset,
    results: ResultSet,
    rows: IntArray,
    cls: IntArray,
    similar: list[list[int]],
    plus_one: bool,
) -> Bests | None:
    """``remembered_best_all`` of every one of ``rows`` (as there) where each was searched
    before under its class's key (``search_ahead``), as ``Bests`` whose ``col`` gives each
    row's slot, int32 (M,), read-only; else ``None`` (nothing searched). A slot once filled
    never changes, so the answer is kept (``_Rows.by_rank``, the last ``_BY_RANK_KEPT``) for
    these very ``rows`` and ``cls`` arrays: the same ranked detections at another IoU
    threshold take it again without a look-up. Needs the compiled ``_diagnose`` kernel
    (``None`` without it)."""
    k = load_kernel("_diagnose")
    with _LOCK:
        known = _rows_of(dataset, results, plus_one)
        key_of = np.array([known.key_of(c, s) for c, s in enumerate(similar)], dtype=np.int32)
        for kept_rows, kept_cls, kept_keys, col in known.by_rank:
            if kept_rows is rows and kept_cls is cls and np.array_equal(kept_keys, key_of):
                return Bests(known.best, known.iou, col)
        if k is None or not len(known.key):
            return None
        col, fresh, other = k.lookup(known.slot, known.key, rows, cls, key_of)
        if len(fresh) or len(other):
            return None
        col.flags.writeable = False
        known.by_rank = [(rows, cls, key_of, col), *known.by_rank][:_BY_RANK_KEPT]
        return Bests(known.best, known.iou, col)


#: ``searched_by_rank`` answers kept per result set (two: the window's two compared)
_BY_RANK_KEPT = 2


def _looked_up(
    known: _Rows,
    rows: IntArray,
    want: npt.NDArray[np.int32],
    search: Callable[[IntArray], tuple[IntArray, FloatArray]],
) -> Bests:
    """``rows``' searches under keys ``want`` (int32 (M,)): the rows not searched yet are
    (``search(positions among rows)``) and kept; a row kept under another key (another
    class or similar set asked of the same detection) is searched again for this answer only
    (a copy of the rows' columns: what another caller holds is never overwritten)."""
    col = known.slot[rows]
    have = np.where(col >= 0, known.key[col], np.int32(-1))
    new = np.flatnonzero(have != want)
    fresh, other = new[have[new] < 0], new[have[new] >= 0]
    return _kept(known, rows[fresh], want[fresh], col, fresh, other, search)


def _kept(
    known: _Rows,
    fresh_rows: IntArray,
    want: npt.NDArray[np.int32],
    col: npt.NDArray[np.int32],
    fresh: IntArray,
    other: IntArray,
    search: Callable[[IntArray], tuple[IntArray, FloatArray]],
) -> Bests:
    """``_looked_up``'s end: the ``fresh`` rows (``fresh_rows``, keys ``want``; positions
    ``fresh`` of ``col``) searched (``search(positions)``) and kept, the ``other`` ones
    searched for this answer only; ``col``: each row's slot (written in)."""
    if len(fresh):
        col[fresh] = known.put(fresh_rows, want, *search(fresh))
    if not len(other):
        return Bests(known.best, known.iou, col)
    best, iou = known.best[col], known.iou[col]
    found = search(other)
    best[other], iou[other] = found[0].T, found[1].T
    return Bests(best, iou, None)


def kind_table(n_classes: int, similar: list[list[int]]) -> npt.NDArray[np.uint8]:
    """uint8 (C, C): row ``k`` the kind of each class for a detection of class ``k`` (0 its
    own, 1 similar, 2 other), as ``BestOverlaps`` gives it."""
    table = np.full((n_classes, n_classes), 2, dtype=np.uint8)
    for k, s in enumerate(similar):
        table[k, s] = 1
    table[np.arange(n_classes), np.arange(n_classes)] = 0
    return table


def best_by_class(
    dataset: Dataset,
    image: IntArray,
    box: FloatArray,
    cls: IntArray,
    similar: list[list[int]],
    plus_one: bool,
) -> tuple[IntArray, FloatArray]:
    """``BestOverlaps(...).all()`` of detections of many classes at once (``cls`` int64 (D,):
    each one's class; ``similar[k]``: class ``k``'s similar classes): one pass of the compiled
    kernel where it is built, else ``PairOverlaps`` reduced by each pair's kind."""
    table, obj = kind_table(len(dataset.classes), similar), dataset.objects
    k = load_kernel("_match") if len(image) else None
    if k is not None:
        off, label = dataset.object_offsets, obj.label.astype(np.int64, copy=False)
        return k.best_by_class(image, box, cls, off, obj.box, label, table, plus_one)  # type: ignore[no-any-return]
    pairs = PairOverlaps(dataset, image, box, plus_one)
    kind = table[cls[pairs.det], obj.label[pairs.gt]]
    found = [pairs.best(kind == 0), pairs.best(kind == 1), pairs.best(kind != 0)]
    return np.stack([b for b, _ in found]), np.stack([o for _, o in found])


def _search(
    dataset: Dataset,
    results: ResultSet,
    order: IntArray,
    image: IntArray,
    ranks: IntArray,
    plus_one: bool,
    label: int,
    similar: list[int],
) -> tuple[IntArray, FloatArray]:
    box = results.detections.box[order[ranks]]
    return BestOverlaps(dataset, image[ranks], box, plus_one, label, similar).all()
