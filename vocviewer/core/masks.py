"""COCO run-length encoded (RLE) masks, numpy only.

A mask of ``h x w`` pixels is read in **column-major** order (x outer, y inner: pixel ``(y, x)`` is
at flat index ``x * h + y``). Its RLE ``counts`` is an int64 vector of alternating run lengths that
starts with a run of **0s** (possibly of length 0), as ``maskApi.c`` stores it; the runs sum to
``h * w``. Functions reproduce the behaviour of pycocotools' mask API bit for bit (polygon
rasterising, compressed strings, bounding boxes of RLEs, IoU with crowd semantics). Where the
compiled kernel ``vocviewer.kernel._rle`` is built, the hot ones run there (same results); the
numpy code below is the fallback and the reference. Mask IoU (``rleIou``): ``core.mask_iou``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer import kernel

Counts = npt.NDArray[np.int64]
_SCALE = 5.0  # maskApi's polygon upsampling factor


def _kernel() -> Any:
    """The compiled RLE kernel, or ``None`` (numpy path)."""
    return kernel.load("_rle")


def encode(mask: npt.ArrayLike) -> Counts:
    """RLE counts of a binary mask ``(h, w)`` (any dtype; nonzero is foreground).

    Returns int64 ``(m,)``: runs of 0s and 1s alternating, starting with 0s, column-major."""
    m = np.asarray(mask)
    if m.ndim == 2 and (k := _kernel()) is not None:
        return k.encode(m != 0)  # type: ignore[no-any-return]
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
    if (k := _kernel()) is not None and (out := k.decode(c, h, w)) is not None:
        return out  # type: ignore[no-any-return]
    values = (np.arange(len(c)) % 2).astype(bool)
    flat = np.repeat(values, c)
    out = np.zeros(h * w, dtype=bool)
    out[: min(len(flat), h * w)] = flat[: h * w]
    return out.reshape(w, h).T


def area(counts: npt.ArrayLike) -> int:
    """Number of foreground pixels: the sum of the odd-position runs."""
    return int(np.asarray(counts, dtype=np.int64)[1::2].sum())


def to_bbox(counts: npt.ArrayLike, h: int, w: int) -> npt.NDArray[np.float64]:
    """Bounding box ``float64 (4,)`` as ``x, y, w, h`` in whole pixels of a mask of ``h x w``
    pixels, as pycocotools 2.0.11's ``rleToBbox`` computes it.

    Quirks kept: an odd last run is dropped and fewer than two runs give zeros; a foreground
    run of length zero is skipped, and without a foreground pixel the box is maskApi's
    unsigned start (``empty_box``); a foreground run that wraps into another column spans the
    full height."""
    c = np.asarray(counts, dtype=np.int64)
    m = (len(c) // 2) * 2
    if m == 0:
        return np.zeros(4, dtype=np.float64)
    ends = np.cumsum(c[:m])[1::2]
    length = c[1:m:2]
    run = length != 0
    if not run.any():
        return empty_box(h, w)
    if h <= 0:  # (maskApi divides by zero)
        return np.zeros(4, dtype=np.float64)
    first, last = (ends - length)[run], ends[run] - 1
    x0, x1 = first // h, last // h
    xs, xe = int(x0.min()), int(x1.max())
    if (x0 < x1).any():
        ys, ye = 0, h - 1
    else:
        ys, ye = int((first - x0 * h).min()), int((last - x1 * h).max())
    return np.array([xs, ys, xe - xs + 1, ye - ys + 1], dtype=np.float64)


def empty_box(h: int, w: int) -> npt.NDArray[np.float64]:
    """``rleToBbox`` of a mask of ``h x w`` pixels whose foreground runs are all empty: the
    box maskApi starts from, ``w, h, (1 - w) mod 2**32, (1 - h) mod 2**32`` (its sizes are
    unsigned 32-bit)."""
    return np.array([w, h, (1 - w) % 2**32, (1 - h) % 2**32], dtype=np.float64)


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
    if (k := _kernel()) is not None:
        runs = [np.asarray(r, dtype=np.int64).reshape(-1) for r in rles]
        offsets = np.cumsum([0] + [len(r) for r in runs], dtype=np.int64)
        out = k.merge(np.concatenate(runs), offsets, h, w, intersect)
        if out is not None:
            return out  # type: ignore[no-any-return]
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


# --- compressed strings (maskApi.c rleToString / rleFrString) ---------------------------------


def to_string(counts: npt.ArrayLike) -> str:
    """COCO's compressed RLE string: 5 bits per char (ASCII 48..111), deltas from two back."""
    c = np.asarray(counts, dtype=np.int64)
    if (k := _kernel()) is not None:
        return k.to_strings(c.reshape(-1), np.array([0, c.size], dtype=np.int64))[0]  # type: ignore[no-any-return]
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
    if (k := _kernel()) is not None and (out := k.from_strings([s])) is not None:
        return out[0]  # type: ignore[no-any-return]
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
    into RLE counts exactly as pycocotools' ``frPyObjects`` does (x5 upsampling, its rounding)."""
    return polygons_to_rle_batch([xy], h, w)[0]


_BATCH_PAIRS = 20_000  # candidate column crossings examined per vectorised pass


def polygons_to_rle_batch(
    polys: Sequence[npt.ArrayLike], h: npt.ArrayLike, w: npt.ArrayLike
) -> list[Counts]:
    """``polygon_to_rle`` of many polygons in one pass; ``h``, ``w`` are per polygon (or
    scalars). Returns the identical counts ``polygon_to_rle(polys[i], h[i], w[i])`` gives: on
    the kernel where it is built (the polygons it declines, non-finite or huge, here)."""
    k = _kernel()
    if k is None or len(polys) == 0:
        return _polygons_numpy(polys, h, w)
    n = len(polys)
    hh = np.broadcast_to(np.asarray(h, dtype=np.int64), (n,))
    ww = np.broadcast_to(np.asarray(w, dtype=np.int64), (n,))
    flat = [np.asarray(p, dtype=np.float64).reshape(-1) for p in polys]
    npts = np.array([len(f) // 2 for f in flat], dtype=np.int64)
    xy = np.concatenate([f[: 2 * m] for f, m in zip(flat, npts.tolist(), strict=True)])
    counts, offsets, declined = k.polygons(xy, npts, hh, ww)
    out: list[Counts] = np.split(counts, offsets[1:-1])
    if len(declined):
        rows = declined.tolist()
        redo = _polygons_numpy([flat[i] for i in rows], hh[declined], ww[declined])
        for i, c in zip(rows, redo, strict=True):
            out[i] = c
    return out


def _polygons_numpy(
    polys: Sequence[npt.ArrayLike], h: npt.ArrayLike, w: npt.ArrayLike
) -> list[Counts]:
    """``polygons_to_rle_batch`` in numpy, in one vectorised pass.

    Only candidate column crossings are evaluated (with ``polygon_to_rle``'s arithmetic): the
    joints between edges; on an x-major edge (``u = t + xs`` steps by 1) the steps from
    ``u = 5q + 2`` (the others' ``xd`` is not whole); on a y-major edge (``u`` monotone along it,
    steps of at most 1) the one step from ``u = 5q + 2`` to ``5q + 3``, found by bisection."""
    n = len(polys)
    hh = np.broadcast_to(np.asarray(h, dtype=np.int64), (n,))
    ww = np.broadcast_to(np.asarray(w, dtype=np.int64), (n,))
    if n == 0:
        return []
    flat = [np.asarray(p, dtype=np.float64).reshape(-1) for p in polys]
    k = np.array([len(f) // 2 for f in flat], dtype=np.int64)
    flat = [f[: 2 * kk] if len(f) % 2 else f for f, kk in zip(flat, k.tolist(), strict=True)]
    p = np.concatenate(flat)
    x = _trunc_int(_SCALE * p[0::2] + 0.5)
    y = _trunc_int(_SCALE * p[1::2] + 0.5)
    vstart = np.cumsum(k) - k
    pid = np.repeat(np.arange(n), k)
    nxt = np.arange(len(x)) + 1  # edge i joins vertex i to the next (the last one to the first)
    nxt[vstart[k > 0] + k[k > 0] - 1] = vstart[k > 0]
    xs0, xe0, ys0, ye0 = x, x[nxt], y, y[nxt]
    dx, dy = np.abs(xe0 - xs0), np.abs(ys0 - ye0)
    horiz = dx >= dy
    flip = (horiz & (xs0 > xe0)) | (~horiz & (ys0 > ye0))
    xs, xe = np.where(flip, xe0, xs0), np.where(flip, xs0, xe0)
    ys, ye = np.where(flip, ye0, ys0), np.where(flip, ys0, ye0)
    span = np.where(horiz, dx, dy)
    num = np.where(horiz, ye - ys, xe - xs).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(span > 0, num / np.where(span > 0, span, 1), 0.0)  # 0/0 point: never used

    def t_at(e: Counts, d: Counts) -> npt.NDArray[Any]:
        return np.where(flip[e], span[e] - d, d)

    def u_at(e: Counts, d: Counts) -> Counts:
        t = t_at(e, d)
        return np.where(horiz[e], t + xs[e], _trunc_int(xs[e] + s[e] * t + 0.5))

    def v_at(e: Counts, d: Counts) -> Counts:
        t = t_at(e, d)
        return np.where(horiz[e], _trunc_int(ys[e] + s[e] * t + 0.5), t + ys[e])

    ne = len(x)
    eidx = np.arange(ne)
    m0 = xs + (2 - xs) % 5  # first u = 5q + 2 on an x-major edge
    n_h = np.where(horiz & (span > 0), np.maximum((xe - 1 - m0) // 5 + 1, 0), 0)
    u_first, u_last = u_at(eidx, np.zeros(ne, np.int64)), u_at(eidx, span)
    rising = u_last > u_first
    ulo = np.minimum(u_first, u_last)
    m0v = ulo + (2 - ulo) % 5  # y-major: u = m -> m + 1 steps, m = 5q + 2 in [ulo, uhi - 1]
    n_v = np.where(~horiz, np.maximum((np.maximum(u_first, u_last) - 1 - m0v) // 5 + 1, 0), 0)
    joint = np.concatenate(([False], pid[1:] == pid[:-1]))  # edge has a predecessor
    cnt = n_h + n_v + joint
    # polygons in chunks of bounded work (a big polygon gets a chunk of its own)
    cum = np.cumsum(np.bincount(pid, weights=cnt, minlength=n) + 1)
    vend = vstart + k
    out: list[Counts] = []
    i0 = 0
    while i0 < n:
        base = cum[i0 - 1] if i0 else 0
        i1 = max(int(np.searchsorted(cum, base + _BATCH_PAIRS, side="right")), i0 + 1)
        sl = slice(int(vstart[i0]), int(vend[i1 - 1]))
        # x-major edges: the step from t = m - xs to m - xs + 1 (u = m, m + 1), m = 5q + 2
        eh = np.repeat(eidx[sl], n_h[sl])
        r = np.arange(len(eh)) - np.repeat(np.cumsum(n_h[sl]) - n_h[sl], n_h[sl])
        mh = m0[eh] + 5 * r
        th = mh - xs[eh]
        yh, sh = ys[eh], s[eh]
        vh = np.minimum(_trunc_int(yh + sh * th + 0.5), _trunc_int(yh + sh * (th + 1) + 0.5))
        # joints and moving y-major edges: pairs (e_prev, d_prev) -> (e_cur, d_cur)
        jn = eidx[sl][joint[sl]]
        # y-major edges: u is monotone in d and steps by at most 1, so u = m -> m + 1 happens
        # at one step d - 1 -> d: bisect for the first d with u(d) past m
        ev = np.repeat(eidx[sl], n_v[sl])
        mv = m0v[ev] + 5 * (np.arange(len(ev)) - np.repeat(np.cumsum(n_v[sl]) - n_v[sl], n_v[sl]))
        lo, hi = np.ones(len(ev), np.int64), span[ev].copy()
        while np.any(lo < hi):
            mid = (lo + hi) // 2
            uv = u_at(ev, mid)
            past = np.where(rising[ev], uv > mv, uv <= mv)
            hi, lo = np.where(past, mid, hi), np.where(past, lo, mid + 1)
        dv = lo
        e_prev = np.concatenate((jn - 1, ev))
        d_prev = np.concatenate((span[jn - 1], dv - 1))
        e_cur = np.concatenate((jn, ev))
        d_cur = np.concatenate((np.zeros(len(jn), np.int64), dv))
        uj, up = u_at(e_cur, d_cur), u_at(e_prev, d_prev)
        moved = uj != up
        e_prev, d_prev, e_cur, d_cur = e_prev[moved], d_prev[moved], e_cur[moved], d_cur[moved]
        uj, up = uj[moved], up[moved]
        vg = np.minimum(v_at(e_cur, d_cur), v_at(e_prev, d_prev))
        umin = np.concatenate((mh, np.where(uj < up, uj, uj - 1)))
        vmin = np.concatenate((vh, vg))
        g = pid[np.concatenate((eh, e_cur))]
        xd = (umin.astype(np.float64) + 0.5) / _SCALE - 0.5
        keep = (np.floor(xd) == xd) & (xd >= 0) & (xd <= ww[g] - 1)
        xd, g, vmin = xd[keep], g[keep], vmin[keep]
        yd = (vmin.astype(np.float64) + 0.5) / _SCALE - 0.5
        yd = np.ceil(np.clip(yd, 0, hh[g]))
        a = xd.astype(np.int64) * hh[g] + yd.astype(np.int64)
        sentinel = hh[i0:i1] * ww[i0:i1]
        out.extend(_runs_per_polygon([a, sentinel], [g - i0, np.arange(i1 - i0)], i1 - i0))
        i0 = i1
    return out


def _runs_per_polygon(parts_a: list[Counts], parts_g: list[Counts], n: int) -> list[Counts]:
    """``rleFrPoly``'s counts of polygons ``0 .. n - 1`` from their crossings (flat indices
    ``parts_a``, any order, with each one's polygon in ``parts_g``; the ``h * w`` sentinels
    included): sorted per polygon, differenced, empty runs merged. Frees the parts as it goes;
    the counts returned are views of one array."""
    a = np.concatenate(parts_a)
    parts_a.clear()
    g = np.concatenate(parts_g)
    parts_g.clear()
    size = np.bincount(g, minlength=n)
    start = np.cumsum(size) - size
    span_key = int(max(a.max(), 0)) + 1  # sort by (polygon, a): one int64 key when it fits
    if a.min() >= 0 and n * span_key < 2**62:
        g *= span_key
        g += a
        del a
        g.sort()
        a = np.remainder(g, span_key, out=g)
    else:
        a = a[np.lexsort((a, g))]
    del g
    first = a[start]
    diff = np.diff(a, prepend=0)
    del a
    diff[start] = first
    # rleFrPoly's empty-run merge, vectorised: in a run of L empty runs (after a polygon's first run) the
    # 1st, 3rd, ... each swallow the next run; for odd L that is the nonzero run after it,
    # which joins the last run kept before it
    zero = diff == 0
    zero[start] = False
    edges = np.diff(zero.astype(np.int8), prepend=0, append=0)
    run_lo, run_hi = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    swallowed = run_hi[((run_hi - run_lo) % 2 == 1) & (run_hi < len(diff))]
    is_start = np.zeros(len(diff), dtype=bool)
    is_start[start] = True
    swallowed = swallowed[~is_start[swallowed]]
    kept = ~zero
    kept[swallowed] = False
    pos = np.flatnonzero(kept)
    runs = diff[pos]
    np.add.at(runs, np.searchsorted(pos, swallowed) - 1, diff[swallowed])
    sizes = np.add.reduceat(kept.astype(np.int64), start)  # every polygon has its sentinel
    return np.split(runs, np.cumsum(sizes)[:-1])


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
