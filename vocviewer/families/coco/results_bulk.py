"""Bulk paths of ``coco_results``: a whole results file as columns in a few vectorised passes.

A bulk path takes a file only when every entry is plain — each field present, of the JSON type
the per-entry path expects, every id known, every value finite, every mask of its image's size —
and returns ``None`` otherwise, so that the per-entry path (``coco_results._read_entries``)
decides and names the entry. What a bulk path returns equals, column for column, what the
per-entry path returns for the same file: ``tests/formats/test_fuzz_coco.py`` checks this.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer import kernel
from vocviewer.core import rle_columns as rc
from vocviewer.core.arrays import sealed
from vocviewer.core.errors import FormatError
from vocviewer.families.coco.columns import RleTable
from vocviewer.families.coco.schema import nonfinite_warning
from vocviewer.formats.input import MAX_IMAGE_PIXELS

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

#: ``(image_id, category_id, score, xywh)``: int64 (N,), int64 (N,), float64 (N,), float64 (N, 4).
Columns = tuple[IntArray, IntArray, FloatArray, FloatArray]

#: Key ranges up to this wide are looked up in a table (``lookup``; 8 MB of int32).
DENSE_SPAN = 1 << 21

_MALFORMED = (TypeError, KeyError, ValueError, IndexError, OverflowError, AttributeError)


def lookup(keys: IntArray, values: npt.NDArray[Any]) -> IntArray | None:
    """Row of each value in ``keys`` (any order; the first of equal keys), or ``None`` if one
    is missing. Unique keys spanning up to ``DENSE_SPAN`` or 8 per key (COCO's image and
    category ids) are looked up in an int32 table of that range, in linear time."""
    if len(keys) == 0:
        return None if len(values) else np.zeros(0, dtype=np.int64)
    lo, hi = int(keys.min()), int(keys.max())
    if hi - lo < max(DENSE_SPAN, 8 * len(keys)) and len(keys) < 2**31:
        table = np.full(hi - lo + 1, -1, dtype=np.int32)
        where, row = keys - lo, np.arange(len(keys), dtype=np.int32)
        table[where] = row
        if np.array_equal(table[where], row):  # else equal keys: sorted below
            v = np.asarray(values, dtype=np.int64)
            if len(v) and (int(v.min()) < lo or int(v.max()) > hi):
                return None
            found = table[v - lo]
            return None if (found < 0).any() else found.astype(np.int64)
    order = np.argsort(keys, kind="stable")
    pos = np.searchsorted(keys[order], values)
    pos = np.minimum(pos, len(keys) - 1)
    rows = order[pos]
    if not np.array_equal(keys[rows], values):
        return None
    return rows.astype(np.int64)


def corners(xywh: FloatArray) -> FloatArray:
    """``(x1, y1, x1 + w, y1 + h)`` of ``(x, y, w, h)`` boxes, float64 (N, 4), in one output
    array; NaN / inf kept. Each row's two halves are added as complex numbers (``x + iy``
    plus ``w + ih``: the same two float additions, several times faster than on the strided
    float columns)."""
    out = np.array(xywh, dtype=np.float64, order="C").reshape(-1, 4)
    pairs = out.view(np.complex128)
    with np.errstate(invalid="ignore", over="ignore"):
        pairs[:, 1] += pairs[:, 0]
    return out


def sealed_corners(xywh: FloatArray) -> FloatArray:
    """``corners(xywh)``, ``sealed`` (a result set's box column, made when first read)."""
    return sealed(corners(xywh))


def sealed_box_area(w: FloatArray, h: FloatArray) -> FloatArray:
    """``w * h`` of boxes' widths and heights (``loadRes``' bbox area; inf, NaN kept), ``sealed``
    (a result set's area column, made when first read: ``Derived(sealed_box_area, xywh[:, 2],
    xywh[:, 3])``, whose rows are gathered column by column)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return sealed(w * h)


def nonfinite_warnings(path: Path, score: FloatArray, xywh: FloatArray) -> list[FormatError]:
    """One warning naming the first box result with a NaN / infinite score or coordinate (such
    rows are kept and evaluated as pycocotools does); none if all are finite (told first by
    the sums: finite unless a value is not, or they overflow)."""
    with np.errstate(invalid="ignore", over="ignore"):
        if np.isfinite(score.sum()) and np.isfinite(xywh.sum()):
            return []
    bad_score = ~np.isfinite(score)
    bad = bad_score | ~np.isfinite(xywh).all(axis=1)
    if not bad.any():
        return []
    i = int(np.argmax(bad))
    where = f"[{i}].{'score' if bad_score[i] else 'bbox'}"
    return [nonfinite_warning(path, int(bad.sum()), where)]


def _id_column(a: npt.NDArray[Any]) -> IntArray | None:
    """Integer ids as int64 (whole floats accepted, as by ``json_int``), or ``None``."""
    if a.ndim != 1:
        return None
    if a.dtype.kind == "i":
        return a.astype(np.int64)
    if a.dtype.kind == "f" and len(a):
        ok = np.isfinite(a) & (a == np.floor(a)) & (a >= -(2.0**63)) & (a < 2.0**63)
        return a.astype(np.int64) if ok.all() else None
    return None


def _numbers(values: list[Any], shape: tuple[int, ...]) -> FloatArray | None:
    """``values`` as float64 of ``shape`` if every one is a JSON number, else ``None``."""
    if not values:
        return np.zeros(shape)
    try:
        a = np.array(values)
    except _MALFORMED:
        return None
    if a.shape != shape or a.dtype.kind not in "if":
        return None
    return a.astype(np.float64)


def box_columns(anns: list[Any], literals: bool) -> Columns | None:
    """``(image_id, category_id, score, xywh)`` of box results, or ``None`` when any entry
    needs a closer look (the per-entry path then decides, and names it): a missing field or a
    value of another type (strings, lists, ``true`` / ``false`` / ``null`` anywhere)."""
    if literals or not anns:
        return None
    n = len(anns)
    ids = _ids_and_scores(anns)
    try:
        xywh = _numbers([a["bbox"] for a in anns], (n, 4))
    except _MALFORMED:
        return None
    return None if ids is None or xywh is None else (*ids, xywh)


def _ids_and_scores(anns: list[Any]) -> tuple[IntArray, IntArray, FloatArray] | None:
    n = len(anns)
    try:
        img_ids = _id_column(np.array([a["image_id"] for a in anns]))
        cat_ids = _id_column(np.array([a["category_id"] for a in anns]))
        score = _numbers([a["score"] for a in anns], (n,))
    except _MALFORMED:
        return None
    if img_ids is None or cat_ids is None or score is None:
        return None
    return img_ids, cat_ids, score


@dataclass(frozen=True, eq=False)
class SegmColumns:
    """Segm results as columns, rows in file order: ``image`` int64 (N,) image row, ``label``
    int64 (N,) category row, ``score`` float64 (N,), ``xywh`` float64 (N, 4), ``area`` float64
    (N,), ``masks`` their ``RleTable``."""

    image: IntArray
    label: IntArray
    score: FloatArray
    xywh: FloatArray
    area: FloatArray
    masks: RleTable


def segm_columns(
    anns: list[Any],
    literals: bool,
    image_ids: IntArray,
    category_ids: IntArray,
    height: IntArray,
    width: IntArray,
    *,
    box_kind: bool,
) -> SegmColumns | None:
    """Results whose every ``segmentation`` is a compressed RLE string of its image's size, all
    strings decoded in one pass; ``None`` when any entry needs a closer look.

    ``image_ids`` / ``category_ids``: the annotation file's, int64 (I,) / (K,); ``height`` /
    ``width``: per image row, int64 (I,). ``box_kind``: the file is read by ``loadRes``' bbox
    branch (its first entry has a ``bbox``): every entry needs one and the area is ``w * h``;
    else a given ``bbox`` is kept, others are the mask's extent, and the area is the mask's."""
    if literals or not anns:
        return None
    n = len(anns)
    ids = _ids_and_scores(anns)
    try:
        segs = [a["segmentation"] for a in anns]
        strings = [s["counts"] for s in segs]
        size = np.array([s["size"] for s in segs])
        boxed = [i for i, a in enumerate(anns) if box_kind or "bbox" in a]
        given = _numbers([anns[i]["bbox"] for i in boxed], (len(boxed), 4))
    except _MALFORMED:
        return None
    if ids is None or given is None or not np.isfinite(ids[2]).all():
        return None
    if not np.isfinite(given).all() or not all(type(s) is str for s in strings):
        return None
    img, label = lookup(image_ids, ids[0]), lookup(category_ids, ids[1])
    if img is None or label is None or size.shape != (n, 2) or size.dtype.kind != "i":
        return None
    h, w = size[:, 0].astype(np.int64), size[:, 1].astype(np.int64)
    if not (np.array_equal(h, height[img]) and np.array_equal(w, width[img])):
        return None
    if (h <= 0).any() or (w <= 0).any() or (h > MAX_IMAGE_PIXELS).any():
        return None
    if (w > MAX_IMAGE_PIXELS).any() or (h * w > MAX_IMAGE_PIXELS).any():  # before decoding
        return None
    masks = _decoded(strings, h, w)
    if masks is None:
        return None
    return segm_result(img, label, ids[2], masks, np.array(boxed, dtype=np.int64), given, box_kind)


def segm_result(
    img: IntArray,
    label: IntArray,
    score: FloatArray,
    masks: RleTable,
    boxed: IntArray,
    given: FloatArray,
    box_kind: bool,
) -> SegmColumns:
    """``SegmColumns`` of checked masks: ``boxed`` the rows that gave a ``bbox`` (``given``,
    float64 (len(boxed), 4)); ``box_kind`` as for ``segm_columns``."""
    if box_kind:
        xywh = given
        with np.errstate(over="ignore"):
            area = xywh[:, 2] * xywh[:, 3]
    else:
        xywh = masks.bboxes()
        xywh[boxed] = given
        area = masks.areas().astype(np.float64)
    return SegmColumns(img, label, score, xywh, area, masks)


def _decoded(strings: list[str], h: IntArray, w: IntArray) -> RleTable | None:
    """The strings decoded, if each is whole and its runs (none negative) sum to ``h * w``."""
    try:
        counts, offsets = rc.from_strings(strings)
    except ValueError:  # truncated, not ASCII, or a value beyond 60 bits
        return None
    return checked_masks(counts, offsets, h, w)


def checked_masks(counts: IntArray, offsets: IntArray, h: IntArray, w: IntArray) -> RleTable | None:
    """The decoded masks as an ``RleTable`` if none is empty and each one's runs (none
    negative) sum to ``h * w``, else ``None``."""
    hw = h * w
    if (k := kernel.load("_rle")) is not None:
        return RleTable(counts, offsets, h, w) if k.runs_fit(counts, offsets, hw) else None
    if (np.diff(offsets) == 0).any() or counts.min() < 0 or counts.max() > hw.max():
        return None  # (runs within 0 .. max(h * w): their sums cannot overflow)
    if not np.array_equal(np.add.reduceat(counts, offsets[:-1]), hw):
        return None
    return RleTable(counts, offsets, h, w)


@dataclass(frozen=True, eq=False)
class KeypointColumns:
    """Keypoint results as columns, rows in file order: ``image`` int64 (N,) image row,
    ``label`` int64 (N,) category row, ``score`` float64 (N,), ``xywh`` float64 (N, 4), ``area``
    float64 (N,), ``keypoints`` float64 (N, P, 3) ``x, y, v`` triples."""

    image: IntArray
    label: IntArray
    score: FloatArray
    xywh: FloatArray
    area: FloatArray
    keypoints: FloatArray


def keypoint_columns(
    anns: list[Any],
    literals: bool,
    image_ids: IntArray,
    category_ids: IntArray,
    *,
    box_kind: bool,
) -> KeypointColumns | None:
    """Results whose every ``keypoints`` is a list of the same number (a positive multiple of 3)
    of finite numbers; ``None`` when any entry needs a closer look.

    ``image_ids`` / ``category_ids``: the annotation file's, int64 (I,) / (K,). ``box_kind``:
    the file is read by ``loadRes``' bbox branch (its first entry has a ``bbox``): every entry
    needs a finite one, kept, and the area is ``w * h``; else any ``bbox`` is ignored, the box
    is the keypoints' extent and the area that extent's."""
    if literals or not anns:
        return None
    n = len(anns)
    ids = _ids_and_scores(anns)
    try:
        kp = np.array([a["keypoints"] for a in anns])
        given = _numbers([a["bbox"] for a in anns], (n, 4)) if box_kind else np.zeros((n, 4))
    except _MALFORMED:
        return None
    if ids is None or given is None or kp.ndim != 2 or kp.dtype.kind not in "if":
        return None
    if kp.shape[1] == 0 or kp.shape[1] % 3:
        return None
    kp = kp.astype(np.float64, copy=False).reshape(n, -1, 3)
    return keypoint_result(ids, kp, given, image_ids, category_ids, box_kind)


def keypoint_result(
    ids: tuple[IntArray, IntArray, FloatArray],
    kp: FloatArray,
    given: FloatArray,
    image_ids: IntArray,
    category_ids: IntArray,
    box_kind: bool,
    finite: bool = False,
) -> KeypointColumns | None:
    """``KeypointColumns`` of ``(image_id, category_id, score)`` columns, keypoints float64
    (N, P, 3) and ``given`` boxes (N, 4) (used when ``box_kind``), or ``None`` for a non-finite
    value or an unknown id (``finite``: the caller knows every value is finite: the compiled
    scanner declines NaN, Infinity and overflows)."""
    finite = finite or bool(
        np.isfinite(ids[2]).all() and np.isfinite(kp).all() and np.isfinite(given).all()
    )
    img, label = lookup(image_ids, ids[0]), lookup(category_ids, ids[1])
    if not finite or img is None or label is None:
        return None
    with np.errstate(over="ignore", invalid="ignore"):  # finite extents may overflow
        if box_kind:
            xywh = given
            area = xywh[:, 2] * xywh[:, 3]
        else:
            lo, hi = kp[:, :, :2].min(axis=1), kp[:, :, :2].max(axis=1)
            xywh = np.column_stack((lo, hi - lo))
            area = xywh[:, 2] * xywh[:, 3]
    return KeypointColumns(img, label, ids[2], xywh, area, kp)
