"""LVIS-specific columns: the federated annotation of LVIS v1, beside the COCO ones.

An LVIS dataset carries ``Dataset.data(CocoAnnotations)`` (``families.coco.columns.CocoAnnotations``: LVIS files are
COCO-shaped) and ``Dataset.data(LvisAnnotations)``, an ``LvisAnnotations``; its results carry
``ResultSet.data(CocoAnnotations)`` (``CocoResults``) and ``ResultSet.data(LvisAnnotations)``, an
``LvisResults``. Categories are ``Dataset.classes`` rows (ascending category id).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vocviewer.core.arrays import frozen

IntArray = npt.NDArray[np.int64]

#: LVIS's frequency groups, in ``LVISEval``'s order (``img_count_lbl``): rare, common, frequent
FREQUENCIES: tuple[str, ...] = ("r", "c", "f")
#: ``LVISResults``' cap: an image keeps its 300 highest-scoring result entries (``max_dets``)
MAX_DETS_PER_IMAGE = 300


def sorted_unique(a: IntArray) -> IntArray:
    """``np.unique(a)`` of integers (a sort: ``np.unique`` imports ``numpy.ma``, ~25 ms)."""
    s = np.sort(a)
    return s[np.concatenate(([True], s[1:] != s[:-1]))] if len(s) else s


def _pairs(offsets: IntArray, label: IntArray, n_classes: int) -> IntArray:
    """Sorted unique ``image_row * n_classes + class`` keys of a per-image class list."""
    image = np.repeat(np.arange(len(offsets) - 1, dtype=np.int64), np.diff(offsets))
    return sorted_unique(image * n_classes + label)


@dataclass(frozen=True, eq=False)
class LvisAnnotations:
    """The federated fields of an LVIS annotation file.

    Per image (``I`` rows, ``Dataset.images`` order), as CSR lists of class rows
        neg_offsets : int64 (I + 1,), neg_label : int64 — ``neg_category_ids``: categories
        verified absent from the image; not_exhaustive_offsets : int64 (I + 1,),
        not_exhaustive_label : int64 — ``not_exhaustive_category_ids``: categories whose instances
        are not all annotated. Ids the file has no category for are left out (``LVISEval`` only
        ever looks up its own categories).
    Per category (``K`` rows)
        frequency : str (K,) ``"r"``, ``"c"`` or ``"f"``.
    Per annotation (``N`` rows, ``Dataset.objects`` order)
        ignore : bool (N,) the truth value of the annotation's ``ignore`` field (False when absent).
    """

    neg_offsets: IntArray
    neg_label: IntArray
    not_exhaustive_offsets: IntArray
    not_exhaustive_label: IntArray
    frequency: npt.NDArray[np.str_]
    ignore: npt.NDArray[np.bool_]

    def __post_init__(self) -> None:
        for name in ("neg_offsets", "neg_label", "not_exhaustive_offsets", "not_exhaustive_label"):
            object.__setattr__(self, name, frozen(getattr(self, name), np.int64))
        object.__setattr__(self, "frequency", frozen(self.frequency, np.str_))
        object.__setattr__(self, "ignore", frozen(self.ignore, np.bool_))
        if len(self.neg_offsets) != len(self.not_exhaustive_offsets):
            raise ValueError("LvisAnnotations image columns differ in length")
        if not set(self.frequency.tolist()) <= set(FREQUENCIES):
            raise ValueError("LvisAnnotations.frequency holds a value other than r, c, f")

    def neg_pairs(self) -> IntArray:
        """``image_row * K + class`` of every (image, category) verified absent, sorted."""
        return _pairs(self.neg_offsets, self.neg_label, len(self.frequency))

    def not_exhaustive_pairs(self) -> IntArray:
        """``image_row * K + class`` of every not exhaustively annotated pair, sorted."""
        return _pairs(self.not_exhaustive_offsets, self.not_exhaustive_label, len(self.frequency))


@dataclass(frozen=True, eq=False)
class LvisResults:
    """Result entries left out of ``ResultSet.detections`` that ``LVISResults`` still counts toward
    its cap of detections per image: entries of a category the annotation file does not have
    (never evaluated, but they take a place among an image's 300 highest scores).

    image_index : int64 (U,) ``Dataset.images`` row; score : float64 (U,);
    entry : int64 (U,) 0-based position in the file (a detection's own is ``det_id - 1``).
    """

    image_index: IntArray
    score: npt.NDArray[np.float64]
    entry: IntArray

    def __post_init__(self) -> None:
        object.__setattr__(self, "image_index", frozen(self.image_index, np.int64))
        object.__setattr__(self, "score", frozen(self.score, np.float64))
        object.__setattr__(self, "entry", frozen(self.entry, np.int64))
        if not len(self.image_index) == len(self.score) == len(self.entry):
            raise ValueError("LvisResults columns differ in length")

    @classmethod
    def empty(cls) -> LvisResults:
        z = np.zeros(0, dtype=np.int64)
        return cls(z, np.zeros(0), z)
