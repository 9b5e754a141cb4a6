"""One helper process for work that would hold this interpreter's lock for long (no Qt here).

A worker thread that parses a 45 MB JSON file keeps the interpreter lock for seconds (the C
parser never lets go), and the window cannot repaint meanwhile. Such work runs in a helper
process instead (spawned on first use, then reused): ``in_process`` returns a function's result;
the calling worker thread only waits, without the lock. If no helper process can be started, the
work runs in the calling thread; if the helper dies while working (killed, out of memory), the work
is not tried again here, where the same input could take the window down: a
``ChildProcessError`` says so and the next call starts a new helper.

Sending a 500,000-detection result set over to be evaluated here was tried and measured worse
(a longer stall than the evaluation's own). ``prefetch`` avoids the sending: when the window opens
from the command line, the dataset, its results and their evaluation start here while the window
is still being built, each job keeping (``hold``) what the next one needs, so only answers cross
(a 500,000-detection result set pickles in ~25 ms). A job can also ``send`` items one by one while
it runs (``take_stream`` yields them as they come): the evaluation arrives class by class, and
the window's own work on each (the false-positive diagnosis) overlaps the next. It pays where a
core is free; on a machine loaded by others it only moves work around.

Where the compiled JSON kernel is built (``needed`` is False), none of this is used: the kernel
reads JSON without the lock, so the window reads and evaluates in threads of its own process
(``open_ahead``), with no process to start and nothing to pickle.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import queue
import threading
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

_POOL: ProcessPoolExecutor | None = None
_LOCK = threading.Lock()  # guards _POOL
_UNAVAILABLE = (OSError, BrokenProcessPool, RuntimeError)
_PREFETCHED: dict[Hashable, Future[Any]] = {}  # guarded by _LOCK (main process)
_HELD: dict[Hashable, Any] = {}  # in the helper process: what one prefetched job left the next
#: What jobs ``send`` and ``take_stream`` reads: ``(key, item)``, ``(key, END)`` last.
_STREAM: Any = None
END = "<end of stream>"


def _pool() -> ProcessPoolExecutor:
    global _POOL, _STREAM
    with _LOCK:
        if _POOL is None:
            ctx = multiprocessing.get_context("spawn")
            _STREAM = ctx.Queue()
            _POOL = ProcessPoolExecutor(1, ctx, initializer=_attach, initargs=(_STREAM,))
        return _POOL


def _attach(stream: Any) -> None:  # the helper process, at its start
    global _STREAM
    _STREAM = stream
    stream.cancel_join_thread()  # items nobody reads never keep the helper from exiting


def _forget_pool() -> None:
    """The helper died (killed, out of memory): the next call starts a new one."""
    global _POOL
    with _LOCK:
        _POOL = None


def _submit(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Future[Any]:
    """Submit to the helper; one that died since (found broken) is replaced once."""
    try:
        return _pool().submit(fn, *args, **kwargs)
    except BrokenProcessPool:
        _forget_pool()
        return _pool().submit(fn, *args, **kwargs)


def in_process(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` (picklable) run in the helper process; its exceptions come back as
    they are. Runs here if no helper can be started; ``ChildProcessError`` if it died."""
    try:
        future = _submit(fn, *args, **kwargs)
    except _UNAVAILABLE:
        return fn(*args, **kwargs)
    try:
        return future.result()
    except BrokenProcessPool:
        _forget_pool()
        what = f"{args[0]}: " if args else ""
        raise ChildProcessError(
            f"{what}the helper process reading it stopped (out of memory, or killed)"
        ) from None


def prefetch(key: Hashable, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """Start ``fn(*args, **kwargs)`` in the helper process now (jobs run in submission order);
    ``take(key)`` gets its answer later. Nothing happens if no helper can be started."""
    try:
        future = _submit(fn, *args, **kwargs)
    except _UNAVAILABLE:
        return
    with _LOCK:
        _PREFETCHED[key] = future


def take(key: Hashable) -> Any:
    """The answer of the job prefetched under ``key`` (waiting for it, without the interpreter
    lock), or ``None`` if there is none or it failed (the caller then does the work itself).
    Each answer is taken once."""
    with _LOCK:
        future = _PREFETCHED.pop(key, None)
    if future is None:
        return None
    try:
        return future.result()
    except BrokenProcessPool:
        _forget_pool()
        return None
    except Exception:  # the caller's own attempt reports the error properly
        return None


def send(key: Hashable, item: Any) -> None:
    """In the helper process: hand ``item`` (picklable; send ``END`` last) to ``take_stream(key)``."""
    if _STREAM is not None:
        _STREAM.put((key, item))


def take_stream(key: Hashable) -> Iterator[Any] | None:
    """The items the job prefetched under ``key`` sends, as they come (waiting without the
    interpreter lock), ``None`` if there is no such job. The iteration stops early (without an
    error) if the job failed or the helper died: the caller tells by what it got."""
    with _LOCK:
        future, stream = _PREFETCHED.pop(key, None), _STREAM
    if future is None or stream is None:
        return None
    return _stream_items(key, future, stream)


def _stream_items(key: Hashable, future: Future[Any], stream: Any) -> Iterator[Any]:
    idle_after_done = 0
    while True:
        try:
            got, item = stream.get(timeout=0.05)
        except queue.Empty:
            if future.done():
                idle_after_done += 1  # the job returned: its items are all under way
                if future.cancelled() or future.exception() is not None or idle_after_done > 40:
                    if not future.cancelled() and isinstance(future.exception(), BrokenProcessPool):
                        _forget_pool()
                    return
            continue
        except (OSError, EOFError, ValueError):  # the queue broke with the helper
            return
        if got != key:  # left by an abandoned job
            continue
        if isinstance(item, str) and item == END:
            return
        yield item


def prefetched() -> int:
    """How many prefetched jobs are not taken yet."""
    with _LOCK:
        return len(_PREFETCHED)


def forget_prefetched() -> None:
    """Drop every answer not yet taken (a new dataset is being opened)."""
    with _LOCK:
        for future in _PREFETCHED.values():
            future.cancel()
        _PREFETCHED.clear()


def hold(key: Hashable, value: Any) -> None:
    """In the helper process: keep ``value`` for a later job (``held``); forgets older ones."""
    _HELD.clear()
    _HELD[key] = value


def held(key: Hashable) -> Any:
    """In the helper process: what ``hold(key, ...)`` kept (``None`` if nothing), forgotten."""
    return _HELD.pop(key, None)


def needed() -> bool:
    """Whether long JSON parses need the helper: the compiled JSON kernel, which reads JSON
    with the interpreter lock released, is not built here (or the kernels are turned off)."""
    from vocviewer.kernel import load

    return load("_json") is None


def warm_up_process() -> None:
    """Start the helper process now (its imports take a moment), without waiting for it; only
    where it is ``needed``."""
    if needed():
        with contextlib.suppress(*_UNAVAILABLE):
            _pool().submit(int)
