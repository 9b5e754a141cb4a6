"""CVAT for images 1.1 XML and LabelMe JSON samples written from coco-mini (the formats'
documented layouts), their COCO conversions made independently with pycocotools, VOC devkit
equivalents, and jittered results."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

COCO_MINI = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "coco-mini"
INSTANCES = COCO_MINI / "annotations" / "instances_val2017.json"
#: COCO names of the VOC classes that differ
TO_VOC = {
    "airplane": "aeroplane",
    "motorcycle": "motorbike",
    "couch": "sofa",
    "potted plant": "pottedplant",
    "dining table": "diningtable",
    "tv": "tvmonitor",
}


@dataclass(frozen=True)
class Obj:
    """One object: a ``box`` (x1, y1, x2, y2) or ``polygons``; ``crowd`` / ``difficult``."""

    label: str
    box: tuple[float, ...] | None
    polygons: list[list[float]]
    crowd: bool = False
    difficult: bool = False
    occluded: bool = False


@dataclass(frozen=True)
class Img:
    coco_id: int
    name: str
    width: int
    height: int
    objects: list[Obj]


def sample(voc: bool = False, multi: bool = True) -> tuple[list[str], list[Img]]:
    """Classes and images from coco-mini: every third object a box, crowds as crowd boxes, the
    others polygons (``multi`` False: the first polygon only). ``voc``: only VOC's classes,
    renamed, every seventh object difficult."""
    from vocviewer.core.dataset import VOC_CLASSES

    doc = json.loads(INSTANCES.read_text())
    names = {c["id"]: c["name"] for c in doc["categories"]}
    if voc:
        names = {k: TO_VOC.get(v, v) for k, v in names.items() if TO_VOC.get(v, v) in VOC_CLASSES}
        classes = list(VOC_CLASSES)
    else:
        classes = [names[k] for k in sorted(names)]
    by_image: dict[int, list[Obj]] = {im["id"]: [] for im in doc["images"]}
    for n, a in enumerate(doc["annotations"]):
        if a["category_id"] not in names:
            continue
        label = names[a["category_id"]]
        x, y, w, h = a["bbox"]
        if a["iscrowd"] or n % 3 == 0:
            o = Obj(label, (x, y, x + w, y + h), [], crowd=bool(a["iscrowd"]))
        else:
            polys = a["segmentation"] if multi else a["segmentation"][:1]
            o = Obj(label, None, [list(map(float, p)) for p in polys if len(p) >= 6])
            if not o.polygons:
                continue
        o = Obj(o.label, o.box, o.polygons, o.crowd, voc and n % 7 == 0, n % 5 == 0)
        by_image[a["image_id"]].append(o)
    images = [
        Img(im["id"], im["file_name"], im["width"], im["height"], by_image[im["id"]])
        for im in sorted(doc["images"], key=lambda im: im["file_name"])
    ]
    return classes, images


def write_cvat(path: Path, classes: list[str], images: list[Img]) -> Path:
    """CVAT for images 1.1: each polygon of an object its own ``<polygon>`` (CVAT has no
    groups: call with ``multi=False`` samples)."""
    from xml.sax.saxutils import quoteattr

    out = [
        "<?xml version='1.0' encoding='utf-8'?>",
        "<annotations>",
        "  <version>1.1</version>",
        "  <meta><task><name>mini</name><labels>",
    ]
    out += [f"    <label><name>{c}</name><attributes/></label>" for c in classes]
    out.append("  </labels></task></meta>")
    for im in images:
        out.append(
            f'  <image id="{im.coco_id}" name={quoteattr(im.name)} width="{im.width}" '
            f'height="{im.height}">'
        )
        for o in im.objects:
            attrs = "".join(
                f'<attribute name="{n}">true</attribute>'
                for n, on in (("is_crowd", o.crowd), ("difficult", o.difficult))
                if on
            )
            common = f'label={quoteattr(o.label)} occluded="{int(o.occluded)}" source="manual"'
            if o.box is not None:
                x1, y1, x2, y2 = (repr(v) for v in o.box)
                out.append(
                    f'    <box {common} xtl="{x1}" ytl="{y1}" xbr="{x2}" ybr="{y2}" '
                    f'z_order="0">{attrs}</box>'
                )
            for p in o.polygons:
                pts = ";".join(f"{p[i]!r},{p[i + 1]!r}" for i in range(0, len(p), 2))
                out.append(f'    <polygon {common} points="{pts}" z_order="0">{attrs}</polygon>')
        out.append("  </image>")
    out.append("</annotations>")
    path.write_text("\n".join(out) + "\n")
    return path


def write_labelme(folder: Path, images: list[Img]) -> Path:
    """One LabelMe JSON per image; an object's polygons share a ``group_id``; boxes are
    rectangles given bottom-right corner first."""
    folder.mkdir(parents=True)
    for im in images:
        shapes: list[dict[str, Any]] = []
        for k, o in enumerate(im.objects):
            flags = {"iscrowd": o.crowd, "difficult": o.difficult, "occluded": o.occluded}
            if o.box is not None:
                x1, y1, x2, y2 = o.box
                shapes.append(
                    {
                        "label": o.label,
                        "points": [[x2, y2], [x1, y1]],
                        "group_id": None,
                        "shape_type": "rectangle",
                        "flags": flags,
                    }
                )
            group = k if len(o.polygons) > 1 else None
            for p in o.polygons:
                pts = [[p[i], p[i + 1]] for i in range(0, len(p), 2)]
                shapes.append(
                    {
                        "label": o.label,
                        "points": pts,
                        "group_id": group,
                        "shape_type": "polygon",
                        "flags": flags,
                    }
                )
        doc = {
            "version": "5.4.1",
            "flags": {},
            "shapes": shapes,
            "imagePath": im.name,
            "imageData": None,
            "imageHeight": im.height,
            "imageWidth": im.width,
        }
        (folder / (Path(im.name).stem + ".json")).write_text(json.dumps(doc))
    return folder


def reference_coco(classes: list[str], images: list[Img], ids: list[int]) -> dict[str, Any]:
    """The COCO conversion, made with pycocotools: bbox = points' extent; area = w * h for a
    box, else the rasterised union's pixels; a box's segmentation its corners."""
    from pycocotools import mask as mu

    anns = []
    for im, iid in zip(images, ids, strict=True):
        for o in im.objects:
            if o.box is not None:
                x1, y1, x2, y2 = o.box
                polys = [[x1, y1, x2, y1, x2, y2, x1, y2]]
                area = (x2 - x1) * (y2 - y1)
            else:
                polys = o.polygons
                rle = mu.merge(mu.frPyObjects(polys, im.height, im.width))
                area = float(mu.area(rle))
            xs = [v for p in polys for v in p[0::2]]
            ys = [v for p in polys for v in p[1::2]]
            bbox = [min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)]
            anns.append(
                {
                    "id": len(anns) + 1,
                    "image_id": iid,
                    "category_id": classes.index(o.label) + 1,
                    "bbox": bbox,
                    "area": area,
                    "iscrowd": int(o.crowd),
                    "segmentation": polys,
                }
            )
    return {
        "images": [
            {"id": i, "file_name": im.name, "width": im.width, "height": im.height}
            for im, i in zip(images, ids, strict=True)
        ],
        "annotations": anns,
        "categories": [{"id": k, "name": c} for k, c in enumerate(classes, 1)],
    }


def coco_results(coco: dict[str, Any], seed: int, segm: bool = False) -> list[dict[str, Any]]:
    """Jittered ground truth (some dropped, some doubled, a few background boxes); ``segm``:
    the jittered boxes as RLE masks."""
    from pycocotools import mask as mu

    rng = np.random.default_rng(seed)
    size = {im["id"]: (im["height"], im["width"]) for im in coco["images"]}
    out = []
    for a in coco["annotations"]:
        if a["iscrowd"] or rng.random() < 0.1:
            continue
        x, y, w, h = a["bbox"]
        for _ in range(1 + int(rng.random() < 0.1)):
            j = rng.normal(0.0, 0.12, 4)
            box = [x + j[0] * w, y + j[1] * h, max(1.0, w * (1 + j[2])), max(1.0, h * (1 + j[3]))]
            row: dict[str, Any] = {
                "image_id": a["image_id"],
                "category_id": a["category_id"],
                "score": round(float(rng.random()), 6),
            }
            if segm:
                hh, ww = size[a["image_id"]]
                rle = mu.frPyObjects(np.array([box], dtype=np.float64), hh, ww)[0]
                row["segmentation"] = {"size": rle["size"], "counts": rle["counts"].decode()}
            else:
                row["bbox"] = [float(v) for v in box]
            out.append(row)
    return out


def write_voc(root: Path, classes: list[str], images: list[Img]) -> Path:
    """The equivalent VOC year folder (boxes = extents in VOC's 1-based pixels, ``x1 + 1 .. x2``,
    crowd as difficult), image set ``Main/all``."""
    year = root / "VOC2007"
    (year / "Annotations").mkdir(parents=True)
    (year / "ImageSets" / "Main").mkdir(parents=True)
    for im in images:
        objs = []
        for o in im.objects:
            pts = [v for p in o.polygons for v in p] if o.box is None else list(o.box)
            xs, ys = pts[0::2], pts[1::2]
            objs.append(
                f"<object><name>{o.label}</name><difficult>{int(o.difficult or o.crowd)}"
                f"</difficult><bndbox><xmin>{min(xs) + 1!r}</xmin><ymin>{min(ys) + 1!r}</ymin>"
                f"<xmax>{max(xs)!r}</xmax><ymax>{max(ys)!r}</ymax></bndbox></object>"
            )
        stem = Path(im.name).stem
        (year / "Annotations" / f"{stem}.xml").write_text(
            f"<annotation><filename>{im.name}</filename><size><width>{im.width}</width>"
            f"<height>{im.height}</height><depth>3</depth></size>{''.join(objs)}</annotation>"
        )
    names = "".join(Path(im.name).stem + "\n" for im in images)
    (year / "ImageSets" / "Main" / "all.txt").write_text(names)
    return year


def write_voc_results(
    folder: Path, classes: list[str], rows: list[dict[str, Any]], stem_of: dict[int, str]
) -> list[Path]:
    """``comp4_det_all_<class>.txt`` of box results in VOC's 1-based pixels (x1 y1 x2 y2 =
    x + 1, y + 1, x + w, y + h)."""
    folder.mkdir(parents=True)
    files = []
    for k, c in enumerate(classes, 1):
        lines = [
            f"{stem_of[r['image_id']]} {r['score']!r} {r['bbox'][0] + 1!r} {r['bbox'][1] + 1!r} "
            f"{r['bbox'][0] + r['bbox'][2]!r} {r['bbox'][1] + r['bbox'][3]!r}\n"
            for r in rows
            if r["category_id"] == k
        ]
        f = folder / f"comp4_det_all_{c}.txt"
        f.write_text("".join(lines))
        files.append(f)
    return files
