"""A per-polygon transcription of pycocotools' ``rleFrPoly`` (x5 upsampling, its rounding, the
final empty-run merge), kept only as a test oracle for ``masks.polygons_to_rle_batch``. It was the
library's rasteriser until the batched one replaced it, and agrees with pycocotools on every
coco-mini polygon."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Counts = npt.NDArray[np.int64]
_SCALE = 5.0


def _trunc_int(x: npt.NDArray[np.float64]) -> Counts:
    return np.trunc(x).astype(np.int64)


def polygon_to_rle_oracle(xy: npt.ArrayLike, h: int, w: int) -> Counts:
    """Rasterise one polygon ``[x0, y0, x1, y1, ...]`` (pixel coordinates, 0-based, continuous)
    into RLE counts exactly as pycocotools' ``frPyObjects`` does (×5 upsampling, its rounding)."""
    p = np.asarray(xy, dtype=np.float64).reshape(-1)
    k = len(p) // 2
    x = _trunc_int(_SCALE * p[0 : 2 * k : 2] + 0.5)
    y = _trunc_int(_SCALE * p[1 : 2 * k : 2] + 0.5)
    x = np.append(x, x[:1])
    y = np.append(y, y[:1])
    xs0, xe0, ys0, ye0 = x[:-1], x[1:], y[:-1], y[1:]
    dx, dy = np.abs(xe0 - xs0), np.abs(ys0 - ye0)
    horiz = dx >= dy
    flip = (horiz & (xs0 > xe0)) | (~horiz & (ys0 > ye0))
    xs, xe = np.where(flip, xe0, xs0), np.where(flip, xs0, xe0)
    ys, ye = np.where(flip, ye0, ys0), np.where(flip, ys0, ye0)
    span = np.where(horiz, dx, dy)
    num = np.where(horiz, ye - ys, xe - xs).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(span > 0, num / np.where(span > 0, span, 1), 0.0)  # 0/0 point: never used
    n = span + 1
    edge = np.repeat(np.arange(len(n)), n)
    d = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
    t = np.where(flip[edge], span[edge] - d, d)
    lin_x = _trunc_int(xs[edge] + s[edge] * t + 0.5)
    lin_y = _trunc_int(ys[edge] + s[edge] * t + 0.5)
    u = np.where(horiz[edge], t + xs[edge], lin_x)
    v = np.where(horiz[edge], lin_y, t + ys[edge])
    # column crossings, downsampled
    j = np.flatnonzero(u[1:] != u[:-1]) + 1
    uj, up = u[j], u[j - 1]
    xd = (np.where(uj < up, uj, uj - 1).astype(np.float64) + 0.5) / _SCALE - 0.5
    keep = (np.floor(xd) == xd) & (xd >= 0) & (xd <= w - 1)
    yd = (np.minimum(v[j], v[j - 1]).astype(np.float64) + 0.5) / _SCALE - 0.5
    yd = np.ceil(np.clip(yd, 0, h))
    a = xd[keep].astype(np.int64) * h + yd[keep].astype(np.int64)
    a = np.sort(np.append(a, h * w))
    a = np.diff(a, prepend=0)
    return _merge_empty_runs(a)


def _merge_empty_runs(a: Counts) -> Counts:
    """``rleFrPoly``'s last pass: an empty run after the first joins its two neighbours."""
    if not np.any(a[1:] == 0):
        return a
    b = [int(a[0])]
    vals = a.tolist()
    j = 1
    while j < len(vals):
        if vals[j] > 0:
            b.append(vals[j])
            j += 1
        else:
            j += 1
            if j < len(vals):
                b[-1] += vals[j]
                j += 1
    return np.array(b, dtype=np.int64)
