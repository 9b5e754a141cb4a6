"""Benchmark: an ILSVRC-DET-val-sized split — ``evaluate_ilsvrc_det`` on the kernel and on numpy.

Generates a synthetic split on disk shaped like ILSVRC2014 DET val (20,121 images, 200 classes,
~2.7 objects per image of widely varying size, a blacklist of ~1 % of (image, class) pairs) and a
submission of ``--dets`` detections per image (most jittered around an object, some of another
class, some anywhere, with tied confidences), reads both once, then times the evaluation with the
compiled kernel (``vocviewer/kernel/_greedy.c``) and with ``VOCVIEWER_KERNEL=0``, alternating,
and checks that both give identical verdicts and AP. Prints min and median over runs.

Usage: ``python bench/bench_ilsvrc.py [--runs 3] [--images 20121] [--dets 25]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kernel_paths import both_paths, print_paths  # noqa: E402

from vocviewer import kernel  # noqa: E402
from vocviewer.families.ilsvrc.evaluate import evaluate_ilsvrc_det  # noqa: E402
from vocviewer.families.ilsvrc.reader import (  # noqa: E402
    read_ilsvrc_det,
    read_ilsvrc_det_results,
)

N_CLASSES = 200


def generate(root: Path, n_images: int, dets: int, seed: int = 0) -> tuple[Path, Path, Path]:
    """Write the split; returns (GT folder, devkit root, submission)."""
    rng = np.random.default_rng(seed)
    gt, data = root / "gt", root / "devkit" / "data"
    gt.mkdir(parents=True)
    (data / "det_lists").mkdir(parents=True)
    wnid = [f"n{k:08d}" for k in range(N_CLASSES)]
    (data / "meta_det.txt").write_text(
        "".join(f"{k + 1} {w} class{k + 1}\n" for k, w in enumerate(wnid))
    )
    (data / "det_lists" / "val.txt").write_text(
        "".join(f"img{i:06d} {i + 1}\n" for i in range(n_images))
    )
    black, lines = [], []
    for i in range(n_images):
        width, height = int(rng.integers(200, 500)), int(rng.integers(200, 500))
        n = int(rng.choice([1, 1, 1, 2, 2, 3, 4, 6, 8]))
        cls = rng.integers(0, N_CLASSES, n)
        side = np.exp(rng.uniform(np.log(8), np.log(min(width, height) - 2), (n, 2)))
        x1 = rng.uniform(0, width - side[:, 0])
        y1 = rng.uniform(0, height - side[:, 1])
        boxes = np.round(np.column_stack([x1, y1, x1 + side[:, 0], y1 + side[:, 1]]))
        body = "".join(
            f"<object><name>{wnid[c]}</name><bndbox><xmin>{b[0]:.0f}</xmin>"
            f"<ymin>{b[1]:.0f}</ymin><xmax>{b[2]:.0f}</xmax><ymax>{b[3]:.0f}</ymax></bndbox>"
            "</object>"
            for c, b in zip(cls, boxes, strict=True)
        )
        (gt / f"img{i:06d}.xml").write_text(
            f"<annotation><filename>img{i:06d}</filename><size><width>{width}</width>"
            f"<height>{height}</height></size>{body}</annotation>"
        )
        if rng.random() < 0.01:
            black.append(f"{i + 1} {wnid[int(cls[0])]}\n")
        m = int(rng.integers(dets // 2, dets * 3 // 2 + 1))
        src = rng.integers(0, n, m)
        size = boxes[src, 2:] - boxes[src, :2] + 1
        jit = rng.normal(0, 0.08, (m, 4)) * np.column_stack([size, size])
        d = boxes[src] + jit
        far = rng.random(m) < 0.3  # anywhere in the image
        d[far, 0] = rng.uniform(0, width - 20, int(far.sum()))
        d[far, 1] = rng.uniform(0, height - 20, int(far.sum()))
        d[far, 2] = d[far, 0] + rng.uniform(5, 200, int(far.sum()))
        d[far, 3] = d[far, 1] + rng.uniform(5, 200, int(far.sum()))
        label = np.where(rng.random(m) < 0.8, cls[src], rng.integers(0, N_CLASSES, m)) + 1
        score = np.round(rng.random(m), 3)  # ties
        lines.extend(
            f"{i + 1} {label[k]} {score[k]:.3f} {d[k, 0]:.1f} {d[k, 1]:.1f} {d[k, 2]:.1f} "
            f"{d[k, 3]:.1f}\n"
            for k in range(m)
        )
    (data / "ILSVRC2014_det_validation_blacklist.txt").write_text("".join(black))
    pred = root / "pred.txt"
    pred.write_text("".join(lines))
    return gt, root / "devkit", pred


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--images", type=int, default=20121)
    ap.add_argument("--dets", type=int, default=25, help="detections per image (mean)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        gt, devkit, pred = generate(Path(tmp), args.images, args.dets)
        t0 = time.perf_counter()
        ds = read_ilsvrc_det(gt, devkit)
        rs = read_ilsvrc_det_results(ds, pred)
        load = time.perf_counter() - t0
    print(f"images {len(ds.images)}  objects {len(ds.objects)}  detections {len(rs.detections)}")
    print(f"load {load:.2f} s (once); kernel built: {kernel.load('_greedy') is not None}")
    times, last = both_paths(lambda: evaluate_ilsvrc_det(ds, rs), args.runs)
    print_paths(times)
    a, b = last["1"], last["0"]
    same = (
        np.array_equal(a.verdict, b.verdict)
        and np.array_equal(a.matched_gt, b.matched_gt)
        and a.ap.tobytes() == b.ap.tobytes()
    )
    print(f"identical: {same}  mAP {a.mean_ap:.6f}  load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
