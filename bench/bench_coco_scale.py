"""COCO bbox evaluation cost against the number of detections: whole CLI process, time and memory.

The val2017-sized ground truth of ``bench_coco`` (5,000 images, ~36,800 boxes) and results files
of ``--sizes`` million detections (default 0.5, 1, 2, 5 and 11: a ~1 GiB file), each written
once into ``--cache`` (deterministic): every GT box found a few times with jitter and high
scores, the rest background boxes with low scores, spread evenly over the images. Each size runs
``vocviewer eval GT --results R --task bbox`` in ``--runs`` fresh processes (``python -m
vocviewer`` with this checkout first on ``PYTHONPATH``); the table shows wall time (min /
median), time per million detections, CPU time (user + system: what a busy machine's wall time
hides), peak resident memory of the process (its own ``VmHWM``; ``ru_maxrss`` would carry the
parent's over ``fork`` + ``exec``) and its ratio to the file size. ``--sample`` also prints each
run's RSS timeline (sampled from /proc every 0.1 s); ``--phases`` the peak step by step for the
largest file.

    python bench/bench_coco_scale.py [--sizes 0.5,1,2,5,11] [--runs 3] [--sample] [--phases]
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

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_coco import make_workload

ROOT = Path(__file__).resolve().parent.parent
CHUNK = 200_000


def write_gt(path: Path, n_img: int) -> dict[str, Any]:
    gt, _ = make_workload(n_img)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(gt))
    return gt


def write_results(path: Path, gt: dict[str, Any], n: int, seed: int = 1) -> None:
    """``n`` box results as one JSON array, written in chunks (never all rows in memory as
    objects): ~30 % jittered GT boxes, the rest background, scores with 3 decimals."""
    rng = np.random.default_rng(seed)
    anns = gt["annotations"]
    g_img = np.array([a["image_id"] for a in anns], np.int64)
    g_cat = np.array([a["category_id"] for a in anns], np.int64)
    g_box = np.array([a["bbox"] for a in anns], np.float64)
    img_ids = np.array([im["id"] for im in gt["images"]], np.int64)
    cat_ids = np.array([c["id"] for c in gt["categories"]], np.int64)
    tmp = path.with_suffix(".part")
    with open(tmp, "w") as fh:
        fh.write("[")
        done = 0
        while done < n:
            m = min(CHUNK, n - done)
            hit = rng.random(m) < 0.3
            src = rng.integers(0, len(anns), m)
            img = np.where(hit, g_img[src], img_ids[(done + np.arange(m)) % len(img_ids)])
            cat = np.where(hit & (rng.random(m) > 0.1), g_cat[src], rng.choice(cat_ids, m))
            wh = np.minimum(np.exp(rng.uniform(2, 5.5, (m, 2))), [639, 479])
            box = np.hstack((rng.uniform(0, 1, (m, 2)) * ([640, 480] - wh), wh))
            jit = g_box[src] + rng.normal(0, 0.08, (m, 4)) * g_box[src][:, [2, 3, 2, 3]]
            jit[:, 2:] = np.maximum(jit[:, 2:], 1)
            box = np.where(hit[:, None], jit, box).round(2)
            score = np.where(hit, rng.beta(5, 2, m), rng.beta(1, 6, m)).round(3)
            rows = zip(img.tolist(), cat.tolist(), box.tolist(), score.tolist(), strict=True)
            text = ", ".join(
                f'{{"image_id": {i}, "category_id": {c}, "bbox": [{b[0]}, {b[1]}, {b[2]}, '
                f'{b[3]}], "score": {s}}}'
                for i, c, b, s in rows
            )
            fh.write((", " if done else "") + text)
            done += m
        fh.write("]")
    tmp.replace(path)


CHILD = (
    "import os, sys\n"
    "from bench_coco import own_peak_mb\n"
    "from vocviewer.cli import main\n"
    "rc = main(sys.argv[1:])\n"
    "peak = own_peak_mb()\n"
    "cpu = sum(os.times()[:2])\n"
    "sys.stderr.write(f'\\nPEAK_MB {peak} CPU_S {cpu}\\n')\n"
    "raise SystemExit(rc)\n"
)


def run_cli(ann: Path, res: Path, sample: bool) -> dict[str, Any]:
    """One ``vocviewer eval`` process (the CLI's ``main``, then its own peak, ``VmHWM``): wall
    seconds, peak RSS MB, the RSS timeline if ``sample``, and the AP line it printed."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join((str(ROOT), str(Path(__file__).parent))))
    cmd = [sys.executable, "-c", CHILD, "eval", str(ann), "--results", str(res), "--task", "bbox"]
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    timeline: list[tuple[float, float]] = []
    while sample and proc.poll() is None:
        try:
            with open(f"/proc/{proc.pid}/status") as fh:
                rss = next(int(x.split()[1]) for x in fh if x.startswith("VmRSS"))
            timeline.append((time.perf_counter() - t, rss / 1024))
        except (OSError, StopIteration):
            pass
        time.sleep(0.1)
    out, err = proc.communicate()
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"vocviewer eval {res} failed:\n{err.decode()[-2000:]}")
    peak_text, cpu_text = err.decode().rsplit("PEAK_MB", 1)[1].split("CPU_S")
    peak, cpu = float(peak_text), float(cpu_text)
    ap = next((ln for ln in out.decode().splitlines() if "Average Precision" in ln), "")
    return {"wall": wall, "cpu": cpu, "peak": peak, "timeline": timeline, "ap": ap.strip()}


PHASES = """
import gc, json, resource, sys, time
from pathlib import Path
import numpy as np
from vocviewer.families.coco.evaluate import CocoParams, evaluate_coco
from vocviewer.families.coco import results_fast as fast
from vocviewer.formats import json_input
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results

def mark(what, t):
    hwm = rss = 0.0
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(("VmHWM", "VmRSS")):
                mb = int(line.split()[1]) / 1024
                hwm, rss = (mb, rss) if line.startswith("VmHWM") else (hwm, mb)
    print(json.dumps([what, time.perf_counter() - t, hwm, rss]), flush=True)
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")  # the high-water mark starts again from the current RSS
    except OSError:
        pass
    return time.perf_counter()

ann, res = Path(sys.argv[1]), Path(sys.argv[2])
t = mark("imports", time.perf_counter())
ds = read_coco(ann, masks=False)
t = mark("read ground truth", t)
data = json_input.read_json_bytes(res)
t = mark("read bytes", t)
cols = fast.box_columns(data)
t = mark("columns (msgspec, chunks; bytes held)", t)
del data, cols
t = mark("drop bytes and columns", t)
rs = read_coco_results(ds, res, task="bbox")
t = mark("read_coco_results (all of it)", t)
r = evaluate_coco(ds, rs, CocoParams.for_task("bbox"))
t = mark("evaluate_coco", t)
"""


def phases(ann: Path, res: Path) -> None:
    """Peak and current RSS of each step of the CLI's bbox path, in one fresh process."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join((str(ROOT), str(Path(__file__).parent))))
    done = subprocess.run(
        [sys.executable, "-c", PHASES, str(ann), str(res)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    size = res.stat().st_size / 2**20
    print(f"{res.name} ({size:.0f} MB), step by step:")
    print(f"  {'step':<38}{'s':>7}{'peak MB':>9}{'after MB':>10}{'peak / file':>13}")
    for line in done.stdout.splitlines():
        what, sec, hwm, rss = json.loads(line)
        print(f"  {what:<38}{sec:>7.2f}{hwm:>9.0f}{rss:>10.0f}{hwm / size:>13.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument(
        "--sizes", default="0.5,1,2,5,11", help="millions of detections (11M: a ~1 GiB file)"
    )
    ap.add_argument("--runs", type=int, default=3, help="fresh processes per size")
    ap.add_argument("--images", type=int, default=5000)
    ap.add_argument("--sample", action="store_true", help="print RSS timelines")
    ap.add_argument("--phases", action="store_true", help="peak RSS step by step, largest size")
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "bench_coco")
    args = ap.parse_args()
    base = args.cache / f"scale_{args.images}"
    ann = base / "gt.json"
    gt = json.loads(ann.read_text()) if ann.exists() else write_gt(ann, args.images)
    sizes = [float(x) for x in args.sizes.split(",")]
    files = []
    for m in sizes:
        res = base / f"dt_{m:g}M.json"
        if not res.exists():
            t = time.perf_counter()
            write_results(res, gt, round(m * 1e6))
            print(f"wrote {res} in {time.perf_counter() - t:.0f} s", flush=True)
        files.append(res)
    print(
        f"bbox: {args.images} images, {len(gt['annotations'])} GT; "
        f"vocviewer eval, whole process, {args.runs} fresh process(es) per size, interleaved"
    )
    del gt
    out: dict[Path, list[dict[str, Any]]] = {}
    for _ in range(args.runs):
        for res in files:
            out.setdefault(res, []).append(run_cli(ann, res, args.sample))
    if args.phases:
        phases(ann, files[-1])
    print(
        f"{'detections':>11}{'file MB':>9}{'wall s min':>12}{'median':>8}{'s / M min':>11}"
        f"{'CPU s min':>11}{'peak MB min':>13}{'median':>8}{'peak / file':>13}"
    )
    for m, res in zip(sizes, files, strict=True):
        rs = out.get(res)
        if not rs:
            continue
        wall, peak = [r["wall"] for r in rs], [r["peak"] for r in rs]
        size = res.stat().st_size / 2**20
        print(
            f"{m:>10g}M{size:>9.0f}{min(wall):>12.2f}{statistics.median(wall):>8.2f}"
            f"{min(wall) / m:>11.2f}{min(r['cpu'] for r in rs):>11.2f}{min(peak):>13.0f}"
            f"{statistics.median(peak):>8.0f}{statistics.median(peak) / size:>13.2f}"
        )
    print(f"load average (1, 5, 15 min) at the end: {os.getloadavg()}")
    for res in files:
        for r in out.get(res, [])[:1]:
            print(f"{res.name}: {r['ap']}")
        if args.sample:
            for r in out.get(res, []):
                steps = "  ".join(f"{t:.1f}s {mb:.0f}" for t, mb in r["timeline"][::5])
                print(f"  RSS MB every 0.5 s: {steps}")


if __name__ == "__main__":
    main()
