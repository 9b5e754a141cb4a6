"""``vocviewer convert`` between COCO and YOLO, ground truth and results.

COCO → YOLO (``OUT/data.yaml``, ``OUT/labels/<split>/<stem>.txt``, ``OUT/images/<split>/``
holding links to the images, predictions in ``OUT/predictions/<results stem>/<stem>.txt``):
class indices follow the category ids' order; coordinates are divided by the image's width /
height and written with 17 significant digits (the normalised value is kept exactly). What
YOLO cannot hold is said, never dropped silently: crowd regions (no crowd flag: left out),
objects of several polygons (``--task segm``: one polygon a line; the largest kept), RLE masks
(no polygon), ``area`` (YOLO keeps none: read back as the box's or polygon's area).

YOLO → COCO (``OUT/instances_<split>.json``, results as ``OUT/<results name>.json``): the COCO
document and results list that vocviewer evaluates a YOLO split as (``reader``, ``results``),
so the converted files give pycocotools the same numbers. YOLO → VOC: that document and those
results written by VOC's writer (``families.voc.write_voc``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from vocviewer.core.errors import FormatError
from vocviewer.families.voc.write_voc import write_voc
from vocviewer.families.yolo.layout import read_layout
from vocviewer.families.yolo.reader import coco_document, read_yolo
from vocviewer.families.yolo.results import json_entries, txt_entries
from vocviewer.formats import output
from vocviewer.formats.json_input import load_json


def _n(v: float) -> str:
    return f"{v:.17g}"


def _class_table(doc: dict[str, Any], path: Path) -> tuple[list[str], dict[int, int]]:
    cats = doc.get("categories")
    if not isinstance(cats, list) or not cats:
        raise FormatError(path, "a COCO annotation file with 'categories' is needed")
    cats = sorted(cats, key=lambda c: c["id"])
    return [str(c["name"]) for c in cats], {int(c["id"]): i for i, c in enumerate(cats)}


def _polygon(segm: Any) -> tuple[list[float] | None, int]:
    """The largest polygon of a list segmentation and how many it has (0: not polygons)."""
    if not isinstance(segm, list) or not segm:
        return None, 0
    best, area = None, -1.0
    for part in segm:
        p = np.asarray(part, dtype=np.float64).reshape(-1, 2)
        a = abs(np.dot(p[:, 0], np.roll(p[:, 1], -1)) - np.dot(p[:, 1], np.roll(p[:, 0], -1)))
        if a > area:
            best, area = list(map(float, np.asarray(part, dtype=np.float64))), a
    return best, len(segm)


def _line(
    cls: int, a: dict[str, Any], w: float, h: float, task: str, score: Any = None
) -> str | None:
    x, y, bw, bh = (float(v) for v in a["bbox"]) if a.get("bbox") else (0.0, 0.0, 0.0, 0.0)
    tail = [] if score is None else [_n(float(score))]
    if task == "segm":
        poly, _ = _polygon(a.get("segmentation"))
        if poly is None:
            return None
        xy = np.asarray(poly).reshape(-1, 2) / np.array([w, h])
        return " ".join([str(cls), *map(_n, xy.reshape(-1)), *tail])
    vals = [(x + bw / 2) / w, (y + bh / 2) / h, bw / w, bh / h]
    if task == "keypoints":
        kp = np.asarray(a.get("keypoints", []), dtype=np.float64).reshape(-1, 3)
        kp = kp / np.array([w, h, 1.0])
        vals += kp.reshape(-1).tolist()
    return " ".join([str(cls), *map(_n, vals), *tail])


def coco_to_yolo(
    ann: Path,
    images: Path | None,
    out: Path,
    results: list[Path],
    task: str = "bbox",
    split: str = "val",
) -> list[str]:
    """Write the COCO annotation file ``ann`` (and ``results``) as a YOLO dataset in ``out``;
    the messages say what was written and what YOLO cannot hold."""
    doc = load_json(ann)
    if not isinstance(doc, dict) or not isinstance(doc.get("images"), list):
        raise FormatError(ann, "not a COCO annotation file: expected an object with 'images'")
    names, index_of = _class_table(doc, ann)
    img_dir = images if images is not None else ann.parent.parent / ann.stem.rsplit("_", 1)[-1]
    protected = [ann.parent, img_dir]
    root = output.guard_folder(out, protected)
    by_image: dict[int, list[dict[str, Any]]] = {}
    for a in doc.get("annotations", []):
        by_image.setdefault(a["image_id"], []).append(a)
    crowd = multi = no_poly = 0
    stems: dict[int, tuple[str, float, float]] = {}
    (root / "images" / split).mkdir(parents=True, exist_ok=True)
    for im in doc["images"]:
        name = Path(str(im["file_name"])).name
        stem, w, h = Path(name).stem, float(im["width"]), float(im["height"])
        stems[im["id"]] = (stem, w, h)
        link = root / "images" / split / name
        if not link.exists() and (img_dir / im["file_name"]).is_file():
            os.symlink((img_dir / im["file_name"]).resolve(), link)
        lines = []
        for a in by_image.get(im["id"], []):
            if a.get("iscrowd"):
                crowd += 1
                continue
            if task == "segm":
                _, parts = _polygon(a.get("segmentation"))
                multi += parts > 1
                no_poly += parts == 0
            line = _line(index_of[a["category_id"]], a, w, h, task)
            if line is not None:
                lines.append(line)
        target = output.child_path(root / "labels" / split, stem, ".txt")
        output.write_text(target, "".join(f"{x}\n" for x in lines), protected)
    yaml_lines = [f"path: {json.dumps(str(root))}", f"{split}: images/{split}"]
    if task == "keypoints":
        yaml_lines.append("kpt_shape: [17, 3]")
    yaml_lines.append("names:")
    yaml_lines += [f"  {i}: {json.dumps(n)}" for i, n in enumerate(names)]
    output.write_text(root / "data.yaml", "\n".join(yaml_lines) + "\n", protected)
    msgs = [f"wrote {root / 'data.yaml'}: {len(doc['images'])} images, {len(names)} classes"]
    if crowd:
        msgs.append(
            f"{crowd} crowd region(s) left out: YOLO labels have no crowd flag (COCO's "
            "evaluation ignores detections on them; from YOLO they would count as false positives)"
        )
    if multi:
        msgs.append(
            f"{multi} object(s) of several polygons: YOLO holds one a line; the largest kept"
        )
    if no_poly:
        msgs.append(f"{no_poly} object(s) without a polygon (RLE masks) left out of segment labels")
    msgs.append("COCO's 'area' is not kept: read back, an object's area is its box's or polygon's")
    for r in results:
        msgs += _coco_results_to_yolo(r, root, stems, index_of, task, protected)
    return msgs


def _coco_results_to_yolo(
    path: Path,
    root: Path,
    stems: dict[int, tuple[str, float, float]],
    index_of: dict[int, int],
    task: str,
    protected: list[Path],
) -> list[str]:
    anns = load_json(path)
    if not isinstance(anns, list):
        raise FormatError(path, "results must be a JSON array of objects")
    per: dict[str, list[str]] = {}
    skipped = 0
    for n, a in enumerate(anns):
        if not isinstance(a, dict) or a.get("image_id") not in stems or "score" not in a:
            raise FormatError(path, "expected a result of an image of the file", element=f"[{n}]")
        stem, w, h = stems[a["image_id"]]
        cls = index_of.get(a.get("category_id", -1))
        line = None if cls is None else _line(cls, a, w, h, task, a["score"])
        if line is None:
            skipped += 1
            continue
        per.setdefault(stem, []).append(line)
    folder = root / "predictions" / path.stem
    for stem, lines in per.items():
        output.write_text(
            output.child_path(folder, stem, ".txt"), "\n".join(lines) + "\n", protected
        )
    msgs = [f"wrote {folder}: {sum(map(len, per.values()))} predictions in {len(per)} files"]
    if skipped:
        msgs.append(
            f"{path}: {skipped} result(s) left out (an unknown category, or no polygon: YOLO "
            "prediction lines hold boxes or polygons, not RLE masks)"
        )
    return msgs


def _yolo_coco(
    path: Path, split: str | None, results: list[Path], task: str | None
) -> tuple[dict[str, Any], str, list[Path], list[tuple[Path, list[Any]]], list[str]]:
    """The YOLO split's COCO document, its split name, the folders to protect, the COCO
    results of ``results`` (each with a path named as the written file) and the warnings."""
    layout = read_layout(path, split)
    doc, info = coco_document(layout)
    image_root = doc.pop("_root")
    protected = [path if path.is_dir() else path.parent, Path(image_root)]
    loaded: list[tuple[Path, list[Any]]] = []
    warnings: list[str] = [f"(images in {image_root}: pass --images {image_root})"]
    if results:
        dataset = read_yolo(path, layout.split, masks=False)
        t = task or info.task
        for r in results:
            if r.is_dir():
                entries, more = txt_entries(dataset, r, t)
            else:
                entries, more = json_entries(dataset, r)
            loaded.append((r.parent / f"{r.name if r.is_dir() else r.stem}.json", entries))
            warnings += more
    return doc, layout.split, protected, loaded, warnings


def yolo_to_coco(
    path: Path, split: str | None, out: Path, results: list[Path], task: str | None = None
) -> list[str]:
    """Write the YOLO split (and ``results``) as COCO files in ``out``."""
    doc, name, protected, loaded, warnings = _yolo_coco(path, split, results, task)
    root = output.guard_folder(out, protected)
    target = root / f"instances_{name}.json"
    output.write_text(target, json.dumps(doc), protected)
    msgs = [
        f"wrote {target}: {len(doc['images'])} images, {len(doc['annotations'])} objects "
        + warnings[0]
    ]
    for r, entries in loaded:
        written = output.write_text(root / r.name, json.dumps(entries), protected)
        msgs.append(f"wrote {written}: {len(entries)} results")
    return msgs + warnings[1:]


def yolo_to_voc(
    path: Path,
    split: str | None,
    out: Path,
    results: list[Path],
    task: str | None,
    image_set: str | None,
) -> list[str]:
    """Write the YOLO split (and ``results``) as a VOC folder in ``out``, through the COCO
    document it is evaluated as (``write_voc``: VOC's 1-based pixels, ``comp4_det`` files)."""
    doc, name, protected, loaded, warnings = _yolo_coco(path, split, results, task)
    return write_voc(doc, path, out, image_set or name, protected, loaded) + warnings[1:]
