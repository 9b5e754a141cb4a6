"""Benchmark: one malformed last line in a large VOC results file must cost (almost) nothing.

Writes a small VOC2007-layout dataset (5,000 images, one object each) and two detection files of
``--lines`` lines (default 10 million): a clean one and the same with its last line cut to five
fields. Each measurement runs in a fresh process (``os.wait4`` gives that process's own peak
RSS): ``read`` times ``read_voc_results`` inside the child; ``eval`` times the whole
``vocviewer eval --keep-going`` command from outside. Prints min and median of ``--runs`` runs
(default 3; clean and bad runs interleaved) and the bad/clean ratios, which issue 10 wants at
most 1.2. ``--root`` measures another checkout (e.g. the main branch, for before/after).

Usage: ``python bench/bench_results_txt.py [--lines 1000000] [--runs 3] [--mode read|eval]
[--root DIR]``.
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

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
N_IMAGES = 5000
BLOCK = 100_000  # lines generated once and repeated

CHILD = """
import json, sys, time
from vocviewer.families.voc.reader import read_voc, read_voc_results
ds = read_voc(sys.argv[1])
t = time.perf_counter()
r = read_voc_results(ds, [sys.argv[2]], image_set="test")
print(json.dumps({"seconds": time.perf_counter() - t, "rows": len(r.detections),
                  "problems": len(r.problems)}))
"""


def make_dataset(root: Path) -> Path:
    year = root / "VOC2007"
    (year / "Annotations").mkdir(parents=True)
    (year / "ImageSets" / "Main").mkdir(parents=True)
    ids = [f"{i:06d}" for i in range(1, N_IMAGES + 1)]
    for i in ids:
        (year / "Annotations" / f"{i}.xml").write_text(
            f"<annotation><filename>{i}.jpg</filename><size><width>500</width>"
            "<height>400</height></size><object><name>car</name><bndbox><xmin>10</xmin>"
            "<ymin>20</ymin><xmax>200</xmax><ymax>220</ymax></bndbox></object></annotation>"
        )
    (year / "ImageSets" / "Main" / "test.txt").write_text("".join(f"{i}\n" for i in ids))
    return year


def make_results(folder: Path, lines: int) -> tuple[Path, Path]:
    """``clean/comp4_det_test_car.txt`` and ``bad/...`` (last line with five fields)."""
    rng = np.random.default_rng(0)
    n = min(lines, BLOCK)
    img = rng.integers(1, N_IMAGES + 1, n)
    score = rng.random(n)
    xy = rng.integers(1, 250, (n, 2))
    wh = rng.integers(10, 250, (n, 2))
    block = "".join(
        f"{i:06d} {s:.6f} {x} {y} {x + w} {y + h}\n"
        for i, s, (x, y), (w, h) in zip(
            img.tolist(), score.tolist(), xy.tolist(), wh.tolist(), strict=True
        )
    )
    paths = []
    for kind in ("clean", "bad"):
        out = folder / kind / "comp4_det_test_car.txt"
        out.parent.mkdir(parents=True)
        with out.open("w") as f:
            for _ in range(lines // n):
                f.write(block)
            f.write("".join(block.splitlines(keepends=True)[: lines % n]))
        if kind == "bad":  # cut the last line to five fields
            data = out.read_bytes()
            cut = data.rstrip(b"\n").rsplit(b" ", 1)[0] + b"\n"
            out.write_bytes(cut)
        paths.append(out)
    return paths[0], paths[1]


def run_once(mode: str, year: Path, results: Path, root: Path) -> tuple[float, float]:
    """``(seconds, peak RSS in MB)`` of one fresh process running the code at ``root``."""
    env = dict(os.environ, PYTHONPATH=str(root))
    if mode == "read":
        cmd = [sys.executable, "-c", CHILD, str(year), str(results)]
    else:
        cmd = [
            sys.executable,
            "-m",
            "vocviewer",
            "eval",
            str(year),
            "--results",
            str(results),
            "--keep-going",
        ]
    start = time.perf_counter()
    proc = subprocess.Popen(  # cwd: not a checkout, so PYTHONPATH decides what is imported
        cmd, env=env, cwd=year.parent, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} ... failed (status {status}): {out[-500:]!r}")
    seconds = json.loads(out)["seconds"] if mode == "read" else wall
    return seconds, usage.ru_maxrss / 1024  # Linux: kilobytes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lines", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--mode", choices=("read", "eval"), default="read")
    ap.add_argument(
        "--root",
        type=Path,
        default=ROOT,
        help="checkout whose vocviewer is measured (default: this one)",
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        year = make_dataset(Path(tmp) / "data")
        clean, bad = make_results(Path(tmp) / "results", args.lines)
        print(
            f"{args.lines:,} lines, {clean.stat().st_size / 1e6:.0f} MB, mode {args.mode}, "
            f"{args.runs} fresh processes each"
        )
        stats = {}
        cases = (("clean", clean), ("one bad line", bad))
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in cases}
        for _ in range(args.runs):  # interleaved, so both see the same machine load
            for name, path in cases:
                runs[name].append(run_once(args.mode, year, path, args.root))
        for name, _ in cases:
            secs, rss = [r[0] for r in runs[name]], [r[1] for r in runs[name]]
            stats[name] = (statistics.median(secs), statistics.median(rss))
            print(
                f"{name:>13}: time min {min(secs):7.2f} s  median {statistics.median(secs):7.2f} s"
                f"   peak RSS min {min(rss):7.0f} MB  median {statistics.median(rss):7.0f} MB"
            )
        (t0, m0), (t1, m1) = stats["clean"], stats["one bad line"]
        print(f"bad/clean (medians): time {t1 / t0:.2f}x, peak RSS {m1 / m0:.2f}x (target <= 1.2x)")


if __name__ == "__main__":
    main()
