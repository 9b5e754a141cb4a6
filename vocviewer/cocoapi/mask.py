"""pycocotools' ``mask`` module (``encode``, ``decode``, ``area``, ``toBbox``, ``iou``, ``merge``,
``frPyObjects``) on vocviewer's numpy RLE code (``core.masks``, ``core.rle_columns``).

RLE objects are dicts ``{"size": [h, w], "counts": bytes}`` (compressed; ``str`` accepted) or,
for ``frPyObjects``' input, ``counts`` as a list of run lengths (uncompressed). Masks are
column-major RLEs of ``h x w`` pixels, 0-based, as pycocotools'. Returned types follow
pycocotools: ``area`` uint32, ``toBbox`` float64 ``x, y, w, h``, ``decode`` uint8 ``(h, w)`` or
``(h, w, n)`` in Fortran order, compressed counts as ``bytes``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core import mask_iou
from vocviewer.core import masks as mk
from vocviewer.core import rle_columns as rc

Rle = dict[str, Any]
IntArray = npt.NDArray[np.int64]

__all__ = ["area", "decode", "encode", "frPyObjects", "iou", "merge", "toBbox"]


def counts_of(rle: Rle) -> IntArray:
    """The int64 run lengths of one RLE dict (compressed or uncompressed)."""
    c = rle["counts"]
    if isinstance(c, str | bytes | bytearray):
        return mk.from_string(bytes(c) if isinstance(c, bytearray) else c)
    return np.asarray(c, dtype=np.int64).reshape(-1)


def columns_of(rles: Sequence[Rle]) -> tuple[IntArray, IntArray]:
    """``(counts, offsets)`` of many RLE dicts at once (one vectorised pass over compressed
    strings when every entry is compressed)."""
    strings = [r["counts"] for r in rles]
    if all(isinstance(s, str | bytes) for s in strings):
        return rc.from_strings(strings)
    parts = [counts_of(r) for r in rles]
    lens = np.array([len(p) for p in parts], dtype=np.int64)
    flat = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    return flat, np.concatenate(([0], np.cumsum(lens))).astype(np.int64)


def _size(rle: Rle) -> tuple[int, int]:
    h, w = rle["size"]
    return int(h), int(w)


def _sizes(rles: Sequence[Rle]) -> tuple[IntArray, IntArray]:
    """Heights and widths of RLE dicts, int64 (n,) each."""
    hw = np.array([_size(r) for r in rles], dtype=np.int64).reshape(-1, 2)
    return hw[:, 0].copy(), hw[:, 1].copy()


def _to_rle(counts: npt.ArrayLike, h: int, w: int) -> Rle:
    return {"size": [h, w], "counts": mk.to_string(counts).encode("ascii")}


def encode(bimask: npt.NDArray[Any]) -> Rle | list[Rle]:
    """RLE of a binary mask ``(h, w)`` or of each ``[:, :, i]`` of ``(h, w, n)``."""
    m = np.asarray(bimask)
    if m.ndim == 2:
        return _to_rle(mk.encode(m), m.shape[0], m.shape[1])
    if m.ndim != 3:
        raise ValueError("encode expects an (h, w) or (h, w, n) array")
    h, w = m.shape[:2]
    return [_to_rle(mk.encode(m[:, :, i]), h, w) for i in range(m.shape[2])]


def decode(rleObjs: Rle | Sequence[Rle]) -> npt.NDArray[np.uint8]:
    """Binary mask uint8 ``(h, w)`` of one RLE, ``(h, w, n)`` of a list."""
    if isinstance(rleObjs, dict):
        h, w = _size(rleObjs)
        return mk.decode(counts_of(rleObjs), h, w).astype(np.uint8)
    if len(rleObjs) == 0:
        return np.zeros((0, 0, 0), dtype=np.uint8, order="F")
    h, w = _size(rleObjs[0])
    out = np.zeros((h, w, len(rleObjs)), dtype=np.uint8, order="F")
    for i, r in enumerate(rleObjs):
        out[:, :, i] = mk.decode(counts_of(r), h, w)
    return out


def area(rleObjs: Rle | Sequence[Rle]) -> Any:
    """Foreground pixels: uint32 of one RLE, uint32 ``(n,)`` of a list."""
    if isinstance(rleObjs, dict):
        return np.uint32(mk.area(counts_of(rleObjs)))
    counts, offsets = columns_of(rleObjs)
    return rc.areas(counts, offsets).astype(np.uint32)


def toBbox(rleObjs: Rle | Sequence[Rle]) -> npt.NDArray[np.float64]:
    """``x, y, w, h`` of the foreground: float64 ``(4,)`` of one RLE, ``(n, 4)`` of a list."""
    if isinstance(rleObjs, dict):
        return mk.to_bbox(counts_of(rleObjs), *_size(rleObjs))
    counts, offsets = columns_of(rleObjs)
    h, w = _sizes(rleObjs)
    return rc.bboxes(counts, offsets, h, w).reshape(-1, 4)


def area_and_bbox(
    rles: Sequence[Rle],
) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.float64], tuple[IntArray, IntArray]]:
    """``area`` and ``toBbox`` of each RLE dict, all strings decoded in one pass: uint32 (n,)
    and float64 (n, 4) (row ``i`` is what ``toBbox(rles[i])`` gives), and the decoded
    ``(counts, offsets)``."""
    if not rles:
        z = np.zeros(0, dtype=np.int64)
        return np.zeros(0, dtype=np.uint32), np.zeros((0, 4)), (z, np.zeros(1, np.int64))
    counts, offsets = columns_of(rles)
    boxes = rc.bboxes(counts, offsets, *_sizes(rles)).reshape(-1, 4)
    return rc.areas(counts, offsets).astype(np.uint32), boxes, (counts, offsets)


def merge(rleObjs: Sequence[Rle], intersect: int | bool = 0) -> Rle:
    """Union (or intersection) of RLEs of one image size."""
    h, w = _size(rleObjs[0])
    parts = [counts_of(r) for r in rleObjs]
    return _to_rle(mk.merge(parts, h, w, intersect=bool(intersect)), h, w)


def _boxes_or_rles(objs: Any) -> tuple[str, Any]:
    if isinstance(objs, np.ndarray):
        a = objs.astype(np.float64)
        if a.ndim == 2 and a.shape[1] == 4:
            return "box", a
        if a.size == 0:
            return "box", a.reshape(0, 4)
        raise Exception(
            "numpy ndarray input is only for *bounding boxes* and should have Nx4 dimension"
        )
    if isinstance(objs, list):
        if len(objs) == 0:
            return "box", np.zeros((0, 4))
        if all(isinstance(o, dict) for o in objs):
            return "rle", objs
        if all(np.asarray(o).shape == (4,) for o in objs):
            return "box", np.asarray(objs, dtype=np.float64).reshape(-1, 4)
        raise Exception("list input can be bounding box (Nx4) or RLEs ([RLE])")
    raise Exception(
        "unrecognized type.  The following type: RLEs (rle), np.ndarray (box), and list (box) are supported."
    )


def iou(dt: Any, gt: Any, pyiscrowd: Any) -> Any:
    """IoU float64 ``(D, G)`` of detections and ground truth, both RLEs or both ``x, y, w, h``
    boxes; a crowd ground truth divides by the detection's area. ``[]`` if either is empty."""
    kd, d = _boxes_or_rles(dt)
    kg, g = _boxes_or_rles(gt)
    crowd = np.asarray(pyiscrowd, dtype=bool).reshape(-1)
    if len(d) == 0 or len(g) == 0:
        return []
    if len(crowd) != len(g):
        raise Exception("The iscrowd should have the same length as gt")
    if kd != kg:
        raise Exception(
            "The dt and gt should have the same data type, either RLEs, list or np.ndarray"
        )
    if kd == "box":
        return mask_iou.bbox_iou(d, g, crowd)
    counts = [counts_of(r) for r in d], [counts_of(r) for r in g]
    return mask_iou.rle_iou(*counts, crowd, np.column_stack(_sizes(d)), np.column_stack(_sizes(g)))


def frPyObjects(pyobj: Any, h: int, w: int) -> Rle | list[Rle]:
    """Compressed RLE(s) from polygons (a list of ``[x0, y0, x1, y1, ...]``: one RLE each),
    boxes (``(N, 4)`` array or list of 4-lists), or uncompressed RLE dict(s)."""
    if isinstance(pyobj, np.ndarray):
        return [_to_rle(mk.bbox_to_rle(b, h, w), h, w) for b in pyobj.reshape(-1, 4)]
    if isinstance(pyobj, list) and len(pyobj) and isinstance(pyobj[0], dict):
        if all("counts" in o and "size" in o for o in pyobj):
            return [_to_rle(counts_of(o), *_size(o)) for o in pyobj]
    elif isinstance(pyobj, list) and len(pyobj) and len(pyobj[0]) == 4:
        return [_to_rle(mk.bbox_to_rle(b, h, w), h, w) for b in pyobj]
    elif isinstance(pyobj, list) and len(pyobj) and len(pyobj[0]) > 4:
        rles = mk.polygons_to_rle_batch(pyobj, h, w)
        return [_to_rle(c, h, w) for c in rles]
    elif isinstance(pyobj, dict) and "counts" in pyobj and "size" in pyobj:
        return _to_rle(counts_of(pyobj), *_size(pyobj))
    raise Exception("input type is not supported.")
