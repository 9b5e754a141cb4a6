"""Benchmark: COCO ``analyze()``'s nested curves on a VOC2007-test-sized detection set.

A synthetic set (``tests/evaluation/synthetic_voc.py``: 4,952 images, ~12,000 objects, 20
classes, 200,000 detections, VOC2007's 11-point rule) is evaluated once; then, over several runs,
``voc_curves`` (C75, C50, Loc, Sim, Oth per class on 101 recall levels, plus each list's AP by
VOC's rule) is timed against ``evaluate_voc_det`` itself, measured in the same run. Target: a
few seconds at most. Prints min and median of each and the ratio of the medians.

    python bench/bench_voc_curves.py [--runs 5] [--images 4952] [--dets 200000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.evaluation.synthetic_voc import make_synthetic  # noqa: E402
from vocviewer.families.voc.analyze_curves import voc_curves  # noqa: E402
from vocviewer.families.voc.evaluate import evaluate_voc_det  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--images", type=int, default=4952)
    ap.add_argument("--dets", type=int, default=200_000)
    args = ap.parse_args()
    ds, rs = make_synthetic(args.images, args.dets, seed=0, year=2007)
    print(f"{len(ds.images)} images, {len(ds.objects)} objects, {len(rs.detections)} detections")
    t_eval, t_curves = [], []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        ev = evaluate_voc_det(ds, rs, image_set="test")
        t1 = time.perf_counter()
        c = voc_curves(ds, rs, ev)
        t2 = time.perf_counter()
        t_eval.append(t1 - t0)
        t_curves.append(t2 - t1)
    for name, t in (("evaluate_voc_det", t_eval), ("voc_curves", t_curves)):
        print(f"{name:<18} min {min(t):7.3f} s   median {statistics.median(t):7.3f} s")
    ratio = statistics.median(t_curves) / statistics.median(t_eval)
    print(f"voc_curves / evaluate_voc_det (medians): {ratio:.2f}")
    areas = c.curves().areas
    print("overall areas: " + " ".join(f"{k} {v:.3f}" for k, v in areas.items()))
    print(f"VOC mAP ({ev.ap_rule}) {ev.mean_ap():.4f} = C50's protocol AP ", end="")
    print(f"{c.protocol_ap()['C50']:.4f}")


if __name__ == "__main__":
    main()
