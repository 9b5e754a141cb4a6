"""Coalesce bursts of refresh requests into one call.

Evaluation reports one class at a time, often faster than a view can redraw; a view that
refreshes on each arrival stalls the event loop. ``Debounced.request()`` schedules the callback
once, ``delay_ms`` after the first request of a burst; ``flush()`` runs a pending call now.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer


class Debounced(QObject):
    """Runs ``callback`` at most once per ``delay_ms`` burst of ``request()`` calls."""

    def __init__(self, callback: Callable[[], object], delay_ms: int, parent: QObject) -> None:
        super().__init__(parent)
        self._callback = callback
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(delay_ms)
        self._timer.timeout.connect(self._run)

    def request(self, *_args: object) -> None:
        """Schedule the callback (no-op if one is already pending)."""
        if not self._timer.isActive():
            self._timer.start()

    def flush(self, *_args: object) -> None:
        """Run a pending callback now."""
        if self._timer.isActive():
            self._timer.stop()
            self._run()

    def _run(self) -> None:
        self._callback()


#: How long views wait for more evaluation results before redrawing (ms).
REFRESH_DELAY_MS = 40
