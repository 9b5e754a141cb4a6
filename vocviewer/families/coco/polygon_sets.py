"""Objects' list segmentations (one or more polygons each) rasterised into RLE masks in one batch."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vocviewer import kernel
from vocviewer.core import masks as mk
from vocviewer.core import rle_columns as rc

__all__ = ["polygon_columns_to_rle", "polygon_sets_to_rle", "segmentations_to_rle"]

IntArray = npt.NDArray[np.int64]


def polygon_sets_to_rle(
    sets: list[list[npt.NDArray[np.float64]]], h: npt.ArrayLike, w: npt.ArrayLike
) -> list[mk.Counts]:
    """``segmentation_to_rle`` of many list segmentations given as ``polygon_parts`` (each with its
    image's ``h``, ``w``): every polygon rasterised in one batch, an object's polygons merged."""
    hh = np.asarray(h, dtype=np.int64).reshape(-1)
    ww = np.asarray(w, dtype=np.int64).reshape(-1)
    nparts = np.array([len(s) for s in sets], dtype=np.int64)
    flat = [p for s in sets for p in s]
    counts = mk.polygons_to_rle_batch(flat, np.repeat(hh, nparts), np.repeat(ww, nparts))
    out: list[mk.Counts] = []
    i = 0
    for k, hi, wi in zip(nparts.tolist(), hh.tolist(), ww.tolist(), strict=True):
        if k == 0:
            out.append(np.array([hi * wi], dtype=np.int64))
        else:  # one polygon: merge would return it unchanged
            out.append(counts[i] if k == 1 else mk.merge(counts[i : i + k], hi, wi))
        i += k
    return out


def polygon_columns_to_rle(
    xy: npt.NDArray[np.float64],
    npoints: IntArray,
    nparts: IntArray,
    rows: IntArray,
    h: IntArray,
    w: IntArray,
) -> tuple[IntArray, IntArray]:
    """``polygon_sets_to_rle`` of objects given as columns: ``xy`` float64, every polygon's
    ``x0, y0, x1, ...`` concatenated, ``npoints`` (P,) the points of each polygon, ``nparts``
    (N,) the polygons of each object in order; the objects ``rows`` (M,) at sizes ``h``, ``w``
    (M,). Returns ``(counts, offsets)`` of the M masks (``RleTable``'s layout): on the compiled
    kernel where it is built (threads across objects), the objects it declines (non-finite or
    huge coordinates) and a machine without it on ``polygon_sets_to_rle``."""
    k = kernel.load("_rle")
    redo = np.arange(len(rows))
    if k is not None:
        counts, offsets, redo = k.polygon_objects(xy, npoints, nparts, rows, h, w)
        if len(redo) == 0:
            return counts, offsets
        masks = np.split(counts, offsets[1:-1]) if len(rows) else []
    else:
        masks = [np.zeros(0, dtype=np.int64)] * len(rows)
    point_end = np.cumsum(npoints) * 2
    part_end = np.cumsum(nparts)
    polys = np.split(xy, point_end[:-1]) if len(npoints) else []
    sets = [polys[part_end[r] - nparts[r] : part_end[r]] for r in rows[redo].tolist()]
    for i, c in zip(redo.tolist(), polygon_sets_to_rle(sets, h[redo], w[redo]), strict=True):
        masks[i] = c
    lens = np.array([len(c) for c in masks], dtype=np.int64)
    flat = np.concatenate(masks) if masks else np.zeros(0, dtype=np.int64)
    return flat.astype(np.int64, copy=False), np.concatenate(([0], np.cumsum(lens)))


def segmentations_to_rle(
    kind: npt.NDArray[np.integer],
    xy: npt.NDArray[np.float64],
    part_len: IntArray,
    nparts: IntArray,
    runs: IntArray,
    run_len: IntArray,
    height: IntArray,
    width: IntArray,
    rows: IntArray | None = None,
) -> tuple[IntArray, IntArray]:
    """The ``(counts, offsets)`` of an ``RleTable`` whose mask i is source row ``rows[i]``
    (default: every row in order) of segmentation columns: ``kind`` 1 polygons (``xy`` flat,
    ``part_len`` coordinates per polygon, ``nparts`` polygons per row) rasterised at
    ``height[i]`` x ``width[i]`` (an empty ``[0]`` when either is 0), 2 an RLE (``runs`` flat,
    ``run_len`` per row) as given, any other kind ``[0]``. The polygons on the compiled kernel
    where it is built (``polygon_columns_to_rle``)."""
    src = np.arange(len(kind)) if rows is None else np.asarray(rows, dtype=np.int64)
    k = kind[src]
    is_poly = (k == 1) & (height > 0) & (width > 0)
    if (kern := kernel.load("_rle")) is not None:  # one table at once, the RLEs copied in
        given = np.concatenate((runs, [0])).astype(np.int64, copy=False)
        start = np.where(k == 2, (np.cumsum(run_len) - run_len)[src], len(runs))
        length = np.where(is_poly, -1, np.where(k == 2, run_len[src], 1))
        hh, ww = (np.asarray(a, dtype=np.int64) for a in (height, width))
        counts, offsets, redo = kern.polygon_objects(
            xy, part_len // 2, nparts, src, hh, ww, given, start, length
        )
        if len(redo) == 0:
            return counts, offsets
    poly = np.flatnonzero(is_poly)
    h, w = height[poly], width[poly]
    counts, offsets = polygon_columns_to_rle(xy, part_len // 2, nparts, src[poly], h, w)
    rle = np.flatnonzero(k == 2)
    # the rasterised polygons, then the source's RLEs (by source row) and [0] (read in place:
    # the polygons' runs are not copied into one pool first)
    more = np.concatenate((runs, [0])).astype(np.int64, copy=False)
    more_off = np.concatenate(([0], np.cumsum(run_len), [len(more)])).astype(np.int64)
    take = np.full(len(src), len(poly) + len(run_len), dtype=np.int64)
    take[poly] = np.arange(len(poly))
    take[rle] = len(poly) + src[rle]
    return rc.take(counts, offsets, take, (more, more_off))
