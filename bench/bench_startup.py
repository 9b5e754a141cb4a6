"""Start-up time of the window on the embedded demo, in fresh processes.

Spawns ``python -m vocviewer demo`` (Qt offscreen unless ``--platform``) with
``VOCVIEWER_STARTUP_PROBE`` set to the launch time; the CLI prints when the window's first frame
and its first image were painted, and the process is then killed. Prints min / median of ``-n``
runs (default 5) for both, and the import time of ``vocviewer.gui.window.app`` (``python -X
importtime``, top modules by cumulative time with ``--importtime``). The demo is written once
before timing (``vocviewer demo --no-gui``), so only start-up is measured.

    python bench/bench_startup.py [-n 5] [--importtime 15] [--python PY] [--platform xcb]
    python bench/bench_startup.py --bundle dist/vocviewer     # the PyInstaller app

The machine may be shared: compare ratios within one run, report min and median.
"""

from __future__ import annotations

import argparse
import os
import queue
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE = re.compile(r"startup probe: (\w+) shown after ([0-9.]+) s \(CPU ([0-9.]+) s\)")


def _env(platform: str) -> dict[str, str]:
    env = dict(os.environ, QT_QPA_PLATFORM=platform)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


def one_run(command: list[str], platform: str, timeout: float = 60.0) -> dict[str, float]:
    """Seconds from launch to the first painted frame (``window``) and image (``image``) of
    ``command`` (``python -m vocviewer demo`` or the bundle's ``vocviewer demo``), and the
    process's CPU seconds by then (``window CPU``, ``image CPU``)."""
    env = _env(platform)
    env["VOCVIEWER_STARTUP_PROBE"] = repr(time.time())
    proc = subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    assert proc.stderr is not None
    stderr = proc.stderr
    threading.Thread(target=lambda: [lines.put(ln) for ln in stderr], daemon=True).start()
    found: dict[str, float] = {}
    deadline = time.monotonic() + timeout
    try:
        while len(found) < 4 and time.monotonic() < deadline:
            try:
                line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            m = PROBE.search(line)
            if m:
                found[m.group(1)] = float(m.group(2))
                found[m.group(1) + " CPU"] = float(m.group(3))
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the window and its helper process
        proc.wait()
    if len(found) < 4:
        raise RuntimeError(f"no start-up probe from {' '.join(command)}: {found}")
    return found


def import_times(python: str, top: int) -> tuple[float, list[tuple[int, str]]]:
    """Total import time (s) of the window module and its ``top`` costliest imports (µs, name)."""
    out = subprocess.run(
        [python, "-X", "importtime", "-c", "import vocviewer.gui.window.app"],
        env=_env("offscreen"),
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    rows = []
    for line in out.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    total = next(us for us, name in rows if name.strip() == "vocviewer.gui.window.app")
    return total / 1e6, sorted(rows, reverse=True)[:top]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("-n", type=int, default=5, help="fresh processes to time (default 5)")
    p.add_argument("--python", default=sys.executable, help="the interpreter to run")
    p.add_argument("--platform", default="offscreen", help="QT_QPA_PLATFORM (default offscreen)")
    p.add_argument("--importtime", type=int, default=0, metavar="K", help="list K top imports")
    p.add_argument("--bundle", type=Path, help="time this PyInstaller bundle's executable instead")
    args = p.parse_args()

    command = [args.python, "-m", "vocviewer", "demo"]
    if args.bundle is not None:
        command = [str(args.bundle / "vocviewer"), "demo"]
    env = _env(args.platform)
    subprocess.run([*command, "--no-gui"], env=env, stdout=subprocess.DEVNULL, check=True)
    runs = [one_run(command, args.platform) for _ in range(args.n)]
    print(
        f"{' '.join(command)}: start-up, {args.n} fresh processes, QT_QPA_PLATFORM={args.platform}"
    )
    labels = {
        "window": "first window frame, wall",
        "image": "first image frame, wall",
        "window CPU": "CPU time by the window",
        "image CPU": "CPU time by the image",
    }
    for what, label in labels.items():
        times = [r[what] for r in runs]
        print(
            f"  {label:25}: min {min(times):.3f} s  median {statistics.median(times):.3f} s"
            f"  ({', '.join(f'{t:.3f}' for t in times)})"
        )
    if args.bundle is not None:
        return 0
    totals = [import_times(args.python, args.importtime) for _ in range(3)]
    best = min(totals)
    print(f"  import vocviewer.gui.window.app: min of 3 {best[0]:.3f} s")
    for us, name in best[1]:
        print(f"    {us / 1000:8.1f} ms  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
