"""A YOLO split → the COCO annotation document it stands for → ``Dataset`` (COCO's reader).

The document is what ``vocviewer convert --to coco`` writes: images (``id``: the file stem if
every stem is a number, else 1, 2, ...; ``width`` / ``height`` from the image header, EXIF
rotation applied as Ultralytics' ``exif_size`` does), categories (COCO's 91-id numbering when
``names`` are COCO's 80 classes, else ``index + 1``) and one annotation per label line with
pixel coordinates (normalised × width / height): ``bbox`` ``x, y, w, h``; ``area`` ``w * h``
(a polygon's: its shoelace area; YOLO keeps no mask area); ``iscrowd`` 0 (YOLO has no crowd
flag); a polygon as ``segmentation`` (a box line: its box's polygon); pose keypoints as COCO's
``x, y, v`` triples. Reading it with COCO's reader makes the numbers COCO's by construction.
``Dataset.data(YoloInfo)`` says what was read (``YoloInfo``).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.families.coco.reader import coco_dataset
from vocviewer.families.yolo.coco_names import category_ids
from vocviewer.families.yolo.labels import (
    LabelRow,
    class_check,
    coordinate_warnings,
    read_label_file,
)
from vocviewer.families.yolo.layout import Layout, label_path, read_layout

KINDS = {"box": "detect", "polygon": "segment", "pose": "pose"}
TASK_OF = {"detect": "bbox", "segment": "segm", "pose": "keypoints"}


@dataclass(frozen=True)
class YoloInfo:
    """What was read: the ``layout``, the label ``kind`` (detect / segment / pose), the image
    ``stems`` (row order), the COCO ``image_ids`` given them, ``warnings`` (the classic
    mistakes, images missing on disk) and the one-line ``summary``."""

    layout: Layout
    kind: str
    stems: tuple[str, ...]
    image_ids: tuple[int, ...]
    warnings: tuple[str, ...]
    summary: str

    @property
    def task(self) -> str:
        """The COCO task its labels are evaluated by (bbox, segm, keypoints)."""
        return TASK_OF[self.kind]


def image_size(path: Path) -> tuple[int, int]:
    """``(width, height)`` from the header (Pillow opens lazily: no pixels decoded), swapped
    for EXIF orientations 5-8 as Ultralytics' ``exif_size`` (6, 8) and Pillow's transpose."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as im:
            w, h = im.size
            orientation = im.getexif().get(0x0112, 1) if im.format in ("JPEG", "MPO") else 1
    except (OSError, UnidentifiedImageError, ValueError) as e:
        raise FormatError(path, f"cannot read the image size: {e}") from None
    return (h, w) if orientation in (6, 8) else (w, h)


def _image_ids(stems: list[str]) -> list[int]:
    if stems and all(s.isdigit() for s in stems):
        ids = [int(s) for s in stems]
        if len(set(ids)) == len(ids):
            return ids
    return list(range(1, len(stems) + 1))


def _shoelace(p: np.ndarray) -> float:
    x, y = p[:, 0], p[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2)


def annotation(row: LabelRow, w: int, h: int, cat_ids: list[int], kind: str) -> dict[str, Any]:
    """The COCO annotation of ``row`` on a ``w`` × ``h`` image (no ``id`` / ``image_id``)."""
    cx, cy, bw, bh = row.box
    x0, y0, pw, ph = (cx - bw / 2) * w, (cy - bh / 2) * h, bw * w, bh * h
    a: dict[str, Any] = {"category_id": cat_ids[row.cls], "bbox": [x0, y0, pw, ph]}
    a["area"], a["iscrowd"] = pw * ph, 0
    if kind == "segment":
        if row.kind == "polygon" and row.points is not None:
            px = row.points * np.array([w, h], dtype=np.float64)
            a["segmentation"] = [px.reshape(-1).tolist()]
            a["area"] = _shoelace(px)
        else:
            a["segmentation"] = [[x0, y0, x0, y0 + ph, x0 + pw, y0 + ph, x0 + pw, y0]]
    if row.kind == "pose" and row.points is not None:
        kp = row.points * np.array([w, h, 1.0], dtype=np.float64)
        kp[kp[:, 2] == 0, :2] = 0.0
        a["keypoints"] = kp.reshape(-1).tolist()
        a["num_keypoints"] = int(np.sum(kp[:, 2] > 0))
    return a


def coco_document(layout: Layout) -> tuple[dict[str, Any], YoloInfo]:
    """The COCO annotation document of ``layout`` and what was read (``FormatError`` naming the
    file and line of a bad label)."""
    per_image: list[list[LabelRow]] = []
    for entry in layout.images:
        lp = label_path(entry.path)
        per_image.append(read_label_file(lp, layout.kpt_shape) if lp.is_file() else [])
    rows = [r for rs in per_image for r in rs]
    names = layout.names
    if names is None:  # a bare folder without classes.txt: the indices are the names
        names = tuple(str(i) for i in range(max((r.cls for r in rows), default=-1) + 1))
    class_check(rows, names, layout.source)
    kinds = {r.kind for r in rows}
    kind = "pose" if layout.kpt_shape else "segment" if "polygon" in kinds else "detect"
    stems = [e.path.stem for e in layout.images]
    ids = _image_ids(stems)
    cat_ids = category_ids(names)
    root = _common_folder([e.path for e in layout.images], layout.source)
    images: list[dict[str, Any]] = []
    anns: list[dict[str, Any]] = []
    for entry, image_id, rs in zip(layout.images, ids, per_image, strict=True):
        w, h = image_size(entry.path)
        rel = entry.path.relative_to(root).as_posix()
        images.append({"id": image_id, "file_name": rel, "width": w, "height": h})
        for r in rs:
            a = annotation(r, w, h, cat_ids, kind)
            anns.append({"id": len(anns) + 1, "image_id": image_id, **a})
    cats: list[dict[str, Any]] = [
        {"id": c, "name": n, "supercategory": ""} for c, n in zip(cat_ids, names, strict=True)
    ]
    if layout.kpt_shape is not None:
        k = layout.kpt_shape[0]
        for c in cats:
            c["keypoints"], c["skeleton"] = [str(i) for i in range(k)], []
    warnings = coordinate_warnings(rows, "label lines")
    for m in layout.missing:
        warnings.append(
            f"{m.listed_in}:{m.line}: the image {m.path} is not on disk; left out (check the "
            "list's paths: './x' is relative to the list's folder, others to the dataset 'path')"
        )
    doc = {"images": images, "annotations": anns, "categories": cats}
    fmt = "YOLO dataset YAML" if layout.source.is_file() else "YOLO folder"
    summary = (
        f"{layout.source}: {fmt}, split {layout.split}, {len(images)} images, {len(anns)} "
        f"objects, {len(names)} classes, {kind} labels (class cx cy w h, normalised to the "
        "image size)"
    )
    info = YoloInfo(layout, kind, tuple(stems), tuple(ids), tuple(warnings), summary)
    return doc | {"_root": str(root)}, info


def _common_folder(paths: list[Path], source: Path) -> Path:
    """The deepest folder holding every image (COCO's ``file_name`` is relative to it)."""
    if not paths:
        return source if source.is_dir() else source.parent
    return Path(os.path.commonpath([str(p.parent) for p in paths]))


def read_yolo(path: str | Path, split: str | None = None, *, masks: bool = True) -> Dataset:
    """Read the YOLO split ``split`` (default: val, else test, else train) of the dataset YAML
    or bare ``images/`` + ``labels/`` folder ``path`` as COCO's reader reads its COCO document."""
    path = Path(path)
    doc, info = coco_document(read_layout(path, split))
    root = Path(doc.pop("_root"))
    ds = coco_dataset(path, doc, root, masks=masks and info.kind == "segment")
    name = f"{path.stem if path.is_file() else path.name} {info.layout.split}"
    roots = (path if path.is_dir() else path.parent, root)  # never written into
    return dataclasses.replace(ds, name=name, roots=roots).with_data(info)
