"""Keypoints- and LVIS-shaped workloads built on the shared realistic generator.

``../shared/bench/gen_coco_workload.py`` writes COCO "instances" workloads (boxes, polygons,
crowd RLE, masks) but no person keypoints and no LVIS federated fields; this module builds those
two shapes from its own pieces (image sizes, object shapes with polygons, ``jitter_to_iou``,
``clip_box``), deterministically (same arguments, byte-identical files), numpy only:

- ``keypoints``: a person-keypoints file shaped like COCO val2017's (every image listed, about
  half of them with people, ~2.2 persons per image, ~1 % crowd; persons of 32² pixels and more
  mostly labelled, small ones mostly not, as in val2017: ``num_keypoints`` 0 with ``keypoints``
  all zero), 17 integer keypoints per labelled person (a standing-person template stretched to
  the box, some points unlabelled, visibility 1 or 2); results: per person a jittered box with
  keypoints scattered around the true ones by a fraction of the person's size, duplicates, and
  background persons, exactly K per image (top-K by score).
- ``lvis``: an LVIS v1-shaped file: 1,203 categories with ``frequency`` r / c / f (337 / 461 /
  405, as v1) and a long-tailed presence, ~12 polygon objects per image on a few categories,
  per image ``neg_category_ids`` and ``not_exhaustive_category_ids``, no crowd; results: jittered
  true objects, duplicates, confusions, and background detections on present, negative and
  unverified categories, exactly K (default 300) per image.
- ``voc``: a PASCAL VOC2007-test-shaped detection set as real files: ``DIR/VOC2007/Annotations/
  *.xml`` (the devkit's layout, tab-indented, source / owner / size blocks), ``ImageSets/Main/
  test.txt`` and ``DIR/results/comp4_det_test_<class>.txt`` in py-faster-rcnn's line format
  (``id score x1 y1 x2 y2``, 1-based, ``%.3f %.1f``: scores tie). 4,952 images of 500 x 375 /
  375 x 500 (mostly), VOC2007 test's class mix (14,976 objects, ~20 % difficult), K (default 40)
  detections per image: jittered true objects, duplicates, confusions and background.

    python bench/gen_workloads.py keypoints --images 5000 --dets-per-image 20 --out DIR
    python bench/gen_workloads.py lvis --images 2000 --dets-per-image 300 --out DIR
    python bench/gen_workloads.py voc --images 4952 --dets-per-image 40 --out DIR

Files: ``DIR/gt.json`` and ``DIR/results.json`` (voc: the folders above). Write them outside the
repository.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

SHARED = Path(__file__).resolve().parents[2] / "shared" / "bench" / "gen_coco_workload.py"

# A standing person in its box, (x, y) in [0, 1]: COCO's 17 keypoints in COCO's order.
KEYPOINT_NAMES = [
    "nose",
    "left_eye",
    "right_eye",
    "left_ear",
    "right_ear",
    "left_shoulder",
    "right_shoulder",
    "left_elbow",
    "right_elbow",
    "left_wrist",
    "right_wrist",
    "left_hip",
    "right_hip",
    "left_knee",
    "right_knee",
    "left_ankle",
    "right_ankle",
]
TEMPLATE = np.array(
    [
        (0.50, 0.08),
        (0.45, 0.06),
        (0.55, 0.06),
        (0.40, 0.08),
        (0.60, 0.08),
        (0.30, 0.22),
        (0.70, 0.22),
        (0.20, 0.40),
        (0.80, 0.40),
        (0.15, 0.55),
        (0.85, 0.55),
        (0.38, 0.55),
        (0.62, 0.55),
        (0.38, 0.75),
        (0.62, 0.75),
        (0.38, 0.95),
        (0.62, 0.95),
    ]
)
SKELETON = [[16, 14], [14, 12], [17, 15], [15, 13], [12, 13], [6, 12], [7, 13], [6, 7], [6, 8]]
LVIS_FREQUENCIES = (("r", 337), ("c", 461), ("f", 405))  # LVIS v1: 1,203 categories


def load_shared(path: Path = SHARED) -> ModuleType:
    """The shared generator module (``gen_coco_workload.py``), imported from its file."""
    spec = importlib.util.spec_from_file_location("gen_coco_workload", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot import the shared generator {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_coco_workload", module)
    spec.loader.exec_module(module)
    return module


def _images(gen: Any, n: int, extra: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    ids = np.sort(gen.rng.choice(np.arange(1, 600000), size=n, replace=False))
    out = []
    for iid in ids.tolist():
        W, H = gen.image_size()
        url = f"http://images.cocodataset.org/val2017/{iid:012d}.jpg"
        out.append(
            {"file_name": f"{iid:012d}.jpg", "coco_url": url, "height": H, "width": W, "id": iid}
            | (extra or {})
        )
    return out


def _person_points(rng: np.random.Generator, box: list[float], labelled: bool) -> np.ndarray:
    """(17, 3) keypoints ``x, y, v`` of a person in ``box`` (integers, as COCO's files)."""
    x, y, w, h = box
    xy = (TEMPLATE + rng.normal(0, 0.04, TEMPLATE.shape)).clip(0, 1) * (w, h) + (x, y)
    v = np.where(rng.random(17) < 0.7, 2, 1)
    pts = np.column_stack((np.floor(xy), v))
    if not labelled:
        return np.zeros((17, 3))
    pts[rng.random(17) < 0.25] = 0
    return pts


def keypoints(shared: ModuleType, n_images: int, k: int, seed: int) -> tuple[Any, Any]:
    """Person-keypoints ground truth (dict) and ``k`` keypoint results per image (list)."""
    gen = shared.Generator(n_images, k, seed, False)
    rng = gen.rng
    images = _images(gen, n_images)
    anns: list[dict[str, Any]] = []
    dets: list[dict[str, Any]] = []
    ann_id = 100
    for im in images:
        W, H, iid = im["width"], im["height"], im["id"]
        n = 0 if rng.random() < 0.48 else 1 + int(rng.negative_binomial(1.2, 1.2 / (1.2 + 3.3)))
        cands: list[tuple[float, list[float], np.ndarray]] = []
        for _ in range(min(n, 40)):
            ann_id += int(rng.integers(1, 40))
            if rng.random() < 0.01:
                a = gen.crowd_object(W, H)
                pts = np.zeros((17, 3))
            else:
                a = gen.gt_object(W, H, 1)
                labelled = rng.random() < (0.9 if a["area"] >= shared.SMALL else 0.15)
                pts = _person_points(rng, a["bbox"], labelled)
            a.update({"image_id": iid, "category_id": 1, "id": ann_id})
            a["num_keypoints"] = int((pts[:, 2] > 0).sum())
            a["keypoints"] = pts.astype(int).reshape(-1).tolist()
            anns.append(a)
            if a["iscrowd"] or rng.random() > (0.5 if a["area"] < shared.SMALL else 0.9):
                continue
            true = pts if a["num_keypoints"] else _person_points(rng, a["bbox"], True)
            spread = math.sqrt(a["area"]) * rng.choice(
                [0.02, 0.05, 0.1, 0.3], p=[0.3, 0.3, 0.3, 0.1]
            )
            for dup in range(1 + int(rng.poisson(0.3))):
                box, iou = shared.jitter_to_iou(rng, a["bbox"], rng.uniform(0.5, 0.95), W, H)
                xy = true[:, :2] + rng.normal(0, spread * (1 + dup), (17, 2))
                s = shared.sigmoid(4.0 * (iou - 0.6) - 1.5 * spread / math.sqrt(a["area"]))
                cands.append(((0.05 + 0.95 * s) * (0.5 if dup else 1.0), box, xy))
        for _ in range(max(k - len(cands), 0)):  # background persons
            A = shared.loguniform(rng, 64.0, 0.3 * W * H)
            ar = math.exp(rng.normal(math.log(0.42), 0.35))
            bw, bh = min(math.sqrt(A * ar), W * 0.98), min(math.sqrt(A / ar), H * 0.98)
            box = shared.clip_box(rng.uniform(0, W - bw), rng.uniform(0, H - bh), bw, bh, W, H)
            xy = _person_points(rng, box, True)[:, :2]
            cands.append((min(0.02 + rng.exponential(0.08), 0.99), box, xy))
        cands.sort(key=lambda c: -c[0])
        for score, box, xy in cands[:k]:
            kp = np.column_stack((xy, rng.uniform(0, 1, 17))).round(2)
            dets.append(
                {
                    "image_id": iid,
                    "category_id": 1,
                    "keypoints": kp.reshape(-1).tolist(),
                    "bbox": [round(float(v), 2) for v in box],
                    "score": max(round(float(score), 6), 1e-6),
                }
            )
    person = {"supercategory": "person", "id": 1, "name": "person"}
    person |= {"keypoints": KEYPOINT_NAMES, "skeleton": SKELETON}
    order = rng.permutation(len(anns))
    gt = {
        "info": {"description": "synthetic COCO person-keypoints workload (vocviewer bench)"},
        "licenses": [],
        "images": images,
        "annotations": [anns[i] for i in order],
        "categories": [person],
    }
    return gt, dets


def lvis(shared: ModuleType, n_images: int, k: int, seed: int) -> tuple[Any, Any]:
    """LVIS v1-shaped ground truth (dict) and ``k`` box results per image (list)."""
    gen = shared.Generator(n_images, k, seed, False)
    rng = gen.rng
    freq = np.array([f for f, n in LVIS_FREQUENCIES for _ in range(n)])
    rng.shuffle(freq)
    n_cats = len(freq)
    weight = np.select([freq == "r", freq == "c"], [0.05, 0.5], 4.0) * rng.gamma(1.0, size=n_cats)
    weight /= weight.sum()
    cat_ids = np.arange(1, n_cats + 1)
    images = _images(gen, n_images)
    anns: list[dict[str, Any]] = []
    dets: list[dict[str, Any]] = []
    ann_id = 1
    for im in images:
        W, H, iid = im["width"], im["height"], im["id"]
        n_pos = 1 + int(rng.poisson(2.5))
        pos = rng.choice(cat_ids, size=n_pos, replace=False, p=weight)
        neg = rng.choice(cat_ids, size=int(rng.poisson(8.0)), replace=False, p=weight)
        neg = np.setdiff1d(neg, pos)
        im["neg_category_ids"] = neg.tolist()
        im["not_exhaustive_category_ids"] = sorted(pos[rng.random(n_pos) < 0.1].tolist())
        cands: list[tuple[float, int, list[float]]] = []
        for cat in pos.tolist():
            for _ in range(1 + int(rng.negative_binomial(1.0, 1.0 / (1.0 + 2.5)))):
                a = gen.gt_object(W, H, cat)
                del a["iscrowd"]
                a.update({"image_id": iid, "category_id": cat, "id": ann_id})
                ann_id += 1
                anns.append(a)
                size = 0 if a["area"] < shared.SMALL else (1 if a["area"] < shared.MEDIUM else 2)
                if rng.random() < (0.5, 0.75, 0.9)[size]:
                    t = rng.uniform(0.3, 0.95)
                    box, iou = shared.jitter_to_iou(rng, a["bbox"], t, W, H)
                    score = 0.05 + 0.95 * shared.sigmoid(6.0 * (iou - 0.55) + rng.normal(0, 0.8))
                    cands.append((score, cat, box))
                    for _ in range(int(rng.poisson(0.8))):
                        box2, _ = shared.jitter_to_iou(rng, a["bbox"], rng.uniform(0.3, 0.85), W, H)
                        cands.append((score * rng.uniform(0.1, 0.7), cat, box2))
                for _ in range(int(rng.poisson(1.5))):  # confusions with other categories
                    box3, _ = shared.jitter_to_iou(rng, a["bbox"], rng.uniform(0.4, 0.9), W, H)
                    other = int(rng.choice(cat_ids, p=weight))
                    cands.append((0.05 + 0.95 * shared.sigmoid(rng.normal(-1.5, 0.8)), other, box3))
        pools = (pos, neg if len(neg) else pos, cat_ids)
        for _ in range(max(k - len(cands), 0)):  # background: present, negative, unverified
            A = shared.loguniform(rng, 16.0, 0.5 * W * H)
            ar = math.exp(rng.normal(0.0, 0.6))
            bw, bh = min(math.sqrt(A * ar), W * 0.98), min(math.sqrt(A / ar), H * 0.98)
            box = shared.clip_box(rng.uniform(0, W - bw), rng.uniform(0, H - bh), bw, bh, W, H)
            pool = pools[int(rng.choice(3, p=[0.3, 0.2, 0.5]))]
            cat = int(pool[int(rng.integers(len(pool)))])
            cands.append((min(0.01 + rng.exponential(0.05), 0.99), cat, box))
        cands.sort(key=lambda c: -c[0])
        for score, cat, box in cands[:k]:
            x, y, w, h = (round(float(v), 2) for v in box)
            dets.append(
                {
                    "image_id": iid,
                    "category_id": int(cat),
                    "bbox": [x, y, max(w, 1.0), max(h, 1.0)],
                    "score": max(round(float(score), 6), 1e-6),
                }
            )
    counts = np.bincount([a["category_id"] for a in anns], minlength=n_cats + 1)
    cats = [
        {
            "id": int(c),
            "name": f"category_{c}",
            "synset": f"category_{c}.n.01",
            "frequency": str(freq[c - 1]),
            "instance_count": int(counts[c]),
            "image_count": 0,
        }
        for c in cat_ids
    ]
    order = rng.permutation(len(anns))
    gt = {
        "info": {"description": "synthetic LVIS v1-shaped workload (vocviewer bench)"},
        "licenses": [],
        "images": images,
        "annotations": [anns[i] for i in order],
        "categories": cats,
    }
    return gt, dets


# VOC2007 test: objects per class (difficult included), the devkit's class order.
VOC_TEST_OBJECTS = {
    "aeroplane": 311,
    "bicycle": 389,
    "bird": 576,
    "boat": 393,
    "bottle": 657,
    "bus": 254,
    "car": 1541,
    "cat": 370,
    "chair": 1374,
    "cow": 329,
    "diningtable": 299,
    "dog": 530,
    "horse": 395,
    "motorbike": 369,
    "person": 5227,
    "pottedplant": 592,
    "sheep": 311,
    "sofa": 396,
    "train": 302,
    "tvmonitor": 361,
}
VOC_XML = """<annotation>
\t<folder>VOC2007</folder>
\t<filename>{id}.jpg</filename>
\t<source>
\t\t<database>The VOC2007 Database</database>
\t\t<annotation>PASCAL VOC2007</annotation>
\t\t<image>flickr</image>
\t\t<flickrid>{flickr}</flickrid>
\t</source>
\t<owner>
\t\t<flickrid>owner{owner}</flickrid>
\t\t<name>?</name>
\t</owner>
\t<size>
\t\t<width>{w}</width>
\t\t<height>{h}</height>
\t\t<depth>3</depth>
\t</size>
\t<segmented>0</segmented>
{objects}</annotation>
"""
VOC_OBJECT = """\t<object>
\t\t<name>{name}</name>
\t\t<pose>{pose}</pose>
\t\t<truncated>{t}</truncated>
\t\t<difficult>{d}</difficult>
\t\t<bndbox>
\t\t\t<xmin>{x1}</xmin>
\t\t\t<ymin>{y1}</ymin>
\t\t\t<xmax>{x2}</xmax>
\t\t\t<ymax>{y2}</ymax>
\t\t</bndbox>
\t</object>
"""
POSES = ("Unspecified", "Left", "Right", "Frontal", "Rear")


def voc(shared: ModuleType, n_images: int, k: int, seed: int, out: Path) -> None:
    """Write a VOC2007-test-shaped devkit (``out/VOC2007``) and ``k`` detections per image in
    ``out/results/comp4_det_test_<class>.txt``; boxes in VOC's 1-based inclusive pixels."""
    rng = np.random.default_rng(seed)
    names = list(VOC_TEST_OBJECTS)
    weight = np.array(list(VOC_TEST_OBJECTS.values()), float)
    mean_objects = weight.sum() / 4952
    weight /= weight.sum()
    year = out / "VOC2007"
    (year / "Annotations").mkdir(parents=True, exist_ok=True)
    (year / "ImageSets" / "Main").mkdir(parents=True, exist_ok=True)
    (out / "results").mkdir(parents=True, exist_ok=True)
    ids = [f"{i:06d}" for i in np.sort(rng.choice(np.arange(1, 10000), n_images, replace=False))]
    lines: list[list[str]] = [[] for _ in names]
    for iid in ids:
        W, H = ((500, 375), (375, 500), (500, 333), (353, 500))[
            int(rng.choice(4, p=[0.6, 0.25, 0.1, 0.05]))
        ]
        n = 1 + int(rng.poisson(mean_objects - 1))
        objs, cands = [], []
        for _ in range(n):
            c = int(rng.choice(20, p=weight))
            A = shared.loguniform(rng, 150.0, 0.9 * W * H)
            ar = math.exp(rng.normal(0.0, 0.5))
            bw, bh = min(math.sqrt(A * ar), W - 2.0), min(math.sqrt(A / ar), H - 2.0)
            x1 = 1 + int(rng.uniform(0, W - bw))
            y1 = 1 + int(rng.uniform(0, H - bh))
            x2, y2 = min(W, x1 + max(int(bw), 4)), min(H, y1 + max(int(bh), 4))
            hard = rng.random() < (0.5 if bw * bh < 1500 else 0.12)
            objs.append((c, x1, y1, x2, y2, int(hard), int(rng.random() < 0.3)))
            g = [x1 - 1.0, y1 - 1.0, x2 - x1 + 1.0, y2 - y1 + 1.0]
            for _ in range(1 + int(rng.random() < 0.35) + int(rng.random() < 0.15)):
                t = rng.uniform(0.3, 0.95)
                box, iou = shared.jitter_to_iou(rng, g, t, W, H)
                s = shared.sigmoid(6.0 * (iou - 0.55) + rng.normal(0, 1.0) - 1.5 * hard)
                cands.append((s, c, box))
            if rng.random() < 0.3:  # a confusion with another class
                box, _ = shared.jitter_to_iou(rng, g, rng.uniform(0.4, 0.9), W, H)
                cands.append(
                    (shared.sigmoid(rng.normal(-1.5, 1.0)), int(rng.choice(20, p=weight)), box)
                )
        for _ in range(max(k - len(cands), 0)):  # background
            A = shared.loguniform(rng, 100.0, 0.6 * W * H)
            ar = math.exp(rng.normal(0.0, 0.6))
            bw, bh = min(math.sqrt(A * ar), W * 0.98), min(math.sqrt(A / ar), H * 0.98)
            box = shared.clip_box(rng.uniform(0, W - bw), rng.uniform(0, H - bh), bw, bh, W, H)
            cands.append((min(rng.exponential(0.08), 0.99), int(rng.choice(20, p=weight)), box))
        cands.sort(key=lambda d: -d[0])
        for s, c, (x, y, w, h) in cands[:k]:
            lines[c].append(f"{iid} {s:.3f} {x + 1:.1f} {y + 1:.1f} {x + w:.1f} {y + h:.1f}\n")
        body = "".join(
            VOC_OBJECT.format(name=names[c], pose=POSES[p % 5], t=t, d=d, x1=a, y1=b, x2=e, y2=f)
            for p, (c, a, b, e, f, d, t) in enumerate(objs)
        )
        xml = VOC_XML.format(
            id=iid, flickr=int(rng.integers(1e8, 1e9)), owner=iid, w=W, h=H, objects=body
        )
        (year / "Annotations" / f"{iid}.xml").write_text(xml)
    (year / "ImageSets" / "Main" / "test.txt").write_text("".join(f"{i}\n" for i in ids))
    for name, rows in zip(names, lines, strict=True):
        (out / "results" / f"comp4_det_test_{name}.txt").write_text("".join(rows))


KINDS = {"keypoints": keypoints, "lvis": lvis}


def write(kind: str, n_images: int, k: int, seed: int, out: Path, shared: Path = SHARED) -> None:
    """Generate and write ``out/gt.json`` and ``out/results.json`` (compact JSON)."""
    gt, dets = KINDS[kind](load_shared(shared), n_images, k, seed)
    out.mkdir(parents=True, exist_ok=True)
    for name, data in (("gt.json", gt), ("results.json", dets)):
        tmp = out / (name + ".part")
        tmp.write_text(json.dumps(data, separators=(",", ":")))
        tmp.replace(out / name)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kind", choices=sorted([*KINDS, "voc"]))
    ap.add_argument("--images", type=int, help="default: 5000 (voc: 4952)")
    ap.add_argument(
        "--dets-per-image", type=int, help="default: 20 / 300 / 40 (keypoints / lvis / voc)"
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--shared", type=Path, default=SHARED, help="gen_coco_workload.py")
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    k = a.dets_per_image or {"keypoints": 20, "lvis": 300, "voc": 40}[a.kind]
    if a.kind == "voc":
        voc(load_shared(a.shared), a.images or 4952, k, a.seed, a.out)
        print(f"wrote {a.out}/VOC2007, {a.out}/results")
        return
    write(a.kind, a.images or 5000, k, a.seed, a.out, a.shared)
    print(f"wrote {a.out}/gt.json, {a.out}/results.json")


if __name__ == "__main__":
    main()
