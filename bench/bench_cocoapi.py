"""The pycocotools API inside training code: ``vocviewer.cocoapi`` vs pycocotools vs
faster-coco-eval, each used exactly as a training loop uses pycocotools.

The workload is ``bench_coco.py``'s (val2017 scale by default: 5,000 images, ~36,800 GT boxes,
~500,000 detections); with ``--iou-type segm`` it is ``bench_coco_segm.py``'s (``--images``
2,000 by default, 100 compressed-RLE detections per image). Each evaluator runs in a fresh process per run, interleaved:
``COCO(gt) + loadRes(file) + COCOeval(gt, dt, iou_type) + evaluate() + accumulate() +
summarize()``, all timed inside the process (imports excluded); the parent prints min and median
over ``--runs``, each process's own peak memory, the ratios, and whether ``stats`` and
``eval["precision"]`` are identical to pycocotools'. ``--results list`` passes the detections as
a list of dicts (what detectron2 and mmdetection do) instead of a file name.

    python bench/bench_cocoapi.py [--runs 3] [--images N] [--iou-type bbox|segm]
        [--results file|list]
        [--peers vocviewer,faster-coco-eval,pycocotools] [--pycocotools-runs 1]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_coco import make_workload, own_peak_mb, run_children
from bench_coco_segm import make_workload as make_segm_workload


def child(name: str, ann: Path, res: Path, results: str, iou_type: str) -> None:
    """One training-loop evaluation; prints one JSON line (seconds, MB)."""
    if name == "vocviewer":
        from vocviewer.cocoapi import COCO, COCOeval
    elif name == "pycocotools":
        from pycocotools.coco import COCO  # type: ignore[no-redef]
        from pycocotools.cocoeval import COCOeval  # type: ignore[no-redef]
    else:
        from faster_coco_eval import COCO  # type: ignore[no-redef]
        from faster_coco_eval import COCOeval_faster as COCOeval  # type: ignore[no-redef]
    dets = json.loads(res.read_text()) if results == "list" else str(res)
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        gt = COCO(str(ann))
        t1 = time.perf_counter()
        dt = gt.loadRes(dets)
        t2 = time.perf_counter()
        ev = COCOeval(gt, dt, iou_type)
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    t3 = time.perf_counter()
    np.save(res.with_name(f"api_precision_{iou_type}_{name}.npy"), ev.eval["precision"])
    np.save(res.with_name(f"api_stats_{iou_type}_{name}.npy"), np.asarray(ev.stats))
    timing = {"coco": t1 - t0, "loadres": t2 - t1, "eval": t3 - t2, "total": t3 - t0}
    print(json.dumps({**timing, "peak": own_peak_mb()}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=3, help="fresh processes per evaluator")
    ap.add_argument("--pycocotools-runs", type=int, default=1, help="pycocotools is slow")
    ap.add_argument("--images", type=int, help="default: 5000 (bbox), 2000 (segm)")
    ap.add_argument("--iou-type", choices=("bbox", "segm"), default="bbox")
    ap.add_argument("--results", choices=("file", "list"), default="file")
    ap.add_argument("--peers", default="vocviewer,faster-coco-eval,pycocotools")
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()))
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--files", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, *args.files, args.results, args.iou_type)
        return
    if args.iou_type == "bbox":  # the same files bench_coco.py generates
        args.images = args.images or 5000
        tmp = args.cache / "bench_coco" / f"bbox_{args.images}"
        ann, res = tmp / "gt.json", tmp / "dt.json"
        make = lambda: make_workload(args.images)  # noqa: E731
    else:  # and bench_coco_segm.py
        args.images = args.images or 2000
        tmp = args.cache / "bench_coco_segm"
        ann, res = tmp / f"gt_{args.images}x100s0.json", tmp / f"dt_{args.images}x100s0.json"
        make = lambda: make_segm_workload(args.images, 100, 0)  # noqa: E731
    if not (ann.exists() and res.exists()):
        gt, dets = make()
        tmp.mkdir(parents=True, exist_ok=True)
        ann.write_text(json.dumps(gt))
        res.write_text(json.dumps(dets))
    n_gt = len(json.loads(ann.read_text())["annotations"])
    n_dt = len(json.loads(res.read_text()))
    print(
        f"{args.iou_type} through the pycocotools API: {args.images} images, {n_gt} GT, {n_dt} detections "
        f"(loadRes from a {args.results}); {args.runs} fresh process(es) per evaluator"
    )
    names = [n for n in args.peers.split(",") if n]
    if "faster-coco-eval" in names:
        try:
            import faster_coco_eval  # noqa: F401
        except ImportError:
            print("faster-coco-eval not installed: skipped")
            names.remove("faster-coco-eval")
    child_args = ("--files", str(ann), str(res), "--results", args.results)
    child_args += ("--iou-type", args.iou_type)
    out = run_children(__file__, names, child_args, args.runs, args.pycocotools_runs)
    print(
        f"{'evaluator':<18}{'total s min':>12}{'median':>8}{'COCO()':>8}{'loadRes':>9}"
        f"{'eval+acc+sum':>14}{'peak MB':>9}"
    )
    for name, rs in out.items():
        total = [r["total"] for r in rs]
        med = {k: statistics.median(r[k] for r in rs) for k in ("coco", "loadres", "eval", "peak")}
        print(
            f"{name:<18}{min(total):>12.2f}{statistics.median(total):>8.2f}{med['coco']:>8.2f}"
            f"{med['loadres']:>9.2f}{med['eval']:>14.2f}{med['peak']:>9.0f}"
        )
    if "vocviewer" in out:
        tag = args.iou_type
        ours_p = np.load(res.with_name(f"api_precision_{tag}_vocviewer.npy"))
        ours_s = np.load(res.with_name(f"api_stats_{tag}_vocviewer.npy"))
        for name in out:
            if name == "vocviewer":
                continue
            p = np.load(res.with_name(f"api_precision_{tag}_{name}.npy"))
            s = np.load(res.with_name(f"api_stats_{tag}_{name}.npy"))
            print(
                f"identical to {name}: precision {np.array_equal(p, ours_p)}, "
                f"stats {np.array_equal(s, ours_s)}"
            )
            f = [r["total"] for r in out[name]]
            v = [r["total"] for r in out["vocviewer"]]
            print(
                f"{name} / vocviewer: {min(f) / min(v):.2f}x (min), "
                f"{statistics.median(f) / statistics.median(v):.2f}x (median)"
            )


if __name__ == "__main__":
    sys.exit(main())
