"""``shapes.Annotated`` → the dataset model of the protocol that evaluates it.

COCO (``--protocol coco``): a COCO annotation dict read by COCO's own reader, so every rule of
pycocotools applies unchanged. Per object (``Annotated.objects``): ``category_id`` = 1-based
position in ``labels``; ``bbox`` = the extent of its points as ``x, y, w, h``; one box alone has
``area`` = w * h and its four corners as ``segmentation``; otherwise ``segmentation`` = its
polygons (boxes as their corners) and ``area`` = the pixels of their union rasterised as
pycocotools does (``frPyObjects`` + ``merge`` + ``area``); ``iscrowd`` = an ``iscrowd`` /
``is_crowd`` / ``crowd`` attribute or flag that is true. ``image_id`` = CVAT's ``<image id>``
(LabelMe: 1-based in file-name order), the ids a COCO results JSON names.

VOC (``--protocol voc2007|voc2012``): a VOC-model ``Dataset`` built directly: image ids = the
image file names' stems (what VOC result lines name), boxes = the extents in VOC's 1-based
inclusive pixels, ``xmin = x1 + 1``, ``xmax = x2`` (same for y) as ``convert --to voc`` writes
them (``write_voc``), so VOC's ``+1`` width is the extent's and both give one number, ``difficult`` /
``truncated`` from attributes or flags of those names, ``occluded`` from CVAT's attribute or a
flag; a crowd object is ``difficult`` (VOC's only "neither hit nor miss"); one image set, named
as the result files name it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

from vocviewer.core import masks as mk
from vocviewer.core.dataset import Dataset, ImageTable, ObjectTable
from vocviewer.core.errors import FormatError
from vocviewer.families.coco.reader import coco_dataset
from vocviewer.families.cvat.shapes import Annotated, Shape
from vocviewer.families.voc.write_voc import write_voc
from vocviewer.formats import output
from vocviewer.formats.json_input import load_json

#: the image set of the VOC model / folder when neither result file names nor --image-set name one
DEFAULT_SET = "all"


@dataclass(frozen=True)
class ToolSource:
    """The family record of a dataset read from CVAT or LabelMe: ``fmt``, the ``model`` it was
    converted to (``"coco"`` / ``"voc"``) and the one-line ``summary`` of what was read."""

    fmt: str
    model: str
    summary: str


def _object(shapes: list[Shape], h: int, w: int) -> tuple[list[float], float, list[list[float]]]:
    """``bbox`` (x, y, w, h), ``area`` and ``segmentation`` of one object."""
    xs = [v for s in shapes for v in s.points[0::2]]
    ys = [v for s in shapes for v in s.points[1::2]]
    x1, y1, x2, y2 = min(xs), min(ys), max(xs), max(ys)
    bbox = [x1, y1, x2 - x1, y2 - y1]
    polygons = [s.polygon() for s in shapes]
    if len(shapes) == 1 and shapes[0].kind == "box":
        return bbox, bbox[2] * bbox[3], polygons
    return bbox, float(mk.area(mk.polygons_to_rle(polygons, h, w))), polygons


def coco_dict(annotated: Annotated) -> dict[str, Any]:
    """The COCO annotation dict of ``annotated`` (the rules in the module docstring)."""
    cat = {name: k for k, name in enumerate(annotated.labels, 1)}
    images: list[dict[str, Any]] = []
    anns: list[dict[str, Any]] = []
    for im in annotated.images:
        images.append({"id": im.id, "file_name": im.name, "width": im.width, "height": im.height})
        for shapes in annotated.objects(im):
            bbox, area, segmentation = _object(shapes, im.height, im.width)
            anns.append(
                {
                    "id": len(anns) + 1,
                    "image_id": im.id,
                    "category_id": cat[shapes[0].label],
                    "bbox": bbox,
                    "area": area,
                    "iscrowd": int(any(s.crowd for s in shapes)),
                    "segmentation": segmentation,
                }
            )
    categories = [{"id": k, "name": name} for name, k in cat.items()]
    return {"images": images, "annotations": anns, "categories": categories}


def _flags(annotated: Annotated) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per object, in ``objects`` order: difficult, truncated, occluded, crowd."""
    rows = [
        (
            any(s.difficult for s in o),
            any(s.truncated for s in o),
            any(s.occluded for s in o),
            any(s.crowd for s in o),
        )
        for im in annotated.images
        for o in annotated.objects(im)
    ]
    table = np.array(rows, dtype=bool).reshape(-1, 4)
    return table[:, 0], table[:, 1], table[:, 2], table[:, 3]


def coco_model(annotated: Annotated, problems: list[FormatError], *, masks: bool = True) -> Dataset:
    """``annotated`` read by COCO's reader (``masks``: rasterise the polygons, for segm), with
    occluded / truncated flags for the window and a ``ToolSource`` record."""
    ds = coco_dataset(annotated.path, coco_dict(annotated), annotated.image_dir, masks=masks)
    _, truncated, occluded, _ = _flags(annotated)
    objects = ds.objects
    if len(truncated) == len(objects):  # (COCO's reader left none out)
        objects = replace(objects, truncated=truncated, occluded=occluded)
    source = ToolSource(annotated.fmt, "coco", annotated.summary())
    return replace(
        ds,
        name=annotated.path.name,
        objects=objects,
        problems=(*problems, *ds.problems),
        family_data=(*ds.family_data, source),
    )


def voc_model(annotated: Annotated, problems: list[FormatError], image_set: str) -> Dataset:
    """``annotated`` as VOC's model (the rules in the module docstring), all its images in the
    image set ``Main/<image_set>``."""
    stems: dict[str, str] = {}
    for im in annotated.images:
        stem = PurePosixPath(im.name).stem
        if stem in stems:
            raise FormatError(
                annotated.path,
                f"images {stems[stem]!r} and {im.name!r} share the id {stem!r} VOC's result "
                "lines would name; use --protocol coco",
            )
        stems[stem] = im.name
    boxes, labels, image_index, order = [], [], [], []
    cls = {name: k for k, name in enumerate(annotated.labels)}
    for i, im in enumerate(annotated.images):
        for k, shapes in enumerate(annotated.objects(im)):
            x1 = min(v for s in shapes for v in s.points[0::2])
            y1 = min(v for s in shapes for v in s.points[1::2])
            x2 = max(v for s in shapes for v in s.points[0::2])
            y2 = max(v for s in shapes for v in s.points[1::2])
            boxes.append((x1 + 1, y1 + 1, x2, y2))  # write_voc's mapping
            labels.append(cls[shapes[0].label])
            image_index.append(i)
            order.append(k)
    difficult, truncated, occluded, crowd = _flags(annotated)
    n = len(labels)
    objects = ObjectTable(
        image_index=np.array(image_index, np.int64),
        label=np.array(labels, np.int64),
        box=np.array(boxes, np.float64).reshape(n, 4),
        difficult=difficult | crowd,
        truncated=truncated,
        occluded=occluded,
        pose=np.zeros(n, np.int8),
        order_in_image=np.array(order, np.int64),
        actions=np.zeros((n, 0), bool),
    )
    ims = annotated.images
    images = ImageTable(
        np.array(list(stems), dtype=np.str_),
        tuple(annotated.image_dir / im.name for im in ims),
        np.array([im.width for im in ims], np.int32),
        np.array([im.height for im in ims], np.int32),
        np.zeros(len(ims), bool),
    )
    return Dataset(
        name=annotated.path.name,
        root=annotated.path if annotated.path.is_dir() else annotated.path.parent,
        classes=annotated.labels,
        box_convention="voc",
        images=images,
        objects=objects,
        image_sets={f"Main/{image_set}": np.arange(len(ims), dtype=np.int64)},
        problems=tuple(problems),
        family_data=(ToolSource(annotated.fmt, "voc", annotated.summary()),),
        roots=(Path(annotated.image_dir),),
    )


def write_coco(annotated: Annotated, out: Path) -> list[str]:
    """``vocviewer convert X --to coco OUT``: ``OUT/instances_<name>.json`` (``coco_dict``),
    never inside the annotations' or images' folders; the messages say what was written and
    which flags COCO cannot hold (occluded, difficult, truncated, other attributes)."""
    source = annotated.path if annotated.path.is_dir() else annotated.path.parent
    protected = [source, annotated.image_dir]
    root = output.guard_folder(out, protected)
    doc = coco_dict(annotated)
    target = root / f"instances_{annotated.path.stem}.json"
    output.write_text(target, json.dumps(doc), protected)
    msgs = [
        f"wrote {target}: {len(doc['images'])} images, {len(doc['annotations'])} objects "
        f"(images in {annotated.image_dir}: pass --images {annotated.image_dir})"
    ]
    difficult, truncated, occluded, _ = _flags(annotated)
    lost = [
        f"{int(n.sum())} {what}"
        for n, what in ((occluded, "occluded"), (difficult, "difficult"), (truncated, "truncated"))
        if n.any()
    ]
    if lost:
        msgs.append(f"COCO has no such flags; not written: {', '.join(lost)} objects")
    return msgs


def write_voc_folder(
    annotated: Annotated, out: Path, results: list[Path], image_set: str | None
) -> list[str]:
    """``vocviewer convert X --to voc OUT``: ``coco_dict`` with each object's difficult /
    truncated / occluded flags, written by VOC's writer (``write_voc``); ``results`` are COCO
    results JSONs naming the written image ids."""
    doc = coco_dict(annotated)
    difficult, truncated, occluded, _ = _flags(annotated)
    for k, a in enumerate(doc["annotations"]):
        a.update(difficult=bool(difficult[k]), truncated=bool(truncated[k]))
        a["occluded"] = bool(occluded[k])
    source = annotated.path if annotated.path.is_dir() else annotated.path.parent
    protected = [source, annotated.image_dir]
    loaded = []
    for r in results:
        entries = load_json(r)
        if not isinstance(entries, list):
            raise FormatError(r, "results must be a JSON array of objects")
        loaded.append((r, entries))
    name = image_set or DEFAULT_SET
    return write_voc(doc, annotated.path, out, name, protected, loaded)
