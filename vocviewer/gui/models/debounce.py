"""Coalesce bursts of refresh requests into one call, and run due calls one per event-loop turn.

Evaluation reports one class at a time, often faster than a view can redraw; a view that
refreshes on each arrival stalls the event loop. ``Debounced.request()`` schedules the callback
once, ``delay_ms`` after the first request of a burst; ``flush()`` runs a pending call now.

The views' refreshes fall due together (they answer the same arrivals), and run back to back
they would be one long stall. So due callbacks queue, and the queue runs one callback per turn of
the event loop, letting input, painting and timers in between.

A callback that takes long waits longer before it runs again: a burst's delay is at least
``BUSY_FACTOR`` times the callback's last duration (at most ``MAX_DELAY_MS``), so redrawing a big
table while classes arrive keeps the GUI thread busy a fraction of the time, not all of it, and
the evaluation behind it is not slowed down. ``flush`` runs a pending call at once;
``flush_soon`` (the evaluation finished: every view answers) too, unless the flushes of that
event-loop turn already took ``FLUSH_BUDGET_MS``: it queues, one per turn (a fast
evaluation leaves every view's first full drawing to its end, and run back to back they would
be one long stall).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer
from shiboken6 import isValid


class _Turns(QObject):
    """The queue of due callbacks, one run per event-loop turn (a zero-delay timer)."""

    def __init__(self) -> None:
        super().__init__()
        self.queue: list[Debounced] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._next)
        self.flushed_ms = 0.0  # how long ``flush`` calls ran in this event-loop turn
        self._turn = QTimer(self)  # (fires at the next turn: the flushes' time starts again)
        self._turn.setSingleShot(True)
        self._turn.setInterval(0)
        self._turn.timeout.connect(self._new_turn)

    def spent(self, ms: float) -> None:
        """``flush`` ran a callback for ``ms`` in this event-loop turn."""
        self.flushed_ms += ms
        if not self._turn.isActive():
            self._turn.start()

    def _new_turn(self) -> None:
        self.flushed_ms = 0.0

    def add(self, job: Debounced) -> None:
        if job not in self.queue:
            self.queue.append(job)
        if not self._timer.isActive():
            self._timer.start()

    def take(self, job: Debounced) -> bool:
        """Remove ``job`` from the queue; whether it was there."""
        if job in self.queue:
            self.queue.remove(job)
            return True
        return False

    def _next(self) -> None:
        job = self.queue.pop(0) if self.queue else None
        if self.queue:
            self._timer.start()
        if job is not None and isValid(job):  # its view may have been closed meanwhile
            job.run_now()


_TURNS: _Turns | None = None


def _turns() -> _Turns:
    global _TURNS
    if _TURNS is None or not isValid(_TURNS):
        _TURNS = _Turns()
    return _TURNS


class Debounced(QObject):
    """Runs ``callback`` at most once per ``delay_ms`` burst of ``request()`` calls (in its own
    event-loop turn)."""

    def __init__(self, callback: Callable[[], object], delay_ms: int, parent: QObject) -> None:
        super().__init__(parent)
        self._callback = callback
        self._delay_ms = delay_ms
        self._took_ms = 0.0  # how long the callback ran last time
        self._ran = False  # (whether it ran: ``_took_ms`` is known)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(delay_ms)
        self._timer.timeout.connect(self._due)

    def request(self, *_args: object) -> None:
        """Schedule the callback (no-op if one is already pending)."""
        if not self._timer.isActive() and self not in _turns().queue:
            busy = min(MAX_DELAY_MS, int(BUSY_FACTOR * self._took_ms))
            self._timer.start(max(self._delay_ms, busy))

    def request_now(self, *_args: object) -> None:
        """Schedule the callback for the next free event-loop turn, without the burst's delay:
        for one change (a re-derived evidence), not a burst of arrivals."""
        self._timer.stop()
        _turns().add(self)

    def run_at_once(self, *_args: object) -> None:
        """Run the callback now, a pending run included (one change whose drawing goes into the
        same repaint as the other panes')."""
        self._timer.stop()
        _turns().take(self)
        self.run_now()

    def flush(self, *_args: object) -> None:
        """Run a pending callback now."""
        pending, queued = self._timer.isActive(), _turns().take(self)
        if pending or queued:
            self._timer.stop()
            self.run_now()
            _turns().spent(self._took_ms)

    def flush_soon(self, *_args: object) -> None:
        """``flush``, unless the flushes of this event-loop turn already took
        ``FLUSH_BUDGET_MS`` or would with this one (as long as it took last time; unknown
        before it first ran; the turn's first always runs): then it runs in the next free
        turn (every view answers ``finished``: one long stall otherwise)."""
        turns = _turns()
        spent, took = turns.flushed_ms, self._took_ms if self._ran else FLUSH_BUDGET_MS
        over = spent >= FLUSH_BUDGET_MS or (spent > 0 and spent + took > FLUSH_BUDGET_MS)
        if over and (self._timer.isActive() or self in turns.queue):
            self._timer.stop()
            turns.add(self)
            return
        self.flush()

    def _due(self) -> None:
        _turns().add(self)

    def run_now(self) -> None:
        start = time.perf_counter()
        try:
            self._callback()
        finally:
            self._took_ms, self._ran = 1e3 * (time.perf_counter() - start), True


#: How long views wait for more evaluation results before redrawing (ms).
REFRESH_DELAY_MS = 40
#: A burst waits at least this many times the callback's last duration (``Debounced.request``).
BUSY_FACTOR = 3.0
#: ... but never longer than this (ms).
MAX_DELAY_MS = 400
#: ``flush_soon`` calls of one event-loop turn run at once until the turn's flushes took this
#: long (ms); the rest queue, one per turn.
FLUSH_BUDGET_MS = 10
