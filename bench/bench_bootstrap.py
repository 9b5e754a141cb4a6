"""Benchmark: 1,000 bootstrap replicates of a VOC2007-test-sized mAP (target < 30 s on 2 cores).

Generates in memory, with a fixed seed, a VOC-like test set of 4,952 images (~12,000 objects,
20 classes) and 200,000 detections (``tests/evaluation/synthetic_voc.py``), evaluates it with
``evaluate_voc_det`` (11-point, as VOC2007), then times ``bootstrap`` over images: per-class AP and
mAP for every replicate. Prints min and median of the runs, replicates per second and the peak
memory (process maximum RSS, and the bootstrap's own peak allocation by
``tracemalloc``). Usage: ``python bench/bench_bootstrap.py [--runs 3] [--replicates N] [--rule R]
[--sets S] [--bands]``.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.evaluation.synthetic_voc import make_synthetic  # noqa: E402
from vocviewer.evaluation.bootstrap import bootstrap  # noqa: E402
from vocviewer.families.voc.bootstrap import voc_det_evidence  # noqa: E402
from vocviewer.families.voc.evaluate import evaluate_voc_det  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--replicates", type=int, default=1000)
    ap.add_argument("--rule", choices=("11point", "allpoints"), default="11point")
    ap.add_argument("--sets", type=int, default=1, help="result sets compared (paired)")
    ap.add_argument("--bands", action="store_true", help="also keep PR bands (101 recalls)")
    args = ap.parse_args()

    t0 = time.perf_counter()
    evidence = []
    for s in range(args.sets):
        # the same images (seed 0) for every set; set s is a slightly weaker detector
        ds, rs = make_synthetic(4952, 200_000, seed=0, year=2007, quality=0.5 - 0.05 * s)
        ev = evaluate_voc_det(ds, rs, image_set="test", ap_rule=args.rule)
        evidence.append(voc_det_evidence(ds, ev, f"set{s}"))
    prep = time.perf_counter() - t0
    n_det = sum(len(c.unit) for c in evidence[0].classes)
    n_pos = sum(c.npos for c in evidence[0].classes)
    print(
        f"data + evaluation: {prep:.2f} s; {evidence[0].n_units} images, {n_pos} positives, "
        f"{n_det} detections, {args.sets} result set(s), AP rule {args.rule}"
    )

    grid = np.linspace(0, 1, 101) if args.bands else None
    times = []
    result = None
    for _ in range(args.runs):
        t = time.perf_counter()
        result = bootstrap(evidence, args.replicates, seed=0, recall_grid=grid)
        times.append(time.perf_counter() - t)
    assert result is not None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tracemalloc.start()  # one more run, traced: the bootstrap's own allocations (numpy included)
    bootstrap(evidence, args.replicates, seed=0, recall_grid=grid)
    traced = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    best, med = min(times), statistics.median(times)
    print(
        f"bootstrap {args.replicates} replicates: min {best:.2f} s   median {med:.2f} s   "
        f"({args.replicates / best:.0f} replicates/s at the min)"
    )
    print(f"peak memory: process max RSS {peak:.0f} MB; bootstrap allocations {traced:.0f} MB")
    m = result.interval("set0")
    print(f"set0 mAP {m.point:.4f}  95% CI [{m.low:.4f}, {m.high:.4f}]")
    print("target < 30 s:", "met" if best < 30 else "NOT met")


if __name__ == "__main__":
    main()
