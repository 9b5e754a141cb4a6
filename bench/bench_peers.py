"""Every COCO / LVIS evaluator side by side, whole process, files to stats, in one run.

Workloads come from the shared realistic generator (``../shared/bench/gen_coco_workload.py``:
COCO val2017's image sizes, class and size mix, polygon ground truth on every object, ~1 %
crowd RLE) and, for keypoints and LVIS, from ``gen_workloads.py`` built on its pieces; each is
written once into ``--workdir`` (outside the repository) and reused:

    bbox        5,000 images x 100 boxes (val2017 scale, 500k detections)
    bbox-2x     5,000 x 200 (1M);  bbox-4x  5,000 x 400 (2M)
    segm        2,000 x 100 compressed-RLE masks;  segm-full  5,000 x 100
    keypoints   5,000 images, COCO person keypoints, 20 results per image
    lvis        2,000 images, 1,203 categories, 300 box results per image, federated fields

Evaluators: ``vocviewer-cli`` (``python -m vocviewer eval GT --results R --task T --json``),
``vocviewer-api`` (``vocviewer.cocoapi``, the pycocotools drop-in: COCO + loadRes + COCOeval
evaluate / accumulate / summarize), ``hotcoco``, ``ultrafast`` (ultrafast-pycocotools),
``vernier`` (native ``Evaluator``, ``parity_mode="strict"``), ``faster-coco-eval``,
``pycocotools`` (the reference for COCO) and ``lvis`` (the reference for LVIS); the peers in
their LVIS modes on the LVIS workload. A peer that is not installed is skipped with a line
saying so (``pip install -e '.[bench]'`` installs them all).

Every measurement is a FRESH process (``bench/peer_child.py``, or the CLI itself), repeated
``--repeat`` times with the evaluators interleaved, so a busy machine slows them alike. The
parent (standard library only, a few MB) times each child from spawn to exit and reads the
child's own resources with ``os.wait4``: CPU (user + system) and peak RSS (``ru_maxrss``: the
child's high-water mark; it would include the parent's RSS at spawn were that larger, which it
never is here). The table gives min and median wall time, median CPU, median peak RSS, the
in-process evaluate + accumulate + summarize time of the API evaluators (median, min, and
the min's ratio to the fastest peer's), the ratios to the fastest peer (not vocviewer) of the same workload, and each evaluator's largest difference from
the reference's summary numbers (12 for COCO, 10 keypoints, 13 LVIS); one that differs by more
than 1e-12 is flagged DIFFERS. The load average is printed before and after.

``--profile`` instead splits vocviewer's own time on each workload (``profile_child.py``):
interpreter start, imports, reading the JSON bytes, reading the ground truth and the results,
prepare / IoU / matching / accumulation (or the compiled kernel doing all three) inside the evaluation, and the rest.

    python bench/bench_peers.py [--workloads bbox,segm] [--repeat 3] [--evaluators ...]
        [--workdir DIR] [--json OUT] [--images N] [--slow-repeat N] [--profile]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
GENERATOR = ROOT.parent / "shared" / "bench" / "gen_coco_workload.py"
TOLERANCE = 1e-12


@dataclass(frozen=True)
class Workload:
    kind: str  # coco, keypoints, lvis
    images: int
    per_image: int
    iou: str  # bbox, segm, keypoints

    @property
    def protocol(self) -> str:
        return "lvis" if self.kind == "lvis" else "coco"


WORKLOADS = {
    "bbox": Workload("coco", 5000, 100, "bbox"),
    "bbox-2x": Workload("coco", 5000, 200, "bbox"),
    "bbox-4x": Workload("coco", 5000, 400, "bbox"),
    "segm": Workload("coco", 2000, 100, "segm"),
    "segm-full": Workload("coco", 5000, 100, "segm"),
    "keypoints": Workload("keypoints", 5000, 20, "keypoints"),
    "lvis": Workload("lvis", 2000, 300, "bbox"),
}
# evaluator -> (distribution that must be installed, protocols it runs)
EVALUATORS = {
    "vocviewer-cli": (None, ("coco", "lvis")),
    "vocviewer-api": (None, ("coco",)),
    "hotcoco": ("hotcoco", ("coco", "lvis")),
    "ultrafast": ("ultrafast-pycocotools", ("coco", "lvis")),
    "vernier": ("vernier", ("coco", "lvis")),
    "faster-coco-eval": ("faster-coco-eval", ("coco", "lvis")),
    "pycocotools": ("pycocotools", ("coco",)),
    "lvis": ("lvis", ("lvis",)),
}
REFERENCE = {"coco": "pycocotools", "lvis": "lvis"}
SLOW = ("pycocotools", "lvis")  # the pure-Python references: --slow-repeat caps their runs


def installed(dist: str | None) -> str | None:
    """The installed version of ``dist`` (None: not installed); vocviewer's own: 'this tree'."""
    if dist is None:
        return "this tree"
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def files(
    name: str, w: Workload, workdir: Path, images: int | None, seed: int
) -> tuple[Path, Path]:
    """The workload's ground truth and results, generated once (in a child: the generators hold
    every row in memory) into ``workdir``."""
    n = images or w.images
    if w.kind == "coco":
        d = workdir / f"coco-{n}x{w.per_image}-s{seed}"
        gt, res = d / "instances_gt.json", d / f"detections_{w.iou}.json"
        cmd = [str(GENERATOR), "--images", str(n), "--dets-per-image", str(w.per_image)]
        cmd += ["--seed", str(seed), "--out", str(d)] + (["--segm"] if w.iou == "segm" else [])
    else:
        d = workdir / f"{w.kind}-{n}x{w.per_image}-s{seed}"
        gt, res = d / "gt.json", d / "results.json"
        cmd = [str(HERE / "gen_workloads.py"), w.kind, "--images", str(n)]
        cmd += ["--dets-per-image", str(w.per_image), "--seed", str(seed), "--out", str(d)]
    if not (gt.exists() and res.exists()):
        if w.kind == "coco" and not GENERATOR.exists():
            raise SystemExit(f"the shared generator is missing: {GENERATOR}")
        print(f"generating {name} into {d} ...", flush=True)
        t = time.perf_counter()
        subprocess.run([sys.executable, *cmd], check=True, stdout=subprocess.DEVNULL)
        print(f"  done in {time.perf_counter() - t:.0f} s", flush=True)
    return gt, res


def scratch(workdir: Path) -> Path:
    """A new empty file in ``workdir`` for a child to write its numbers into."""
    fd, name = tempfile.mkstemp(suffix=".json", dir=workdir)
    os.close(fd)
    return Path(name)


def child_env(vocviewer_path: Path) -> dict[str, str]:
    """The children's environment: vocviewer from ``vocviewer_path``, and Python's bytecode
    cache on (as for any installed package; ``PYTHONDONTWRITEBYTECODE`` would make every
    process compile vocviewer's modules again)."""
    path = os.pathsep.join(p for p in (str(vocviewer_path), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": path}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def spawn(cmd: list[str], env: dict[str, str], timeout: float) -> dict[str, Any]:
    """Run ``cmd`` to its end: wall seconds, the child's own CPU seconds and peak RSS (MB) from
    ``os.wait4``, its exit status and the tail of its standard error."""
    with tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=err)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        tail = err.read().decode(errors="replace")[-1500:]
    return {
        "wall": wall,
        "cpu": ru.ru_utime + ru.ru_stime,
        "peak_mb": ru.ru_maxrss / 1024,  # KiB on Linux
        "rc": proc.returncode,
        "stderr": tail,
    }


def measure(evaluator: str, w: Workload, gt: Path, res: Path, args: Any) -> dict[str, Any]:
    """One fresh-process measurement of ``evaluator``: ``spawn``'s numbers plus the summary
    numbers (``stats``) and, for the API evaluators, the phases the child timed."""
    out = scratch(args.workdir)
    try:
        if evaluator == "vocviewer-cli":
            # -P: not the current folder first on the path (run from a checkout, ``-m`` would
            # import its vocviewer, not ``--vocviewer-path``'s)
            cmd = [sys.executable, "-P", "-m", "vocviewer", "eval", str(gt), "--results", str(res)]
            cmd += ["--task", w.iou, "--json", str(out)]
        else:
            cmd = [sys.executable, str(HERE / "peer_child.py"), evaluator, w.protocol, w.iou]
            cmd += [str(gt), str(res), str(out), repr(time.time())]
        r = spawn(cmd, child_env(args.vocviewer_path), args.timeout)
        text = out.read_text() if r["rc"] == 0 else ""
    finally:
        out.unlink(missing_ok=True)
    if text:
        data = json.loads(text)
        if evaluator == "vocviewer-cli":
            r["stats"] = [float("nan") if v is None else v for v in data["summary"].values()]
        else:
            r["stats"], r["phases"] = data["stats"], data["phases"]
    return r


def agreement(stats: list[float] | None, ref: list[float] | None) -> float | None:
    """Largest |difference| of the summary numbers (inf: missing or of another length)."""
    if stats is None or ref is None:
        return None
    if len(stats) != len(ref):
        return float("inf")
    diffs = [
        abs(a - b) if a == a and b == b else float("inf") for a, b in zip(stats, ref, strict=True)
    ]
    return max(diffs, default=0.0)


def summarize(
    name: str, runs: dict[str, list[dict[str, Any]]], protocol: str
) -> list[dict[str, Any]]:
    """One row per evaluator: min / median wall, CPU, peak RSS, ratios, agreement."""
    ok = {e: [r for r in rs if r["rc"] == 0] for e, rs in runs.items()}
    ref_runs = ok.get(REFERENCE[protocol]) or []
    ref = ref_runs[0].get("stats") if ref_runs else None
    rows = []
    for e, rs in ok.items():
        if not rs:
            continue
        wall = [r["wall"] for r in rs]
        ev = [r["phases"]["evaluate"] for r in rs if "phases" in r]
        rows.append(
            {
                "workload": name,
                "evaluator": e,
                "n": len(rs),
                "wall_min": min(wall),
                "wall_median": statistics.median(wall),
                "cpu_median": statistics.median(r["cpu"] for r in rs),
                "peak_mb_median": statistics.median(r["peak_mb"] for r in rs),
                "eval_median": statistics.median(ev) if ev else None,
                "eval_min": min(ev) if ev else None,
                "reference": e == REFERENCE[protocol],
                "max_diff": None
                if e == REFERENCE[protocol]
                else agreement(rs[0].get("stats"), ref),
            }
        )
    peers = [r for r in rows if not r["evaluator"].startswith("vocviewer")]
    if peers:
        best = min(peers, key=lambda r: r["wall_min"])
        best_med = min(r["wall_median"] for r in peers)
        for r in rows:
            r["fastest_peer"] = best["evaluator"]
            r["ratio_min"] = r["wall_min"] / best["wall_min"]
            r["ratio_median"] = r["wall_median"] / best_med
    timed = [r["eval_min"] for r in peers if r["eval_min"] is not None]
    for r in rows:  # the in-process evaluation against the fastest peer's (min over runs)
        if timed and r["eval_min"] is not None:
            r["eval_ratio"] = r["eval_min"] / min(timed)
    return rows


def print_table(rows: list[dict[str, Any]]) -> None:
    head = f"{'evaluator':<17}{'n':>3}{'wall min':>10}{'median':>9}{'CPU med':>9}{'peak MB':>9}"
    head += f"{'eval s':>8}{'min':>6}{'x':>7}{'x fastest min':>15}{'median':>8}{'max|diff|':>11}"
    print(head)
    for r in sorted(rows, key=lambda r: r["wall_min"]):
        ev = f"{r['eval_median']:.2f}" if r["eval_median"] is not None else "-"
        ev += f"{r['eval_min']:>6.2f}" if r.get("eval_min") is not None else f"{'-':>6}"
        ev += f"{r['eval_ratio']:>6.2f}x" if "eval_ratio" in r else f"{'-':>7}"
        d = r["max_diff"]
        diff = "reference" if r["reference"] else "no reference run" if d is None else f"{d:.1e}"
        diff += " DIFFERS" if d is not None and d > TOLERANCE else ""
        ratio = f"{r['ratio_min']:.2f}x" if "ratio_min" in r else "-"
        med = f"{r['ratio_median']:.2f}x" if "ratio_median" in r else "-"
        print(
            f"{r['evaluator']:<17}{r['n']:>3}{r['wall_min']:>10.2f}{r['wall_median']:>9.2f}"
            f"{r['cpu_median']:>9.2f}{r['peak_mb_median']:>9.0f}{ev:>21}{ratio:>15}{med:>8}"
            f"  {diff}"
        )
    if rows and "fastest_peer" in rows[0]:
        print(f"(ratios: wall time / {rows[0]['fastest_peer']}'s, the fastest peer by min;")
        print(" eval s: in-process evaluate + accumulate + summarize, median, min, x the fastest")
        print(" peer's min)")


def run_peers(args: Any, workloads: list[str], evaluators: list[str]) -> dict[str, Any]:
    report: dict[str, Any] = {"workloads": {}}
    todo = {}
    for name in workloads:
        w = WORKLOADS[name]
        gt, res = files(name, w, args.workdir, args.images, args.seed)
        evs = [e for e in evaluators if w.protocol in EVALUATORS[e][1]]
        for e in set(evaluators) - set(evs):
            print(f"{name}: {e} has no {w.protocol} mode: not run")
        todo[name] = (w, gt, res, evs)
        sizes = f"{gt.stat().st_size / 2**20:.1f} MB + {res.stat().st_size / 2**20:.1f} MB"
        report["workloads"][name] = {"gt": str(gt), "results": str(res), "sizes": sizes}
    report["load_before"] = os.getloadavg()
    print(f"load average (1, 5, 15 min) before: {report['load_before']}", flush=True)
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {n: {} for n in todo}
    for rep in range(args.repeat):
        for name, (w, gt, res, evs) in todo.items():
            for e in evs:
                if e in SLOW and rep >= args.slow_repeat:
                    continue
                r = measure(e, w, gt, res, args)
                runs[name].setdefault(e, []).append(r)
                state = "ok" if r["rc"] == 0 else f"FAILED (exit {r['rc']})"
                print(
                    f"  [{rep + 1}/{args.repeat}] {name:<10} {e:<17} {r['wall']:7.2f} s "
                    f"{r['peak_mb']:6.0f} MB  {state}  (load {os.getloadavg()[0]:.2f})",
                    flush=True,
                )
                if r["rc"] != 0 and rep == 0:
                    print("    " + r["stderr"].strip().replace("\n", "\n    "))
    report["load_after"] = os.getloadavg()
    report["rows"] = []
    for name, (w, _, _, _) in todo.items():
        rows = summarize(name, runs[name], w.protocol)
        n = f"{args.images or w.images} images x {w.per_image}"
        print(f"\n== {name}: {w.iou}, {w.protocol}, {n}; {report['workloads'][name]['sizes']}")
        print_table(rows)
        for e, rs in runs[name].items():
            if not any(r["rc"] == 0 for r in rs):
                print(f"{e}: every run failed")
        report["rows"] += rows
    report["runs"] = runs
    print(f"\nload average (1, 5, 15 min) before: {report['load_before']}")
    print(f"load average (1, 5, 15 min) after:  {report['load_after']}")
    return report


PROFILE_ORDER = ("start", "import", "bytes", "read_gt", "read_results", "prepare", "IoU")
PROFILE_ORDER += ("matching", "accumulation", "kernel", "evaluate_other", "summary")


def run_profile(args: Any, workloads: list[str]) -> dict[str, Any]:
    """vocviewer's own time on each workload, phase by phase (min and median over repeats),
    beside the CLI's whole-process wall time measured in the same run."""
    report: dict[str, Any] = {"load_before": os.getloadavg(), "profile": {}}
    env = child_env(args.vocviewer_path)
    for name in workloads:
        w = WORKLOADS[name]
        gt, res = files(name, w, args.workdir, args.images, args.seed)
        phases: dict[str, list[float]] = {}
        cli, bare, missing = [], [], set()
        for _ in range(args.repeat):
            bare.append(spawn([sys.executable, "-c", "pass"], env, args.timeout)["wall"])
            out = scratch(args.workdir)
            cmd = [sys.executable, str(HERE / "profile_child.py"), w.protocol, w.iou]
            r = spawn([*cmd, str(gt), str(res), str(out), repr(time.time())], env, args.timeout)
            if r["rc"] != 0:
                print(f"{name}: profile failed:\n{r['stderr']}")
                out.unlink()
                break
            data = json.loads(out.read_text())
            out.unlink()
            missing.update(data["missing"])
            for k, v in data["phases"].items():
                phases.setdefault(k, []).append(v)
            cli.append(measure("vocviewer-cli", w, gt, res, args)["wall"])
        if not phases:
            continue
        mb = (gt.stat().st_size + res.stat().st_size) / 2**20
        print(f"\n== {name}: vocviewer's time, phase by phase (s; {mb:.0f} MB of JSON)")
        print(f"{'phase':<16}{'min':>8}{'median':>8}")
        print(f"{'python -c pass':<16}{min(bare):>8.3f}{statistics.median(bare):>8.3f}")
        for k in PROFILE_ORDER:
            if k in phases:
                print(f"{k:<16}{min(phases[k]):>8.3f}{statistics.median(phases[k]):>8.3f}")
        total = [sum(v[i] for v in phases.values()) for i in range(len(phases["start"]))]
        print(f"{'sum of phases':<16}{min(total):>8.3f}{statistics.median(total):>8.3f}")
        print(f"{'CLI, whole':<16}{min(cli):>8.3f}{statistics.median(cli):>8.3f}")
        for m in sorted(missing):
            print(f"(not found, so not split out: {m})")
        report["profile"][name] = {"phases": phases, "python_c_pass": bare, "cli": cli}
    report["load_after"] = os.getloadavg()
    print(f"\nload average before: {report['load_before']}; after: {report['load_after']}")
    return report


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workloads", default="bbox,segm", help=",".join(WORKLOADS))
    ap.add_argument("--evaluators", default=",".join(EVALUATORS))
    ap.add_argument("--repeat", type=int, default=3, help="fresh processes per evaluator")
    ap.add_argument(
        "--slow-repeat", type=int, help="runs of pycocotools / lvis (default: --repeat)"
    )
    ap.add_argument("--images", type=int, help="override every workload's image count")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "bench_peers")
    ap.add_argument("--vocviewer-path", type=Path, default=ROOT, help="the tree to measure")
    ap.add_argument("--timeout", type=float, default=3600.0, help="seconds per process")
    ap.add_argument("--json", type=Path, help="write every measurement here")
    ap.add_argument("--profile", action="store_true", help="split vocviewer's own time")
    args = ap.parse_args(argv)
    args.slow_repeat = args.repeat if args.slow_repeat is None else args.slow_repeat
    args.workdir.mkdir(parents=True, exist_ok=True)
    workloads = [w for w in args.workloads.split(",") if w]
    unknown = [w for w in workloads if w not in WORKLOADS]
    if unknown:
        ap.error(f"unknown workload(s) {unknown}; known: {', '.join(WORKLOADS)}")
    print(f"{platform.node()}: {os.cpu_count()} CPUs, Python {platform.python_version()}")
    if args.profile:
        report = run_profile(args, workloads)
    else:
        evaluators = []
        for e in (e for e in args.evaluators.split(",") if e):
            if e not in EVALUATORS:
                ap.error(f"unknown evaluator {e}; known: {', '.join(EVALUATORS)}")
            version = installed(EVALUATORS[e][0])
            if version is None:
                print(f"{e}: not installed (pip install -e '.[bench]'): skipped")
            else:
                print(f"{e}: {version}")
                evaluators.append(e)
        report = run_peers(args, workloads, evaluators)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str))


if __name__ == "__main__":
    main()
