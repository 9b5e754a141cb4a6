"""Benchmark: VOC2007-test-sized detection set — load and evaluate times, with ratios.

Generates a synthetic VOCdevkit on disk (4,952 images, ~12,000 objects, ~200,000 detections in
20 ``comp4_det_test_<class>.txt`` files), then times, over several runs:

* reading the annotations (``read_voc``) and the results (``read_voc_results``);
* ``evaluate_voc_det`` over all 20 classes (all-points and 11-point);
* the plain-loop reference of the devkit (``tests/evaluation/oracles.py``) on the same input,
  as a peer measured in the same run, and checks that both give the same APs.

Prints min and median of each timing. Usage: ``python bench/bench_voc.py [--runs 5]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.evaluation import oracles  # noqa: E402
from vocviewer.core.dataset import VOC_CLASSES  # noqa: E402
from vocviewer.families.voc.evaluate import evaluate_voc_det  # noqa: E402
from vocviewer.families.voc.reader import read_voc, read_voc_results  # noqa: E402

XML = """<annotation><folder>VOC2007</folder><filename>{id}.jpg</filename>
<size><width>{w}</width><height>{h}</height><depth>3</depth></size><segmented>0</segmented>
{objects}</annotation>
"""
OBJ = """<object><name>{name}</name><pose>Unspecified</pose><truncated>{t}</truncated>
<difficult>{d}</difficult><bndbox><xmin>{x1}</xmin><ymin>{y1}</ymin><xmax>{x2}</xmax><ymax>{y2}</ymax></bndbox></object>
"""


def make_devkit(root: Path, n_images: int = 4952, n_dets: int = 200_000, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    year = root / "VOC2007"
    (year / "Annotations").mkdir(parents=True)
    (year / "ImageSets" / "Main").mkdir(parents=True)
    res = root / "results" / "VOC2007" / "Main"
    res.mkdir(parents=True)
    ids = [f"{i:06d}" for i in range(1, n_images + 1)]
    n_obj = rng.poisson(1.4, n_images) + 1  # ≈ 12,000 objects
    gts = []
    for i, k in zip(ids, n_obj, strict=True):
        w, h = 500, int(rng.integers(300, 500))
        objs = []
        for _ in range(k):
            x1, y1 = int(rng.integers(1, w - 60)), int(rng.integers(1, h - 60))
            x2, y2 = int(rng.integers(x1 + 20, w)), int(rng.integers(y1 + 20, h))
            c = int(rng.integers(20))
            objs.append((c, x1, y1, x2, y2, int(rng.random() < 0.1)))
            gts.append((i, c, x1, y1, x2, y2))
        body = "".join(
            OBJ.format(name=VOC_CLASSES[c], t=0, d=d, x1=a, y1=b, x2=cx, y2=cy)
            for c, a, b, cx, cy, d in objs
        )
        (year / "Annotations" / f"{i}.xml").write_text(XML.format(id=i, w=w, h=h, objects=body))
    (year / "ImageSets" / "Main" / "test.txt").write_text("\n".join(ids) + "\n")
    # detections: half near a GT box (jittered), half random; scores with some ties
    per_class: list[list[str]] = [[] for _ in VOC_CLASSES]
    g = rng.integers(len(gts), size=n_dets)
    near = rng.random(n_dets) < 0.5
    jitter = rng.normal(0, 12, size=(n_dets, 4))
    scores = np.round(rng.random(n_dets), 4)
    for j in range(n_dets):
        i, c, x1, y1, x2, y2 = gts[g[j]]
        if near[j]:
            b = np.array([x1, y1, x2, y2]) + jitter[j]
        else:
            c = int(rng.integers(20))
            b = np.array([x1, y1, x2, y2]) + rng.normal(0, 120, 4)
        per_class[c].append(f"{i} {scores[j]:.4f} {b[0]:.1f} {b[1]:.1f} {b[2]:.1f} {b[3]:.1f}")
    for c, lines in zip(VOC_CLASSES, per_class, strict=True):
        (res / f"comp4_det_test_{c}.txt").write_text("\n".join(lines) + "\n")
    return root


def timed(fn, runs):
    times, out = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return out, times


def report(name, times):
    print(f"{name:<44} min {min(times):8.3f} s   median {statistics.median(times):8.3f} s")


def oracle_all_classes(ds, rs):
    det, obj = rs.detections, ds.objects
    ids = [str(x) for x in ds.images.id]
    image_list = [ids[i] for i in ds.image_sets["Main/test"]]
    aps = []
    for k in range(len(ds.classes)):
        gt: dict[str, list] = {}
        for r in np.flatnonzero(obj.label == k):
            gt.setdefault(ids[obj.image_index[r]], []).append(
                (obj.box[r].tolist(), bool(obj.difficult[r]))
            )
        rows = np.flatnonzero(det.label == k)
        dets = [(ids[det.image_index[r]], float(det.score[r]), det.box[r].tolist()) for r in rows]
        aps.append(oracles.voc_det_class(gt, dets, image_list)["ap"])
    return aps


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        root = make_devkit(Path(tmp))
        print(f"generated synthetic VOC2007 test set in {time.perf_counter() - t0:.1f} s")
        year, res = root / "VOC2007", root / "results" / "VOC2007" / "Main"
        ds, t_ann = timed(lambda: read_voc(year), args.runs)
        rs, t_res = timed(lambda: read_voc_results(ds, [res], image_set="test"), args.runs)
        print(
            f"{len(ds.images)} images, {len(ds.objects)} objects, {len(rs.detections)} detections"
        )
        report("read annotations (read_voc)", t_ann)
        report("read results (read_voc_results)", t_res)
        report("load total (min+min)", [min(t_ann) + min(t_res)])
        res_all, t_all = timed(
            lambda: evaluate_voc_det(ds, rs, image_set="test", ap_rule="allpoints"), args.runs
        )
        report("evaluate 20 classes, all points", t_all)
        _, t_11 = timed(
            lambda: evaluate_voc_det(ds, rs, image_set="test", ap_rule="11point"), args.runs
        )
        report("evaluate 20 classes, 11-point", t_11)
        ref, t_ref = timed(lambda: oracle_all_classes(ds, rs), 1)
        report("peer: plain-loop devkit reference (1 run)", t_ref)
        ours = [c.ap for c in res_all]
        diff = max(abs(a - b) for a, b in zip(ours, ref, strict=True))
        print(f"mAP {res_all.mean_ap():.6f}; max |AP - reference AP| = {diff:.2e}")
        print(f"speed-up over the loop reference: {min(t_ref) / min(t_all):.0f}x (min/min)")


if __name__ == "__main__":
    main()
