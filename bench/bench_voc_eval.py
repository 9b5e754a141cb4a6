"""Benchmark: ``vocviewer eval`` on a VOC2007-test-sized detection set, whole process.

The workload is ``gen_workloads.py voc`` (4,952 annotation XMLs, VOC2007 test's class mix,
~198k detections in 20 ``comp4_det_test_<class>.txt``), written to ``--data`` if not there.
Each run is a fresh process (interpreter start, imports, reading, evaluating, printing), timed
on the wall clock and in CPU seconds (the child's user + system, less sensitive to other load);
the compiled kernels (``vocviewer.kernel``) and ``VOCVIEWER_KERNEL=0`` alternate, with two
floors measured in the same run: a bare interpreter, and the CLI's imports. Both paths'
outputs must be identical. Prints min / median of ``--runs`` (>= 3) and the load average.

    python bench/bench_voc_eval.py --data /tmp/voc-4952x40-s0 [--runs 5] [--compare CHECKOUT]

``--compare`` also times another checkout's ``vocviewer eval`` (its kernels built in place),
interleaved: a before / after in one run.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, bytes]:
    """Wall and CPU seconds of one fresh process, and its standard output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    cwd = env["PYTHONPATH"]  # ``python -m`` puts the working folder first on sys.path
    out = subprocess.run(cmd, env=env, cwd=cwd, check=True, capture_output=True).stdout
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, required=True, help="workload folder (made if absent)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--compare", type=Path, help="another checkout, measured interleaved")
    a = ap.parse_args(argv)
    if not (a.data / "VOC2007" / "Annotations").is_dir():
        gen = [PY, str(ROOT / "bench" / "gen_workloads.py"), "voc", "--out", str(a.data)]
        subprocess.run(gen, check=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its .pyc files
    ev = [PY, "-m", "vocviewer", "eval", str(a.data / "VOC2007"), "--results"]
    cases = {
        "interpreter (python -c pass)": ([PY, "-c", "pass"], {}),
        "CLI imports (import vocviewer.cli)": ([PY, "-c", "import vocviewer.cli"], {}),
        "vocviewer eval, kernels": ([*ev, str(a.data / "results")], {}),
        "vocviewer eval, VOCVIEWER_KERNEL=0": (
            [*ev, str(a.data / "results")],
            {"VOCVIEWER_KERNEL": "0"},
        ),
    }
    if a.compare is not None:
        other = {"PYTHONPATH": str(a.compare.resolve())}
        cases[f"vocviewer eval, kernels, {a.compare}"] = ([*ev, str(a.data / "results")], other)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
    outputs: dict[str, bytes] = {}
    for cmd, extra in cases.values():  # warm the page cache and the .pyc files
        run(cmd, {**env, **extra})
    for _ in range(max(a.runs, 3)):
        for name, (cmd, extra) in cases.items():
            wall, cpu, out = run(cmd, {**env, **extra})
            times[name].append((wall, cpu))
            outputs[name] = out
    kernel_out = outputs["vocviewer eval, kernels"]
    same = kernel_out == outputs["vocviewer eval, VOCVIEWER_KERNEL=0"]
    print(f"load average {os.getloadavg()[0]:.2f} (2 cores here); runs {max(a.runs, 3)}")
    width = max(len(name) for name in cases) + 1
    print(f"{'':<{width}} {'wall min':>9} {'median':>8} {'cpu min':>9} {'median':>8}")
    for name, got in times.items():
        wall, cpu = [w for w, _ in got], [c for _, c in got]
        print(
            f"{name:<{width}} {min(wall):8.3f}s {statistics.median(wall):7.3f}s "
            f"{min(cpu):8.3f}s {statistics.median(cpu):7.3f}s"
        )
    k = min(c for _, c in times["vocviewer eval, kernels"])
    n = min(c for _, c in times["vocviewer eval, VOCVIEWER_KERNEL=0"])
    print(f"numpy path / kernels (cpu min): {n / k:.2f}x; outputs identical: {same}")
    if not same:
        raise SystemExit("the two paths printed different results")


if __name__ == "__main__":
    main()
