"""Mask boundaries for Boundary IoU (Cheng et al., CVPR 2021; boundary-iou-api's
``mask_to_boundary``), on COCO RLE masks (``core.masks``' convention: column-major runs).

A mask's boundary at dilation ``d`` is its pixels with a background pixel, or a pixel outside
the image, within chessboard (Chebyshev) distance ``d``: the mask minus its erosion by a
``(2d + 1)²`` square, the image border counting as background (the official code erodes a
1-pixel zero-padded mask ``d`` times with a 3 × 3 kernel, which is the same set). ``d`` =
``max(1, round(ratio · √(h² + w²)))`` from the mask's own size, rounding half to even (Python's
``round``, as the official code). Rules: PROTOCOLS.md §12. Everything outside a mask's bounding
box is background, so each mask is eroded on its box only.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vocviewer import kernel
from vocviewer.core import rle_columns as rc

IntArray = npt.NDArray[np.int64]

#: the paper's and the official API's default dilation ratio (of the image diagonal)
DEFAULT_DILATION_RATIO = 0.02


def dilation(height: int, width: int, ratio: float = DEFAULT_DILATION_RATIO) -> int:
    """Boundary width in pixels for an ``height × width`` mask: ``max(1, round(ratio · diag))``
    (half to even: a 500 × 375 image at 0.02 gives 12, not 13)."""
    return max(1, round(ratio * float(np.sqrt(float(height) ** 2 + float(width) ** 2))))


def _erode_axis(a: npt.NDArray[np.bool_], d: int, axis: int) -> npt.NDArray[np.bool_]:
    """1-D erosion of ``a`` along ``axis`` by a window of ``2d + 1``, outside = background."""
    pad = [(0, 0), (0, 0)]
    pad[axis] = (d + 1, d)  # one more in front: the cumulative sum's leading zero
    z = np.pad((~a).astype(np.int32), pad, constant_values=1)
    if axis == 0:
        z[0, :] = 0
    else:
        z[:, 0] = 0
    cs = np.cumsum(z, axis=axis)
    n = a.shape[axis]
    hi = np.take(cs, np.arange(2 * d + 1, 2 * d + 1 + n), axis=axis)
    lo = np.take(cs, np.arange(n), axis=axis)
    return np.asarray(hi == lo)


def _counts_of(p: IntArray, total: int) -> IntArray:
    """RLE counts (0-run first, as ``maskApi``'s ``rleEncode``) of the sorted flat foreground
    indices ``p`` in a mask of ``total`` pixels."""
    if len(p) == 0:
        return np.array([total], dtype=np.int64)
    brk = np.flatnonzero(np.diff(p) != 1)
    starts = np.concatenate((p[:1], p[brk + 1]))
    ends = np.concatenate((p[brk] + 1, p[-1:] + 1))
    out = np.empty(2 * len(starts), dtype=np.int64)
    out[0::2] = starts - np.concatenate(([0], ends[:-1]))
    out[1::2] = ends - starts
    if ends[-1] < total:
        out = np.append(out, total - ends[-1])
    return out


def boundary_counts(start: IntArray, end: IntArray, h: int, w: int, d: int) -> IntArray:
    """RLE counts of the boundary (width ``d``) of the ``h × w`` mask whose foreground runs are
    the flat-index intervals ``[start, end)`` (ascending)."""
    if len(start) == 0 or h <= 0 or w <= 0:
        return np.array([h * w], dtype=np.int64)
    length = end - start
    idx = np.arange(int(length.sum()), dtype=np.int64)
    idx += np.repeat(start - (np.cumsum(length) - length), length)
    x = idx // h
    y = idx - x * h
    x0, y0 = int(x[0]), int(y.min())
    crop = np.zeros((int(x[-1]) - x0 + 1, int(y.max()) - y0 + 1), dtype=bool)
    crop[x - x0, y - y0] = True  # (x, y): C order is the RLE's column-major order
    eroded = _erode_axis(_erode_axis(crop, d, 0), d, 1)
    bx, by = np.nonzero(crop & ~eroded)
    return _counts_of((bx + x0) * h + (by + y0), h * w)


def boundaries(
    counts: IntArray,
    offsets: IntArray,
    height: IntArray,
    width: IntArray,
    rows: IntArray,
    ratio: float = DEFAULT_DILATION_RATIO,
    previous: tuple[IntArray, IntArray, npt.NDArray[np.bool_]] | None = None,
) -> tuple[IntArray, IntArray]:
    """Boundary RLEs of masks ``rows`` of a columnar RLE table (``rle_columns``' layout), the
    other rows empty: ``(counts, offsets)`` for all ``N`` rows, each mask keeping its size.
    ``previous``: ``(counts, offsets, done)`` of an earlier call at the same ``ratio``, whose
    ``done`` rows are taken over rather than computed again."""
    n = len(offsets) - 1
    start, end, fg = rc.foreground_runs(counts, offsets)
    parts: list[IntArray] = [np.array([int(height[i]) * int(width[i])]) for i in range(n)]
    todo = np.unique(np.asarray(rows, dtype=np.int64))
    if previous is not None:
        pc, po, done = previous
        for i in np.flatnonzero(done).tolist():
            parts[i] = pc[po[i] : po[i + 1]]
        todo = todo[~done[todo]]
    k = kernel.load("_rle")
    for i in todo.tolist():
        h, w = int(height[i]), int(width[i])
        d = dilation(h, w, ratio)
        got = None if k is None else k.boundary(counts[offsets[i] : offsets[i + 1]], h, w, d)
        if got is None:  # numpy (no kernel, or runs not summing to h * w)
            s, e = start[fg[i] : fg[i + 1]], end[fg[i] : fg[i + 1]]
            got = boundary_counts(s, e, h, w, d)
        parts[i] = got
    lens = np.array([len(p) for p in parts], dtype=np.int64)
    flat = np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, dtype=np.int64)
    return flat, np.concatenate(([0], np.cumsum(lens))).astype(np.int64)
