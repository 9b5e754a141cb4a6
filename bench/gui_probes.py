"""What the window benchmarks measure the event loop with: ``StallProbe`` (a 10 ms timer's tick
gaps), ``StackSampler`` (what each thread ran during a gap), ``wait_until`` (process events until
a condition holds), ``quiet_qt`` and ``bench_window`` (the main window as a user opens it)."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QElapsedTimer, QTimer
from PySide6.QtWidgets import QApplication

#: A stack sample without vocviewer / pyqtgraph / json frames: Qt's C++ (painting, layout, the
#: event loop) or waiting for the GIL.
IDLE = "(Qt C++ or waiting for the GIL)"


class StallProbe:
    """A 10 ms ``QTimer`` whose tick gaps measure event-loop stalls: ``gaps`` holds
    ``(gap, previous tick, this tick)`` in ms since ``start()``."""

    def __init__(self) -> None:
        self.clock, self.timer = QElapsedTimer(), QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._tick)
        self.gaps: list[tuple[int, int, int]] = []
        self._last = 0

    def _tick(self) -> None:
        now = self.clock.elapsed()
        self.gaps.append((now - self._last, self._last, now))
        self._last = now

    def start(self) -> None:
        self.clock.start()
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def longest(self) -> int:
        """The longest gap (ms)."""
        return max((g[0] for g in self.gaps), default=0)


def wait_until(app: QApplication, cond, timeout: float = 120.0) -> None:
    t0 = time.perf_counter()
    while not cond():
        app.processEvents()
        if time.perf_counter() - t0 > timeout:
            raise TimeoutError("condition not met")
        time.sleep(0.0005)


class StackSampler:
    """Samples every thread's Python stack every ~5 ms (``sys._current_frames``), to name what ran
    during an event-loop stall: the GUI thread's own code, or a worker holding the GIL (then the
    sampler itself is starved and its first sample after the gap shows who just let go)."""

    KEEP = ("vocviewer", "pyqtgraph", "json")

    def __init__(self) -> None:
        self.samples: list[tuple[float, dict[str, str]]] = []
        self.main_id = threading.main_thread().ident
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _describe(self, frame: Any) -> str:
        names = []
        while frame is not None and len(names) < 3:
            code = frame.f_code
            if any(k in code.co_filename for k in self.KEEP) and code.co_name != "wrapper":
                names.append(f"{Path(code.co_filename).stem}.{code.co_name}")
            frame = frame.f_back
        return " < ".join(names) or IDLE

    def _run(self) -> None:
        me = threading.get_ident()
        while not self._stop.is_set():
            time.sleep(0.005)
            now = time.perf_counter()
            stacks = {}
            for ident, frame in sys._current_frames().items():
                if ident != me:
                    stacks["GUI" if ident == self.main_id else f"w{ident % 10000}"] = (
                        self._describe(frame)
                    )
            self.samples.append((now, stacks))

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def during(self, t0: float, t1: float) -> dict[str, list[tuple[str, int]]]:
        """Per thread, the most frequent stacks sampled in ``[t0, t1 + 10 ms]``."""
        counts: dict[str, dict[str, int]] = {}
        for t, stacks in self.samples:
            if t0 <= t <= t1 + 0.010:
                for who, desc in stacks.items():
                    if who == "GUI" or desc != IDLE:
                        per = counts.setdefault(who, {})
                        per[desc] = per.get(desc, 0) + 1
        return {who: sorted(per.items(), key=lambda kv: -kv[1])[:2] for who, per in counts.items()}


def quiet_qt() -> None:
    """Qt's messages to stderr, but the offscreen platform's ``propagateSizeHints`` noise."""
    from PySide6.QtCore import qInstallMessageHandler

    def handler(_mode: Any, _context: Any, message: str) -> None:
        if "propagateSizeHints" not in message:
            sys.stderr.write(message + "\n")

    qInstallMessageHandler(handler)


def bench_window(config_dir: Path) -> tuple[QApplication, Any]:
    """The application and its main window at 1400 x 900, shown, with its settings in
    ``config_dir/settings.ini`` (never the user's)."""
    from PySide6.QtCore import QSettings

    from vocviewer.gui.window.app import make_app
    from vocviewer.gui.window.main_window import MainWindow

    app = make_app()
    quiet_qt()
    settings = QSettings(str(config_dir / "settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(settings=settings)
    win.resize(1400, 900)
    win.show()
    return app, win
