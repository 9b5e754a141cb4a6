"""COCO run-length encoded (RLE) masks, numpy only.

A mask of ``h x w`` pixels is read in **column-major** order (x outer, y inner: pixel ``(y, x)`` is
at flat index ``x * h + y``). Its RLE ``counts`` is an int64 vector of alternating run lengths that
starts with a run of **0s** (possibly of length 0), as ``maskApi.c`` stores it; the runs sum to
``h * w``. Functions reproduce the behaviour of pycocotools' mask API bit for bit (polygon
rasterising, compressed strings, bounding boxes of RLEs, IoU with crowd semantics).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

Counts = npt.NDArray[np.int64]
_SCALE = 5.0  # maskApi's polygon upsampling factor


def encode(mask: npt.ArrayLike) -> Counts:
    """RLE counts of a binary mask ``(h, w)`` (any dtype; nonzero is foreground).

    Returns int64 ``(m,)``: runs of 0s and 1s alternating, starting with 0s, column-major."""
    m = np.asarray(mask)
    flat = (m.T.reshape(-1) != 0).astype(np.int8)
    if flat.size == 0:
        return np.zeros(1, dtype=np.int64)
    change = np.flatnonzero(np.diff(flat)) + 1
    bounds = np.concatenate(([0], change, [flat.size]))
    counts = np.diff(bounds).astype(np.int64)
    if flat[0]:
        counts = np.concatenate(([0], counts))
    return counts


def decode(counts: npt.ArrayLike, h: int, w: int) -> npt.NDArray[np.bool_]:
    """Binary mask ``bool (h, w)`` of RLE ``counts``."""
    c = np.asarray(counts, dtype=np.int64)
    values = (np.arange(len(c)) % 2).astype(bool)
    flat = np.repeat(values, c)
    out = np.zeros(h * w, dtype=bool)
    out[: min(len(flat), h * w)] = flat[: h * w]
    return out.reshape(w, h).T


def area(counts: npt.ArrayLike) -> int:
    """Number of foreground pixels: the sum of the odd-position runs."""
    return int(np.asarray(counts, dtype=np.int64)[1::2].sum())


def to_bbox(counts: npt.ArrayLike, h: int) -> npt.NDArray[np.float64]:
    """Bounding box ``float64 (4,)`` as ``x, y, w, h`` in whole pixels, as ``rleToBbox`` computes it.

    Quirks kept: an odd last run is dropped; an empty RLE gives zeros; a foreground run that wraps
    into another column spans the full height."""
    c = np.asarray(counts, dtype=np.int64)
    m = (len(c) // 2) * 2
    if m == 0 or h <= 0:
        return np.zeros(4, dtype=np.float64)
    cc = np.cumsum(c[:m])
    t = cc - (np.arange(m) % 2)
    y = t % h
    x = t // h
    xs, xe = int(x.min()), int(x.max())
    ys, ye = int(y.min()), int(y.max())
    if np.any(x[0::2] < x[1::2]):
        ys, ye = 0, max(ye, h - 1)
    return np.array([xs, ys, xe - xs + 1, ye - ys + 1], dtype=np.float64)


def _intervals(counts: Counts) -> tuple[Counts, Counts]:
    """Foreground runs as half-open ``[start, end)`` flat-index intervals."""
    ends = np.cumsum(counts)
    starts = ends - counts
    return starts[1::2], ends[1::2]


def merge(rles: Sequence[npt.ArrayLike], h: int, w: int, *, intersect: bool = False) -> Counts:
    """Union (or intersection) of RLEs of one ``h x w`` image, canonical (no empty inner runs).

    One input is returned unchanged, as ``rleMerge`` does."""
    if len(rles) == 0:
        return np.zeros(0, dtype=np.int64)
    if len(rles) == 1:
        return np.asarray(rles[0], dtype=np.int64).copy()
    if intersect:
        acc = decode(rles[0], h, w)
        for r in rles[1:]:
            acc &= decode(r, h, w)
        return encode(acc)
    parts = [_intervals(np.asarray(r, dtype=np.int64)) for r in rles]
    starts = np.concatenate([p[0] for p in parts])
    ends = np.concatenate([p[1] for p in parts])
    keep = ends > starts
    starts, ends = starts[keep], ends[keep]
    order = np.argsort(starts, kind="stable")
    starts, ends = starts[order], ends[order]
    if len(starts) == 0:
        return np.array([h * w], dtype=np.int64)
    reach = np.maximum.accumulate(ends)
    new = np.concatenate(([True], starts[1:] > reach[:-1]))
    first = np.flatnonzero(new)
    last = np.append(first[1:], len(starts)) - 1
    bounds = np.column_stack((starts[first], reach[last])).reshape(-1)
    tail = [h * w] if bounds[-1] < h * w else []
    return np.diff(np.concatenate(([0], bounds, tail))).astype(np.int64)


def intersection(a: npt.ArrayLike, b: npt.ArrayLike) -> int:
    """Number of pixels set in both RLEs (same image size)."""
    sa, ea = _intervals(np.asarray(a, dtype=np.int64))
    sb, eb = _intervals(np.asarray(b, dtype=np.int64))
    if len(sa) == 0 or len(sb) == 0:
        return 0
    # F(x) = foreground pixels of ``a`` in [0, x): piecewise linear, evaluated at b's bounds
    cum = np.concatenate(([0], np.cumsum(ea - sa)))

    def f(x: Counts) -> Counts:
        k = np.searchsorted(ea, x, side="right")  # intervals wholly before x
        inside = np.clip(x - sa[np.minimum(k, len(sa) - 1)], 0, None)
        inside = np.where(k < len(sa), inside, 0)
        return cum[k] + inside

    return int((f(eb) - f(sb)).sum())


def bbox_iou(
    det: npt.ArrayLike, gt: npt.ArrayLike, iscrowd: npt.ArrayLike | None = None
) -> npt.NDArray[np.float64]:
    """IoU ``float64 (D, G)`` of ``x, y, w, h`` boxes, in ``bbIou``'s expression order.

    For a crowd ground truth the overlap is intersection / detection area. Non-overlapping pairs
    (width or height ``<= 0``) are 0."""
    d = np.asarray(det, dtype=np.float64).reshape(-1, 1, 4)
    g = np.asarray(gt, dtype=np.float64).reshape(1, -1, 4)
    crowd = np.zeros(g.shape[1], bool) if iscrowd is None else np.asarray(iscrowd, bool)
    da = d[..., 2] * d[..., 3]
    ga = g[..., 2] * g[..., 3]
    iw = np.fmin(d[..., 2] + d[..., 0], g[..., 2] + g[..., 0]) - np.fmax(d[..., 0], g[..., 0])
    ih = np.fmin(d[..., 3] + d[..., 1], g[..., 3] + g[..., 1]) - np.fmax(d[..., 1], g[..., 1])
    inter = iw * ih
    union = np.where(crowd[None, :], da, da + ga - inter)
    ok = (iw > 0) & (ih > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(ok, inter / np.where(ok, union, 1.0), 0.0)
    return np.asarray(out, dtype=np.float64)


def rle_iou(
    det: Sequence[npt.ArrayLike],
    gt: Sequence[npt.ArrayLike],
    iscrowd: npt.ArrayLike,
    h: int,
) -> npt.NDArray[np.float64]:
    """Mask IoU ``float64 (D, G)`` of RLEs of one ``h``-pixel-high image, as ``rleIou``.

    Pairs whose RLE bounding boxes do not overlap are 0; a crowd ground truth divides the
    intersection by the detection's area."""
    crowd = np.asarray(iscrowd, dtype=bool).reshape(-1)
    db = np.array([to_bbox(c, h) for c in det]).reshape(-1, 4)
    gb = np.array([to_bbox(c, h) for c in gt]).reshape(-1, 4)
    out = bbox_iou(db, gb, crowd)
    dar = [area(c) for c in det]
    gar = [area(c) for c in gt]
    for i, j in zip(*np.nonzero(out > 0), strict=True):
        inter = intersection(det[i], gt[j])
        union = dar[i] if crowd[j] else dar[i] + gar[j] - inter
        out[i, j] = 0.0 if inter == 0 else inter / union
    return out


# --- compressed strings (maskApi.c rleToString / rleFrString) ---------------------------------


def to_string(counts: npt.ArrayLike) -> str:
    """COCO's compressed RLE string: 5 bits per char (ASCII 48..111), deltas from two back."""
    c = np.asarray(counts, dtype=np.int64)
    x = c.copy()
    x[3:] -= c[1:-2]
    out: list[str] = []
    for v in x.tolist():
        more = True
        while more:
            ch = v & 0x1F
            v >>= 5
            more = (v != -1) if (ch & 0x10) else (v != 0)
            if more:
                ch |= 0x20
            out.append(chr(ch + 48))
    return "".join(out)


def from_string(s: str | bytes) -> Counts:
    """RLE counts of a compressed string (inverse of ``to_string``); vectorised."""
    raw = s.encode("ascii") if isinstance(s, str) else bytes(s)
    ch = np.frombuffer(raw, dtype=np.uint8).astype(np.int64) - 48
    if ch.size == 0:
        return np.zeros(0, dtype=np.int64)
    last = (ch & 0x20) == 0  # a value ends at each char without the continuation bit
    ends = np.flatnonzero(last)
    if len(ends) == 0 or ends[-1] != len(ch) - 1:
        raise ValueError("truncated compressed RLE string")
    starts = np.concatenate(([0], ends[:-1] + 1))
    group = np.repeat(np.arange(len(ends)), ends - starts + 1)
    k = np.arange(len(ch)) - starts[group]
    vals = np.zeros(len(ends), dtype=np.int64)
    np.add.at(vals, group, (ch & 0x1F) << (5 * k))
    nchars = ends - starts + 1
    neg = (ch[ends] & 0x10) != 0
    vals = np.where(neg, vals - (np.int64(1) << (5 * nchars)), vals)
    out = vals.copy()
    if len(out) > 3:  # counts[m] = x[m] + counts[m - 2] for m > 2
        odd = out[1::2].copy()
        odd[1:] = np.cumsum(vals[3::2]) + vals[1]
        out[1::2] = odd
        if len(out) > 4:
            out[4::2] = np.cumsum(vals[4::2]) + vals[2]
    return out


# --- polygons (maskApi.c rleFrPoly) -----------------------------------------------------------


def _trunc_int(x: npt.NDArray[np.float64]) -> Counts:
    """C's ``(int)`` cast: truncation toward zero."""
    return np.trunc(x).astype(np.int64)


def polygon_to_rle(xy: npt.ArrayLike, h: int, w: int) -> Counts:
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


def bbox_to_rle(box: npt.ArrayLike, h: int, w: int) -> Counts:
    """RLE of an ``x, y, w, h`` box, rasterised as the polygon of its corners (``rleFrBbox``)."""
    bx, by, bw, bh = (float(v) for v in np.asarray(box, dtype=np.float64).reshape(4))
    xe, ye = bx + bw, by + bh
    return polygon_to_rle([bx, by, bx, ye, xe, ye, xe, by], h, w)


def polygons_to_rle(polygons: Sequence[Sequence[float]], h: int, w: int) -> Counts:
    """One object's polygons merged into one RLE, as ``COCO.annToRLE`` does.

    As ``frPyObjects`` does, a list whose first entry has exactly 4 numbers is read as
    ``x, y, w, h`` boxes instead of polygons."""
    if len(polygons) and len(polygons[0]) == 4:
        parts = [bbox_to_rle(p, h, w) for p in polygons]
    else:
        parts = [polygon_to_rle(p, h, w) for p in polygons]
    return merge(parts, h, w)
