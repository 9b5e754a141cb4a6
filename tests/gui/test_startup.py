"""The start-up probe: the window says when its first frame and its first image are painted
(``VOCVIEWER_STARTUP_PROBE``, ``bench/bench_startup.py``), and heavy modules wait until
they are needed."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from PySide6.QtCore import QThreadPool

from vocviewer.gui.window.app import FirstFrame, configure_pyqtgraph
from vocviewer.gui.window.main_window import MainWindow

ROOT = Path(__file__).resolve().parents[2]


def test_first_frame_then_first_image_are_reported_once(qtbot, demo):
    configure_pyqtgraph()
    window = MainWindow()
    qtbot.addWidget(window)
    seen: list[str] = []
    FirstFrame(window, seen.append)
    assert seen == []
    window.show()
    qtbot.waitUntil(lambda: seen == ["window"], timeout=10_000)
    window.open_dataset(demo.year_dir, (demo.results_dir,), "val")
    qtbot.waitUntil(lambda: seen == ["window", "image"], timeout=30_000)
    window.update()
    window.state.set_current_image(1)  # later frames and images say nothing
    qtbot.waitUntil(lambda: window.view.shown_image == 1, timeout=10_000)
    qtbot.wait(100)
    assert seen == ["window", "image"]
    window.view.shutdown()
    window.state.shutdown()
    QThreadPool.globalInstance().waitForDone(10_000)


def test_the_cli_prints_the_probe(demo, tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    env["VOCVIEWER_STARTUP_PROBE"] = repr(time.time())
    proc = subprocess.Popen(
        [sys.executable, "-m", "vocviewer", "open", str(demo.year_dir)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    lines = []
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            if "image shown" in line:
                break
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stderr.close()
    probe = re.compile(
        r"^vocviewer: startup probe: (\w+) shown after ([0-9.]+) s \(CPU [0-9.]+ s\)"
    )
    found = [probe.match(ln) for ln in lines]
    assert [m.group(1) for m in found if m] == ["window", "image"], lines
    window, image = (float(m.group(2)) for m in found if m)
    assert 0 < window <= image < 60


def test_the_window_module_leaves_readers_and_svg_for_later():
    """What ``vocviewer.gui.window.app`` no longer imports up front (measured: ~60 ms of CPU)."""
    code = "import sys, vocviewer.gui.window.app; print('\\n'.join(sys.modules))"
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    loaded = set(run.stdout.split())
    assert "vocviewer.gui.window.main_window" in loaded
    for lazy in (
        "vocviewer.families.voc.benchmark",
        "vocviewer.evaluation.figure_svg",
        "urllib.request",
    ):
        assert lazy not in loaded, lazy
