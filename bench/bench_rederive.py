"""Benchmark: the window on a realistic COCO bbox workload — evaluation done vs the CLI, and
re-deriving every pane when the IoU threshold or the area range changes.

The workload is the shared realistic generator's (``../shared/bench/gen_coco_workload.py``;
``--data`` holds ``instances_gt.json`` and ``detections_bbox.json``, e.g. the cached
``/work/benchdata/coco-5000x100-s0``: 5,000 images, 500k detections). Each run is a fresh
process (offscreen) that opens both as ``vocviewer open GT --results R`` does, waits until
evaluation is done as the user sees it (``finished``, the AP table's mean row shows the number
and neither the AP table nor the PR pane has a refresh waiting; then every job done, the false
positives' diagnosis too), then changes the choice (IoU 0.75, 0.5, area small, all) and times
each change from ``set_iou`` / ``set_area`` to the new evidence on every pane: the re-derive job
returned (``evidence_replaced``), the jobs idle, the panes' coalesced refreshes run
(``Debounced``) and the queued paints done (``processEvents`` until nothing is pending), plus
the GUI thread's own share of it. A 10 ms ``QTimer`` heartbeat
(``gui_probes.StallProbe``) measures the longest event-loop stall of the open (from
``open_dataset`` to idle) and of the changes. The CLI (``vocviewer eval``, whole process) runs
interleaved. Targets (issue 22): evaluation done <= CLI + 0.5 s; a change <= 50 ms; no stall
> 100 ms.

    python bench/bench_rederive.py --data /work/benchdata/coco-5000x100-s0 [--runs 3]
        [--compare CHECKOUT]   (another checkout's window too, interleaved: before / after)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHANGES = (("iou", 0.75), ("iou", 0.5), ("area", "small"), ("area", "all"))


def child(gt: Path, res: Path, t_spawn: float, root: Path) -> dict[str, Any]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(root))  # the checkout measured
    try:  # as ``vocviewer open`` starts the window (in the checkout measured, where it does)
        from vocviewer.gui.startup import begin
    except ImportError:
        begin = None
    if begin is not None:
        begin()
    from vocviewer.gui.models.tasks import prefetch_open

    prefetch_open(gt, (res,))  # as ``vocviewer open`` does before it imports Qt
    from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer

    from bench.bench_gui_open import quiet_qt
    from bench.gui_probes import StallProbe
    from vocviewer.gui.models import debounce
    from vocviewer.gui.models.debounce import Debounced
    from vocviewer.gui.window.app import make_app
    from vocviewer.gui.window.main_window import MainWindow

    app = make_app()
    quiet_qt()
    win = MainWindow()
    win.resize(1400, 900)
    win.show()
    st = win.state
    ev = st.evaluation
    out: dict[str, Any] = {}

    def wait(cond: Any, timeout: float = 600.0) -> None:
        end = time.perf_counter() + timeout
        while not cond():
            if time.perf_counter() > end:
                raise SystemExit("timed out")
            app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)

    finished: list[float] = []
    ev.finished.connect(lambda: finished.append(time.time()))
    model = win.ap_table.ap_model
    probe = StallProbe()
    probe.start()
    beat = QTimer()  # wakes a wait whose condition turns true without an event (a job's end)
    beat.setInterval(1)
    beat.start()
    win.open_dataset(gt, (res,))

    def table_filled() -> bool:  # the mean row's AP of the first result set is a number
        n = len(st.dataset.classes) if st.dataset is not None else -1
        item = model.item(n, 1) if n >= 0 and model.rowCount() > n else None
        return item is not None and item.text()[:1].isdigit()

    shown = [d for pane in (win.ap_table, win.pr_pane) for d in pane.findChildren(Debounced)]

    def drawn() -> bool:  # the AP table and the PR pane drew the last classes
        turns = debounce._TURNS
        queued = turns.queue if turns is not None else []
        return not any(d._timer.isActive() or d in queued for d in shown)

    wait(lambda: bool(finished) and len(st.evaluations) > 0 and table_filled() and drawn())
    out["eval_done_from_spawn"] = time.time() - t_spawn
    out["finished_signal_from_spawn"] = finished[0] - t_spawn
    out["cpu_at_eval"] = process_cpu()
    wait(st.is_idle)  # every job (thumbnails, analysis) done too
    out["idle_from_spawn"] = time.time() - t_spawn
    app.processEvents()
    out["open_stall_ms"] = probe.longest()
    probe.gaps.clear()
    QTimer.singleShot(0, lambda: None)
    app.processEvents()
    replaced = [0]
    ev.evidence_replaced.connect(lambda _i: replaced.__setitem__(0, replaced[0] + 1))
    for what, value in CHANGES:
        before = replaced[0]
        cpu0, t0 = time.thread_time(), time.perf_counter()
        (ev.set_iou if what == "iou" else ev.set_area)(value)
        wait(lambda b=before: replaced[0] > b and st.is_idle())
        QCoreApplication.sendPostedEvents()
        app.processEvents()
        wait(lambda: not refresh_pending(win))  # the panes' coalesced refreshes ran too
        app.processEvents()
        t1, cpu1 = time.perf_counter(), time.thread_time()
        out[f"{what}={value}"] = {"wall_ms": 1e3 * (t1 - t0), "gui_cpu_ms": 1e3 * (cpu1 - cpu0)}
    out["rederives"] = ev.settings.rederives
    out["change_stall_ms"] = probe.longest()
    probe.stop()
    win.close()
    return out


def refresh_pending(win: Any) -> bool:
    """Whether a pane's coalesced refresh (``Debounced``) is still waiting or queued: the
    change has not reached every pane yet."""
    from vocviewer.gui.models import debounce

    turns = debounce._TURNS
    if turns is not None and turns.queue:
        return True
    return any(d._timer.isActive() for d in win.findChildren(debounce.Debounced))


def process_cpu() -> float:
    """CPU seconds (user + system) of this process and of the window's helper process so far
    (``/proc``; the helper's part is 0 where there is no ``/proc``)."""
    import resource

    from vocviewer.gui.models import helper_process

    me = resource.getrusage(resource.RUSAGE_SELF)
    total = me.ru_utime + me.ru_stime
    pool = helper_process._POOL
    for pid in getattr(pool, "_processes", None) or {}:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            pass
    return total


def run_child(gt: Path, res: Path, root: Path = ROOT) -> dict[str, Any]:
    """One window run in a fresh process, its settings in a throwaway folder (never the user's)."""
    with tempfile.TemporaryDirectory() as settings:
        env = {**os.environ, "PYTHONPATH": str(root), "XDG_CONFIG_HOME": settings}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        t = time.time()
        cmd = [sys.executable, __file__, "--child", str(gt), str(res), repr(t), str(root)]
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=root, check=False)
    if done.returncode != 0:
        raise SystemExit(done.stdout + done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_cli(gt: Path, res: Path) -> tuple[float, float]:
    """The CLI's whole-process wall time and CPU seconds (user + system)."""
    import resource

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    cmd = [sys.executable, "-m", "vocviewer", "eval", str(gt), "--results", str(res)]
    subprocess.run(cmd, capture_output=True, check=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu


def mm(values: list[float], fmt: str = "{:.3f}") -> str:
    return f"{fmt.format(min(values))} / {fmt.format(statistics.median(values))}"


def main(argv: list[str] | None = None) -> None:
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "--child":
        gt, res, t, root = Path(sys.argv[2]), Path(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
        print(json.dumps(child(gt, res, t, Path(root))))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--compare", type=Path, help="another checkout: its window, interleaved")
    a = ap.parse_args(argv)
    gt, res = a.data / "instances_gt.json", a.data / "detections_bbox.json"
    runs, cli, cli_cpu, other = [], [], [], []
    for _ in range(max(a.runs, 3)):
        wall, cpu = run_cli(gt, res)
        cli.append(wall)
        cli_cpu.append(cpu)
        runs.append(run_child(gt, res))
        if a.compare is not None:
            other.append(run_child(gt, res, a.compare.resolve()))
    print(f"load average {os.getloadavg()[0]:.2f} (2 cores here); runs {len(runs)} (min / median)")
    evals = [r["eval_done_from_spawn"] for r in runs]
    idle = [r["idle_from_spawn"] for r in runs]
    print(f"{'CLI vocviewer eval, whole process (s)':<52}{mm(cli):>20}")
    print(f"{'window: evaluation done, from spawn (s)':<52}{mm(evals):>20}")
    print(f"{'window: every job done, from spawn (s)':<52}{mm(idle):>20}")
    stalls = [r["open_stall_ms"] for r in runs]
    print(f"{'window: longest stall, open (ms; target <= 100)':<52}{mm(stalls, '{:.0f}'):>20}")
    pairs = list(zip(evals, cli, strict=True))  # each window run against the CLI run before it
    print(f"{'window - CLI (s; target <= 0.5)':<52}{mm([e - c for e, c in pairs]):>20}")
    print(f"{'window / CLI':<52}{mm([e / c for e, c in pairs], '{:.2f}'):>20}")
    cpu = [r["cpu_at_eval"] for r in runs]
    print(f"{'CPU s to evaluation done: window + helper':<52}{mm(cpu):>20}")
    print(f"{'CPU s: CLI (whole process)':<52}{mm(cli_cpu):>20}")
    if other:
        was = [r["eval_done_from_spawn"] for r in other]
        print(f"{'  ' + str(a.compare) + ': evaluation done (s)':<52}{mm(was):>20}")
        print(
            f"{'  ' + str(a.compare) + ': window - CLI (s)':<52}{mm([w - c for w, c in zip(was, cli, strict=True)]):>20}"
        )
        was_cpu = [r.get("cpu_at_eval", float("nan")) for r in other]
        print(f"{'  ' + str(a.compare) + ': CPU s window + helper':<52}{mm(was_cpu):>20}")
        was = [r["open_stall_ms"] for r in other]
        print(f"{'  ' + str(a.compare) + ': longest stall, open (ms)':<52}{mm(was, '{:.0f}'):>20}")
        was = [r["change_stall_ms"] for r in other]
        print(
            f"{'  ' + str(a.compare) + ': longest stall, changes (ms)':<52}{mm(was, '{:.0f}'):>20}"
        )
    print(f"re-derived from stored evidence: {runs[0]['rederives']}")
    stalls = [r["change_stall_ms"] for r in runs]
    print(f"{'longest stall over the changes (ms; target <= 100)':<52}{mm(stalls, '{:.0f}'):>20}")
    for what, value in CHANGES:
        key = f"{what}={value}"
        walls = [r[key]["wall_ms"] for r in runs]
        gui = [r[key]["gui_cpu_ms"] for r in runs]
        if other:
            was = [r[key]["wall_ms"] for r in other]
            print(
                f"{'  ' + str(a.compare) + ': change ' + key + ' (ms)':<52}{mm(was, '{:.0f}'):>20}"
            )
        print(
            f"{'change ' + key + ': all panes (ms; target <= 50)':<52}{mm(walls, '{:.0f}'):>20}"
            f"   GUI-thread CPU {mm(gui, '{:.0f}')} ms"
        )


if __name__ == "__main__":
    main()
