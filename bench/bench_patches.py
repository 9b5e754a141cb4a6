"""Benchmark: View ▸ Patches on 20,000 patches of a COCO-sized set.

The set is ``bench_gui_open.make_open_set`` (a ``bench_coco.make_workload`` ground truth with
``--dets`` box detections and real 640×480 noisy JPEGs, eight distinct files hard-linked under
every name). Each run is a fresh process: the real window (offscreen, 1400×900) opens the set and
its results, waits for the evaluation, sets the score threshold to 0 and shows every detection as
a patch (``--kind``), then scrolls the patches from a 60 Hz ``QTimer`` as ``bench_grid`` scrolls
the grid (``bench_grid.Scroller``: wheel notches, then pages), with a 5 ms heartbeat recording
the longest event-loop stall and the most GUI-thread CPU time between two beats.

Target (issue 25): 20,000 patches scroll without an event-loop stall > 100 ms.

Usage: ``python bench/bench_patches.py [--runs 3] [--images 4000] [--dets 20000]
[--kind detections] [--wheel-steps 300] [--keep DIR]``
"""

from __future__ import annotations

import argparse
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


def child(ann: Path, res: Path, kind: str, wheel_steps: int) -> dict[str, Any]:
    """One run in this process: open, evaluate, show the patches, scroll; the measurements."""
    from PySide6.QtWidgets import QApplication

    from bench.bench_grid import Scroller, rss_mb
    from bench.gui_probes import bench_window
    from bench.gui_probes import wait_until as wait_for
    from vocviewer.gui.panes.browse.cells import visible_rows

    app, win = bench_window(ann.parent)
    st = win.state

    def wait_until(done: Callable[[], bool], timeout: float = 600.0) -> None:
        wait_for(app, done, timeout)

    win.open_dataset(ann, (res,))
    wait_until(lambda: st.dataset is not None and bool(st.results) and st.is_idle())
    st.set_threshold(0.0)
    import gc

    pauses: list[float] = []
    began = [0.0]

    def timed(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[0] = time.perf_counter()
        elif info["generation"] == 2:
            pauses.append((time.perf_counter() - began[0]) * 1000)

    gc.callbacks.append(timed)
    pane = win.image_area.patches
    grid = pane.grid
    got: list[int] = []
    pane.computed.connect(got.append)
    t0 = time.perf_counter()
    win.image_area.show_patches(True)
    pane.set_selection(kind)
    wait_until(lambda: bool(got) and grid.model_.rowCount() == got[-1] and st.is_idle())
    grid.viewport().repaint()
    shown_ms = (time.perf_counter() - t0) * 1000
    wait_until(lambda: not grid.loader.busy())
    first_screen_ms = (time.perf_counter() - t0) * 1000
    bar = grid.verticalScrollBar()
    out: dict[str, Any] = {
        "patches": grid.model_.rowCount(),
        "cells": len(visible_rows(grid)),
        "shown_ms": shown_ms,
        "first_screen_ms": first_screen_ms,
    }
    for name, step in (("wheel", 3 * bar.singleStep()), ("pages", grid.viewport().height())):
        bar.setValue(0)
        wait_until(lambda: not grid.loader.busy())
        count = wheel_steps if name == "wheel" else bar.maximum() // step + 1
        scroller = Scroller(grid, step, count)
        wait_until(lambda s=scroller: s.done)
        wait_until(lambda: not grid.loader.busy())
        stall, busy = scroller.stall()
        out[name] = {
            "steps": len(scroller.times),
            "median_ms": statistics.median(scroller.times),
            "max_ms": max(scroller.times),
            "stall_ms": stall,
            "busy_ms": busy,
        }
    out.update(load=os.getloadavg()[0], rss_mb=rss_mb(), cut=grid.loader.decoded)
    out["gc2_ms"] = max(pauses, default=0.0)
    out["gc2_n"] = len(pauses)
    win.close()
    QApplication.processEvents()
    return out


def run_child(ann: Path, res: Path, kind: str, wheel_steps: int) -> dict[str, Any]:
    return run_json_child(__file__, [str(ann), str(res), kind, str(wheel_steps)], ann.parent)


def report(runs: list[dict[str, Any]]) -> None:
    mm = min_median
    r0 = runs[0]
    print(
        f"{r0['patches']:,} patches, {r0['cells']} cells on screen; table shown in "
        f"{mm([r['shown_ms'] for r in runs], '{:.0f}')} ms, its first screen cut in "
        f"{mm([r['first_screen_ms'] for r in runs], '{:.0f}')} ms (min / median of runs)"
    )
    print(f"\n{'(ms, min / median of runs)':<34}{'wheel notches':>18}{'page steps':>18}")
    for key, label in (
        ("steps", "steps per run"),
        ("median_ms", "median scroll step"),
        ("max_ms", "longest step"),
        ("stall_ms", "longest event-loop stall"),
        ("busy_ms", "GUI-thread CPU between beats, max"),
    ):
        cells = [mm([r[phase][key] for r in runs]) for phase in ("wheel", "pages")]
        print(f"{label:<34}{cells[0]:>18}{cells[1]:>18}")
    gcs = ", ".join(f"{r['gc2_n']} (longest {r['gc2_ms']:.0f} ms)" for r in runs)
    print(f"full garbage collections while showing and scrolling: {gcs}")
    loads = ", ".join(f"{r['load']:.1f}" for r in runs)
    print(f"\nresident {mm([r['rss_mb'] for r in runs], '{:.0f}')} MB; load {loads}")
    worst = max(max(r["wheel"]["stall_ms"], r["pages"]["stall_ms"]) for r in runs)
    print(f"target: no stall > 100 ms: {'met' if worst <= 100 else 'MISSED'} (worst {worst:.0f})")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        ann, res, kind, steps = Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4], sys.argv[5]
        print(json.dumps(child(ann, res, kind, int(steps))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--images", type=int, default=4000)
    parser.add_argument("--dets", type=int, default=20_000)
    parser.add_argument("--kind", default="detections")
    parser.add_argument("--wheel-steps", type=int, default=300)
    parser.add_argument("--keep", type=Path, help="write the set here (kept) instead of a temp dir")
    args = parser.parse_args()
    from bench.bench_gui_open import make_open_set

    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        ann = folder / "annotations" / "instances_val2017.json"
        res = folder / "detections_val2017_results.json"
        if not (ann.exists() and res.exists()):
            folder.mkdir(parents=True, exist_ok=True)
            make_open_set(folder, args.images, args.dets)
        runs = [run_child(ann, res, args.kind, args.wheel_steps) for _ in range(args.runs)]
    report(runs)


if __name__ == "__main__":
    main()
