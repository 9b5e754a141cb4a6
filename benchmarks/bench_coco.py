"""COCO bbox evaluation speed: vocviewer vs pycocotools (vs faster-coco-eval if installed).

A val2017-sized synthetic workload: 5,000 images, ~36,800 GT boxes with COCO's size mix
(~41 % small, ~34 % medium, ~25 % large) and a few crowd regions, 100 detections per image
(jittered true boxes with high scores, background boxes with low scores). Prints min / median of
``--repeat`` runs of evaluate + accumulate, the ratios, and the JSON load times.

    python benchmarks/bench_coco.py [--repeat 3] [--images 5000]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np


def make_workload(n_img: int, seed: int = 0) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    rng = np.random.default_rng(seed)
    images = [{"id": int(i), "width": 640, "height": 480, "file_name": f"{i:012d}.jpg"}
              for i in rng.choice(600_000, n_img, replace=False)]  # fmt: skip
    cats = [{"id": c, "name": f"c{c}"} for c in range(1, 91) if c % 9 != 0][:80]
    cat_ids = np.array([c["id"] for c in cats])
    cat_p = rng.dirichlet(np.full(80, 0.3))
    anns, dets = [], []
    for im in images:
        n = int(rng.poisson(7.36))
        side = np.exp(rng.choice([rng.uniform(1.5, 3.46), rng.uniform(3.47, 4.56),
                                  rng.uniform(4.57, 6.0)], p=[0.41, 0.34, 0.25], size=n))  # fmt: skip
        wh = side[:, None] * np.exp(rng.normal(0, 0.3, (n, 2)))
        wh = np.minimum(wh, [639, 479])
        xy = rng.uniform(0, 1, (n, 2)) * ([640, 480] - wh)
        cs = rng.choice(cat_ids, n, p=cat_p)
        for b, c in zip(np.hstack((xy, wh)).round(2), cs, strict=True):
            anns.append({"id": len(anns) + 1, "image_id": im["id"], "category_id": int(c),
                         "bbox": b.tolist(), "area": float(b[2] * b[3] * 0.7),
                         "iscrowd": int(rng.random() < 0.01)})  # fmt: skip
            for _ in range(rng.integers(0, 3)):
                j = b + rng.normal(0, 0.08, 4) * [b[2], b[3], b[2], b[3]]
                j[2:] = np.maximum(j[2:], 1)
                dets.append({"image_id": im["id"], "category_id": int(c) if rng.random() > .1
                             else int(rng.choice(cat_ids)), "bbox": j.round(2).tolist(),
                             "score": round(float(rng.beta(5, 2)), 3)})  # fmt: skip
        n_bg = max(0, 100 - sum(1 for d in dets[-20:] if d["image_id"] == im["id"]))
        wh = np.exp(rng.uniform(2, 5.5, (n_bg, 2)))
        wh = np.minimum(wh, [639, 479])
        xy = rng.uniform(0, 1, (n_bg, 2)) * ([640, 480] - wh)
        for b, c, s in zip(np.hstack((xy, wh)).round(2), rng.choice(cat_ids, n_bg, p=cat_p),
                           rng.beta(1, 6, n_bg), strict=True):  # fmt: skip
            dets.append({"image_id": im["id"], "category_id": int(c), "bbox": b.tolist(),
                         "score": round(float(s), 3)})  # fmt: skip
    return {"images": images, "categories": cats, "annotations": anns}, dets


def timed(fn: Callable[[], Any], repeat: int) -> tuple[list[float], Any]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return times, out


def report(name: str, times: list[float], base: list[float] | None = None) -> None:
    line = f"{name:<28} min {min(times):8.3f} s   median {statistics.median(times):8.3f} s"
    if base is not None:
        line += f"   pycocotools/this: min {min(base) / min(times):6.1f}x"
        line += f"  median {statistics.median(base) / statistics.median(times):6.1f}x"
    print(line)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--images", type=int, default=5000)
    args = ap.parse_args()
    gt, dets = make_workload(args.images)
    tmp = Path(tempfile.mkdtemp())
    ann, res = tmp / "gt.json", tmp / "dt.json"
    ann.write_text(json.dumps(gt))
    res.write_text(json.dumps(dets))
    print(f"{len(gt['images'])} images, {len(gt['annotations'])} GT, {len(dets)} detections")

    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    from vocviewer.evaluation.coco import evaluate_coco
    from vocviewer.formats.coco import read_coco
    from vocviewer.formats.coco_results import read_coco_results

    def pyc_load() -> tuple[Any, Any]:
        with contextlib.redirect_stdout(io.StringIO()):
            g = COCO(str(ann))
            return g, g.loadRes(str(res))

    t_pl, (g, d) = timed(pyc_load, 1)
    t_ol, ds = timed(lambda: read_coco(ann, masks=False), 1)
    t_or, rs = timed(lambda: read_coco_results(ds, res), 1)
    report("load pycocotools (gt+res)", t_pl)
    report("load vocviewer gt", t_ol)
    report("load vocviewer results", t_or)

    def pyc_eval() -> Any:
        with contextlib.redirect_stdout(io.StringIO()):
            e = COCOeval(g, d, "bbox")
            e.evaluate()
            e.accumulate()
            return e

    base, ev = timed(pyc_eval, args.repeat)
    ours_t, ours = timed(lambda: evaluate_coco(ds, rs), args.repeat)
    report("pycocotools eval+acc", base)
    report("vocviewer eval+acc", ours_t, base)
    same = np.abs(ev.eval["precision"] - ours.precision).max()
    print(f"max |precision difference| = {same:.3g}")
    print(f"peak traced memory, eval+acc: pycocotools {peak_mb(pyc_eval):.0f} MB, "
          f"vocviewer {peak_mb(lambda: evaluate_coco(ds, rs)):.0f} MB")  # fmt: skip
    try:
        from faster_coco_eval import COCO as FCOCO
        from faster_coco_eval import COCOeval_faster
    except ImportError:
        print("faster-coco-eval not installed: skipped")
        return

    def fce_load() -> tuple[Any, Any]:
        with contextlib.redirect_stdout(io.StringIO()):
            fg = FCOCO(str(ann))
            return fg, fg.loadRes(str(res))

    t_fl, (fg, fd) = timed(fce_load, 1)
    report("load faster-coco-eval (gt+res)", t_fl)

    def fce_eval() -> Any:
        with contextlib.redirect_stdout(io.StringIO()):
            e = COCOeval_faster(fg, fd, "bbox")
            e.evaluate()
            e.accumulate()
            return e

    t_f, fe = timed(fce_eval, args.repeat)
    report("faster-coco-eval eval+acc", t_f, base)
    print(
        f"vocviewer vs faster-coco-eval: {min(t_f) / min(ours_t):.2f}x (min/min), "
        f"{statistics.median(t_f) / statistics.median(ours_t):.2f}x (median/median)"
    )
    print(f"max |precision difference| vs faster-coco-eval = "
          f"{np.abs(fe.eval['precision'] - ours.precision).max():.3g}")  # fmt: skip


def peak_mb(fn: Any) -> float:
    """Peak memory traced by tracemalloc (Python and numpy allocations) while ``fn`` runs."""
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


if __name__ == "__main__":
    main()
