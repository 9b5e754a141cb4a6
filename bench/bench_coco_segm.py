"""COCO segm evaluation, whole process: vocviewer vs faster-coco-eval vs pycocotools.

The workload of issue 15: ``--images`` images (default 2,000) of 640 x 480 with COCO's object
count and size mix; ground truth are polygons (jagged ellipses, a few with two parts) and, for
~1 % crowd regions, uncompressed RLE; the results file has ``--dets`` (default 100) detections
per image, each a **compressed RLE string** (as detectron2 / mmdetection write them, no
``bbox``): jittered copies of true objects with high scores and background blobs with low ones.
Generated once per seed (deterministic) into ``--cache`` with pycocotools' own encoder.

Each evaluator runs ``--runs`` times, each in a fresh process that loads both JSONs, evaluates
and accumulates (and summarises); the parent prints the whole-process wall time and the peak
resident memory (each child's own ``VmHWM``) and CPU time (user + system; steadier than wall time on a
busy machine), min and median (peers interleaved run by run), the ratios, and checks that the 12 summary
numbers and the precision arrays equal pycocotools' (or faster-coco-eval's when pycocotools is
skipped). faster-coco-eval (``pip install faster-coco-eval``) is a benchmark peer only.

    python bench/bench_coco_segm.py [--images 2000] [--dets 100] [--runs 3]
        [--peers vocviewer,faster-coco-eval,pycocotools,vocviewer=/path/to/another/checkout]
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
from bench_coco import own_peak_mb


def _blob(rng: np.random.Generator, box: np.ndarray, n: int = 16) -> list[float]:
    """A jagged ellipse inscribed in ``x, y, w, h``, as a flat polygon."""
    x, y, w, h = box
    t = np.sort(rng.uniform(0, 2 * np.pi, n))
    r = rng.uniform(0.75, 1.0, n)
    px = x + w / 2 + np.cos(t) * r * w / 2
    py = y + h / 2 + np.sin(t) * r * h / 2
    return np.column_stack((px, py)).round(2).reshape(-1).tolist()


def make_workload(n_img: int, n_det: int, seed: int = 0) -> tuple[dict[str, Any], list[Any]]:
    from pycocotools import mask as pm

    rng = np.random.default_rng(seed)
    W, H = 640, 480
    images = [
        {"id": int(i), "width": W, "height": H, "file_name": f"{i:012d}.jpg"}
        for i in rng.choice(600_000, n_img, replace=False)
    ]
    cats = [{"id": c, "name": f"c{c}"} for c in range(1, 91) if c % 9 != 0][:80]
    cat_ids = np.array([c["id"] for c in cats])
    cat_p = rng.dirichlet(np.full(80, 0.3))
    anns: list[dict[str, Any]] = []
    dets: list[dict[str, Any]] = []

    def boxes(n: int, lo: float, hi: float) -> np.ndarray:
        side = np.exp(rng.uniform(lo, hi, n))
        wh = np.minimum(side[:, None] * np.exp(rng.normal(0, 0.3, (n, 2))), [W - 2, H - 2])
        wh = np.maximum(wh, 2)
        xy = rng.uniform(0, 1, (n, 2)) * ([W, H] - wh)
        return np.hstack((xy, wh))

    for im in images:
        n = int(rng.poisson(7.36))
        size_class = rng.choice(3, n, p=[0.41, 0.34, 0.25])
        lo, hi = np.array([1.5, 3.47, 4.57])[size_class], np.array([3.46, 4.56, 6.0])[size_class]
        gt_boxes = np.vstack(
            [boxes(1, a, b) for a, b in zip(lo, hi, strict=True)] or [np.zeros((0, 4))]
        )
        cs = rng.choice(cat_ids, n, p=cat_p)
        img_dets: list[tuple[list[float], int, float]] = []
        for b, c in zip(gt_boxes, cs, strict=True):
            crowd = rng.random() < 0.01
            polys = [_blob(rng, b, int(rng.integers(8, 33)))]
            if rng.random() < 0.1:
                polys.append(_blob(rng, b * [1, 1, 0.4, 0.4], 8))
            a: dict[str, Any] = {
                "id": len(anns) + 1,
                "image_id": im["id"],
                "category_id": int(c),
                "bbox": b.round(2).tolist(),
                "iscrowd": int(crowd),
            }
            rle = pm.merge(pm.frPyObjects(polys, H, W))
            a["area"] = float(pm.area(rle))
            if crowd:
                m = pm.decode(rle)
                flat = np.concatenate(([0], m.T.reshape(-1), [0]))
                ch = np.flatnonzero(np.diff(flat)) + 1
                runs = np.diff(np.concatenate(([0], ch, [W * H]))).tolist()
                a["segmentation"] = {"size": [H, W], "counts": runs}
            else:
                a["segmentation"] = polys
            anns.append(a)
            for _ in range(int(rng.integers(0, 3))):
                j = b + rng.normal(0, 0.08, 4) * [b[2], b[3], b[2], b[3]]
                j[2:] = np.maximum(j[2:], 2)
                c2 = int(c) if rng.random() > 0.1 else int(rng.choice(cat_ids))
                img_dets.append((_blob(rng, j), c2, round(float(rng.beta(5, 2)), 3)))
        n_bg = max(0, n_det - len(img_dets))
        for b, c, s in zip(
            boxes(n_bg, 2, 5.5),
            rng.choice(cat_ids, n_bg, p=cat_p),
            rng.beta(1, 6, n_bg),
            strict=True,
        ):
            img_dets.append((_blob(rng, b), int(c), round(float(s), 3)))
        rles = pm.frPyObjects([d[0] for d in img_dets[:n_det]], H, W)
        for (_, c, s), r in zip(img_dets[:n_det], rles, strict=True):
            dets.append(
                {
                    "image_id": im["id"],
                    "category_id": c,
                    "score": s,
                    "segmentation": {"size": [H, W], "counts": r["counts"].decode()},
                }
            )
    return {"images": images, "categories": cats, "annotations": anns}, dets


def child(name: str, ann: Path, res: Path, out: Path) -> None:
    """Load, evaluate, accumulate and summarise once; save the arrays; print the peak RSS."""
    t0 = time.perf_counter()
    if name == "vocviewer":
        from vocviewer.families.coco.evaluate import CocoParams, evaluate_coco
        from vocviewer.families.coco.reader import read_coco
        from vocviewer.families.coco.results_reader import read_coco_results

        ds = read_coco(ann, masks=True)
        rs = read_coco_results(ds, res, task="segm")
        r = evaluate_coco(ds, rs, CocoParams.for_task("segm"))
        precision, stats = r.precision, np.array(list(r.stats().values()))
    else:
        if name == "pycocotools":
            from pycocotools.coco import COCO
            from pycocotools.cocoeval import COCOeval as Eval
        else:
            from faster_coco_eval import COCO  # type: ignore[no-redef]
            from faster_coco_eval import COCOeval_faster as Eval  # type: ignore[no-redef]
        with contextlib.redirect_stdout(io.StringIO()):
            g = COCO(str(ann))
            d = g.loadRes(str(res))
            e = Eval(g, d, "segm")
            e.evaluate()
            e.accumulate()
            e.summarize()
        precision, stats = e.eval["precision"], np.asarray(e.stats)
    wall = time.perf_counter() - t0
    np.savez(out, precision=precision, stats=stats)
    peak = own_peak_mb()
    print(json.dumps({"in_process": wall, "peak": peak}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--images", type=int, default=2000)
    ap.add_argument("--dets", type=int, default=100)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--peers", default="vocviewer,faster-coco-eval,pycocotools")
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "bench_coco_segm")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--files", nargs=3, type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, *args.files)
        return
    tag = f"{args.images}x{args.dets}s{args.seed}"
    ann, res = args.cache / f"gt_{tag}.json", args.cache / f"dt_{tag}.json"
    if not (ann.exists() and res.exists()):
        args.cache.mkdir(parents=True, exist_ok=True)
        gt, dets = make_workload(args.images, args.dets, args.seed)
        ann.write_text(json.dumps(gt))
        res.write_text(json.dumps(dets))
    gt_n = len(json.loads(ann.read_text())["annotations"])
    print(
        f"segm: {args.images} images, {gt_n} GT, {args.images * args.dets} compressed-RLE "
        f"detections ({res.stat().st_size / 2**20:.0f} MB); {args.runs} fresh processes each"
    )
    names = [n for n in args.peers.split(",") if n]
    out: dict[str, list[dict[str, float]]] = {}
    failed: set[str] = set()
    for _ in range(args.runs):  # interleaved, so that a busy machine slows every peer alike
        for name in names:
            if name in failed:
                continue
            kind, _, path = name.partition("=")  # "vocviewer=/other/checkout": that tree
            dst = args.cache / f"out_{name.replace('/', '_')}.npz"
            cmd = [
                sys.executable,
                __file__,
                "--child",
                kind,
                "--files",
                str(ann),
                str(res),
                str(dst),
            ]
            env = {**os.environ, "PYTHONPATH": path} if path else None
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            try:
                done = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
            except subprocess.CalledProcessError as e:
                print(f"{name} failed:\n{e.stderr[-2000:]}")
                failed.add(name)
                continue
            wall = time.perf_counter() - t
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            r = json.loads(done.stdout.strip().splitlines()[-1])
            r["wall"] = wall
            r["cpu"] = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
            out.setdefault(name, []).append(r)
    print(
        f"{'evaluator':<24}{'wall min s':>11}{'median':>8}{'cpu min s':>11}{'median':>8}"
        f"{'peak MB min':>13}{'median':>8}"
    )
    for name, rs in out.items():
        w, c, p = ([r[k] for r in rs] for k in ("wall", "cpu", "peak"))
        print(
            f"{name:<24}{min(w):>11.2f}{statistics.median(w):>8.2f}{min(c):>11.2f}"
            f"{statistics.median(c):>8.2f}{min(p):>13.0f}{statistics.median(p):>8.0f}"
        )
    if "vocviewer" in out:
        v = out["vocviewer"]
        for name in out:
            if name == "vocviewer":
                continue

            def ratio(key: str, f: Callable[[list[float]], float], name: str = name) -> float:
                return f([r[key] for r in out[name]]) / f([r[key] for r in v])

            print(
                f"{name} / vocviewer: wall {ratio('wall', min):.2f}x (min), "
                f"{ratio('wall', statistics.median):.2f}x (median); cpu "
                f"{ratio('cpu', min):.2f}x (min), {ratio('cpu', statistics.median):.2f}x "
                f"(median); peak memory {ratio('peak', statistics.median):.2f}x (median)"
            )
        ours = np.load(args.cache / "out_vocviewer.npz")
        for name in out:
            if name != "vocviewer":
                ref = np.load(args.cache / f"out_{name.replace('/', '_')}.npz")
                same = np.array_equal(ours["stats"], ref["stats"])
                diff = np.abs(ours["precision"] - ref["precision"]).max()
                print(f"vs {name}: stats identical: {same}; max |precision diff| = {diff:.3g}")


if __name__ == "__main__":
    main()
