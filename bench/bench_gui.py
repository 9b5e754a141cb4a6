"""Benchmark: the real window, offscreen — image stepping and event-loop stalls during evaluation.

1. Next/previous image on 640×480 JPEGs with 100 detections each drawn: the time from the key
   action to the image and its overlays on screen (``ImageView.image_shown``), median and min over
   ``--steps`` steps (target: median < 50 ms).
2. The longest gap of a 10 ms ``QTimer`` probe while the window loads results and evaluates a
   generated 5,000-image VOC set with 200,000 detections (``bench_voc.make_devkit``; target
   < 100 ms).

``--sample`` names what each thread ran during the five longest gaps (stack samples every ~5 ms;
the issue's target: no stall > 100 ms with ``--dets 5000000``).

``--runs N`` measures the stall N times on one generated set (fresh window each time) and prints
min / median with the load average.

Usage: ``python bench/bench_gui.py [--steps 50] [--images 4952] [--dets 200000] [--sample]
[--runs 3]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402
from PySide6.QtCore import QThreadPool  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from bench.bench_voc import make_devkit  # noqa: E402
from bench.child_runs import private_settings  # noqa: E402
from bench.gui_probes import StackSampler, StallProbe, wait_until  # noqa: E402
from tests.gui.conftest import make_tiny  # noqa: E402
from vocviewer.core.dataset import VOC_CLASSES, Dataset, ImageTable, ObjectTable  # noqa: E402
from vocviewer.core.results import Detections, ResultSet  # noqa: E402
from vocviewer.gui.window.app import make_app  # noqa: E402
from vocviewer.gui.window.main_window import MainWindow  # noqa: E402


def stepping_set(folder: Path, n_images: int = 60, per_image: int = 100):
    """``n_images`` noisy 640×480 JPEGs, 3 objects each, ``per_image`` detections each."""
    rng = np.random.default_rng(0)
    base, _ = make_tiny(folder)
    ids = [f"img{i:03d}" for i in range(n_images)]
    paths = tuple(folder / f"{i}.jpg" for i in ids)
    for p in paths:
        arr = rng.integers(0, 255, (480, 640, 3), dtype=np.uint8)
        Image.fromarray(arr).save(p, quality=90)
    m = 3 * n_images
    xy = rng.uniform(1, 400, (m, 2))
    objects = ObjectTable(
        image_index=np.repeat(np.arange(n_images), 3),
        label=rng.integers(0, 20, m),
        box=np.c_[xy, xy + rng.uniform(40, 200, (m, 2))],
        difficult=np.zeros(m, bool),
        truncated=np.zeros(m, bool),
        occluded=np.zeros(m, bool),
        pose=np.zeros(m, np.int8),
        order_in_image=np.tile(np.arange(3), n_images),
        actions=np.zeros((m, 0), bool),
    )
    images = ImageTable(
        np.array(ids),
        paths,
        np.full(n_images, 640),
        np.full(n_images, 480),
        np.zeros(n_images, bool),
    )
    ds = Dataset(
        name="bench",
        root=folder,
        year=2012,
        classes=VOC_CLASSES,
        box_convention="voc",
        images=images,
        objects=objects,
        parts=base.parts,
        image_sets={"Main/val": np.arange(n_images)},
    )
    d = n_images * per_image
    xy = rng.uniform(1, 500, (d, 2))
    det = Detections(
        np.repeat(np.arange(n_images), per_image),
        rng.integers(0, 20, d),
        rng.uniform(0.5, 1.0, d),
        np.c_[xy, xy + rng.uniform(20, 140, (d, 2))],
        np.zeros(d, np.int64),
        np.arange(1, d + 1),
    )
    rs = ResultSet(
        "bench",
        (folder / "comp4_det_val_all.txt",),
        det,
        classes_with_files={"det": frozenset(range(20))},
    )
    return ds, rs


def bench_stepping(app: QApplication, steps: int) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        ds, rs = stepping_set(Path(tmp))
        win = MainWindow()
        win.resize(1400, 900)
        win.show()
        st = win.state
        st.set_threshold(0.0)
        st.set_dataset(ds)
        st.add_result_set(rs)
        wait_until(app, lambda: st.is_idle() and win.view.shown_image == st.current_image >= 0)
        times = []
        for i in range(steps):
            action = win.display.act_next if (i // 20) % 2 == 0 else win.display.act_prev
            t = time.perf_counter()
            action.trigger()
            wait_until(app, lambda: win.view.shown_image == st.current_image)
            app.processEvents()  # the repaint
            times.append((time.perf_counter() - t) * 1000)
            assert len(win.view.overlay_items("det")) == 100
        win.close()
        return times


def bench_stall(
    app: QApplication, n_images: int, n_dets: int, sample: bool = False, runs: int = 1
) -> list[tuple[float, float, int]]:
    """``runs`` times: open the generated devkit in a fresh window and add its results; per run
    the longest stall (ms), the time to evaluation done (s) and the probe ticks."""
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        make_devkit(Path(tmp), n_images, n_dets)
        print(
            f"generated {n_images} images / {n_dets} detections in {time.perf_counter() - t:.1f} s"
        )
        out = []
        for run in range(runs):
            print(f"run {run + 1}: load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
            out.append(_stall_run(app, Path(tmp), sample))
        return out


def _stall_run(app: QApplication, tmp: Path, sample: bool) -> tuple[float, float, int]:
    """One window: open the devkit, add its results, probe the event loop until all is done."""
    win = MainWindow()
    win.resize(1400, 900)
    win.show()
    st = win.state
    probe = StallProbe()
    st.open_dataset(Path(tmp) / "VOC2007")
    wait_until(app, lambda: st.dataset is not None and st.is_idle())
    app.processEvents()

    sampler = StackSampler() if sample else None
    if sampler is not None:
        sampler.start()
    probe.start()
    t = time.perf_counter()
    st.add_results([Path(tmp) / "results" / "VOC2007"])
    wait_until(app, lambda: len(st.results) == 1 and st.is_idle(), timeout=600)
    elapsed = time.perf_counter() - t
    probe.stop()
    worst = sorted(probe.gaps, reverse=True)[:5]
    print(
        "5 longest probe gaps: "
        + ", ".join(f"{g} ms at {a / 1000:.2f}-{b / 1000:.2f} s" for g, a, b in worst)
    )
    if sampler is not None:
        sampler.stop()
        for _g, a, b in worst:
            print(f"gap {b - a} ms at {a / 1000:.2f}-{b / 1000:.2f} s after add_results:")
            for who, top in sampler.during(t + a / 1000, t + b / 1000).items():
                print(f"    {who:>6}: " + "; ".join(f"{d} (x{n})" for d, n in top))
    win.close()
    QThreadPool.globalInstance().waitForDone()
    print(f"    longest stall {probe.longest()} ms, evaluation done after {elapsed:.1f} s")
    return probe.longest(), elapsed, len(probe.gaps)


def main() -> None:
    private_settings()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--images", type=int, default=4952)
    ap.add_argument("--dets", type=int, default=200_000)
    ap.add_argument("--sample", action="store_true", help="name what ran during the worst gaps")
    ap.add_argument("--runs", type=int, default=1, help="stall measurements (one generated set)")
    ap.add_argument("--switch-interval", type=float, help="sys.setswitchinterval (experiment)")
    args = ap.parse_args()
    if args.switch_interval:
        sys.setswitchinterval(args.switch_interval)
    app = make_app()
    times = bench_stepping(app, args.steps)
    print(
        f"next/previous image, 640x480 JPEG, 100 detections drawn: median "
        f"{statistics.median(times):.1f} ms, min {min(times):.1f} ms, max {max(times):.1f} ms "
        f"over {len(times)} steps (target median < 50 ms)"
    )
    runs = bench_stall(app, args.images, args.dets, args.sample, args.runs)
    worst = [r[0] for r in runs]
    elapsed = [r[1] for r in runs]
    print(
        f"results loading + evaluation took {min(elapsed):.1f} / {statistics.median(elapsed):.1f} s "
        f"(min / median); longest event-loop stall {min(worst):.0f} / "
        f"{statistics.median(worst):.0f} ms (min / median of {len(runs)} runs; target < 100 ms); "
        f"load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}"
    )


if __name__ == "__main__":
    main()
