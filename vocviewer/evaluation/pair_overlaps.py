"""Overlaps of detections with every object of their image, reduced per wanted set of objects
(the false-positive diagnosis of ``analysis``: one overlap pass serves the detection's own class,
its similar classes and all other classes). ``BestOverlaps`` gives those three reductions, in one
pass of the compiled kernel ``vocviewer.kernel._match`` where it is built."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vocviewer.core.boxes import overlap_pairs
from vocviewer.core.dataset import Dataset
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
