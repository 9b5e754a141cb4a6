"""Benchmark: a VisDrone-DET-val-sized split — load and evaluate times, kernel and numpy.

Generates a synthetic split on disk (by default VisDrone2019-DET-val's size: 548 images of
1360×765, ~73 GT rows and ~500 result rows per image, ignored regions in half the images;
detections jittered around the GT with realistic duplicates), then times ``read_visdrone`` +
``read_visdrone_results`` and ``evaluate_visdrone`` (10 classes × 10 thresholds × 4 caps) with
the compiled kernel (``vocviewer/kernel/_greedy.c``) and with ``VOCVIEWER_KERNEL=0``,
alternating, and checks both give identical evidence. Prints min and median over runs and the
machine's load.

Usage: ``python bench/bench_visdrone.py [--runs 3] [--images 548] [--objects 73] [--dets 500]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vocviewer import kernel  # noqa: E402
from vocviewer.families.visdrone.evaluate import VisDroneResult, evaluate_visdrone  # noqa: E402
from vocviewer.families.visdrone.reader import read_visdrone, read_visdrone_results  # noqa: E402

W, H = 1360, 765


def generate(
    root: Path, n_images: int, objects: int = 55, dets: int = 100, seed: int = 0
) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    split, res = root / "split", root / "res"
    (split / "annotations").mkdir(parents=True)
    (split / "images").mkdir()
    res.mkdir()
    Image.new("L", (W, H)).save(root / "blank.jpg")
    blank = (root / "blank.jpg").read_bytes()
    for i in range(n_images):
        n = int(rng.integers(objects // 3, 2 * objects - objects // 3))
        x = rng.integers(0, W - 60, n)
        y = rng.integers(0, H - 60, n)
        w = rng.integers(8, 60, n)
        h = rng.integers(8, 60, n)
        cat = rng.choice(
            np.arange(1, 12), n, p=[0.2, 0.1, 0.05, 0.3, 0.08, 0.05, 0.04, 0.03, 0.03, 0.1, 0.02]
        )
        score = (rng.random(n) < 0.9).astype(int)
        rows = [f"{x[k]},{y[k]},{w[k]},{h[k]},{score[k]},{cat[k]},0,0" for k in range(n)]
        if i % 2 == 0:
            for _ in range(int(rng.integers(1, 4))):
                rows.append(f"{rng.integers(0, W)},{rng.integers(0, H)},120,80,0,0,0,0")
            (split / "images" / f"{i:07d}.jpg").write_bytes(blank)
        (split / "annotations" / f"{i:07d}.txt").write_text("\n".join(rows) + "\n")
        m = int(rng.integers(dets * 3 // 5, dets * 7 // 5))
        src = rng.integers(0, n, m)
        jit = rng.normal(0, 3, (m, 4))
        dx = x[src] + jit[:, 0]
        dy = y[src] + jit[:, 1]
        dw = np.maximum(2, w[src] + jit[:, 2])
        dh = np.maximum(2, h[src] + jit[:, 3])
        dc = np.where(rng.random(m) < 0.85, cat[src], rng.integers(1, 12, m))
        ds = rng.random(m)
        lines = [
            f"{dx[k]:.2f},{dy[k]:.2f},{dw[k]:.2f},{dh[k]:.2f},{ds[k]:.4f},{dc[k]},-1,-1"
            for k in range(m)
        ]
        (res / f"{i:07d}.txt").write_text("\n".join(lines) + "\n")
    return split, res


def same(a: VisDroneResult, b: VisDroneResult) -> bool:
    """Every array of the two results equal, dtype included, and the same summary."""
    arrays = ("ap", "ar", "npos", "ndet", "gt_kept", "det_kept", "verdict", "matched_gt")
    return a.summary == b.summary and all(
        getattr(a, f).dtype == getattr(b, f).dtype
        and getattr(a, f).tobytes() == getattr(b, f).tobytes()
        for f in arrays
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--images", type=int, default=548)
    ap.add_argument("--objects", type=int, default=73, help="GT rows per image (mean)")
    ap.add_argument("--dets", type=int, default=500, help="result rows per image (mean)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        split, res = generate(Path(tmp), args.images, args.objects, args.dets)
        load: list[float] = []
        evals: dict[str, list[float]] = {"1": [], "0": []}
        last = {}
        for _ in range(args.runs):
            t0 = time.perf_counter()
            ds = read_visdrone(split)
            rs = read_visdrone_results(ds, [res])
            load.append(time.perf_counter() - t0)
            for path in ("1", "0"):
                os.environ["VOCVIEWER_KERNEL"] = path
                t1 = time.perf_counter()
                last[path] = evaluate_visdrone(ds, rs)
                evals[path].append(time.perf_counter() - t1)
        os.environ.pop("VOCVIEWER_KERNEL")
    print(f"images {len(ds.images)}  gt rows {len(ds.objects)}  result rows {len(rs.detections)}")
    print(f"load            min {min(load):.3f} s  median {statistics.median(load):.3f} s")
    for path, name in (("0", "numpy "), ("1", "kernel")):
        t = evals[path]
        print(f"evaluate {name} min {min(t):.3f} s  median {statistics.median(t):.3f} s")
    print(f"kernel built: {kernel.load('_greedy') is not None}  identical: {same(*last.values())}")
    print({k: round(v, 2) for k, v in last["1"].summary.items()})
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
