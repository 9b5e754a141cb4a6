"""A results file's ``RleTable`` kept as its compressed RLE strings, decoded when read.

A segm results file of 200,000 masks holds about 35 million runs: 280 MB as int64, five times
its strings. ``RleStrings`` keeps the strings (``rleFrString``'s characters, unescaped, one
byte each), checked and measured once (``string_masks``: whole, runs summing to ``h * w``, their
``rleToBbox`` and area); mask evaluation decodes one category's detections at a time
(``take``), the window one mask at a time (``table[i]``), and anything that reads ``counts``
decodes every mask once. Either gives the runs ``rle_columns.from_strings`` gives. Built only on
the compiled kernel (``_rle.c``); decoding falls back to numpy when the kernel is then off. The
strings may also be left where the results file's text holds them (``raw``: read in place
from the file mapped into memory, nothing copied; each string up to its closing quote, an
escaped backslash one character).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer import kernel
from vocviewer.core import rle_columns as rc
from vocviewer.core.arrays import frozen, sealed
from vocviewer.families.coco.columns import RleTable

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
_LOCK = threading.Lock()  # one table decoded at a time (threads share the result set)
#: Runs decoded at a time for the mask IoU (``transient``): 8 MB of int64, in one buffer per
#: thread, reused (fresh memory for every category would cost a page fault every 4 kB).
CHUNK_RUNS = 1 << 20
_SCRATCH = threading.local()


class RleStrings(RleTable):
    """``RleTable`` of ``N`` masks held as strings: ``chars`` uint8 (S,) every mask's string,
    concatenated; ``start`` int64 (N + 1,) mask ``i``'s is ``chars[start[i]:start[i + 1]]``;
    ``offsets`` int64 (N + 1,) as ``RleTable``'s (the run counts are known before decoding);
    ``height``, ``width`` int64 (N,); ``box`` float64 (N, 4) each mask's ``rleToBbox``, ``area``
    int64 (N,) its pixels; ``raw``: the strings as JSON text (mask ``i``'s string runs from
    ``start[i]`` to its closing quote, before ``start[i + 1]``; ``\\\\`` an escaped
    backslash)."""

    chars: npt.NDArray[np.uint8]
    start: IntArray
    box: FloatArray
    area: IntArray
    raw: bool
    _counts: IntArray | None

    def __init__(
        self,
        chars: npt.NDArray[np.uint8],
        start: IntArray,
        offsets: IntArray,
        height: IntArray,
        width: IntArray,
        box: FloatArray,
        area: IntArray,
        raw: bool = False,
    ) -> None:
        put = object.__setattr__
        if isinstance(chars, np.ndarray) and chars.dtype == np.uint8 and chars.ndim == 1:
            put(self, "chars", sealed(chars))  # tens of MB: taken over, read-only in place
        else:
            put(self, "chars", frozen(chars, np.uint8))
        put(self, "start", frozen(start, np.int64))
        put(self, "offsets", frozen(offsets, np.int64))
        put(self, "height", frozen(height, np.int64))
        put(self, "width", frozen(width, np.int64))
        put(self, "box", frozen(box, np.float64))
        put(self, "area", frozen(area, np.int64))
        put(self, "raw", bool(raw))
        put(self, "_counts", None)

    @classmethod
    def checked(
        cls,
        chars: npt.NDArray[np.uint8],
        nchars: IntArray,
        nruns: IntArray,
        height: IntArray,
        width: IntArray,
        at: IntArray | None = None,
    ) -> RleStrings | None:
        """The table of the strings (``nchars`` characters and ``nruns`` values each) if every
        one decodes whole into runs (none negative) that sum to its ``height * width``, else
        ``None`` (as ``results_bulk.checked_masks`` of the decoded runs); ``None`` too without
        the kernel. ``at``: the strings left in the JSON text ``chars`` (``raw``), each
        string's first character there (rising; ``nchars`` as written there, escapes too)."""
        k = kernel.load("_rle")
        if k is None:
            return None
        raw = at is not None
        if at is not None:  # from the first string on; the last one's closing quote included
            first = int(at[0]) if len(at) else 0
            end = int(at[-1] + nchars[-1]) + 1 if len(at) else 0
            if end > len(chars):
                return None
            chars = chars[first:end]
            start = np.concatenate((at - first, [end - first])).astype(np.int64)
        else:
            start = np.concatenate(([0], np.cumsum(nchars))).astype(np.int64)
        offsets = np.concatenate(([0], np.cumsum(nruns))).astype(np.int64)
        got = k.string_masks(chars, start, offsets, height, width, raw)
        if got is None:
            return None
        box, area = got
        made = (sealed(start), sealed(offsets), height, width, sealed(box), sealed(area))
        return cls(chars, *made, raw)  # (made here: taken over, not copied)

    @property
    def counts(self) -> IntArray:
        """Every mask's runs, decoded on the first read (then kept)."""
        counts = self._counts
        if counts is None:
            with _LOCK:
                counts = self._counts
                if counts is None:
                    counts = frozen(self._decode(np.arange(len(self)))[0], np.int64)
                    object.__setattr__(self, "_counts", counts)
        return counts

    @property
    def decoded(self) -> bool:
        """Whether every mask has been decoded (``counts`` read)."""
        return self._counts is not None

    def _decode(self, rows: IntArray) -> tuple[IntArray, IntArray]:
        """``(counts, offsets)`` of ``rows`` (int64), decoded."""
        rows = np.asarray(rows, dtype=np.int64)
        k = kernel.load("_rle")
        if k is not None:
            got = k.decode_strings(self.chars, self.start, self.offsets, rows, None, self.raw)
            if got is not None:
                return got  # type: ignore[no-any-return]
        return rc.from_strings(self.strings(rows))

    def strings(self, rows: IntArray) -> list[bytes]:
        """The strings of ``rows`` as ``rleFrString`` reads them (a raw one unescaped)."""
        text, st = self.chars.tobytes(), self.start
        got = [text[st[r] : st[r + 1]] for r in np.asarray(rows, dtype=np.int64).tolist()]
        if self.raw:  # up to the closing quote; \\ (the only escape kept raw) one backslash
            got = [s.split(b'"', 1)[0].replace(b"\\\\", b"\\") for s in got]
        return got

    def __getitem__(self, i: int) -> IntArray:
        if self._counts is not None:
            return self._counts[self.offsets[i] : self.offsets[i + 1]]
        return frozen(self._decode(np.array([int(i)]))[0], np.int64)

    def take(self, rows: npt.ArrayLike) -> RleTable:
        """The masks of ``rows``, in that order (decoded here unless already)."""
        rows = np.asarray(rows, dtype=np.int64)
        if self._counts is not None:
            return super().take(rows)
        counts, offsets = self._decode(rows)
        return RleTable(counts, offsets, self.height[rows], self.width[rows])

    def transient(self, rows: IntArray) -> RleTable:
        """``take(rows)`` decoded into this thread's reused buffer where its runs fit in
        ``CHUNK_RUNS``: valid until the thread's next ``transient`` (for a computation that
        keeps none of it)."""
        rows = np.asarray(rows, dtype=np.int64)
        k = kernel.load("_rle")
        if self._counts is not None or k is None:
            return self.take(rows)
        buf = getattr(_SCRATCH, "buf", None)
        if buf is None:
            buf = _SCRATCH.buf = np.empty(CHUNK_RUNS, dtype=np.int64)
        got = k.decode_strings(self.chars, self.start, self.offsets, rows, buf, self.raw)
        if got is None:
            return self.take(rows)
        return RleTable(got[0], got[1], self.height[rows], self.width[rows])

    def pair_chunks(self, rows: IntArray) -> list[tuple[int, int]]:
        """Consecutive ranges ``[a, b)`` of ``rows`` (the detection of each pair, a detection's
        pairs next to each other) whose masks hold about ``CHUNK_RUNS`` runs or fewer (a mask
        counted where its row changes), each range at least one pair."""
        n = len(rows)
        if n == 0:
            return []
        new = np.ones(n, dtype=bool)
        new[1:] = rows[1:] != rows[:-1]
        size = np.cumsum(np.where(new, np.diff(self.offsets)[rows], 0))
        out, a = [], 0
        while a < n:
            base = int(size[a - 1]) if a else 0
            b = int(np.searchsorted(size, base + CHUNK_RUNS, side="right"))
            b = min(max(b, a + 1), n)
            out.append((a, b))
            a = b
        return out

    def bboxes(self) -> FloatArray:
        return self.box.copy()

    def mask_boxes(self) -> FloatArray:
        return self.box  # (read-only)

    def areas(self) -> IntArray:
        return self.area.copy()

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as strings (a fifth of the runs' bytes)."""
        cols = (self.chars, self.start, self.offsets, self.height, self.width)
        return (RleStrings, (*cols, self.box, self.area, self.raw))

    def __repr__(self) -> str:
        state = "decoded" if self._counts is not None else "strings"
        return f"RleStrings({len(self)} masks, {state})"
