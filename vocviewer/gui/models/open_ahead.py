"""Opening ahead in this process: a JSON dataset, its results and their evaluation, in a thread.

``vocviewer open GT.json --results R.json`` knows what the window will load before Qt is even
imported. ``start`` reads the dataset, then the results, then evaluates them at the family's
default choice, one after the other in a thread of this process, while the window is built;
``take_dataset``, ``take_results`` and ``take_evaluation`` hand each answer to the window's own
loading worker (which waits for it without the interpreter lock), once, where it is exactly what
that worker would compute (else ``None``: it does the work itself); once the evaluation is
sent, the window's index of the results is made here too if the window has not taken them yet
(``indexed``: it was still being built).

This is the path where the compiled JSON kernel is built (``helper_process.needed`` is False): it
scans the files and the matching kernels evaluate with the interpreter lock released, so the
thread stalls the window's event loop no more than a worker does, and nothing is pickled across
processes. The evaluation comes class by class (``queue.SimpleQueue``), undiagnosed, exactly as
the window's own evaluation makes them (so that the family can re-derive them at another
choice); the window diagnoses them once their numbers are shown. The results file is parsed
while the dataset is read where the family can (``parse_results_ahead``), as ``eval`` does.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet

#: The last item of an evaluation stream: every view and the summary came.
COMPLETE = "<complete>"
#: The last item of a stream that stopped on the way (an error): the taker evaluates the rest.
STOPPED = "<stopped>"
_LOCK = threading.Lock()  # guards _CURRENT
_CURRENT: _Ahead | None = None


class _Ahead:
    """One open's work: ``dataset`` and ``results`` futures, the evaluation's ``stream`` (items
    after the ``choice`` it was evaluated at, ``COMPLETE`` or ``STOPPED`` last), the ``index``
    of the results the window makes (``indexer``); ``taken`` names the answers handed out (each
    once)."""

    def __init__(
        self,
        path: Path,
        rkey: Hashable | None,
        read: Callable[..., Dataset],
        sources: dict[str, Any],
        indexer: Callable[[Dataset, ResultSet], Any] | None = None,
    ) -> None:
        self.dkey, self.rkey, self.sources = dataset_key(path, sources), rkey, sources
        self.indexer = indexer
        self.index: Future[Any] = Future()
        self.path, self.read = path, read
        self.dataset: Future[Dataset] = Future()
        self.results: Future[ResultSet] = Future()
        self.choice: Future[Any] = Future()
        self.stream: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.taken: set[str] = set()
        self.dropped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="vocviewer-open-ahead", daemon=True)

    def _run(self) -> None:
        from vocviewer.families.eval_sets import run_here
        from vocviewer.families.registry import benchmark_of

        offload = self._parse_ahead() or run_here
        try:
            ds = self.read(self.path, **self.sources)
        except BaseException as exc:  # the window's own attempt reports it
            self.dataset.set_exception(exc)
            return
        self.dataset.set_result(ds)
        if self.rkey is None or self.dropped.is_set():
            return
        bench = benchmark_of(ds)
        try:
            paths = [Path(p) for p in self.rkey[0]]  # type: ignore[index]
            res = bench.read_view_results(ds, paths, None, None, offload)
        except BaseException as exc:
            self.results.set_exception(exc)
            return
        self.results.set_result(res)
        try:
            choice = bench.view_settings(ds).default_choice()
        except BaseException as exc:  # the window's own evaluation reports it
            self.choice.set_exception(exc)
            return
        self.choice.set_result(choice)
        try:
            for item in bench.evaluate_views(ds, res, choice, diagnose=False):
                if self.dropped.is_set():
                    break
                self.stream.put(item)
            else:
                self.stream.put(COMPLETE)
                self._index(ds, res)
                return
        except Exception:  # the window evaluates the rest itself and reports the error
            pass
        self.stream.put(STOPPED)

    def _index(self, ds: Dataset, res: ResultSet) -> None:
        """The window's index of the results (``indexer``), made here once the evaluation is
        sent, if the window has not taken them yet (its window was still being built: the
        results' loading job then only takes it, ``indexed``)."""
        if self.indexer is None or "results" in self.taken or self.dropped.is_set():
            return
        try:
            self.index.set_result(self.indexer(ds, res))
        except BaseException as exc:  # (the window makes it again and reports)
            self.index.set_exception(exc)

    def _parse_ahead(self) -> Callable[..., Any] | None:
        """The results' parse that needs no dataset, started now by the family the dataset
        file sniffs as (``parse_results_ahead``), as ``eval`` parses them while it reads."""
        from vocviewer.families.registry import sniff

        if self.rkey is None:
            return None
        try:
            bench = sniff(self.path, {k: Path(v) for k, v in self.sources.items() if v})[1]
            paths = [Path(p) for p in self.rkey[0]]  # type: ignore[index]
            return None if bench is None else bench.parse_results_ahead(paths)
        except Exception:  # (the reads after it report what is wrong)
            return None


def dataset_key(path: str | Path, sources: dict[str, Any]) -> Hashable:
    """What tells one dataset open from another: its path and the given sources."""
    given = tuple(sorted((k, str(v)) for k, v in sources.items() if v is not None))
    return (str(Path(path)), given)


def start(
    path: str | Path,
    rkey: Hashable | None,
    read: Callable[..., Dataset],
    indexer: Callable[[Dataset, ResultSet], Any] | None = None,
    **sources: Any,
) -> None:
    """Read the dataset ``path`` with ``read(path, **sources)`` (as the window draws it) in a
    thread now, then (if ``rkey``, the results' key ``((paths...), None, None)``) its results,
    then their evaluation, then (if the window has not taken the results yet)
    ``indexer(dataset, results)``. Drops what an earlier ``start`` left untaken."""
    global _CURRENT
    forget()
    ahead = _Ahead(Path(path), rkey, read, dict(sources), indexer)
    with _LOCK:
        _CURRENT = ahead
    ahead.thread.start()


def forget() -> None:
    """Drop what is not taken yet (a new dataset is being opened); a running thread stops at
    its next class."""
    global _CURRENT
    with _LOCK:
        ahead, _CURRENT = _CURRENT, None
    if ahead is not None:
        ahead.dropped.set()


def pending() -> int:
    """How many answers (dataset, results, evaluation) are not taken yet."""
    with _LOCK:
        ahead = _CURRENT
    if ahead is None:
        return 0
    wanted = {"dataset"} | ({"results", "evaluation"} if ahead.rkey is not None else set())
    return len(wanted - ahead.taken)


def _claim(what: str, match: Any) -> _Ahead | None:
    """The current work if ``match(ahead)`` and its ``what`` is not taken yet (now it is)."""
    with _LOCK:
        ahead = _CURRENT
        if ahead is None or what in ahead.taken or not match(ahead):
            return None
        ahead.taken.add(what)
        return ahead


def take_dataset(path: str | Path, sources: dict[str, Any]) -> Dataset | None:
    """The dataset read ahead from ``path`` with ``sources`` (waiting for it), else ``None``
    (none, another, or its reading failed: the caller reads and reports)."""
    key = dataset_key(path, sources)
    ahead = _claim("dataset", lambda a: a.dkey == key)
    if ahead is None:
        return None
    try:
        return ahead.dataset.result()
    except BaseException:
        forget()
        return None


def take_results(dataset: Dataset, rkey: Hashable) -> ResultSet | None:
    """The results read ahead under ``rkey`` for exactly ``dataset`` (waiting), else ``None``."""
    ahead = _claim("results", lambda a: a.rkey == rkey and _is_result(a.dataset, dataset))
    if ahead is None:
        return None
    try:
        return ahead.results.result()
    except BaseException:
        forget()
        return None


def indexed(results: ResultSet) -> Any | None:
    """``indexer``'s answer for exactly ``results`` if it is made by now (never waits), else
    ``None``."""
    with _LOCK:
        ahead = _CURRENT
    if ahead is None or not _is_result(ahead.results, results) or not ahead.index.done():
        return None
    return None if ahead.index.exception() is not None else ahead.index.result()


def take_evaluation(results: ResultSet, choice: Any) -> Iterator[Any] | None:
    """The evaluation of exactly ``results`` at ``choice`` computed ahead, item by item as it
    comes (``COMPLETE`` or ``STOPPED`` last), else ``None`` (and the thread stops)."""
    ahead = _claim("evaluation", lambda a: _is_result(a.results, results))
    if ahead is None:
        return None
    if ahead.choice.exception() is not None or ahead.choice.result() != choice:
        forget()
        return None
    return _items(ahead.stream)


def _is_result(future: Future[Any], value: Any) -> bool:
    """Whether ``future`` finished with exactly ``value`` (not an equal copy)."""
    return future.done() and future.exception() is None and future.result() is value


def _items(stream: queue.SimpleQueue[Any]) -> Iterator[Any]:
    while True:
        item = stream.get()
        yield item
        if isinstance(item, str) and item in (COMPLETE, STOPPED):
            return
