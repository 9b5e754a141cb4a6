"""Memory a re-derive will fill, faulted in ahead while the window is idle.

A re-derive at an IoU threshold never shown before fills ~80 bytes of new per-rank evidence per
detection (verdicts, matches, the false-positive diagnosis: ~40 MB for 500,000 detections). Fresh
from the kernel, every 4 KB page of it costs a page fault (~10,000 faults, 20-30 ms of the
worker's ~60 ms). The window's process therefore keeps the memory it frees (``keep_freed``: on
glibc one allocation arena for every thread created after, blocks up to 32 MB from that heap and
up to ``_KEEP_BYTES`` of freed memory kept rather than handed back), and after every evaluation
(a job) or a pause after a re-derive (in the background) a worker touches and frees as much as
the next re-derive will need (``wanted_bytes``, ``warm``; stopped when a re-derive starts), so
that the next one finds its pages mapped. Elsewhere (no glibc) both
are no-ops. Evidence is untouched: this only decides where numpy's buffers come from.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
import threading
from collections.abc import Callable

#: bytes of per-rank evidence a fresh threshold fills per detection, rounded up
BYTES_PER_DETECTION = 96
#: after a re-derive, the pause before its memory is warmed in the background (ms)
WARM_DELAY_MS = 1000
#: at most this much is touched ahead (bytes)
_MAX_BYTES = 192 << 20
#: freed memory the heap keeps rather than handing back (bytes)
_KEEP_BYTES = 256 << 20
#: blocks up to this size come from the heap (bytes; glibc's largest)
_HEAP_BLOCK_MAX = 32 << 20
_CHUNK = 1 << 20
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8

_kept = False


def keep_freed() -> bool:
    """Let freed memory stay with the process, every thread created from now on sharing one
    allocation arena (so what one thread warms another re-uses); ``True`` where it took (glibc)."""
    global _kept, _mallinfo
    if _kept or not sys.platform.startswith("linux"):
        return _kept
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    info = getattr(libc, "mallinfo2", None)  # (glibc >= 2.33)
    if info is None:
        return False
    info.argtypes, info.restype = [], _MallInfo2
    _kept = all(
        mallopt(option, value) == 1
        for option, value in (
            (_M_ARENA_MAX, 1),
            (_M_MMAP_THRESHOLD, _HEAP_BLOCK_MAX),
            (_M_TRIM_THRESHOLD, _KEEP_BYTES),
        )
    )
    _mallinfo = info if _kept else None
    return _kept


def wanted_bytes(n_detections: int) -> int:
    """Bytes to warm ahead of a re-derive of ``n_detections`` detections: what a fresh threshold
    fills (at most ``_MAX_BYTES``), ``0`` where ``keep_freed`` did not take or the heap already
    holds most of it free."""
    if not _kept or _mallinfo is None or n_detections <= 0:
        return 0
    wanted = min(n_detections * BYTES_PER_DETECTION, _MAX_BYTES)
    return wanted if _mallinfo().fordblks < wanted * 3 // 4 else 0


def warm(nbytes: int, stop: threading.Event | None = None) -> None:
    """Allocate ``nbytes`` in 1 MB blocks, touch every page, free them: the heap keeps them
    mapped for the next allocations (the filling releases the GIL); ends early once ``stop`` is
    set (a re-derive starts: it needs the interpreter and the heap)."""
    import numpy as np  # (not at import: ``keep_freed`` runs before the window's imports)

    blocks = []
    for _ in range(nbytes // _CHUNK + 1):
        if stop is not None and stop.is_set():
            break
        block = np.empty(_CHUNK, np.uint8)
        block.fill(1)
        blocks.append(block)
    del blocks


class _MallInfo2(ctypes.Structure):
    """glibc's ``struct mallinfo2`` (bytes)."""

    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            [
                "arena",
                "ordblks",
                "smblks",
                "hblks",
                "hblkhd",
                "usmblks",
                "fsmblks",
                "uordblks",
                "fordblks",
                "keepcost",
            ]
        )
    ]


_mallinfo: Callable[[], _MallInfo2] | None = None
