"""VisDrone ignored regions: which rows survive ``dropObjectsInIgr.m`` (PROTOCOLS.md §6.2).

Rules, per image holding at least one category-0 row ("region"):

* each region's four numbers are clamped to ``>= 1`` (non-integers, undefined officially, are
  rounded MATLAB-style here); the H×W mask (1-based) is 1 on rows ``y .. min(H, y+h)`` and
  columns ``x .. min(W, x+w)``, inclusive (h+1 by w+1 pixels);
* every other row is tested with ``X, Y, w, h = max(1, round(box))`` (MATLAB rounding: halves away
  from zero), ``x = min(W, X)``, ``y = min(H, Y)``; ``S`` = mask sum over rows
  ``y+1 .. min(H, y+h)`` and columns ``x+1 .. min(W, x+w)``; the row is kept iff
  ``S / (w*h) < 0.5`` (exactly 0.5 is dropped; ``w*h`` unclipped);
* a row with a NaN or infinite number lies nowhere: it is kept (vocviewer's rule for results with
  non-finite coordinates: evaluated, overlapping nothing; the toolkit's outcome is undefined).

The toolkit sums an integral image; here the mask is a union of rectangles, so ``S`` is computed
exactly on the grid compressed to the region edges (``S`` and ``w*h`` are integers, exact in
float64), which costs O(rows × regions²) instead of O(H × W) per image. ``keep_outside_many``
filters many images at once, on the compiled kernel (``vocviewer/kernel/_greedy.c``) where it is
built: the same flags.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vocviewer import kernel

FloatArray = npt.NDArray[np.float64]


def matlab_round(x: npt.ArrayLike) -> FloatArray:
    """MATLAB ``round``: halves away from zero (``np.round`` rounds halves to even).

    >>> matlab_round([0.5, 1.5, 2.5, -0.5, -2.5, 2.4999999999999996]).tolist()
    [1.0, 2.0, 3.0, -1.0, -3.0, 2.0]
    """
    a = np.asarray(x, dtype=np.float64)
    t = np.trunc(a)
    out: FloatArray = t + np.sign(a) * (np.abs(a - t) >= 0.5)
    return out


def _edges(start: FloatArray, stop: FloatArray, size: int) -> FloatArray:
    """Sorted unique half-open breakpoints covering ``[1, size + 1)``."""
    return np.unique(np.concatenate(([1.0, size + 1.0], start, stop)))


def _lengths(lo: FloatArray, hi: FloatArray, edges: FloatArray) -> FloatArray:
    """Overlap length of each ``[lo, hi)`` with each cell ``[edges[k], edges[k+1])``: (Q, K)."""
    a = np.maximum(lo[:, None], edges[None, :-1])
    b = np.minimum(hi[:, None], edges[None, 1:])
    out: FloatArray = np.clip(b - a, 0.0, None)
    return out


def keep_outside_regions(
    regions: FloatArray, boxes: FloatArray, height: int, width: int
) -> npt.NDArray[np.bool_]:
    """Which ``boxes`` (``left, top, w, h`` float64 (Q, 4)) are kept, given the image's
    ``regions`` (float64 (R, 4), same layout) and its size in pixels. All kept if ``R == 0``."""
    q = len(boxes)
    if len(regions) == 0 or q == 0:
        return np.ones(q, dtype=bool)
    reg = matlab_round(np.maximum(1.0, regions))
    # region rows [ry, ry_end], inclusive → half-open [ry, ry_end + 1); empty if ry > H
    ry, rx = reg[:, 1], reg[:, 0]
    ry_stop = np.minimum(float(height), ry + reg[:, 3]) + 1.0
    rx_stop = np.minimum(float(width), rx + reg[:, 2]) + 1.0
    ry_stop = np.maximum(ry_stop, ry)
    rx_stop = np.maximum(rx_stop, rx)
    row_edges = _edges(np.minimum(ry, height + 1.0), np.minimum(ry_stop, height + 1.0), height)
    col_edges = _edges(np.minimum(rx, width + 1.0), np.minimum(rx_stop, width + 1.0), width)
    # mask on the compressed grid: a cell is covered iff some region covers it entirely
    rcov = _lengths(ry, ry_stop, row_edges) > 0  # (R, Kr)
    ccov = _lengths(rx, rx_stop, col_edges) > 0  # (R, Kc)
    mask = (rcov[:, :, None] & ccov[:, None, :]).any(axis=0).astype(np.float64)
    finite = np.isfinite(boxes).all(axis=1)
    with np.errstate(all="ignore"):  # NaN / inf / 1e308 rows: computed, then kept below
        pos = np.maximum(1.0, matlab_round(boxes))
        x = np.maximum(1.0, np.minimum(float(width), pos[:, 0]))
        y = np.maximum(1.0, np.minimum(float(height), pos[:, 1]))
        w, h = pos[:, 2], pos[:, 3]
        x2 = np.minimum(float(width), x + w)
        y2 = np.maximum(1.0, np.minimum(float(height), y + h))
        rl = _lengths(y + 1.0, y2 + 1.0, row_edges)
        cl = _lengths(x + 1.0, x2 + 1.0, col_edges)
        s = np.einsum("qi,ij,qj->q", rl, mask, cl)
        inside = s / (h * w) >= 0.5
    return np.asarray(~(inside & finite))


def keep_outside_many(
    regions: FloatArray,
    region_offsets: npt.NDArray[np.int64],
    boxes: FloatArray,
    box_offsets: npt.NDArray[np.int64],
    heights: npt.NDArray[np.int64],
    widths: npt.NDArray[np.int64],
) -> npt.NDArray[np.bool_]:
    """``keep_outside_regions`` for J images at once: image ``j``'s regions are rows
    ``region_offsets[j]:region_offsets[j + 1]`` of ``regions``, its boxes those of ``boxes``
    (both ``ltwh`` float64), its size ``heights[j]`` × ``widths[j]`` pixels (> 0)."""
    keep = np.ones(len(boxes), dtype=bool)
    todo = np.ones(len(heights), dtype=bool)
    if len(boxes) and (k := kernel.load("_greedy")) is not None:
        keep, done = k.visdrone_regions(
            regions, region_offsets, boxes, box_offsets, heights, widths
        )
        todo = ~done
    for j in np.flatnonzero(todo).tolist():
        r = slice(int(region_offsets[j]), int(region_offsets[j + 1]))
        b = slice(int(box_offsets[j]), int(box_offsets[j + 1]))
        keep[b] = keep_outside_regions(regions[r], boxes[b], int(heights[j]), int(widths[j]))
    return keep
