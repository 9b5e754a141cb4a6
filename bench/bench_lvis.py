"""Benchmark: LVIS box evaluation — vocviewer against the ``lvis`` package's ``LVISEval``.

Generates a synthetic LVIS v1 file (1,203 categories in r / c / f groups; per image a few present
categories with several instances, ``neg_category_ids`` and ``not_exhaustive_category_ids``) and
box results (jittered ground truth and background boxes of present, negative and unverified
categories, up to 300 per image), then times, in the same run, vocviewer's read + evaluation
(``read_lvis`` + ``read_lvis_results`` + ``evaluate_lvis``) and ``LVISEval`` (load + ``run``),
checks they agree on the 13 summary numbers, and prints min and median over runs and the ratio.

Usage: ``python bench/bench_lvis.py [--runs 3] [--images 1000] [--dets 150]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vocviewer.families.lvis.evaluate import evaluate_lvis  # noqa: E402
from vocviewer.families.lvis.reader import read_lvis, read_lvis_results  # noqa: E402

N_CATS = 1203


def generate(root: Path, n_images: int, n_dets: int, seed: int = 0) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    freq = rng.choice(["r", "c", "f"], N_CATS, p=[0.28, 0.38, 0.34])
    cats = [{"id": k + 1, "name": f"c{k + 1}", "frequency": str(f)} for k, f in enumerate(freq)]
    images: list[dict[str, Any]] = []
    anns: list[dict[str, Any]] = []
    dets: list[dict[str, Any]] = []
    for i in range(1, n_images + 1):
        w, h = int(rng.integers(300, 640)), int(rng.integers(300, 640))
        present = rng.choice(N_CATS, int(rng.integers(1, 8)), replace=False) + 1
        neg = rng.choice(N_CATS, 20, replace=False) + 1
        neg = neg[~np.isin(neg, present)]
        ne = present[rng.random(len(present)) < 0.2]
        images.append(
            {
                "id": i,
                "width": w,
                "height": h,
                "coco_url": f"http://images.cocodataset.org/val2017/{i:012d}.jpg",
                "neg_category_ids": neg.tolist(),
                "not_exhaustive_category_ids": ne.tolist(),
            }
        )
        boxes = []
        for c in present.tolist():
            for _ in range(int(rng.integers(1, 6))):
                bw, bh = rng.uniform(8, w / 2), rng.uniform(8, h / 2)
                x, y = rng.uniform(0, w - bw), rng.uniform(0, h - bh)
                box = [round(float(v), 2) for v in (x, y, bw, bh)]
                anns.append(
                    {
                        "id": len(anns) + 1,
                        "image_id": i,
                        "category_id": c,
                        "bbox": box,
                        "area": box[2] * box[3] * 0.8,
                    }
                )
                boxes.append((c, box))
        for _ in range(n_dets):
            if boxes and rng.random() < 0.4:
                c, (x, y, bw, bh) = boxes[int(rng.integers(len(boxes)))]
                j = rng.normal(0, 0.1, 4) * [bw, bh, bw, bh]
                box = [x + j[0], y + j[1], max(1.0, bw + j[2]), max(1.0, bh + j[3])]
            else:
                pool = (present, neg, np.arange(1, N_CATS + 1))[int(rng.integers(3))]
                c = int(rng.choice(pool)) if len(pool) else 1
                bw, bh = rng.uniform(8, w / 3), rng.uniform(8, h / 3)
                box = [rng.uniform(0, w - bw), rng.uniform(0, h - bh), bw, bh]
            dets.append(
                {
                    "image_id": i,
                    "category_id": int(c),
                    "bbox": [round(float(v), 2) for v in box],
                    "score": round(float(rng.random()), 3),
                }
            )
    ann, res = root / "lvis_v1_val.json", root / "results.json"
    ann.write_text(
        json.dumps(
            {"info": {}, "annotations": anns, "images": images, "licenses": [], "categories": cats}
        )
    )
    res.write_text(json.dumps(dets))
    return ann, res


def ours(ann: Path, res: Path) -> dict[str, float]:
    ds = read_lvis(ann, masks=False)
    return evaluate_lvis(ds, read_lvis_results(ds, res), "bbox").summary()


def peer(ann: Path, res: Path) -> dict[str, float]:
    from lvis import LVISEval

    setattr(np, "float", float)  # noqa: B010  (lvis 0.5.3 uses np.float, gone in numpy 1.24)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = LVISEval(str(ann), str(res), "bbox")
        ev.run()
    return {k: float(v) for k, v in ev.results.items()}


def timed(fn: Any, *args: Any) -> tuple[float, Any]:
    t = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--images", type=int, default=1000)
    ap.add_argument("--dets", type=int, default=150, help="results per image (<= 300)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ann, res = generate(Path(tmp), args.images, args.dets)
        times: dict[str, list[float]] = {"vocviewer": [], "LVISEval": []}
        got: dict[str, dict[str, float]] = {}
        for _ in range(args.runs):
            for name, fn in (("vocviewer", ours), ("LVISEval", peer)):
                dt, got[name] = timed(fn, ann, res)
                times[name].append(dt)
        diff = max(abs(got["vocviewer"][k] - got["LVISEval"][k]) for k in got["LVISEval"])
        print(f"{args.images} images, {N_CATS} categories, {args.images * args.dets} results")
        for name, t in times.items():
            print(f"{name:>10}: min {min(t):7.2f} s   median {statistics.median(t):7.2f} s")
        ratio = min(times["LVISEval"]) / min(times["vocviewer"])
        print(f"LVISEval / vocviewer (min): {ratio:.1f}x; max summary difference {diff:.3g}")


if __name__ == "__main__":
    main()
