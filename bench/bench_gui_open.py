"""Benchmark: the real window, offscreen — opening a COCO-sized set, and a 20,000-image list.

1. **Open** (target: first image < 5 s). A ``bench_coco.make_workload`` ground truth (5,000 images,
   ~36,700 objects) and its ~500,000 box detections are written as
   ``annotations/instances_val2017.json`` + ``detections_val2017_results.json``, with real 640×480
   JPEGs in ``val2017/`` (hard links to a few noisy ones). Each run is a fresh process that opens
   both as ``vocviewer open GT --results R`` does (``MainWindow.open_dataset``) and records, from
   process spawn and from ``MainWindow()`` construction: (a) the dataset arrived
   (``dataset_loaded``), (b) the first image is shown with its ground truth (``image_shown``),
   (c) the result set was added (``results_added``) and the first image's detections are drawn
   (``overlays_drawn`` with the results), (d) evaluation finished (``evaluation_finished``), plus
   the longest gap of a 10 ms ``QTimer`` probe during the whole open and the GUI-thread time spent
   in ``set_dataset`` / ``add_result_set`` / ``_show_image`` / per-class arrivals.
2. **Workers**: the worker functions (``tasks.load_dataset``, ``tasks.load_results``,
   ``Benchmark.evaluate_views``) timed directly without Qt, each with the longest stretch
   it held the GIL (the gap of a 5 ms ticker thread) — what starves the GUI thread meanwhile.
3. **Scroll**: a 20,000-image COCO set (image files missing, then present as one smooth 640×480
   JPEG hard-linked under every name): time to populate the image list, scrolling it top to
   bottom in ``--scroll-steps`` steps (scrollbar ``setValue`` + ``processEvents`` + forced
   ``viewport().repaint()``; max and median per step), and next-image stepping (action →
   ``image_shown`` + repaint).

``--profile`` adds: one open with a stack sampler naming what each thread ran during the longest
probe gaps (``StackSampler``); one cProfiled open (GUI thread only: top 40 cumulative, top 25 own
time); the worker functions cProfiled; and one cProfiled scroll + stepping run. Every timing is
min / median over ``--runs`` fresh processes.

4. **Big** (``--parts big``): the same open with ``bench_coco_scale``'s 2,000,000-detection
   (~300 MB) results file (target: evaluation done within 1.2x the CLI's time).

Parts 1 and 4 also run ``vocviewer eval GT --results R`` as a fresh process, interleaved with the
window's runs (a busy machine slows both alike), and print the window's time to evaluation done
against it (difference and ratio) and the load average. The window's child calls
``tasks.prefetch_open`` first, as ``vocviewer open`` does; ``--no-prefetch`` adds the same runs
without it (the window's own order: dataset, then results, then evaluation).

Usage: ``python bench/bench_gui_open.py [--runs 3] [--images 5000] [--dets 500000]
[--list-images 20000] [--scroll-steps 200] [--steps 50] [--parts open workers scroll big]
[--big-dets 2000000] [--no-prefetch] [--profile] [--data DIR]``

The generated open set's ground truth has boxes only: no polygon is read or rasterised there.
``--data DIR`` opens the shared realistic generator's files instead (``instances_gt.json`` with
polygons for every object, ``detections_bbox.json``; no image files), the workload issue 22's
window target is about.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.child_runs import private_settings  # noqa: E402
from bench.gui_probes import quiet_qt  # noqa: E402

MILESTONES = (
    ("imports", "imports done (numpy, Qt, vocviewer.gui)"),
    ("window", "MainWindow built and shown"),
    ("dataset", "(a) dataset loaded (dataset_loaded)"),
    ("image", "(b) first image shown with GT (image_shown)"),
    ("results", "(c) result set added (results_added)"),
    ("dets", "(c) first image's detections drawn"),
    ("eval", "(d) evaluation finished"),
)
SPANS = ("set_dataset", "add_result_set", "_show_image", "evaluation._arrived")


# --- data ----------------------------------------------------------------------------------------
def write_jpegs(
    folder: Path, names: list[str], size: tuple[int, int], distinct: int, noisy: bool
) -> None:
    """``distinct`` real JPEGs of ``size`` (noisy: worst-case decode; else a smooth gradient),
    hard-linked (copied if links fail) under every name in ``names``."""
    import numpy as np
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    w, h = size
    rng = np.random.default_rng(1)
    sources = []
    for k in range(distinct):
        if noisy:
            arr = rng.integers(0, 255, (h, w, 3), dtype=np.uint8)
        else:
            y, x = np.mgrid[:h, :w]
            arr = np.stack([x * 255 // w, y * 255 // h, np.full_like(x, 40 * k)], -1)
        src = folder / f"_source{k}.jpg"
        Image.fromarray(arr.astype(np.uint8)).save(src, quality=90)
        sources.append(src)
    for i, name in enumerate(names):
        dst, src = folder / name, sources[i % distinct]
        try:
            os.link(src, dst)
        except OSError:
            dst.write_bytes(src.read_bytes())


def make_open_set(tmp: Path, n_images: int, n_dets: int) -> tuple[Path, Path, dict[str, int]]:
    """COCO layout under ``tmp``: annotations/instances_val2017.json (``read_coco`` finds the
    images in ../val2017), val2017/*.jpg, detections_val2017_results.json."""
    from bench.bench_coco import make_workload

    gt, dets = make_workload(n_images)
    if n_dets < len(dets):  # a random subset, file order kept
        keep = sorted(random.Random(0).sample(range(len(dets)), n_dets))
        dets = [dets[i] for i in keep]
    ann = tmp / "annotations" / "instances_val2017.json"
    ann.parent.mkdir(parents=True)
    ann.write_text(json.dumps(gt))
    res = tmp / "detections_val2017_results.json"
    res.write_text(json.dumps(dets))
    write_jpegs(tmp / "val2017", [im["file_name"] for im in gt["images"]], (640, 480), 8, True)
    sizes = {
        "images": len(gt["images"]),
        "objects": len(gt["annotations"]),
        "dets": len(dets),
        "gt_mb": ann.stat().st_size >> 20,
        "res_mb": res.stat().st_size >> 20,
    }
    return ann, res, sizes


def make_big_set(tmp: Path, n_dets: int) -> tuple[Path, Path, dict[str, int]]:
    """``bench_coco_scale``'s val2017-sized ground truth and an ``n_dets``-row results file
    (2,000,000 rows: ~300 MB), with JPEGs, in the layout of ``make_open_set``."""
    from bench.bench_coco_scale import write_gt, write_results

    ann = tmp / "annotations" / "instances_val2017.json"
    gt = write_gt(ann, 5000)
    res = tmp / "detections_val2017_results.json"
    write_results(res, gt, n_dets)
    write_jpegs(tmp / "val2017", [im["file_name"] for im in gt["images"]], (640, 480), 8, True)
    sizes = {
        "images": len(gt["images"]),
        "objects": len(gt["annotations"]),
        "dets": n_dets,
        "gt_mb": ann.stat().st_size >> 20,
        "res_mb": res.stat().st_size >> 20,
    }
    return ann, res, sizes


def make_list_set(tmp: Path, n_images: int, with_files: bool) -> Path:
    """A ground-truth-only COCO file of ``n_images`` 640×480 images with 0–6 boxes each; with
    ``with_files`` the images exist (a smooth 640×480 JPEG, hard-linked)."""
    rng = random.Random(2)
    images = [
        {"id": i, "width": 640, "height": 480, "file_name": f"{i:012d}.jpg"}
        for i in range(1, n_images + 1)
    ]
    anns = []
    for im in images:
        for _ in range(rng.randint(0, 6)):
            x, y = rng.uniform(0, 500), rng.uniform(0, 350)
            w, h = rng.uniform(10, 640 - x), rng.uniform(10, 480 - y)
            anns.append(
                {
                    "id": len(anns) + 1,
                    "image_id": im["id"],
                    "category_id": rng.randint(1, 20),
                    "bbox": [round(x, 2), round(y, 2), round(w, 2), round(h, 2)],
                    "area": round(w * h, 2),
                    "iscrowd": 0,
                }
            )
    cats = [{"id": c, "name": f"class{c}"} for c in range(1, 21)]
    ann = tmp / "annotations" / "instances_val2017.json"
    ann.parent.mkdir(parents=True)
    ann.write_text(json.dumps({"images": images, "categories": cats, "annotations": anns}))
    if with_files:
        write_jpegs(tmp / "val2017", [im["file_name"] for im in images], (640, 480), 1, False)
    return ann


# --- child processes -----------------------------------------------------------------------------
class Spans:
    """GUI-thread time spent in wrapped instance methods (count, total, max)."""

    def __init__(self) -> None:
        self.stats: dict[str, list[float]] = {}

    def wrap(self, obj: Any, name: str, label: str) -> None:
        fn = getattr(obj, name, None)
        if fn is None:  # renamed by a refactoring: not measured
            return
        entry = self.stats.setdefault(label, [0, 0.0, 0.0])

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                dt = (time.perf_counter() - t) * 1000
                entry[0] += 1
                entry[1] += dt
                entry[2] = max(entry[2], dt)

        setattr(obj, name, wrapper)  # callers look the method up at call time


def print_profile(prof: Any, title: str, cumulative: int, own: int) -> None:
    import io
    import pstats

    for key, n in (("cumulative", cumulative), ("tottime", own)):
        if n:
            out = io.StringIO()
            pstats.Stats(prof, stream=out).strip_dirs().sort_stats(key).print_stats(n)
            body = out.getvalue()
            body = body[body.find("   ncalls") :] if "   ncalls" in body else body
            print(f"\n===== {title}: top {n} by {key} =====\n{body.rstrip()}")


def child_open(
    ann: Path, res: Path, t_spawn: float, profile: bool, sample: bool, prefetch: bool = True
) -> dict[str, Any]:
    wall0, t_main = time.time(), time.perf_counter()
    if prefetch:  # as ``vocviewer open GT --results R`` does before it imports Qt
        from vocviewer.gui.models.tasks import prefetch_open

        prefetch_open(ann, (res,))
    import resource

    from PySide6.QtCore import QThreadPool, QTimer

    from vocviewer.gui.window.app import make_app
    from vocviewer.gui.window.main_window import MainWindow

    marks: dict[str, float] = {"imports": time.perf_counter()}
    from bench.gui_probes import (  # after the milestone: not the app's own cost
        StackSampler,
        StallProbe,
    )

    app = make_app()
    quiet_qt()
    prof = None
    if profile:
        import cProfile

        prof = cProfile.Profile()
        prof.enable()
    t_win = time.perf_counter()
    win = MainWindow()
    win.resize(1400, 900)
    win.show()
    app.processEvents()
    marks["window"] = time.perf_counter()
    st, view = win.state, win.view
    spans = Spans()
    spans.wrap(st, "set_dataset", "set_dataset")
    spans.wrap(st, "add_result_set", "add_result_set")
    spans.wrap(view, "_show_image", "_show_image")
    spans.wrap(st.evaluation, "_arrived", "evaluation._arrived")
    extra: dict[str, Any] = {"dets_drawn": -1}

    def mark(name: str) -> None:
        marks.setdefault(name, time.perf_counter())
        check_done()

    def on_overlays() -> None:
        if st.current_results >= 0 and view.shown_image == st.current_image >= 0:
            if "dets" not in marks:
                extra["dets_drawn"] = len(view.overlay_items("det"))
            mark("dets")

    finishing = [False]

    def check_done(*_args: object) -> None:
        if all(k in marks for k, _ in MILESTONES) and st.is_idle() and not finishing[0]:
            finishing[0] = True
            QTimer.singleShot(300, app.quit)  # catch stalls right after the last milestone

    st.dataset_loaded.connect(lambda _d: mark("dataset"))
    view.image_shown.connect(lambda _i: mark("image"))
    st.results_added.connect(lambda _i: mark("results"))
    view.overlays_drawn.connect(on_overlays)
    st.evaluation.finished.connect(lambda: mark("eval"))
    st.busy_changed.connect(check_done)
    st.load_failed.connect(lambda text: (extra.setdefault("error", text), app.exit(2)))
    QTimer.singleShot(600_000, lambda: app.exit(3))

    probe = StallProbe()
    sampler = StackSampler() if sample else None
    if sampler is not None:
        sampler.start()
    probe.start()
    t_open = time.perf_counter()
    win.open_dataset(ann, (res,))
    code = app.exec()
    probe.stop()
    if sampler is not None:
        sampler.stop()
    if prof is not None:
        prof.disable()
    win.close()
    QThreadPool.globalInstance().waitForDone()
    if code != 0:
        raise SystemExit(f"open did not finish (exit {code}): {extra.get('error', 'timeout')}")
    spawn_off = wall0 - t_spawn - t_main  # perf_counter value -> seconds since spawn
    out = {
        "interpreter": wall0 - t_spawn,
        "from_spawn": {k: v + spawn_off for k, v in marks.items()},
        "from_window": {k: v - t_win for k, v in marks.items() if v >= t_win},
        "from_open": {k: v - t_open for k, v in marks.items() if v >= t_open},
        "stall": probe.longest(),
        "stalls": [[g[1], g[2]] for g in sorted(probe.gaps, reverse=True)[:8]],  # ms after start
        "ticks": len(probe.gaps),
        "spans": spans.stats,
        "dets_drawn": extra["dets_drawn"],
        "n_images": len(st.dataset.images) if st.dataset is not None else 0,
        "n_dets": len(st.results[0].results.detections) if st.results else 0,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    if prof is not None:
        print_profile(prof, "GUI thread, MainWindow() to evaluation finished", 40, 25)
    if sampler is not None:
        print("\n===== what ran during the longest probe gaps (stack samples every ~5 ms) =====")
        for a, b in [g for g in out["stalls"] if g[1] - g[0] > 100] or out["stalls"][:1]:
            print(f"gap {b - a} ms at {a / 1000:.2f}-{b / 1000:.2f} s after open_dataset:")
            for who, top in sampler.during(t_open + a / 1000, t_open + b / 1000).items():
                print(f"    {who:>6}: " + "; ".join(f"{d} (x{n})" for d, n in top))
    return out


class GilTicker:
    """A Python thread sleeping 5 ms at a time; its longest gap ≈ the longest GIL hold elsewhere."""

    def __init__(self) -> None:
        self.gaps: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        last = time.perf_counter()
        while not self._stop.is_set():
            time.sleep(0.005)
            now = time.perf_counter()
            self.gaps.append(now - last)
            last = now

    def __enter__(self) -> GilTicker:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()


def child_workers(ann: Path, res: Path, profile: bool) -> dict[str, Any]:
    from vocviewer.families.coco.reader import load_json
    from vocviewer.families.registry import benchmark_of
    from vocviewer.families.views import ViewChoice
    from vocviewer.gui.models.tasks import LoadedResults, load_dataset, load_results

    box: dict[str, Any] = {}
    steps: list[tuple[str, Callable[[], Any]]] = [
        ("load_json(GT)", lambda: load_json(ann)),
        ("load_json(results)", lambda: load_json(res)),
        ("load_dataset (GT JSON -> Dataset)", lambda: box.setdefault("ds", load_dataset(ann))),
        (
            "load_results (JSON -> LoadedResults)",
            lambda: box.setdefault("lr", load_results(box["ds"], [res])),
        ),
        (
            "  of which LoadedResults.build",
            lambda: LoadedResults.build(box["ds"], box["lr"].results),
        ),
        (
            "evaluate_views (all 80 classes + summary)",
            lambda: list(
                benchmark_of(box["ds"]).evaluate_views(
                    box["ds"], box["lr"].results, ViewChoice(0.5)
                )
            ),
        ),
    ]
    out: dict[str, Any] = {}
    for name, fn in steps:
        prof = None
        if profile and not name.startswith(("load_json", "  ")):
            import cProfile

            prof = cProfile.Profile()
        with GilTicker() as ticker:
            t = time.perf_counter()
            if prof is not None:
                prof.enable()
            fn()
            if prof is not None:
                prof.disable()
            dt = time.perf_counter() - t
        out[name] = {"s": dt, "gil_ms": max(ticker.gaps, default=0.0) * 1000}
        if prof is not None:
            print_profile(prof, f"worker function {name.strip()} (main thread, no Qt)", 0, 15)
    return out


def child_scroll(ann: Path, steps: int, n_step: int, profile: bool) -> dict[str, Any]:
    from PySide6.QtCore import QPoint, QThreadPool

    from bench import gui_probes
    from vocviewer.gui.window.app import make_app
    from vocviewer.gui.window.main_window import MainWindow

    app = make_app()
    quiet_qt()
    win = MainWindow()
    win.resize(1400, 900)
    win.show()
    app.processEvents()
    st, view, lst = win.state, win.view, win.browser.list
    spans = Spans()
    spans.wrap(st, "set_dataset", "set_dataset")
    marks: dict[str, float] = {}
    st.dataset_loaded.connect(lambda _d: marks.setdefault("dataset", time.perf_counter()))
    win.browser.model.modelReset.connect(lambda: marks.setdefault("list", time.perf_counter()))

    def wait_until(cond: Callable[[], bool], timeout: float = 300.0) -> None:
        gui_probes.wait_until(app, cond, timeout)

    t_open = time.perf_counter()
    win.open_dataset(ann)
    wait_until(lambda: "list" in marks and win.browser.model.rowCount() > 0)
    t = time.perf_counter()
    lst.viewport().repaint()
    first_paint = time.perf_counter() - t
    marks["painted"] = time.perf_counter()
    wait_until(lambda: st.is_idle() and view.shown_image == st.current_image >= 0)
    marks["image"] = time.perf_counter()
    n = win.browser.model.rowCount()
    bar = lst.verticalScrollBar()
    top, bottom = bar.minimum(), bar.maximum()
    scroll, paint = [], []
    prof = None
    if profile:
        import cProfile

        prof = cProfile.Profile()
        prof.enable()
    t_all = time.perf_counter()
    for i in range(1, steps + 1):
        t = time.perf_counter()
        bar.setValue(top + round((bottom - top) * i / steps))
        app.processEvents()
        t_paint = time.perf_counter()
        lst.viewport().repaint()
        scroll.append((time.perf_counter() - t) * 1000)
        paint.append((time.perf_counter() - t_paint) * 1000)
    scroll_total = time.perf_counter() - t_all
    if prof is not None:
        prof.disable()
        print_profile(prof, f"scrolling the {n}-row list ({steps} steps)", 0, 20)
        prof = cProfile.Profile()
        prof.enable()
    h = lst.viewport().height()
    bottom_row = max(lst.indexAt(QPoint(5, y)).row() for y in range(max(h - 60, 0), h))
    stepping = []
    for _ in range(n_step):
        t = time.perf_counter()
        win.display.act_next.trigger()
        wait_until(lambda: view.shown_image == st.current_image)
        app.processEvents()  # the repaint
        stepping.append((time.perf_counter() - t) * 1000)
    if prof is not None:
        prof.disable()
        print_profile(prof, f"next image x{n_step} in the {n}-row list", 0, 20)
    missing = view.missing_file is not None
    win.close()
    QThreadPool.globalInstance().waitForDone()
    return {
        "rows": n,
        "open_to_list": marks["list"] - t_open,
        "set_dataset_ms": spans.stats.get("set_dataset", [0, float("nan")])[1],
        "dataset_to_list_ms": (marks["list"] - marks["dataset"]) * 1000,
        "first_paint_ms": first_paint * 1000,
        "open_to_image": marks["image"] - t_open,
        "scroll": scroll,
        "scroll_paint": paint,
        "scroll_total": scroll_total,
        "scroll_range": [top, bottom],
        "reached_row": bottom_row,
        "stepping": stepping,
        "missing_file_shown": missing,
    }


# --- parent --------------------------------------------------------------------------------------
def run_child(*args: str, show_stdout: bool = False) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", *args, "--t-spawn"]
    t_spawn = time.time()
    done = subprocess.run([*cmd, repr(t_spawn)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"child {args[0]} failed with exit code {done.returncode}")
    lines = done.stdout.rstrip().splitlines()
    if show_stdout:
        print("\n".join(lines[:-1]))
    return json.loads(lines[-1])


def mm(values: list[float], fmt: str = "{:.2f}") -> str:
    return f"{fmt.format(min(values))} / {fmt.format(statistics.median(values))}"


def child_cli(ann: Path, res: Path) -> dict[str, Any]:
    """``vocviewer eval GT --results R`` as a fresh process: its wall time (s)."""
    t = time.perf_counter()
    cmd = [sys.executable, "-m", "vocviewer", "eval", str(ann), "--results", str(res)]
    subprocess.run(cmd, capture_output=True, check=True, cwd=ROOT)
    return {"wall": time.perf_counter() - t}


def report_open(runs: list[dict[str, Any]], cli: list[dict[str, Any]]) -> None:
    print(
        f"\n{'milestone (seconds, min / median)':<48}{'from spawn':>16}{'from MainWindow()':>20}"
        f"{'from open':>16}"
    )
    print(f"{'Python interpreter up':<48}{mm([r['interpreter'] for r in runs]):>16}")
    for key, label in MILESTONES:
        cols = []
        for frame in ("from_spawn", "from_window", "from_open"):
            vals = [r[frame][key] for r in runs if key in r[frame]]
            cols.append(mm(vals) if len(vals) == len(runs) else "-")
        print(f"{label:<48}{cols[0]:>16}{cols[1]:>20}{cols[2]:>16}")
    walls, evals = [c["wall"] for c in cli], [r["from_spawn"]["eval"] for r in runs]
    ratio = [e / c for e, c in zip(evals, walls, strict=True)]
    print(f"{'CLI: vocviewer eval, whole process':<48}{mm(walls):>16}   (same run, interleaved)")
    print(
        f"{'  window eval done - CLI, s':<48}"
        f"{mm([e - c for e, c in zip(evals, walls, strict=True)]):>16}   (target <= 0.5)"
    )
    print(f"{'  window eval done / CLI':<48}{mm(ratio):>16}")
    print(
        f"{'longest event-loop stall (10 ms probe), ms':<48}"
        f"{mm([r['stall'] for r in runs], '{:.0f}'):>16}   (target < 100 ms)"
    )
    for i, r in enumerate(runs):
        worst = ", ".join(
            f"{g:.0f} ms at {a / 1000:.2f}-{b / 1000:.2f} s"
            for g, a, b in ([s[1] - s[0], s[0], s[1]] for s in r["stalls"][:3])
        )
        print(f"  run {i + 1}: 3 longest probe gaps (s after open_dataset): {worst}")
    print(
        f"\n{'GUI-thread time in (ms, min / median of runs)':<48}{'calls':>8}{'total':>16}"
        f"{'longest call':>16}"
    )
    for name in SPANS:
        s = [r["spans"][name] for r in runs if name in r["spans"]]
        if len(s) < len(runs):
            continue
        print(
            f"{name:<48}{s[0][0]:>8}{mm([x[1] for x in s], '{:.0f}'):>16}"
            f"{mm([x[2] for x in s], '{:.0f}'):>16}"
        )
    print(
        f"first image's detections drawn: {runs[0]['dets_drawn']} (score >= 0.5); peak RSS "
        f"{mm([r['peak_mb'] for r in runs], '{:.0f}')} MB"
    )


def report_workers(runs: list[dict[str, Any]]) -> None:
    print(
        f"\n{'worker function (no Qt), min / median':<48}{'seconds':>16}"
        f"{'longest GIL hold, ms':>24}"
    )
    for name in runs[0]:
        print(
            f"{name:<48}{mm([r[name]['s'] for r in runs]):>16}"
            f"{mm([r[name]['gil_ms'] for r in runs], '{:.0f}'):>24}"
        )


def report_scroll(title: str, runs: list[dict[str, Any]]) -> None:
    r0 = runs[0]
    print(
        f"\n{title}: {r0['rows']} rows, scroll range {r0['scroll_range']}, last step showed "
        f"row {r0['reached_row']}; missing-file placeholder: {r0['missing_file_shown']}"
    )
    rows = [
        ("open -> list populated, s", [r["open_to_list"] for r in runs], "{:.2f}"),
        ("  set_dataset on the GUI thread, ms", [r["set_dataset_ms"] for r in runs], "{:.1f}"),
        ("  dataset_loaded -> model reset, ms", [r["dataset_to_list_ms"] for r in runs], "{:.1f}"),
        ("  first forced list repaint, ms", [r["first_paint_ms"] for r in runs], "{:.1f}"),
        ("open -> first image shown, s", [r["open_to_image"] for r in runs], "{:.2f}"),
        ("scroll top -> bottom total, ms", [r["scroll_total"] * 1000 for r in runs], "{:.0f}"),
        ("scroll step, median ms", [statistics.median(r["scroll"]) for r in runs], "{:.2f}"),
        ("scroll step, max ms", [max(r["scroll"]) for r in runs], "{:.2f}"),
        (
            "  of which repaint(), median ms",
            [statistics.median(r["scroll_paint"]) for r in runs],
            "{:.2f}",
        ),
        ("next image, median ms", [statistics.median(r["stepping"]) for r in runs], "{:.1f}"),
        ("next image, min ms", [min(r["stepping"]) for r in runs], "{:.1f}"),
        ("next image, max ms", [max(r["stepping"]) for r in runs], "{:.1f}"),
    ]
    for label, vals, fmt in rows:
        print(f"  {label:<46}{mm(vals, fmt):>18}   (min / median of {len(runs)} runs)")


def main() -> None:
    private_settings()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="fresh processes per measurement")
    ap.add_argument("--images", type=int, default=5000, help="images of the open benchmark")
    ap.add_argument(
        "--dets",
        type=int,
        default=500_000,
        help="detections kept (random subset of ~100 per image)",
    )
    ap.add_argument("--list-images", type=int, default=20_000, help="images of the scroll set")
    ap.add_argument("--scroll-steps", type=int, default=200)
    ap.add_argument("--steps", type=int, default=50, help="next-image steps in the scroll set")
    ap.add_argument(
        "--data",
        type=Path,
        help="open this folder's instances_gt.json + detections_bbox.json (the shared realistic "
        "generator's: polygon GT, e.g. /work/benchdata/coco-5000x100-s0) instead of the "
        "generated box-only set",
    )
    ap.add_argument("--big-dets", type=int, default=2_000_000, help="detections of part big")
    ap.add_argument(
        "--parts",
        nargs="+",
        choices=("open", "workers", "scroll", "big"),
        default=["open", "workers", "scroll"],
    )
    ap.add_argument("--profile", action="store_true", help="also one cProfiled open + workers")
    ap.add_argument(
        "--no-prefetch",
        action="store_true",
        help="also open without the helper's prefetch (the window's own order)",
    )
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--files", nargs="+", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--t-spawn", type=float, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        if args.child in ("open", "open-profile", "open-sample", "open-noprefetch"):
            kind = args.child
            out = child_open(
                *args.files,
                args.t_spawn,
                kind == "open-profile",
                kind == "open-sample",
                kind != "open-noprefetch",
            )
        elif args.child == "cli":
            out = child_cli(*args.files)
        elif args.child in ("workers", "workers-profile"):
            out = child_workers(*args.files, args.child == "workers-profile")
        else:
            out = child_scroll(
                args.files[0], args.scroll_steps, args.steps, args.child == "scroll-profile"
            )
        print(json.dumps(out))
        return

    print(
        f"{os.cpu_count()} CPUs; Python {sys.version.split()[0]}; "
        f"QT_QPA_PLATFORM={os.environ['QT_QPA_PLATFORM']}"
    )
    if {"open", "workers"} & set(args.parts) or args.profile:
        with tempfile.TemporaryDirectory() as tmp:
            t = time.perf_counter()
            if args.data is not None:  # the realistic generator's files (polygons; no images)
                ann, res = args.data / "instances_gt.json", args.data / "detections_bbox.json"
                n = {"dets": -1}
                print(
                    f"open set: {ann} ({ann.stat().st_size >> 20} MB, polygon GT) and {res} "
                    f"({res.stat().st_size >> 20} MB); no image files"
                )
            else:
                ann, res, n = make_open_set(Path(tmp), args.images, args.dets)
                print(
                    f"open set: {n['images']} images, {n['objects']} GT boxes, {n['dets']} "
                    f"detections (GT JSON {n['gt_mb']} MB, results JSON {n['res_mb']} MB), "
                    f"640x480 JPEGs; generated in {time.perf_counter() - t:.1f} s"
                )
            files = ["--files", str(ann), str(res)]
            if "open" in args.parts:
                kinds = ["cli", "open"] + (["open-noprefetch"] if args.no_prefetch else [])
                by_kind: dict[str, list[dict[str, Any]]] = {k: [] for k in kinds}
                for _ in range(args.runs):  # interleaved: a busy machine slows all alike
                    for kind in kinds:
                        by_kind[kind].append(run_child(kind, *files))
                runs = by_kind["open"]
                assert all(r["n_dets"] == n["dets"] for r in runs) or n["dets"] < 0
                print(f"\n== 1. open to first image: {args.runs} fresh processes ==")
                report_open(runs, by_kind["cli"])
                if args.no_prefetch:
                    print("\n-- the same without the helper's prefetch (window-built order) --")
                    report_open(by_kind["open-noprefetch"], by_kind["cli"])
                print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
            if "workers" in args.parts:
                runs = [run_child("workers", *files) for _ in range(args.runs)]
                print(f"\n== 2. worker functions timed directly: {args.runs} fresh processes ==")
                report_workers(runs)
            if args.profile:
                print("\n== stall attribution (one open with a stack sampler) ==")
                r = run_child("open-sample", *files, show_stdout=True)
                print(
                    f"(sampled open: first image at {r['from_open']['image']:.2f} s, evaluation "
                    f"finished at {r['from_open']['eval']:.2f} s after open_dataset)"
                )
                print("\n== profile (cProfile; times inflated by profiling) ==")
                r = run_child("open-profile", *files, show_stdout=True)
                print(
                    f"(profiled open: first image at {r['from_open']['image']:.2f} s, "
                    f"evaluation finished at {r['from_open']['eval']:.2f} s after open_dataset)"
                )
                run_child("workers-profile", *files, show_stdout=True)
    if "big" in args.parts:
        with tempfile.TemporaryDirectory() as tmp:
            t = time.perf_counter()
            ann, res, n = make_big_set(Path(tmp), args.big_dets)
            print(
                f"\nbig set: {n['images']} images, {n['objects']} GT boxes, {n['dets']} "
                f"detections (results JSON {n['res_mb']} MB); generated in "
                f"{time.perf_counter() - t:.1f} s"
            )
            files = ["--files", str(ann), str(res)]
            kinds = ["cli", "open"] + (["open-noprefetch"] if args.no_prefetch else [])
            big: dict[str, list[dict[str, Any]]] = {k: [] for k in kinds}
            for _ in range(args.runs):
                for kind in kinds:
                    big[kind].append(run_child(kind, *files))
            print(f"\n== 4. the {n['res_mb']} MB results file: {args.runs} fresh processes ==")
            report_open(big["open"], big["cli"])
            if args.no_prefetch:
                print("\n-- the same without the helper's prefetch --")
                report_open(big["open-noprefetch"], big["cli"])
            print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if "scroll" in args.parts:
        print(f"\n== 3. {args.list_images}-image list: {args.runs} fresh processes per variant ==")
        for with_files in (False, True):
            with tempfile.TemporaryDirectory() as tmp:
                ann = make_list_set(Path(tmp), args.list_images, with_files)
                runs = [
                    run_child(
                        "scroll",
                        "--files",
                        str(ann),
                        "--scroll-steps",
                        str(args.scroll_steps),
                        "--steps",
                        str(args.steps),
                    )
                    for _ in range(args.runs)
                ]
                what = "640x480 JPEGs on disk" if with_files else "image files missing"
                report_scroll(what, runs)
                if args.profile and with_files:
                    print("\n== profile of scrolling and stepping (cProfile, GUI thread) ==")
                    run_child(
                        "scroll-profile",
                        "--files",
                        str(ann),
                        "--scroll-steps",
                        str(args.scroll_steps),
                        "--steps",
                        str(args.steps),
                        show_stdout=True,
                    )


if __name__ == "__main__":
    main()
