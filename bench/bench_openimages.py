"""Benchmark: ``evaluate_openimages`` on the kernel and on numpy, on a generated folder.

Writes an Open Images folder and predictions with the generator of the parity tests
(``tests/parity/openimages_data.py``: group-of boxes, tied scores, hierarchy expansion, images
with labels only), ``--images`` images, reads them once, then times the evaluation with the
compiled kernel (``vocviewer/kernel/_greedy.c``) and with ``VOCVIEWER_KERNEL=0``, alternating,
and checks both give identical evidence. Prints min and median over runs and the load.

Usage: ``python bench/bench_openimages.py [--runs 3] [--images 20000]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kernel_paths import both_paths, print_paths  # noqa: E402

from tests.parity.openimages_data import (  # noqa: E402
    predictions,
    write_openimages,
    write_predictions,
)
from vocviewer import kernel  # noqa: E402
from vocviewer.families.openimages.evaluate import evaluate_openimages  # noqa: E402
from vocviewer.families.openimages.reader import read_openimages  # noqa: E402
from vocviewer.families.openimages.results_reader import read_openimages_results  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--images", type=int, default=20000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        boxes = write_openimages(Path(tmp) / "oi", n_images=args.images)
        pred = write_predictions(Path(tmp) / "pred.csv", predictions(boxes))
        ds = read_openimages(Path(tmp) / "oi")
        rs = read_openimages_results(ds, [pred])
    print(f"images {len(ds.images)}  objects {len(ds.objects)}  detections {len(rs.detections)}")
    times, last = both_paths(lambda: evaluate_openimages(ds, rs), args.runs)
    print_paths(times)
    a, b = last["1"], last["0"]
    same = all(
        np.array_equal(getattr(a, f), getattr(b, f), equal_nan=True)
        for f in ("ap", "npos", "why", "matched", "overlap")
    ) and all(np.array_equal(x, y) for x, y in zip(a.ranked, b.ranked, strict=True))
    built = kernel.load("_greedy") is not None
    print(f"kernel built: {built}  identical: {same}  mAP {a.mean_ap:.6f}")
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
