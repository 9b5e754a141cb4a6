"""Many COCO RLE masks at once, as columns: decode, encode, areas, boxes, pairwise intersections.

``N`` masks are held as ``counts`` int64 (C,), all masks' runs concatenated, and ``offsets``
int64 (N + 1,), mask ``i`` being ``counts[offsets[i]:offsets[i + 1]]`` (the layout of
``families.coco.columns.RleTable``); the RLE convention is ``core.masks``'. Every function is one vectorised
pass over all masks and gives, mask by mask, exactly what the single-mask function of
``core.masks`` (and pycocotools' ``maskApi.c``) gives; on the compiled kernel
``vocviewer.kernel._rle`` where it is built (``from_strings``, ``to_strings``, ``areas``,
``bboxes``, ``take``), the numpy code being the fallback.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from vocviewer import kernel

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

_CHUNK = 1 << 19  # interval endpoints evaluated per pass of ``intersections``
_BLOCK = 1 << 20  # runs (or chars) per block: temporaries of a few MB, reused


def positions(offsets: IntArray) -> IntArray:
    """Each run's index within its mask, int64 (C,)."""
    lens = np.diff(offsets)
    return np.arange(int(offsets[-1]), dtype=np.int64) - np.repeat(offsets[:-1], lens)


def _segmented_cumsum(values: IntArray, first: npt.NDArray[np.bool_]) -> IntArray:
    """Cumulative sums of ``values`` restarting at every ``first`` element."""
    cs = np.cumsum(values)
    if len(values) == 0:
        return cs
    start = np.maximum.accumulate(np.where(first, np.arange(len(values)), 0))
    return np.asarray(cs - (cs - values)[start], dtype=np.int64)


def from_strings(strings: Sequence[str | bytes]) -> tuple[IntArray, IntArray]:
    """Decode compressed RLE strings (``rleFrString``) all at once: ``(counts, offsets)``.

    ``ValueError`` (naming the string's position) if a string ends inside a value, holds a value
    of over 12 characters (60 bits; ``rleFrString`` would overflow) or is not ASCII;
    ``TypeError`` for an entry that is neither ``str`` nor bytes-like. Works in blocks of about a
    million characters, which keeps the temporaries in reused memory."""
    k = kernel.load("_rle")
    if k is not None and type(strings) is list and (out := k.from_strings(strings)) is not None:
        return out  # type: ignore[no-any-return]
    n = len(strings)
    try:
        raw = "".join(strings).encode("ascii")  # type: ignore[arg-type]
    except TypeError:  # bytes among them (anything else fails here too)
        raw = b"".join(
            s.encode("ascii") if isinstance(s, str) else memoryview(s).tobytes() for s in strings
        )
    nch = np.fromiter(map(len, strings), dtype=np.int64, count=n)
    pos = np.concatenate(([0], np.cumsum(nch)))
    counts = np.empty(len(raw), dtype=np.int64)  # at most one value per char; pages untouched
    offsets = np.empty(n + 1, dtype=np.int64)
    offsets[0] = 0
    v0 = 0
    for i0, i1 in _blocks(pos):
        try:
            c, o = _decode_block(raw[pos[i0] : pos[i1]], nch[i0:i1])
        except ValueError as e:
            raise ValueError(f"{e} (string {i0 + int(str(e.args[1]))})") from None
        counts[v0 : v0 + len(c)] = c
        offsets[i0 + 1 : i1 + 1] = o[1:] + v0
        v0 += len(c)
    return counts[:v0], offsets


def _blocks(offsets: IntArray, size: int = _BLOCK) -> list[tuple[int, int]]:
    """Consecutive ranges ``[i0, i1)`` of masks whose runs (``offsets``) add up to about
    ``size`` (at least one mask each)."""
    n = len(offsets) - 1
    out: list[tuple[int, int]] = []
    i0 = 0
    while i0 < n:
        i1 = int(np.searchsorted(offsets, offsets[i0] + size, side="right")) - 1
        i1 = min(max(i1, i0 + 1), n)
        out.append((i0, i1))
        i0 = i1
    return out


def _decode_block(raw: bytes, nch: IntArray) -> tuple[IntArray, IntArray]:
    """``from_strings`` of the concatenated ``raw`` strings of ``nch`` chars each;
    ``ValueError(message, index)`` for a truncated one."""
    c = np.frombuffer(raw, dtype=np.uint8) - np.uint8(48)
    cont = (c & 0x20) != 0  # the value goes on in the next char
    str_end = np.cumsum(nch)
    ends_ok = ~cont[str_end[nch > 0] - 1]
    if not ends_ok.all():
        bad = int(np.flatnonzero(nch > 0)[np.argmin(ends_ok)])
        raise ValueError("truncated compressed RLE string", bad)
    ic = np.flatnonzero(cont)
    # values per string: its chars minus its continuation chars
    offsets = np.concatenate(([0], str_end - np.searchsorted(ic, str_end))).astype(np.int64)
    top = c[~cont] & np.uint8(0x1F)  # the last (highest, sign-carrying) 5 bits of every value
    nv = len(top)
    buf = np.empty(nv + nv % 2, dtype=np.int64)  # even length: two interleaved classes
    buf[:nv] = (top ^ np.uint8(0x10)).view(np.int8) - np.int8(0x10)
    del top
    if len(ic):  # multi-char values: add the lower chars, shift the last one up
        j = np.arange(len(ic), dtype=np.int64)
        new = np.concatenate(([True], ic[1:] != ic[:-1] + 1))
        first = np.flatnonzero(new)
        k = j - np.maximum.accumulate(np.where(new, j, 0))
        low = np.add.reduceat((c[ic] & 0x1F).astype(np.int64) << (5 * k), first)
        nlow = np.diff(np.append(first, len(ic)))
        if nlow.max() > 11:  # over 12 chars, 60 bits: no run of a valid mask is that long
            v = int(ic[first[np.argmax(nlow)]])
            raise ValueError("a value of over 60 bits", int(np.searchsorted(str_end, v, "right")))
        vi = ic[first] - first  # value index: chars before it minus continuation chars
        buf[vi] = low + (buf[vi] << (5 * nlow))
    return _undelta(buf, nv, offsets), offsets


def _undelta(buf: IntArray, n: int, offsets: IntArray) -> IntArray:
    """``counts[m] = x[m] + counts[m - 2]`` for ``m > 2`` within every mask, in place in ``buf``
    (``x`` its first ``n`` values; even length); returns ``buf[:n]``.

    A mask's runs of one parity share a global parity, so both classes are cumulated at once
    (as two columns); a class's sum restarts at ``m = 0``, ``1``, ``2`` (``counts[m] = x[m]``)
    by taking the class's sum since the previous restart from ``x`` there."""
    if n == 0:
        return buf[:0]
    lens = np.diff(offsets)
    r = np.concatenate([offsets[:-1][lens > i] + i for i in range(3)])
    r.sort()
    for par in (0, 1):
        idx = r[r % 2 == par] // 2
        col = buf[par::2]
        if len(idx) > 1:  # every run has a restart of its class at or before it
            seg = np.add.reduceat(col, idx)[:-1]
            col[idx[1:]] -= seg
    cols = buf.reshape(-1, 2)
    np.cumsum(cols, axis=0, out=cols)
    return buf[:n]


def to_strings(counts: IntArray, offsets: IntArray) -> list[str]:
    """Compressed RLE strings (``rleToString``) of every mask; inverse of ``from_strings``."""
    if (kern := kernel.load("_rle")) is not None:
        return kern.to_strings(counts, offsets)  # type: ignore[no-any-return]
    c = np.asarray(counts, dtype=np.int64)
    m = positions(offsets)
    x = c.copy()
    back = np.flatnonzero(m > 2)
    x[back] -= c[back - 2]
    # chars per value: 5 bits each until the rest is 0 (or -1 with the sign bit set)
    nchar = np.ones(len(x), dtype=np.int64)
    v = x.copy()
    while True:
        ch = v & 0x1F
        v >>= 5
        more = np.where((ch & 0x10) != 0, v != -1, v != 0)
        if not more.any():  # a finished value stays at 0 (or -1), which asks for no more
            break
        nchar += more
    owner = np.repeat(np.arange(len(x)), nchar)
    k = np.arange(int(nchar.sum()), dtype=np.int64) - np.repeat(np.cumsum(nchar) - nchar, nchar)
    chars = (x[owner] >> (5 * k)) & 0x1F
    cont = k < nchar[owner] - 1
    chars = (chars | np.where(cont, 0x20, 0)) + 48
    text = chars.astype(np.uint8).tobytes().decode("ascii")
    cut = np.concatenate(([0], np.cumsum(nchar)))[np.asarray(offsets)].tolist()
    return [text[a:b] for a, b in itertools.pairwise(cut)]


def areas(counts: IntArray, offsets: IntArray) -> IntArray:
    """Foreground pixels per mask (``rleArea``), int64 (N,)."""
    if (kern := kernel.load("_rle")) is not None:
        return kern.areas(counts, offsets)  # type: ignore[no-any-return]
    parts = [
        _areas(counts[offsets[a] : offsets[b]], offsets[a : b + 1] - offsets[a])
        for a, b in _blocks(offsets)
    ]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def _areas(counts: IntArray, offsets: IntArray) -> IntArray:
    # a mask's odd runs are the runs of one global parity: prefix sums of each parity suffice
    even = np.concatenate(([0], np.cumsum(counts[0::2])))  # runs 0, 2, ... before (i + 1) // 2
    odd = np.concatenate(([0], np.cumsum(counts[1::2])))  # runs 1, 3, ... before i // 2
    a, b = offsets[:-1], offsets[1:]
    odd_is_odd = a % 2 == 0
    from_odd = odd[b // 2] - odd[a // 2]
    from_even = even[(b + 1) // 2] - even[(a + 1) // 2]
    return np.asarray(np.where(odd_is_odd, from_odd, from_even), dtype=np.int64)


def bboxes(counts: IntArray, offsets: IntArray, height: IntArray, width: IntArray) -> FloatArray:
    """``rleToBbox`` of every mask of ``height x width`` pixels: float64 (N, 4) ``x, y, w, h``
    (see ``core.masks.to_bbox``: fewer than two runs give zeros, empty foreground runs are
    skipped and none of a pixel gives maskApi's ``empty_box``, a run that wraps a column spans
    the full height)."""
    if (kern := kernel.load("_rle")) is not None:
        return kern.bboxes(counts, offsets, height, width)  # type: ignore[no-any-return]
    h = np.asarray(height, dtype=np.int64)
    w = np.asarray(width, dtype=np.int64)
    parts = [
        _bboxes(counts[offsets[a] : offsets[b]], offsets[a : b + 1] - offsets[a], h[a:b], w[a:b])
        for a, b in _blocks(offsets)
    ]
    return np.concatenate(parts) if parts else np.zeros((0, 4), dtype=np.float64)


def _bboxes(counts: IntArray, offsets: IntArray, h: IntArray, w: IntArray) -> FloatArray:
    # rleToBbox visits the first and the last pixel of every foreground run of a pixel or more
    n = len(offsets) - 1
    out = np.zeros((n, 4), dtype=np.float64)
    start, end, fg_off = foreground_runs(counts, offsets)
    nonempty = end > start
    runs = np.diff(fg_off)
    nf = np.bincount(np.repeat(np.arange(n), runs)[nonempty], minlength=n)
    none = (runs > 0) & (nf == 0)
    out[none] = np.column_stack((w, h, (1 - w) % 2**32, (1 - h) % 2**32))[none]
    ok = (nf > 0) & (h > 0)  # (h <= 0 with a pixel: maskApi divides by zero; zeros here)
    keep = nonempty & np.repeat(ok, runs)
    start, end = start[keep], end[keep] - 1
    nf = np.where(ok, nf, 0)
    if not ok.any():
        return out
    first = np.concatenate(([0], np.cumsum(nf)))[:-1][ok]
    hh = np.repeat(h, nf)
    x0, x1 = start // hh, end // hh
    y0, y1 = start - x0 * hh, end - x1 * hh
    xs = np.minimum.reduceat(x0, first)
    xe = np.maximum.reduceat(x1, first)
    ys = np.minimum.reduceat(y0, first)
    ye = np.maximum.reduceat(y1, first)
    wrap = np.maximum.reduceat(x0 < x1, first)
    ys = np.where(wrap, 0, ys)
    ye = np.where(wrap, h[ok] - 1, ye)
    out[ok] = np.column_stack((xs, ys, xe - xs + 1, ye - ys + 1))
    return out


def foreground_runs(counts: IntArray, offsets: IntArray) -> tuple[IntArray, IntArray, IntArray]:
    """Every mask's foreground runs as flat-index ``[start, end)``: int64 (R,) each, and their
    ``offsets`` per mask, int64 (N + 1,)."""
    c = np.asarray(counts, dtype=np.int64)
    lens = np.diff(offsets)
    nf = lens // 2
    fg_off = np.concatenate(([0], np.cumsum(nf))).astype(np.int64)
    if fg_off[-1] == 0:
        z = np.zeros(0, dtype=np.int64)
        return z, z.copy(), fg_off
    g = np.cumsum(c)
    base = np.where(offsets[:-1] > 0, g[np.maximum(offsets[:-1] - 1, 0)], 0)
    idx = np.repeat(offsets[:-1] + 1 - 2 * fg_off[:-1], nf)
    idx += 2 * np.arange(int(fg_off[-1]), dtype=np.int64)
    end = g[idx]
    end -= np.repeat(base, nf)
    start = end - c[idx]
    return start, end, fg_off


class Intervals:
    """Foreground runs of ``N`` masks as half-open flat-index intervals ``[start, end)``.

    ``start``, ``end`` int64 (R,) in mask order, mask ``i``'s being ``offsets[i]:offsets[i+1]``;
    ``before`` int64 (R,) foreground pixels of the same mask before each interval; ``key``
    ``mask * stride + end`` increasing, to search a mask's intervals in one global array."""

    def __init__(self, counts: IntArray, offsets: IntArray) -> None:
        self.start, self.end, self.offsets = foreground_runs(counts, offsets)
        nf = np.diff(self.offsets)
        if len(self.start) == 0:
            self.start = self.end = self.before = self.key = np.zeros(1, dtype=np.int64)
            self.stride, self.total = 1, np.zeros(len(nf), dtype=np.int64)
            return
        owner = np.repeat(np.arange(len(nf), dtype=np.int64), nf)
        length = self.end - self.start
        cl = np.cumsum(length)
        lo = self.offsets[:-1]
        self.before = cl - length
        self.before -= np.repeat(np.where(lo > 0, cl[np.maximum(lo - 1, 0)], 0), nf)
        self.stride = int(max(self.end.max(initial=0), 0)) + 1
        self.key = owner * self.stride + self.end
        self.total = np.where(nf > 0, cl[np.maximum(self.offsets[1:] - 1, 0)], 0)
        self.total -= np.where(lo > 0, cl[np.maximum(lo - 1, 0)], 0)
        self.total[nf == 0] = 0

    def covered(self, mask: IntArray, x: IntArray) -> IntArray:
        """Foreground pixels of mask ``mask[i]`` in ``[0, x[i])``, int64."""
        k = np.searchsorted(self.key, mask * self.stride + x, side="right")
        inside = k < self.offsets[mask + 1]
        kk = np.where(inside, k, 0)
        part = self.before[kk] + np.clip(x - self.start[kk], 0, None)
        return np.where(inside, part, self.total[mask])


def intersections(a: Intervals, b: Intervals, ia: IntArray, ib: IntArray) -> IntArray:
    """Pixels set in both mask ``ia[e]`` of ``a`` and mask ``ib[e]`` of ``b``: int64 (E,).

    The masks of a pair must have the same size. Each pair walks the intervals of the mask with
    fewer of them that lie within the other's first to last pixel, in passes of bounded size."""
    ia = np.asarray(ia, dtype=np.int64)
    ib = np.asarray(ib, dtype=np.int64)
    out = np.zeros(len(ia), dtype=np.int64)
    na, nb = np.diff(a.offsets)[ia], np.diff(b.offsets)[ib]
    a_walks = na < nb
    for walk, ref, iw, ir, sel in ((a, b, ia, ib, a_walks), (b, a, ib, ia, ~a_walks)):
        e = np.flatnonzero(sel & (na > 0) & (nb > 0))
        if len(e) == 0:
            continue
        w, r = iw[e], ir[e]
        lo_ref = ref.start[ref.offsets[r]]
        hi_ref = ref.end[ref.offsets[r + 1] - 1]
        # the walking mask's intervals that end after the other's first pixel and start before
        # its last one
        lo = np.searchsorted(walk.key, w * walk.stride + lo_ref, side="right")
        hi = np.searchsorted(walk.key, w * walk.stride + hi_ref, side="left") + 1
        hi = np.minimum(hi, walk.offsets[w + 1])
        cnt = np.maximum(hi - lo, 0)
        bounds = np.concatenate(([0], np.cumsum(cnt)))
        i0 = 0
        while i0 < len(e):
            i1 = max(int(np.searchsorted(bounds, bounds[i0] + _CHUNK, side="right")) - 1, i0 + 1)
            c = cnt[i0:i1]
            pair = np.repeat(np.arange(i0, i1), c)
            j = lo[pair] + np.arange(len(pair)) - (bounds[pair] - bounds[i0])
            mask = r[pair]
            inside = ref.covered(mask, walk.end[j]) - ref.covered(mask, walk.start[j])
            out[e[i0:i1]] = np.bincount(pair - i0, weights=inside, minlength=i1 - i0)
            i0 = i1
    return out


def take(
    counts: IntArray,
    offsets: IntArray,
    rows: IntArray,
    second: tuple[IntArray, IntArray] | None = None,
) -> tuple[IntArray, IntArray]:
    """Masks ``rows`` (any order, repeats allowed) as new ``(counts, offsets)``: on the compiled
    kernel where it is built. ``second``: another table's ``(counts, offsets)``, whose mask
    ``j`` is row ``N + j`` (``N`` the first table's masks; both read where they are)."""
    rows = np.asarray(rows, dtype=np.int64)
    if (k := kernel.load("_rle")) is not None:
        return k.take(counts, offsets, rows, *(second or ()))  # type: ignore[no-any-return]
    if second is not None:
        counts = np.concatenate((counts, second[0])).astype(np.int64, copy=False)
        offsets = np.concatenate((offsets, second[1][1:] + offsets[-1])).astype(np.int64)
    lens = offsets[rows + 1] - offsets[rows]
    new_off = np.concatenate(([0], np.cumsum(lens))).astype(np.int64)
    out = np.empty(int(new_off[-1]), dtype=np.int64)
    src = np.asarray(counts)
    for a, b in _blocks(new_off):  # index arrays of a block at a time
        lo, hi = int(new_off[a]), int(new_off[b])
        idx = np.arange(lo, hi, dtype=np.int64)
        idx += np.repeat(offsets[rows[a:b]] - new_off[a:b], lens[a:b])
        out[lo:hi] = src[idx]
    return out, new_off
