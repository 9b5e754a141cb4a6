"""TIDE error breakdown speed: vocviewer vs tidecv (if installed), on bench_coco's workload.

A val2017-sized synthetic set (5,000 images, ~36,700 GT, ~500,000 detections; ``--images`` to
scale it). Each side loads the two JSON files and computes the main and special dAP once; the
parent prints the times and the largest difference between the two breakdowns. ``tidecv`` is
imported with its drawing libraries stubbed, as in ``tests/evaluation/test_tide.py``.

    python bench/bench_tide.py [--images 5000] [--no-tidecv]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import sys
import tempfile
import time
import types
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_coco import make_workload

STUBS = ("cv2", "matplotlib", "matplotlib.pyplot", "matplotlib.lines", "pandas", "seaborn")


def run_vocviewer(ann: Path, res: Path) -> tuple[dict[str, float], float, float]:
    from vocviewer.families.coco.reader import read_coco
    from vocviewer.families.coco.results_reader import read_coco_results
    from vocviewer.families.coco.tide import coco_tide

    t0 = time.perf_counter()
    ds = read_coco(ann, masks=False)
    rs = read_coco_results(ds, res)
    t1 = time.perf_counter()
    out = coco_tide(ds, rs).to_json()
    return {**out["main"], **out["special"]}, t1 - t0, time.perf_counter() - t1


def run_tidecv(ann: Path, res: Path) -> tuple[dict[str, float], float, float] | None:
    for name in STUBS:
        stub = types.ModuleType(name)
        stub.__getattr__ = lambda attr: 0  # type: ignore[method-assign]
        sys.modules.setdefault(name, stub)
    try:
        tidecv = importlib.import_module("tidecv")
    except ImportError:
        return None
    tidecv.quantify.P.Plotter = lambda *a, **k: None
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        gt = tidecv.datasets.COCO(str(ann))
        preds = tidecv.datasets.COCOResult(str(res))
    t1 = time.perf_counter()
    t = tidecv.TIDE()
    t.evaluate(gt, preds, mode=tidecv.TIDE.BOX)
    errors = t.get_all_errors()
    out = {**errors["main"][preds.name], **errors["special"][preds.name]}
    return out, t1 - t0, time.perf_counter() - t1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--images", type=int, default=5000)
    ap.add_argument("--no-tidecv", action="store_true")
    args = ap.parse_args()
    gt, dets = make_workload(args.images)
    for a in gt["annotations"]:  # tidecv's COCO reader needs a segmentation
        x, y, w, h = a["bbox"]
        a["segmentation"] = [[x, y, x + w, y, x + w, y + h, x, y + h]]
    tmp = Path(tempfile.mkdtemp())
    ann, res = tmp / "gt.json", tmp / "dt.json"
    ann.write_text(json.dumps(gt))
    res.write_text(json.dumps(dets))
    print(f"{len(gt['images'])} images, {len(gt['annotations'])} GT, {len(dets)} detections")
    results: dict[str, Any] = {"vocviewer": run_vocviewer(ann, res)}
    if not args.no_tidecv:
        other = run_tidecv(ann, res)
        if other is None:
            print("tidecv not installed: skipped")
        else:
            results["tidecv"] = other
    print(f"{'':<10}{'load s':>8}{'breakdown s':>13}")
    for name, (_, load, breakdown) in results.items():
        print(f"{name:<10}{load:>8.2f}{breakdown:>13.2f}")
    ours = results["vocviewer"][0]
    print("dAP: " + ", ".join(f"{k} {v:.2f}" for k, v in ours.items()))
    if "tidecv" in results:
        ref = results["tidecv"][0]
        print(f"max |dAP - tidecv| = {max(abs(ours[k] - ref[k]) for k in ref):.3g}")
        speedup = results["tidecv"][2] / results["vocviewer"][2]
        print(f"breakdown: vocviewer {speedup:.0f}x faster than tidecv")


if __name__ == "__main__":
    main()
