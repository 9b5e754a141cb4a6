"""COCO evaluation speed and memory: vocviewer vs pycocotools vs faster-coco-eval (if installed).

A val2017-sized synthetic workload: 5,000 images, ~36,800 GT boxes with COCO's size mix
(~41 % small, ~34 % medium, ~25 % large) and a few crowd regions, 100 detections per image
(jittered true boxes with high scores, background boxes with low scores). ``--iou-type segm``
gives every box a polygon (GT) / lets results' boxes become masks as ``loadRes`` does; use fewer
images for it. Each evaluator runs ``--runs`` times, each in a fresh process which loads the JSONs, then runs
evaluate + accumulate ``--repeat`` times; the parent prints the whole-process wall time (min /
median over the runs), the load and evaluation times, the peak resident memory of each process
(the child's own ``VmHWM``, not ``ru_maxrss``, which a child inherits from its parent) and its growth during evaluation, the ratios, and whether the precision arrays
are identical. The workload is generated once into ``--cache``.

    python bench/bench_coco.py [--runs 3] [--repeat 1] [--images 5000] [--iou-type bbox|segm]
        [--peers pycocotools,vocviewer,faster-coco-eval] [--slow-runs N]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np


def make_workload(n_img: int, seed: int = 0) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    rng = np.random.default_rng(seed)
    images = [
        {"id": int(i), "width": 640, "height": 480, "file_name": f"{i:012d}.jpg"}
        for i in rng.choice(600_000, n_img, replace=False)
    ]
    cats = [{"id": c, "name": f"c{c}"} for c in range(1, 91) if c % 9 != 0][:80]
    cat_ids = np.array([c["id"] for c in cats])
    cat_p = rng.dirichlet(np.full(80, 0.3))
    anns, dets = [], []
    for im in images:
        n = int(rng.poisson(7.36))
        side = np.exp(
            rng.choice(
                [rng.uniform(1.5, 3.46), rng.uniform(3.47, 4.56), rng.uniform(4.57, 6.0)],
                p=[0.41, 0.34, 0.25],
                size=n,
            )
        )
        wh = side[:, None] * np.exp(rng.normal(0, 0.3, (n, 2)))
        wh = np.minimum(wh, [639, 479])
        xy = rng.uniform(0, 1, (n, 2)) * ([640, 480] - wh)
        cs = rng.choice(cat_ids, n, p=cat_p)
        for b, c in zip(np.hstack((xy, wh)).round(2), cs, strict=True):
            anns.append(
                {
                    "id": len(anns) + 1,
                    "image_id": im["id"],
                    "category_id": int(c),
                    "bbox": b.tolist(),
                    "area": float(b[2] * b[3] * 0.7),
                    "iscrowd": int(rng.random() < 0.01),
                }
            )
            for _ in range(rng.integers(0, 3)):
                j = b + rng.normal(0, 0.08, 4) * [b[2], b[3], b[2], b[3]]
                j[2:] = np.maximum(j[2:], 1)
                dets.append(
                    {
                        "image_id": im["id"],
                        "category_id": int(c) if rng.random() > 0.1 else int(rng.choice(cat_ids)),
                        "bbox": j.round(2).tolist(),
                        "score": round(float(rng.beta(5, 2)), 3),
                    }
                )
        n_bg = max(0, 100 - sum(1 for d in dets[-20:] if d["image_id"] == im["id"]))
        wh = np.exp(rng.uniform(2, 5.5, (n_bg, 2)))
        wh = np.minimum(wh, [639, 479])
        xy = rng.uniform(0, 1, (n_bg, 2)) * ([640, 480] - wh)
        for b, c, s in zip(
            np.hstack((xy, wh)).round(2),
            rng.choice(cat_ids, n_bg, p=cat_p),
            rng.beta(1, 6, n_bg),
            strict=True,
        ):
            dets.append(
                {
                    "image_id": im["id"],
                    "category_id": int(c),
                    "bbox": b.tolist(),
                    "score": round(float(s), 3),
                }
            )
    return {"images": images, "categories": cats, "annotations": anns}, dets


def timed(fn: Callable[[], Any], repeat: int) -> tuple[list[float], Any]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return times, out


def rss_mb() -> float:
    """Current resident set size (MB), from /proc (Linux)."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * resource.getpagesize() / 2**20


def own_peak_mb() -> float:
    """This process's own peak resident memory (MB): ``VmHWM`` (Linux), reset by ``exec``,
    unlike ``ru_maxrss``, which a child started by ``subprocess`` inherits from its parent."""
    try:
        with open("/proc/self/status") as fh:
            hwm = [line.split()[1] for line in fh if line.startswith("VmHWM:")]
    except OSError:
        hwm = []
    if hwm:
        return int(hwm[0]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # elsewhere: an upper bound


def run_children(
    script: str,
    names: list[str],
    child_args: tuple[str, ...],
    runs: int,
    max_runs: int | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """``script --child NAME *child_args`` in a fresh process per evaluator and run, interleaved
    so that a busy machine slows every peer alike; each child prints one JSON line, to which the
    wall time (``"wall"``, s) and its CPU time (``"cpu"``, user + system s) are added. ``max_runs`` (if given) caps pycocotools' runs (slow)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for run in range(runs):
        for name in names:
            if name == "pycocotools" and max_runs is not None and run >= max_runs:
                continue
            t = time.perf_counter()
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            cmd = [sys.executable, script, "--child", name, *child_args]
            done = subprocess.run(cmd, capture_output=True, text=True, check=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            r = json.loads(done.stdout.strip().splitlines()[-1])
            r["wall"] = time.perf_counter() - t
            r["cpu"] = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
            out.setdefault(name, []).append(r)
    return out


def child(name: str, ann: Path, res: Path, iou_type: str, repeat: int) -> None:
    """Load, evaluate ``repeat`` times, and print one JSON line with the numbers."""
    quiet = contextlib.redirect_stdout(io.StringIO())
    t0 = time.perf_counter()
    if name == "vocviewer":
        from vocviewer.families.coco.evaluate import evaluate_coco
        from vocviewer.families.coco.reader import read_coco
        from vocviewer.families.coco.results_reader import read_coco_results

        ds = read_coco(ann, masks=iou_type == "segm")
        rs = read_coco_results(ds, res, task=iou_type)
        from vocviewer.families.coco.evaluate import CocoParams

        params = CocoParams.for_task(iou_type)

        def run() -> Any:
            return evaluate_coco(ds, rs, params).precision

    else:
        if name == "pycocotools":
            from pycocotools.coco import COCO
            from pycocotools.cocoeval import COCOeval as Eval
        else:
            from faster_coco_eval import COCO  # type: ignore[no-redef]
            from faster_coco_eval import COCOeval_faster as Eval  # type: ignore[no-redef]
        with quiet:
            g = COCO(str(ann))
            d = g.loadRes(str(res))

        def run() -> Any:
            with contextlib.redirect_stdout(io.StringIO()):
                e = Eval(g, d, iou_type)
                e.evaluate()
                e.accumulate()
            return e.eval["precision"]

    load = time.perf_counter() - t0
    before = rss_mb()
    times, precision = timed(run, repeat)
    peak = own_peak_mb()
    np.save(res.with_name(f"precision_{name}.npy"), precision)
    print(json.dumps({"load": load, "times": times, "rss_before": before, "peak": peak}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--runs", type=int, default=1, help="fresh processes per evaluator")
    ap.add_argument("--slow-runs", type=int, default=None, help="cap on pycocotools' runs")
    ap.add_argument("--images", type=int, default=5000)
    ap.add_argument("--iou-type", choices=("bbox", "segm"), default="bbox")
    ap.add_argument("--peers", default="pycocotools,vocviewer,faster-coco-eval")
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "bench_coco")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--files", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, *args.files, args.iou_type, args.repeat)
        return
    tmp = args.cache / f"{args.iou_type}_{args.images}"
    ann, res = tmp / "gt.json", tmp / "dt.json"
    if not (ann.exists() and res.exists()):  # generated once (deterministic)
        gt, dets = make_workload(args.images)
        if args.iou_type == "segm":
            for a in gt["annotations"]:
                x, y, w, h = a["bbox"]
                a["segmentation"] = [[x, y, x + w, y, x + w, y + h, x, y + h]]
        tmp.mkdir(parents=True, exist_ok=True)
        ann.write_text(json.dumps(gt))
        res.write_text(json.dumps(dets))
    n_gt = len(json.loads(ann.read_text())["annotations"])
    n_dt = len(json.loads(res.read_text()))
    print(
        f"{args.iou_type}: {args.images} images, {n_gt} GT, {n_dt} detections; "
        f"{args.runs} fresh process(es) per evaluator, each evaluate+accumulate x{args.repeat}"
    )
    names = [n for n in args.peers.split(",") if n]
    if "faster-coco-eval" in names:
        try:
            import faster_coco_eval  # noqa: F401
        except ImportError:
            print("faster-coco-eval not installed: skipped")
            names.remove("faster-coco-eval")
    child_args = ("--files", str(ann), str(res), "--iou-type", args.iou_type)
    child_args = (*child_args, "--repeat", str(args.repeat))
    out = run_children(__file__, names, child_args, args.runs, args.slow_runs)
    print(
        f"{'evaluator':<18}{'process s min':>14}{'median':>8}{'CPU s min':>10}{'load s':>8}"
        f"{'eval+acc min s':>16}{'median s':>10}{'peak MB min':>13}{'median':>8}"
        f"{'eval growth MB':>16}"
    )
    for name, rs in out.items():
        wall, peak = [r["wall"] for r in rs], [r["peak"] for r in rs]
        t = [x for r in rs for x in r["times"]]
        growth = statistics.median(r["peak"] - r["rss_before"] for r in rs)
        print(
            f"{name:<18}{min(wall):>14.2f}{statistics.median(wall):>8.2f}"
            f"{min(r['cpu'] for r in rs):>10.2f}"
            f"{statistics.median(r['load'] for r in rs):>8.2f}{min(t):>16.3f}"
            f"{statistics.median(t):>10.3f}{min(peak):>13.0f}{statistics.median(peak):>8.0f}"
            f"{growth:>16.0f}"
        )
    print(f"load average (1, 5, 15 min) at the end: {os.getloadavg()}")
    ours = np.load(res.with_name("precision_vocviewer.npy")) if "vocviewer" in out else None
    for name in out:
        if name != "vocviewer" and ours is not None:
            other = np.load(res.with_name(f"precision_{name}.npy"))
            same = np.array_equal(other, ours)
            print(
                f"precision identical to {name}: {same}; max |diff| = {np.abs(other - ours).max():.3g}"
            )
    for name in out:
        if name != "vocviewer" and "vocviewer" in out:
            f, v = [r["wall"] for r in out[name]], [r["wall"] for r in out["vocviewer"]]
            print(
                f"{name} / vocviewer, whole process: {min(f) / min(v):.2f}x (min), "
                f"{statistics.median(f) / statistics.median(v):.2f}x (median)"
            )


if __name__ == "__main__":
    main()
