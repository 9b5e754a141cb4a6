"""The one background-worker pattern: a ``QRunnable`` that runs a function or drives a generator.

Names follow superqt's ``thread_worker`` so a later switch is trivial. Workers get their inputs as
arguments (immutable snapshots: ``Dataset``, ``ResultSet``, paths) and hand results back through
signals, which Qt delivers on the GUI thread; no locks, no shared mutable state.

``Jobs`` adds "latest wins": one worker per key, each tagged with a generation number; starting a
new job under a key quits the old one, and anything the old one still reports is dropped.
"""

from __future__ import annotations

import inspect
import sys
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

#: How soon a thread waiting for the interpreter lock gets it from one running Python (s; Python's
#: default is 5 ms): the GUI thread paints in many short Python calls, each of which would
#: otherwise wait up to 5 ms behind a busy worker.
SWITCH_INTERVAL_S = 0.001
#: Workers between ``start()`` and ``finished``; keeps them (and their signals) referenced.
_RUNNING: set[Worker] = set()


class WorkerSignals(QObject):
    """Signals of one ``Worker`` (emitted from the pool thread, delivered on the GUI thread).

    Signals
    -------
    started()
        The function began running.
    yielded(object)
        The generator yielded a value (one emission per ``yield``, in order).
    returned(object)
        The function returned (for a generator: its ``return`` value). Not emitted after ``quit()``.
    errored(object)
        The function raised; the payload is the exception.
    finished()
        Always emitted last, after ``returned`` or ``errored`` or an abort.
    """

    started = Signal()
    yielded = Signal(object)
    returned = Signal(object)
    errored = Signal(object)
    finished = Signal()


class Worker(QRunnable):
    """Run ``func(*args, **kwargs)`` on ``QThreadPool.globalInstance()``.

    If ``func`` returns a generator, it is iterated and every value is emitted as ``yielded``;
    ``quit()`` sets a flag checked between yields (the generator is then closed).
    """

    def __init__(self, func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.signals = WorkerSignals()
        self._call = partial(func, *args, **kwargs)
        self._quit = threading.Event()
        self.signals.finished.connect(self._release)

    @property
    def abort_requested(self) -> bool:
        return self._quit.is_set()

    def start(self) -> None:
        """Queue the worker on the global thread pool."""
        if sys.getswitchinterval() > SWITCH_INTERVAL_S:
            sys.setswitchinterval(SWITCH_INTERVAL_S)
        _RUNNING.add(self)
        QThreadPool.globalInstance().start(self)

    def quit(self) -> None:
        """Ask the worker to stop at the next yield; what it still emits should be ignored."""
        self._quit.set()

    def run(self) -> None:  # pool thread
        sig = self.signals
        sig.started.emit()
        try:
            out = self._call()
            if inspect.isgenerator(out):
                out = self._drive(out)
            if not self._quit.is_set():
                sig.returned.emit(out)
        except Exception as exc:  # reported, never raised into Qt
            sig.errored.emit(exc)
        finally:
            sig.finished.emit()

    def _drive(self, gen: Any) -> Any:
        try:
            while not self._quit.is_set():
                try:
                    value = next(gen)
                except StopIteration as stop:
                    return stop.value
                if self._quit.is_set():
                    break
                self.signals.yielded.emit(value)
        finally:
            gen.close()
        return None

    def _release(self) -> None:  # GUI thread (the signals object lives there)
        _RUNNING.discard(self)


def running_workers() -> int:
    """Number of workers started and not yet finished (for tests and shutdown)."""
    return len(_RUNNING)


class Jobs(QObject):
    """Latest-wins bookkeeping over ``Worker``: one job per key, tagged with a generation.

    ``start(key, worker, on_yielded=..., on_returned=..., on_errored=...)`` quits the job already
    running under ``key``; callbacks run on the GUI thread and only while their job is current.

    Signals
    -------
    running_changed(int)
        Number of current jobs changed (0 = idle).
    """

    running_changed = Signal(int)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._generation = 0
        self._current: dict[str, tuple[int, Worker]] = {}

    def start(
        self,
        key: str,
        worker: Worker,
        *,
        on_yielded: Callable[[Any], None] | None = None,
        on_returned: Callable[[Any], None] | None = None,
        on_errored: Callable[[BaseException], None] | None = None,
    ) -> int:
        """Start ``worker`` as the current job for ``key``; return its generation id."""
        self.cancel(key, notify=False)
        self._generation += 1
        gen = self._generation
        self._current[key] = (gen, worker)
        sig = worker.signals
        if on_yielded is not None:
            sig.yielded.connect(partial(self._deliver, key, gen, on_yielded))
        if on_returned is not None:
            sig.returned.connect(partial(self._deliver, key, gen, on_returned))
        if on_errored is not None:
            sig.errored.connect(partial(self._deliver, key, gen, on_errored))
        sig.finished.connect(partial(self._on_finished, key, gen))
        worker.start()
        self.running_changed.emit(len(self._current))
        return gen

    def is_current(self, key: str, generation: int) -> bool:
        entry = self._current.get(key)
        return entry is not None and entry[0] == generation

    def cancel(self, key: str, *, notify: bool = True) -> None:
        """Quit the job under ``key`` (if any); its later signals are dropped."""
        entry = self._current.pop(key, None)
        if entry is not None:
            entry[1].quit()
            if notify:
                self.running_changed.emit(len(self._current))

    def cancel_matching(self, prefix: str) -> None:
        """Quit every job whose key starts with ``prefix``."""
        for key in [k for k in self._current if k.startswith(prefix)]:
            self.cancel(key)

    def cancel_all(self) -> None:
        self.cancel_matching("")

    def running_keys(self) -> list[str]:
        """Keys of the current (running) jobs."""
        return list(self._current)

    def _deliver(self, key: str, gen: int, callback: Callable[[Any], None], value: Any) -> None:
        if self.is_current(key, gen):
            callback(value)

    def _on_finished(self, key: str, gen: int) -> None:
        if self.is_current(key, gen):
            del self._current[key]
            self.running_changed.emit(len(self._current))
