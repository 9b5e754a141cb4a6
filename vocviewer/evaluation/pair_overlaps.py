"""Overlaps of detections with every object of their image, reduced per wanted set of objects
(the false-positive diagnosis of ``analysis``: one overlap pass serves the detection's own class,
its similar classes and all other classes). ``BestOverlaps`` gives those three reductions, in one
pass of the compiled kernel ``vocviewer.kernel._match`` where it is built; ``remembered_best``
keeps them per result set, dataset and class, so another IoU threshold or area range (which
change which detections need them, never what they are) only looks them up."""

from __future__ import annotations

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


@dataclass(frozen=True, eq=False)
class _Known:
    """``BestOverlaps.all`` of one class's detections, result rows ``order`` (D,), transposed:
    ``best`` int64 (D, 3), ``iou`` float64 (D, 3) (a rank's three side by side), valid where
    ``found`` bool (D,)."""

    order: IntArray
    best: IntArray
    iou: FloatArray
    found: npt.NDArray[np.bool_]

    @classmethod
    def of(cls, order: IntArray, ranks: IntArray, best: IntArray, iou: FloatArray) -> _Known:
        """What one search of ``ranks`` found (``best``, ``iou``: (3, M), as searched)."""
        n = len(order)
        known = cls(order, np.empty((n, 3), np.int64), np.empty((n, 3)), np.zeros(n, bool))
        known.best[ranks], known.iou[ranks], known.found[ranks] = best.T, iou.T, True
        return known


@dataclass(frozen=True, eq=False)
class Bests:
    """What ``remembered_best`` found for the needed ranks: ``best`` int64 and ``iou`` float64,
    (3, M) by position in the needed ranks, or (``by_rank``) the remembered (D, 3) by rank."""

    best: IntArray
    iou: FloatArray
    by_rank: bool

    def take(self, which: int, at: IntArray, ranks: IntArray) -> tuple[IntArray, FloatArray]:
        """Reduction ``which`` (0 same, 1 similar, 2 other class) of the needed ranks ``ranks``,
        at positions ``at`` among them: (best object row (-1: none), its overlap)."""
        if self.by_rank:  # one gather each, no (3, M) copy first
            return self.best[ranks, which], self.iou[ranks, which]
        return self.best[which, at], self.iou[which, at]


#: per result set, per dataset (both held weakly: forgotten with them), per class key: a
#: ``_Known``, or what the first search found as it is (order, ranks, best, iou)
_Entry = _Known | tuple[IntArray, IntArray, IntArray, FloatArray]
_KNOWN: weakref.WeakKeyDictionary[
    ResultSet, weakref.WeakKeyDictionary[Dataset, dict[Hashable, _Entry]]
] = weakref.WeakKeyDictionary()


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
    each rank searched once per
    result set, dataset, ``order`` and (``plus_one``, ``label``, ``similar``) and remembered:
    the search does not depend on the IoU threshold or area range, so a later call (another
    choice) looks up what it knows and searches only the ranks it has not seen."""
    per_dataset = _KNOWN.get(results)
    if per_dataset is None:
        per_dataset = _KNOWN.setdefault(results, weakref.WeakKeyDictionary())
    per_class = per_dataset.get(dataset)
    if per_class is None:
        per_class = per_dataset.setdefault(dataset, {})
    key = (bool(plus_one), int(label), tuple(sorted(similar)))
    known = per_class.get(key)
    was = None if known is None else known[0] if isinstance(known, tuple) else known.order
    same = was is not None and (was is order or np.array_equal(was, order))
    if isinstance(known, tuple) and same:  # searched once, kept as found: spread out now
        known = per_class[key] = _Known.of(*known)
    if known is None or not same:  # the first search: kept as it is (no copy)
        best, iou = _search(dataset, results, order, image, needed, plus_one, label, similar)
        per_class[key] = (order, needed, best, iou)
        return Bests(best, iou, by_rank=False)
    assert isinstance(known, _Known)
    new = needed[~known.found[needed]]
    if len(new):
        best, iou = _search(dataset, results, order, image, new, plus_one, label, similar)
        known.best[new], known.iou[new] = best.T, iou.T  # another thread writes the same
        known.found[new] = True
    return Bests(known.best, known.iou, by_rank=True)


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
