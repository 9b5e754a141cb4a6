"""COCO keypoints evaluation speed: vocviewer vs faster-coco-eval vs pycocotools.

A val2017 person-sized synthetic workload: ~2,700 images, ~11,000 person GT (about 40 % without
any labelled keypoint, as in val2017, a few crowd regions), one result with keypoints per GT
(jittered by a fraction of the person's size, some badly) plus false positives to ~50,000
results, deterministic (seed 0). Each evaluator runs in ``--runs`` fresh processes which load
the JSONs and run evaluate + accumulate ``--repeat`` times (``bench_coco.child``); the parent
prints whole-process wall time (min / median), peak memory (each child's own ``VmHWM``, not
the parent's, which ``ru_maxrss`` carries over ``fork`` + ``exec``), ratios, and whether the
precision arrays are identical. ``--peers`` picks evaluators; ``--slow-runs`` caps pycocotools'
runs.

    python bench/bench_coco_keypoints.py [--runs 3] [--repeat 1] [--images 2700]
        [--peers vocviewer,faster-coco-eval,pycocotools] [--cache DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_coco import child, run_children

K = 17


def make_workload(n_img: int, seed: int = 0) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Person keypoints GT (dict) and results (list), ~4 persons and ~18.5 results per image."""
    rng = np.random.default_rng(seed)
    ids = rng.choice(600_000, n_img, replace=False)
    images = [
        {"id": int(i), "width": 640, "height": 480, "file_name": f"{i:012d}.jpg"} for i in ids
    ]
    cats = [{"id": 1, "name": "person", "keypoints": [f"k{j}" for j in range(K)], "skeleton": []}]
    anns: list[dict[str, Any]] = []
    dets: list[dict[str, Any]] = []
    for im in ids:
        n = int(rng.poisson(4.07))
        for _ in range(n):
            w, h = np.exp(rng.uniform(2.5, 5.5)), 0.0
            h = min(w * np.exp(rng.normal(0.6, 0.3)), 479.0)
            w = min(w, 639.0)
            x, y = rng.uniform(0, 640 - w), rng.uniform(0, 480 - h)
            crowd = rng.random() < 0.01
            labelled = not crowd and rng.random() < 0.6
            pts = np.column_stack(
                (x + rng.uniform(0, w, K), y + rng.uniform(0, h, K), rng.integers(1, 3, K))
            )
            if labelled:
                pts[rng.random(K) < 0.3] = 0  # unlabelled points are (0, 0, 0)
            else:
                pts[:] = 0
            nkp = int((pts[:, 2] > 0).sum())
            area = float(w * h * rng.uniform(0.4, 0.8))
            anns.append(
                {
                    "id": len(anns) + 1,
                    "image_id": int(im),
                    "category_id": 1,
                    "bbox": [round(float(v), 2) for v in (x, y, w, h)],
                    "area": round(area, 2),
                    "iscrowd": int(crowd),
                    "num_keypoints": nkp,
                    "keypoints": [round(float(v), 2) for v in pts.ravel()],
                    "segmentation": [[x, y, x + w, y, x + w, y + h, x, y + h]] if not crowd else [],
                }
            )
            # one result per GT: true points jittered (sometimes far), invisible ones guessed
            spread = np.sqrt(area) * rng.choice([0.02, 0.05, 0.15, 0.5], p=[0.3, 0.3, 0.3, 0.1])
            guess = np.column_stack((x + rng.uniform(0, w, K), y + rng.uniform(0, h, K)))
            xy = np.where(pts[:, 2:] > 0, pts[:, :2], guess) + rng.normal(0, spread, (K, 2))
            dets.append(_det(im, xy, [x, y, w, h], float(rng.beta(5, 2)), rng))
        for _ in range(int(rng.poisson(14.4))):  # false positives anywhere
            w = np.exp(rng.uniform(2.5, 5.0))
            h = min(w * 1.8, 479.0)
            x, y = rng.uniform(0, 640 - w), rng.uniform(0, 480 - h)
            xy = np.column_stack((x + rng.uniform(0, w, K), y + rng.uniform(0, h, K)))
            dets.append(_det(im, xy, [x, y, w, h], float(rng.beta(1, 5)), rng))
    return {"images": images, "categories": cats, "annotations": anns}, dets


def _det(im: Any, xy: Any, box: list[Any], score: float, rng: Any) -> dict[str, Any]:
    kp = np.column_stack((xy, rng.uniform(0, 1, K))).round(2)
    return {
        "image_id": int(im),
        "category_id": 1,
        "keypoints": kp.ravel().tolist(),
        "bbox": [round(float(v), 2) for v in box],
        "score": round(score, 4),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--runs", type=int, default=3, help="fresh processes per evaluator")
    ap.add_argument("--slow-runs", type=int, default=1, help="runs of pycocotools (slow)")
    ap.add_argument("--images", type=int, default=2700)
    ap.add_argument("--peers", default="vocviewer,faster-coco-eval,pycocotools")
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "bench_coco")
    args = ap.parse_args()
    tmp = args.cache / f"keypoints_{args.images}"
    ann, res = tmp / "gt.json", tmp / "dt.json"
    if not (ann.exists() and res.exists()):
        gt, dets = make_workload(args.images)
        tmp.mkdir(parents=True, exist_ok=True)
        ann.write_text(json.dumps(gt))
        res.write_text(json.dumps(dets))
    gt_anns = json.loads(ann.read_text())["annotations"]
    n_kp = sum(1 for a in gt_anns if a["num_keypoints"] > 0)
    print(
        f"keypoints: {args.images} images, {len(gt_anns)} person GT ({n_kp} with keypoints), "
        f"{len(json.loads(res.read_text()))} results; evaluate+accumulate x{args.repeat}"
    )
    names = [n for n in args.peers.split(",") if n]
    child_args = (str(ann), str(res), "--repeat", str(args.repeat))
    out = run_children(__file__, names, child_args, args.runs, args.slow_runs)
    print(
        f"{'evaluator':<18}{'runs':>5}{'process s min':>14}{'median':>8}{'load s':>8}"
        f"{'eval+acc min s':>16}{'median s':>10}{'peak MB min':>13}{'median':>8}"
    )
    for name, rs in out.items():
        wall, peak = [r["wall"] for r in rs], [r["peak"] for r in rs]
        t = [x for r in rs for x in r["times"]]
        print(
            f"{name:<18}{len(rs):>5}{min(wall):>14.2f}{statistics.median(wall):>8.2f}"
            f"{statistics.median(r['load'] for r in rs):>8.2f}{min(t):>16.3f}"
            f"{statistics.median(t):>10.3f}{min(peak):>13.0f}{statistics.median(peak):>8.0f}"
        )
    if "vocviewer" in out:
        ours = np.load(res.with_name("precision_vocviewer.npy"))
        for name in out:
            if name == "vocviewer":
                continue
            other = np.load(res.with_name(f"precision_{name}.npy"))
            same = np.array_equal(other, ours)
            print(
                f"precision identical to {name}: {same}; max |diff| = {np.abs(other - ours).max():.3g}"
            )
            f, v = [r["wall"] for r in out[name]], [r["wall"] for r in out["vocviewer"]]
            print(
                f"{name} / vocviewer, whole process: {min(f) / min(v):.2f}x (min), "
                f"{statistics.median(f) / statistics.median(v):.2f}x (median)"
            )


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _, _, who, a, r, _, rep = sys.argv
        child(who, Path(a), Path(r), "keypoints", int(rep))
    else:
        main()
