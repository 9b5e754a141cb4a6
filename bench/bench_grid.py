"""Benchmark: the thumbnail grid (View ▸ Thumbnail grid) on a 20,000-image COCO-sized set.

The set is ``bench_gui_open.make_open_set``: a ``bench_coco.make_workload`` ground truth
(20,000 images, ~147,000 objects) with ``--dets`` box detections, and real 640×480 noisy JPEGs
(the worst case for decoding; eight distinct files hard-linked under every name) in a temp
folder. Each run is a fresh process: the real window (offscreen, 1400×900) opens the set and its
results as ``vocviewer open`` does, waits for the evaluation, switches to the grid, then scrolls
it programmatically from a 60 Hz ``QTimer``, as a wheel or a held PgDown would:

1. **wheel**: ``--wheel-steps`` steps of one wheel notch (three scrollbar single steps);
2. **pages**: the whole list top to bottom, one viewport height per step.

A step is the scrollbar ``setValue`` plus a forced synchronous ``viewport().repaint()`` (the GUI
thread's whole cost of showing the new position), timed per step; decoding runs meanwhile in
the worker, whose deliveries land between steps. A 5 ms ``QTimer`` heartbeat records every
event-loop stall (the longest gap between beats, minus 5 ms) and the most GUI-thread CPU time
spent between two beats (the loop's own share: on a loaded machine the rest of a gap is waiting
for a CPU). Memory: the process's resident set (VmRSS) after opening and after the full scroll,
the cache's bytes and entries.

Targets (issue 13): median scroll step < 16 ms, no event-loop stall > 100 ms, memory bounded
(the thumbnail cache holds at most its budget, 64 MB by default).

Usage: ``python bench/bench_grid.py [--runs 3] [--images 20000] [--dets 200000]
[--wheel-steps 600] [--keep DIR]``
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.child_runs import min_median, run_json_child  # noqa: E402

HEARTBEAT_MS = 5
STEP_MS = 16  # one step per frame at 60 Hz


def rss_mb() -> float:
    """Resident set size of this process (MB), from /proc (0 where there is none)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class Scroller:
    """Scrolls ``grid`` by ``step`` pixels ``count`` times, one step per ``STEP_MS`` timer tick,
    timing each step (wall and GUI-thread CPU, ms), with a ``HEARTBEAT_MS`` heartbeat running."""

    def __init__(self, grid: Any, step: int, count: int) -> None:
        from PySide6.QtCore import QElapsedTimer, QTimer

        self.grid, self.step, self.left = grid, step, count
        self.times: list[float] = []
        self.cpu: list[float] = []
        self.beats: list[tuple[float, float]] = []  # (wall, GUI-thread CPU) ms at each beat
        self.done = False
        self.clock = QElapsedTimer()
        self.clock.start()
        self.heart = QTimer()
        self.heart.setInterval(HEARTBEAT_MS)
        self.ticker = QTimer()
        self.ticker.setInterval(STEP_MS)
        self.heart.timeout.connect(self.beat)
        self.ticker.timeout.connect(self.one_step)
        self.heart.start()
        self.ticker.start()

    def one_step(self) -> None:
        bar = self.grid.verticalScrollBar()
        t, c = time.perf_counter(), time.thread_time()
        bar.setValue(bar.value() + self.step)
        self.grid.viewport().repaint()
        self.times.append((time.perf_counter() - t) * 1000)
        self.cpu.append((time.thread_time() - c) * 1000)
        self.left -= 1
        if self.left <= 0 or bar.value() >= bar.maximum():
            self.ticker.stop()
            self.done = True

    def beat(self) -> None:
        self.beats.append((self.clock.nsecsElapsed() / 1e6, time.thread_time() * 1000))

    def stall(self) -> tuple[float, float]:
        """The longest gap between heartbeats beyond the heartbeat's period (ms), from the first
        step until now (the heartbeat stops), and the most GUI-thread CPU time spent between two
        beats (the event loop's own share of a stall; the rest is waiting for a CPU or the
        interpreter lock)."""
        self.heart.stop()
        pairs = list(itertools.pairwise(self.beats))
        wall = max((b[0] - a[0] for a, b in pairs), default=0.0) - HEARTBEAT_MS
        return wall, max((b[1] - a[1] for a, b in pairs), default=0.0)


def child(ann: Path, res: Path, wheel_steps: int) -> dict[str, Any]:
    """One run in this process: open, evaluate, show the grid, scroll; the measurements."""
    from PySide6.QtWidgets import QApplication

    from bench.gui_probes import bench_window
    from bench.gui_probes import wait_until as wait_for

    app, win = bench_window(ann.parent)
    st = win.state

    def wait_until(done: Callable[[], bool], timeout: float = 600.0) -> None:
        wait_for(app, done, timeout)

    t0 = time.perf_counter()
    win.open_dataset(ann, (res,))
    wait_until(lambda: st.dataset is not None and bool(st.results) and st.is_idle())
    opened_s = time.perf_counter() - t0
    grid = win.image_area.grid
    t0 = time.perf_counter()
    win.image_area.show_grid(True)  # lays out 20,000 cells and paints the first screen
    grid.viewport().repaint()
    populate_ms = (time.perf_counter() - t0) * 1000
    rows = grid.model_.rows
    wait_until(lambda: all(grid.loader.has(int(rows[r])) for r in grid.visible_rows()))
    first_screen_ms = (time.perf_counter() - t0) * 1000
    rss_open = rss_mb()

    bar = grid.verticalScrollBar()
    phases = {"wheel": 3 * bar.singleStep(), "pages": grid.viewport().height()}
    times: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    stalls: dict[str, float] = {}
    busy: dict[str, float] = {}
    for name, step in phases.items():
        bar.setValue(0)
        wait_until(lambda: not grid.loader.busy())
        count = wheel_steps if name == "wheel" else bar.maximum() // step + 1
        scroller = Scroller(grid, step, count)
        wait_until(lambda s=scroller: s.done)
        wait_until(lambda: not grid.loader.busy())  # the last screen's thumbnails arrive
        times[name], cpu[name] = scroller.times, scroller.cpu
        stalls[name], busy[name] = scroller.stall()
    out = {
        "open_s": opened_s,
        "populate_ms": populate_ms,
        "first_screen_ms": first_screen_ms,
        "images": len(st.dataset.images) if st.dataset is not None else 0,
        "dets": len(st.results[0].results.detections),
        "visible": len(st.visible_images),
        "cells": len(grid.visible_rows()),
        "steps": {k: len(v) for k, v in times.items()},
        "median_ms": {k: statistics.median(v) for k, v in times.items()},
        "p95_ms": {k: sorted(v)[int(0.95 * (len(v) - 1))] for k, v in times.items()},
        "max_ms": {k: max(v) for k, v in times.items()},
        "cpu_median_ms": {k: statistics.median(v) for k, v in cpu.items()},
        "cpu_max_ms": {k: max(v) for k, v in cpu.items()},
        "load": os.getloadavg()[0],
        "stall_ms": stalls,
        "busy_ms": busy,
        "rss_open_mb": rss_open,
        "rss_after_mb": rss_mb(),
        "cache_mb": grid.loader.cache.nbytes / 2**20,
        "cache_items": len(grid.loader.cache),
        "budget_mb": grid.loader.cache.max_bytes / 2**20,
        "decoded": grid.loader.decoded,
    }
    win.close()
    QApplication.processEvents()
    return out


def run_child(ann: Path, res: Path, wheel_steps: int) -> dict[str, Any]:
    return run_json_child(__file__, [str(ann), str(res), str(wheel_steps)], ann.parent)


def report(runs: list[dict[str, Any]]) -> None:
    mm = min_median
    r0 = runs[0]
    print(
        f"set: {r0['images']:,} images, {r0['dets']:,} detections; grid shows "
        f"{r0['visible']:,} images, {r0['cells']} cells on screen; opened and evaluated in "
        f"{mm([r['open_s'] for r in runs])} s (min / median of {len(runs)} runs)"
    )
    print(
        f"grid shown ({r0['visible']:,} cells laid out, first screen painted): "
        f"{mm([r['populate_ms'] for r in runs])} ms; its thumbnails all decoded: "
        f"{mm([r['first_screen_ms'] for r in runs], '{:.0f}')} ms"
    )
    print(f"\n{'(ms, min / median of runs)':<34}{'wheel notches':>18}{'page steps':>18}")
    print(f"{'steps per run':<34}{r0['steps']['wheel']:>18}{r0['steps']['pages']:>18}")
    for key, label in (
        ("median_ms", "median scroll step"),
        ("p95_ms", "95th percentile step"),
        ("max_ms", "longest step"),
        ("cpu_median_ms", "median step, GUI-thread CPU time"),
        ("cpu_max_ms", "longest step, GUI-thread CPU time"),
        ("stall_ms", "longest event-loop stall"),
        ("busy_ms", "GUI-thread CPU between beats, max"),
    ):
        cells = [mm([r[key][phase] for r in runs]) for phase in ("wheel", "pages")]
        print(f"{label:<34}{cells[0]:>18}{cells[1]:>18}")
    print(
        f"\nmemory (MB): resident after opening {mm([r['rss_open_mb'] for r in runs], '{:.0f}')}, "
        f"after the full scroll {mm([r['rss_after_mb'] for r in runs], '{:.0f}')}; "
        f"thumbnail cache {mm([r['cache_mb'] for r in runs])} of {r0['budget_mb']:.0f} "
        f"({r0['cache_items']} thumbnails); {r0['decoded']} decoded in the run"
    )
    loads = ", ".join(f"{r['load']:.1f}" for r in runs)
    print(f"load average (1 min) at the end of each run: {loads} on {os.cpu_count()} CPUs")
    worst_median = max(max(r["median_ms"].values()) for r in runs)
    worst_stall = max(max(r["stall_ms"].values()) for r in runs)
    print(
        f"targets: median step < 16 ms: {'met' if worst_median < 16 else 'MISSED'} "
        f"(worst {worst_median:.1f}); no stall > 100 ms: "
        f"{'met' if worst_stall <= 100 else 'MISSED'} (worst {worst_stall:.0f})"
    )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        ann, res, steps = Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4])
        print(json.dumps(child(ann, res, steps)))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--images", type=int, default=20_000)
    parser.add_argument("--dets", type=int, default=200_000)
    parser.add_argument("--wheel-steps", type=int, default=600)
    parser.add_argument("--keep", type=Path, help="write the set here (kept) instead of a temp dir")
    args = parser.parse_args()
    from bench.bench_gui_open import make_open_set

    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        ann = folder / "annotations" / "instances_val2017.json"
        res = folder / "detections_val2017_results.json"
        t = time.perf_counter()
        if not (ann.exists() and res.exists()):
            folder.mkdir(parents=True, exist_ok=True)
            make_open_set(folder, args.images, args.dets)
        print(f"set written in {time.perf_counter() - t:.1f} s under {folder}")
        runs = [run_child(ann, res, args.wheel_steps) for _ in range(args.runs)]
    report(runs)


if __name__ == "__main__":
    main()
