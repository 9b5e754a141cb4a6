"""The application collects Python's cyclic garbage on the GUI thread, from its event loop:
automatic collection (which may run in a worker thread, or inside a Qt call, and free Qt objects
there) is off once the application is made."""

from __future__ import annotations

import gc
import os
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


def test_the_window_imports_run_uncollected_then_are_frozen() -> None:
    """``startup.begin`` (``vocviewer open`` before the window's imports) pauses automatic
    collection; ``make_app`` freezes what the imports made, so the event loop's first
    collection does not traverse them all (~30 ms on the GUI thread while the evaluation
    streams in)."""
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import gc\n"
        "from vocviewer.gui.startup import begin\n"
        "begin()\n"
        "from vocviewer.gui.window.app import make_app\n"
        "import vocviewer.gui.window.main_window\n"
        "young = gc.get_count()[0]\n"
        "print(gc.isenabled(), gc.get_freeze_count(), young > 10_000)\n"
        "make_app()\n"
        "print(gc.isenabled(), gc.get_freeze_count() >= young, gc.get_count()[0] < 1000)\n"
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=root
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "0", "True", "False", "True", "True"]


def test_the_cli_starts_the_window_with_the_collector_paused(monkeypatch) -> None:
    from vocviewer import cli
    from vocviewer.gui.window import app

    seen: list[bool] = []

    def run_gui(*_args: object, **_kw: object) -> int:
        seen.append(gc.isenabled())
        return 0

    monkeypatch.setattr(app, "run_gui", run_gui)
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    was = gc.isenabled()
    gc.enable()
    try:
        assert cli._run_gui(None, (), None, None) == 0
    finally:
        if was:
            gc.enable()
        else:
            gc.disable()
    assert seen == [False]
