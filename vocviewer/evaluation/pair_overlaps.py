"""Overlaps of detections with every object of their image, reduced per wanted set of objects
(the false-positive diagnosis of ``analysis``: one overlap pass serves the detection's own class,
its similar classes and all other classes). ``BestOverlaps`` gives those three reductions, in one
pass of the compiled kernel ``vocviewer.kernel._match`` where it is built; ``remembered_best``
keeps them per result set, dataset and class, so another IoU threshold or area range (which
change which detections need them, never what they are) only looks them up."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Hashable
from dataclasses import dataclass

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
class _Known:
    """``BestOverlaps.all`` of one class's detections (result rows ``order`` (D,)) as searched:
    ``best`` int64 (3, F), ``iou`` float64 (3, F), rank ``r``'s in column ``col[r]`` (int64
    (D,); -1: not searched yet). Each search's columns are appended as they came (no scatter
    of the (3, F) tables: 500,000 ranks' take ~25 ms, mostly in fresh pages)."""

    order: IntArray
    best: IntArray
    iou: FloatArray
    col: IntArray

    @classmethod
    def of(cls, order: IntArray, ranks: IntArray, best: IntArray, iou: FloatArray) -> _Known:
        """What one search of ``ranks`` found (``best``, ``iou``: (3, M), kept as they are)."""
        col = np.full(len(order), -1, dtype=np.int64)
        col[ranks] = np.arange(len(ranks))
        return cls(order, best, iou, col)

    def add(self, ranks: IntArray, best: IntArray, iou: FloatArray) -> None:
        """Append another search of ``ranks`` (not searched before)."""
        n = self.best.shape[1]
        self.best = np.concatenate((self.best, best), axis=1)
        self.iou = np.concatenate((self.iou, iou), axis=1)
        self.col[ranks] = np.arange(n, n + len(ranks))


@dataclass(frozen=True, eq=False)
class Bests:
    """What ``remembered_best`` found for the needed ranks: ``best`` int64 and ``iou`` float64
    (3, F), the needed ranks' in columns ``col`` (M,) (``None``: columns 0 .. M - 1)."""

    best: IntArray
    iou: FloatArray
    col: IntArray | None

    def take(self, which: int, at: IntArray) -> tuple[IntArray, FloatArray]:
        """Reduction ``which`` (0 same, 1 similar, 2 other class) of the needed ranks at
        positions ``at`` among them: (best object row (-1: none), its overlap)."""
        c = at if self.col is None else self.col[at]
        return self.best[which][c], self.iou[which][c]


#: per result set, per dataset (both held weakly: forgotten with them), per class key
_KNOWN: weakref.WeakKeyDictionary[
    ResultSet, weakref.WeakKeyDictionary[Dataset, dict[Hashable, _Known]]
] = weakref.WeakKeyDictionary()
#: ``remembered_best`` runs in more than one worker (re-derive, analyses): one at a time
_LOCK = threading.Lock()


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
    each rank searched once per result set, dataset, ``order`` and (``plus_one``, ``label``,
    ``similar``) and remembered: the search does not depend on the IoU threshold or area
    range, so a later call (another choice) looks up what it knows and searches only the
    ranks it has not seen."""
    key = (bool(plus_one), int(label), tuple(sorted(similar)))
    with _LOCK:
        per_class = _KNOWN.setdefault(results, weakref.WeakKeyDictionary()).setdefault(dataset, {})
        known = per_class.get(key)
        same = known is not None and (known.order is order or np.array_equal(known.order, order))
        if known is None or not same:  # the first search: kept as it is (no copy)
            best, iou = _search(dataset, results, order, image, needed, plus_one, label, similar)
            per_class[key] = _Known.of(order, needed, best, iou)
            return Bests(best, iou, None)
        new = needed[known.col[needed] < 0]
        if len(new):
            known.add(new, *_search(dataset, results, order, image, new, plus_one, label, similar))
        return Bests(known.best, known.iou, known.col[needed])


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
