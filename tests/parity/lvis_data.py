"""Generated LVIS v1 files (numpy RNG) with the federated traps, and the real ``LVISEval`` on them.

``write_lvis`` writes an annotation file and a results file: categories in r / c / f groups (ids
out of order, some with no ground truth anywhere), images named only by ``coco_url``, per image
``neg_category_ids`` and ``not_exhaustive_category_ids``; ground truth as polygons, compressed and
uncompressed RLE, an area-0 annotation, ``iscrowd`` flags (LVIS ignores them), optionally
``ignore`` flags; results with score ties, detections of categories neither on the image nor
verified absent, of not-exhaustive categories, of categories the file lacks, zero-area boxes and
an image with more than 300 entries. ``lvis_eval`` runs the ``lvis`` package on them.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from pycocotools import mask as cmask


def _polygon(rng: np.random.Generator, x: float, y: float, w: float, h: float) -> list[float]:
    """A quadrilateral inside the box (corners pulled inwards at random)."""
    fx, fy = rng.uniform(0, 0.25, 4) * w, rng.uniform(0, 0.25, 4) * h
    pts = [x + fx[0], y + fy[0], x + w - fx[1], y + fy[1], x + w - fx[2], y + h - fy[2]]
    return [round(float(v), 2) for v in [*pts, x + fx[3], y + h - fy[3]]]


def _gt_segmentation(
    rng: np.random.Generator, box: list[float], h: int, w: int
) -> tuple[Any, float]:
    """A polygon, a compressed RLE or an uncompressed RLE (of the box's inner whole pixels) of
    the box's region, and its area (pixels, as LVIS files give it)."""
    kind = rng.integers(0, 3)
    if kind < 2:
        poly = _polygon(rng, *box)
        rle = cmask.merge(cmask.frPyObjects([poly], h, w))
        area = float(cmask.area(rle))
        return (
            ([poly], area)
            if kind == 0
            else ({"size": [h, w], "counts": rle["counts"].decode()}, area)
        )
    x, y, bw, bh = box
    m = np.zeros((h, w), dtype=np.uint8)
    m[int(np.ceil(y)) : int(y + bh), int(np.ceil(x)) : int(x + bw)] = 1
    flat = m.reshape(-1, order="F")
    change = np.flatnonzero(np.diff(flat)) + 1
    counts = np.diff(np.r_[0, change, len(flat)]).tolist()
    if flat[0]:
        counts = [0, *counts]
    return {"size": [h, w], "counts": counts}, float(m.sum())


def _box(rng: np.random.Generator, w: int, h: int) -> list[float]:
    bw, bh = float(rng.uniform(4, w * 0.6)), float(rng.uniform(4, h * 0.6))
    return [float(rng.uniform(0, w - bw)), float(rng.uniform(0, h - bh)), bw, bh]


def make_lvis(seed: int, *, ignore: bool = False, n_images: int = 24) -> dict[str, Any]:
    """An LVIS v1 annotation document."""
    rng = np.random.default_rng(seed)
    n_cats = 14
    ids = rng.choice(np.arange(1, 60), n_cats, replace=False)
    freq = ["r", "c", "f"] * 4 + list(rng.choice(["r", "c", "f"], n_cats - 12))
    cats = [
        {
            "id": int(c),
            "name": f"thing_{int(c)}",
            "synset": f"thing.n.{int(c):02d}",
            "frequency": str(f),
            "image_count": 1,
            "instance_count": 1,
            "synonyms": [],
            "def": "",
        }
        for c, f in zip(ids, freq, strict=True)
    ]
    never = set(ids[-2:].tolist())  # categories with no ground truth anywhere
    img_ids = rng.choice(np.arange(1, 10**6), n_images, replace=False)
    images, anns = [], []
    for iid in img_ids.tolist():
        w, h = int(rng.integers(80, 320)), int(rng.integers(80, 320))
        pool = [c for c in ids.tolist() if c not in never]
        present = rng.choice(pool, int(rng.integers(0, 5)), replace=False).tolist()
        absent = [c for c in ids.tolist() if c not in present]
        neg = rng.choice(absent, int(rng.integers(0, len(absent) // 2 + 1)), replace=False)
        ne = [c for c in present if rng.random() < 0.3] + ([int(absent[0])] if absent else [])
        images.append(
            {
                "id": iid,
                "width": w,
                "height": h,
                "license": 1,
                "coco_url": f"http://images.cocodataset.org/val2017/{iid:012d}.jpg",
                "flickr_url": "",
                "date_captured": "",
                "neg_category_ids": [int(c) for c in neg],
                "not_exhaustive_category_ids": [int(c) for c in ne],
            }
        )
        for c in present:
            for _ in range(int(rng.integers(1, 5))):
                box = [round(v, 2) for v in _box(rng, w, h)]
                segm, area = _gt_segmentation(rng, box, h, w)
                a = {
                    "id": len(anns) + 1,
                    "image_id": iid,
                    "category_id": int(c),
                    "bbox": box,
                    "area": area,
                    "segmentation": segm,
                }
                if rng.random() < 0.03:
                    a["area"] = 0.0  # LVIS drops it (get_ann_ids: area > 0)
                if rng.random() < 0.1:
                    a["iscrowd"] = 1  # LVIS never looks at it
                if ignore and rng.random() < 0.1:
                    a["ignore"] = 1
                anns.append(a)
    rng.shuffle(anns)  # annotation order is not image order
    return {
        "info": {"description": "LVIS v1 (generated)"},
        "annotations": anns,
        "images": images,
        "licenses": [],
        "categories": cats,
    }


def make_results(
    gt: dict[str, Any], seed: int, *, kind: str = "bbox", crowded: int = 1
) -> list[dict[str, Any]]:
    """Results for ``gt``: ``kind`` ``"bbox"``, ``"segm"`` (compressed RLE, no bbox) or
    ``"segm+bbox"`` (RLE and bbox: ``LVISResults``' bbox branch, area w*h); ``crowded`` images
    get more than 300 entries."""
    rng = np.random.default_rng(seed + 1000)
    ims = {i["id"]: i for i in gt["images"]}
    cat_ids = [c["id"] for c in gt["categories"]]
    out: list[dict[str, Any]] = []

    def add(iid: int, cat: int, box: list[float], score: float) -> None:
        im = ims[iid]
        d: dict[str, Any] = {"image_id": iid, "category_id": cat, "score": score}
        if kind != "segm":
            d["bbox"] = [round(float(v), 2) for v in box]
        if kind != "bbox":
            x, y, bw, bh = box
            poly = _polygon(rng, x, y, max(bw, 1.0), max(bh, 1.0))
            rle = cmask.merge(cmask.frPyObjects([poly], im["height"], im["width"]))
            d["segmentation"] = {"size": rle["size"], "counts": rle["counts"].decode()}
        out.append(d)

    for a in gt["annotations"]:
        x, y, w, h = a["bbox"]
        for _ in range(int(rng.integers(0, 3))):
            j = rng.normal(0, 0.12, 4) * [w, h, w, h]
            c = a["category_id"] if rng.random() > 0.15 else int(rng.choice(cat_ids))
            add(
                a["image_id"],
                c,
                [x + j[0], y + j[1], max(1, w + j[2]), max(1, h + j[3])],
                round(float(rng.random()), 2),
            )
    for im in gt["images"]:
        for _ in range(int(rng.integers(0, 12))):  # any category: present, negative, neither
            add(
                im["id"],
                int(rng.choice(cat_ids)),
                _box(rng, im["width"], im["height"]),
                round(float(rng.random()), 2),
            )
        for c in im["not_exhaustive_category_ids"][:2]:
            add(im["id"], c, _box(rng, im["width"], im["height"]), round(float(rng.random()), 2))
    if kind == "bbox":
        im = gt["images"][0]
        add(
            im["id"],
            im["neg_category_ids"][0] if im["neg_category_ids"] else cat_ids[0],
            [5.0, 5.0, 0.0, 10.0],
            0.99,
        )  # zero area: not evaluated
    for im in gt["images"][:crowded]:
        for _ in range(330):  # scores on a coarse grid: ties across the 300th place
            add(
                im["id"],
                int(rng.choice(cat_ids)),
                _box(rng, im["width"], im["height"]),
                round(float(rng.random()), 1),
            )
        for _ in range(20):  # a category the file lacks: counted toward the 300
            out.append(
                {
                    "image_id": im["id"],
                    "category_id": 999,
                    "score": 0.95,
                    "bbox": [1.0, 1.0, 10.0, 10.0],
                }
            )
            if kind == "segm":
                del out[-1]["bbox"]
                rle = cmask.frPyObjects([[1, 1, 11, 1, 11, 11, 1, 11]], im["height"], im["width"])
                out[-1]["segmentation"] = {
                    "size": rle[0]["size"],
                    "counts": rle[0]["counts"].decode(),
                }
    order = rng.permutation(len(out))
    return [out[i] for i in order]


def write_lvis(
    folder: Path, seed: int, *, kind: str = "bbox", ignore: bool = False, crowded: int = 1
) -> tuple[Path, Path]:
    """Write ``annotations/lvis_v1_val.json`` and ``results.json`` under ``folder``."""
    gt = make_lvis(seed, ignore=ignore)
    (folder / "annotations").mkdir(parents=True, exist_ok=True)
    ann = folder / "annotations" / "lvis_v1_val.json"
    ann.write_text(json.dumps(gt))
    res = folder / "results.json"
    res.write_text(json.dumps(make_results(gt, seed, kind=kind, crowded=crowded)))
    return ann, res


def lvis_eval(ann: Path, res: Path, iou_type: str) -> Any:
    """The ``lvis`` package's ``LVISEval`` run on the files (numpy >= 1.24 lacks ``np.float``,
    which ``accumulate`` uses: aliased to ``float`` for the call, then removed)."""
    from lvis import LVISEval

    had = "float" in np.__dict__
    if not had:
        setattr(np, "float", float)  # noqa: B010
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # lvis' logger.warn
            ev = LVISEval(str(ann), str(res), iou_type)
            ev.run()
    finally:
        if not had:
            delattr(np, "float")
    return ev
