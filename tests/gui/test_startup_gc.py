"""The application collects Python's cyclic garbage on the GUI thread, from its event loop:
automatic collection (which may run in a worker thread, or inside a Qt call, and free Qt objects
there) is off once the application is made."""

from __future__ import annotations

import gc
import weakref

from PySide6.QtCore import QObject


class _Cycle(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.me = self  # a reference cycle: only the cyclic collector frees it


def test_garbage_is_collected_from_the_event_loop(qtbot) -> None:
    from vocviewer.gui.window import app

    was_enabled, thresholds = gc.isenabled(), gc.get_threshold()
    try:
        app.make_app()
        assert not gc.isenabled() and app._collector is not None
        gc.set_threshold(1, 1, 1)  # the collector's own check uses these thresholds
        app._collector.threshold = gc.get_threshold()
        probe = weakref.ref(_Cycle())
        for _ in range(3):  # above the gen-0 threshold
            _Cycle()
        assert probe() is not None  # nothing collects it outside the event loop
        qtbot.waitUntil(lambda: probe() is None, timeout=3000)
    finally:
        gc.set_threshold(*thresholds)
        if was_enabled:
            gc.enable()
        if app._collector is not None:
            app._collector.timer.stop()
            app._collector = None
