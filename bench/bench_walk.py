"""Benchmark: the detection walk in the real window, offscreen, on a VOC2007-test-sized set
(4,952 images, 200,000 detections; ``bench_voc.make_devkit``).

Each step (``Walk ▸ Next detection``) is timed from the action to the new image and its overlays
on screen (``ImageView.shown_image``) — in the class with the most detections, in the modes
"every detection" and "only true positives", then over all classes by score. Prints min / median /
max per mode (target: median < 50 ms), and next-image steps on the same set for comparison.

Usage: ``python bench/bench_walk.py [--steps 40] [--images 4952] [--dets 200000]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_voc import make_devkit
from child_runs import private_settings
from gui_probes import wait_until

from vocviewer.gui.window.app import make_app
from vocviewer.gui.window.main_window import MainWindow


def timed_steps(app, win, steps: int, step) -> list[float]:
    """``steps`` calls of ``step()``, each timed until the image it opened is on screen."""
    st, times = win.state, []
    for _ in range(steps):
        t = time.perf_counter()
        if not step():
            break
        wait_until(app, lambda: win.view.shown_image == st.current_image)
        app.processEvents()  # the repaint
        times.append((time.perf_counter() - t) * 1000)
    return times


def report(name: str, times: list[float]) -> None:
    print(
        f"{name:<38} median {statistics.median(times):6.1f} ms  min {min(times):6.1f}  "
        f"max {max(times):6.1f}  ({len(times)} steps; target median < 50 ms)"
    )


def main() -> None:
    private_settings()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--images", type=int, default=4952)
    ap.add_argument("--dets", type=int, default=200_000)
    args = ap.parse_args()
    app = make_app()
    with tempfile.TemporaryDirectory() as tmp:
        make_devkit(Path(tmp), args.images, args.dets)
        win = MainWindow()
        win.resize(1400, 900)
        win.show()
        st = win.state
        st.open_dataset(Path(tmp) / "VOC2007", [Path(tmp) / "results" / "VOC2007"])
        wait_until(app, lambda: len(st.results) == 1 and st.is_idle(), timeout=600)
        evals = st.evaluations[0].det
        k = max(evals, key=lambda c: len(evals[c]))
        n_det = len(st.results[0].results.detections)
        print(f"{len(st.dataset.images)} images, {n_det} detections; walking ", end="")
        print(f"{st.dataset.classes[k]} ({len(evals[k])} ranks)")
        walk = win.walk
        st.select_class(k)
        wait_until(app, lambda: st.is_idle())
        for mode in ("all", "tp"):
            walk.walk.set_mode(mode)
            st.select_detection(k, 0)
            wait_until(app, lambda: win.view.shown_image == st.current_image)
            times = timed_steps(app, win, args.steps, lambda: walk.step(1))
            report(f"walk, {walk.walk.mode.label.lower()}", times)
        walk.walk.set_mode("all")
        st.select_class(-1)
        wait_until(app, lambda: st.is_idle())
        report(
            "walk, every class by score", timed_steps(app, win, args.steps, lambda: walk.step(1))
        )
        times = timed_steps(app, win, args.steps, lambda: win.display.act_next.trigger() or True)
        report("next image", times)
        win.close()


if __name__ == "__main__":
    main()
