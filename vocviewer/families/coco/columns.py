"""COCO-specific columns: what ``COCOeval`` needs bit-exactly, beside ``Dataset`` / ``ResultSet``.

``Dataset.data(CocoAnnotations)`` is a ``CocoAnnotations`` (rows aligned with ``Dataset.images`` and
``Dataset.objects``); ``ResultSet.data(CocoAnnotations)`` is a ``CocoResults`` (rows aligned with
``ResultSet.detections``). Boxes here are COCO's own ``x, y, w, h`` float64 exactly as in the JSON
(0-based continuous pixels, no +1), because pycocotools computes IoU from those numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from vocviewer.core import rle_columns as rc
from vocviewer.core.arrays import frozen
from vocviewer.core.errors import FormatError
from vocviewer.core.results import Derived, DerivedColumn, is_made

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


#: Column dtypes of ``CocoAnnotations`` and ``CocoResults`` (besides boxes and keypoints).
_ANNOTATION_DTYPES: dict[str, type[np.generic]] = {
    "image_id": np.int64,
    "category_id": np.int64,
    "ann_id": np.int64,
    "category_id_of": np.int64,
    "area": np.float64,
    "iscrowd": np.bool_,
    "num_keypoints": np.int64,
    "has_keypoints": np.bool_,
}
_RESULT_DTYPES: dict[str, type[np.generic]] = {
    "det_id": np.int64,
}


def gathered(values: IntArray, rows: IntArray) -> IntArray:
    """``values[rows]``: a ``CocoResults`` id column made from the ground truth's ids at the
    rows the reader found (``core.results.Derived``: not held beside them until read)."""
    return values[rows]


def ids_at(ids: IntArray, rows: IntArray) -> Any:
    """``ids[rows]`` as a ``CocoResults`` id column made when first read (``Derived``)."""
    return Derived(gathered, ids, rows)


def _ids(_: object, a: npt.ArrayLike) -> IntArray:
    return frozen(a, np.int64)


def _points(a: npt.ArrayLike, n: int) -> FloatArray:
    """``a`` as float64 (n, P, 3); empty input gives P = 0."""
    arr = np.asarray(a, dtype=np.float64)
    return arr.reshape(n, 0, 3) if arr.size == 0 else arr.reshape(n, -1, 3)


@dataclass(frozen=True, eq=False)
class RleTable:
    """``N`` RLE masks, columnar (see ``core.masks`` for the RLE convention).

    counts : int64 (C,)       all runs, concatenated (an int64 array given is not copied: it is
                              made read-only, so its maker must not write to it afterwards)
    offsets : int64 (N + 1,)  mask ``i`` is ``counts[offsets[i]:offsets[i + 1]]``
    height, width : int64 (N,) mask size in pixels
    """

    counts: IntArray
    offsets: IntArray
    height: IntArray
    width: IntArray

    def __post_init__(self) -> None:
        c = self.counts  # millions of runs: an int64 array is taken over, made read-only in place
        if isinstance(c, np.ndarray) and c.dtype == np.int64 and c.ndim == 1:
            c.flags.writeable = False
        else:
            object.__setattr__(self, "counts", frozen(c, np.int64))
        for name in ("offsets", "height", "width"):
            object.__setattr__(self, name, frozen(getattr(self, name), np.int64))
        if len(self.offsets) != len(self.height) + 1 or len(self.height) != len(self.width):
            raise ValueError("RleTable columns differ in length")

    def __len__(self) -> int:
        return len(self.height)

    def __getitem__(self, i: int) -> IntArray:
        return self.counts[self.offsets[i] : self.offsets[i + 1]]

    def take(self, rows: npt.ArrayLike) -> RleTable:
        """The masks of ``rows`` (int, any order, repeats allowed), in that order."""
        rows = np.asarray(rows, dtype=np.int64)
        counts, offsets = rc.take(self.counts, self.offsets, rows)
        return RleTable(counts, offsets, self.height[rows], self.width[rows])

    def bboxes(self) -> FloatArray:
        """Each mask's ``rleToBbox``, float64 (N, 4) ``x, y, w, h`` (``rle_columns.bboxes``)."""
        return rc.bboxes(self.counts, self.offsets, self.height, self.width)

    def mask_boxes(self) -> FloatArray:
        """``bboxes`` for reading only: a table that keeps them gives its own (no copy)."""
        return self.bboxes()

    def areas(self) -> IntArray:
        """Foreground pixels per mask, int64 (N,) (``rle_columns.areas``)."""
        return rc.areas(self.counts, self.offsets)

    @classmethod
    def from_list(
        cls, counts: list[IntArray], height: npt.ArrayLike, width: npt.ArrayLike
    ) -> RleTable:
        """Build from one counts array per mask."""
        lens = np.array([len(c) for c in counts], dtype=np.int64)
        flat = np.concatenate(counts) if counts else np.zeros(0, dtype=np.int64)
        h = np.asarray(height, dtype=np.int64)
        w = np.asarray(width, dtype=np.int64)
        return cls(flat, np.concatenate(([0], np.cumsum(lens))), h, w)


@dataclass(frozen=True, eq=False)
class CocoAnnotations:
    """COCO ground-truth columns.

    Per image (``I`` rows, ``Dataset.images`` order)
        image_id : int64 (I,) COCO image id; captions : tuple of ``I`` tuples of caption strings.
    Per category (``K`` rows, ascending id = ``Dataset.classes`` order)
        category_id : int64 (K,); supercategory : tuple[str]; keypoint_names : tuple of tuples;
        skeleton : tuple of int64 (E, 2) arrays of 1-based keypoint pairs.
    Per annotation (``N`` rows, ``Dataset.objects`` order)
        ann_id : int64 (N,); category_id_of : int64 (N,); bbox : float64 (N, 4) ``x, y, w, h``
        as given; area : float64 (N,) the JSON ``area`` field; iscrowd : bool (N,);
        keypoints : float64 (N, P, 3) ``x, y, v`` (P = 0 without keypoints); num_keypoints :
        int64 (N,); has_keypoints : bool (N,) whether the annotation had a ``keypoints`` field;
        masks : ``RleTable`` of N masks (polygons rasterised as pycocotools does), or ``None``
        when the reader was asked not to build them.
        ignore : bool (N,) the truth value of an annotation's ``ignore`` field (pycocotools
        overwrites it; boundary-iou-api's COCOeval honours it), or ``None`` (not read).
    Per file
        federated : the file carries LVIS's federated fields (an image's ``neg_category_ids`` /
        ``not_exhaustive_category_ids``, a category's ``frequency``): COCO's rules do not apply.
    """

    image_id: IntArray
    captions: tuple[tuple[str, ...], ...]
    category_id: IntArray
    supercategory: tuple[str, ...]
    keypoint_names: tuple[tuple[str, ...], ...]
    skeleton: tuple[IntArray, ...]
    ann_id: IntArray
    category_id_of: IntArray
    bbox: FloatArray
    area: FloatArray
    iscrowd: npt.NDArray[np.bool_]
    keypoints: FloatArray
    num_keypoints: IntArray
    has_keypoints: npt.NDArray[np.bool_]
    masks: RleTable | None = None
    federated: bool = False
    ignore: npt.NDArray[np.bool_] | None = None

    def __post_init__(self) -> None:
        n = len(self.ann_id)
        for name, dtype in _ANNOTATION_DTYPES.items():
            object.__setattr__(self, name, frozen(getattr(self, name), dtype))
        if self.ignore is not None:
            object.__setattr__(self, "ignore", frozen(np.reshape(self.ignore, (n,)), np.bool_))
        object.__setattr__(self, "bbox", frozen(np.reshape(self.bbox, (n, 4)), np.float64))
        object.__setattr__(self, "keypoints", frozen(_points(self.keypoints, n), np.float64))
        if self.masks is not None and len(self.masks) != n:
            raise ValueError("CocoAnnotations.masks differs in length")


@dataclass(frozen=True, eq=False)
class CocoResults:
    """COCO result columns, one row per detection (``ResultSet.detections`` order = file order).

    kind : ``"bbox"``, ``"segm"`` or ``"keypoints"`` — which ``loadRes`` branch read the file
        (chosen by the first entry's fields, as pycocotools does).
    det_id : int64 (D,)     entry index + 1 (``loadRes``' ids)
    image_id, category_id : int64 (D,)  may be given as ``core.results.Derived`` (``gathered``:
        the ground truth's ids at the detection's image / category row, made when first read)
    bbox : float64 (D, 4)   ``x, y, w, h``: given, or the mask's / keypoints' extent
    area : float64 (D,)     ``w*h`` (bbox), mask pixels (segm), keypoint extent (keypoints);
        may be given as ``core.results.Derived`` (made when first read)
    masks : ``RleTable`` or ``None``
    keypoints : float64 (D, P, 3)  (P = 0 without keypoints)
    warnings : problems of rows that were kept (non-finite values, an RLE size other than its
        image's), also in ``ResultSet.problems``; the others there are rows left out
    """

    kind: str
    det_id: IntArray
    if TYPE_CHECKING:  # (a ``Derived`` is taken too: ``gathered``)
        image_id: IntArray
        category_id: IntArray
    else:
        image_id: IntArray = DerivedColumn(_ids)
        category_id: IntArray = DerivedColumn(_ids)
    bbox: FloatArray
    if TYPE_CHECKING:  # (a ``Derived`` is taken too)
        area: FloatArray
    else:
        area: FloatArray = DerivedColumn(lambda _, a: frozen(a, np.float64))
    keypoints: FloatArray
    masks: RleTable | None = None
    warnings: tuple[FormatError, ...] = ()

    def __post_init__(self) -> None:
        n = len(self.det_id)
        for name, dtype in _RESULT_DTYPES.items():
            object.__setattr__(self, name, frozen(getattr(self, name), dtype))
        for name in ("image_id", "category_id"):
            if is_made(self, name):
                object.__setattr__(self, name, _ids(self, getattr(self, name)))
        if is_made(self, "area"):
            object.__setattr__(self, "area", frozen(self.area, np.float64))
        object.__setattr__(self, "bbox", frozen(np.reshape(self.bbox, (n, 4)), np.float64))
        object.__setattr__(self, "keypoints", frozen(_points(self.keypoints, n), np.float64))
