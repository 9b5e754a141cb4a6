"""``vocviewer convert X.json --to cvat OUT``: a COCO annotation file as CVAT for images 1.1 XML.

Written: ``OUT/<stem>.xml`` = ``<annotations><version>1.1</version><meta><task><labels>`` (the
categories in id order) ``</labels></task></meta>`` and one ``<image id name width height>`` per
COCO image (``id`` = COCO's image id). Results: each COCO results JSON as ``OUT/<stem>.json``
with ``category_id`` renumbered as the XML's labels are read (1-based in order; COCO's ids have
gaps), image ids kept. Per annotation: one polygon → ``<polygon label points="x,y;...">``; no
segmentation, a polygon that is its box's corners (area ``w * h``: those corners written),
several polygons or an RLE mask → ``<box label xtl ytl xbr ybr>`` from COCO's ``bbox`` (``xbr =
x + w``); ``occluded="0"`` (COCO has no such flag); ``iscrowd`` → ``<attribute
name="iscrowd">true``. Numbers keep 17 significant digits. Read back (``convert.coco_dict``), a
box's area is ``w * h`` and a polygon's bbox / area are its extent / rasterised pixels: exact for
data whose COCO ``bbox`` / ``area`` follow those rules.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lxml import etree

from vocviewer.core.errors import FormatError
from vocviewer.families.voc.write_voc import check_document
from vocviewer.formats import output
from vocviewer.formats.json_input import load_json


def _n(v: float) -> str:
    return f"{float(v):.17g}"


def _corners(a: dict[str, Any]) -> tuple[float, float, float, float] | None:
    """``x1, y1, x2, y2`` if the one polygon of ``a`` is four corners of a rectangle whose
    extent is ``bbox`` (``x2 - x1 == w``) and ``area`` is ``w * h``: a box drawn as a polygon,
    written as the ``<box>`` it is (``None`` otherwise)."""
    p = [float(v) for v in a["segmentation"][0]]
    if len(p) != 8 or not a.get("bbox"):
        return None
    x, y, w, h = (float(v) for v in a["bbox"])
    x1, y1, x2, y2 = min(p[0::2]), min(p[1::2]), max(p[0::2]), max(p[1::2])
    corners = {(p[i], p[i + 1]) for i in range(0, 8, 2)}
    exact = (x1, y1, x2 - x1, y2 - y1) == (x, y, w, h) and a.get("area") == w * h
    return (
        (x1, y1, x2, y2) if exact and corners == {(x1, y1), (x2, y1), (x2, y2), (x1, y2)} else None
    )


def _shape(image: etree._Element, a: dict[str, Any], label: str) -> str:
    """Append the shape of annotation ``a`` to ``image``; its kind (``box`` / ``polygon``) or
    why it is a box (``rle`` / ``multi``)."""
    segm = a.get("segmentation")
    kind = "box"
    polygon = isinstance(segm, list) and len(segm) == 1 and len(segm[0]) >= 6
    corners = _corners(a) if polygon else None
    if isinstance(segm, list) and polygon and corners is None:
        xy = [float(v) for v in segm[0]]
        points = ";".join(f"{_n(x)},{_n(y)}" for x, y in zip(xy[0::2], xy[1::2], strict=True))
        node = etree.SubElement(image, "polygon", label=label, occluded="0", points=points)
        kind = "polygon"
    else:
        x, y, w, h = (float(v) for v in a["bbox"])
        x1, y1, x2, y2 = corners or (x, y, x + w, y + h)
        box = {"xtl": _n(x1), "ytl": _n(y1), "xbr": _n(x2), "ybr": _n(y2)}
        node = etree.SubElement(image, "box", label=label, occluded="0", **box)
        if isinstance(segm, dict):
            kind = "rle"
        elif isinstance(segm, list) and len(segm) > 1:
            kind = "multi"
    node.set("z_order", "0")
    if a.get("iscrowd"):
        etree.SubElement(node, "attribute", name="iscrowd").text = "true"
    return kind


def coco_to_cvat(ann: Path, out: Path, results: list[Path], images: Path | None) -> list[str]:
    """Write the COCO annotation file ``ann`` as ``OUT/<stem>.xml``, never inside ``ann``'s or
    the images' folders; the messages say what was written and what CVAT cannot hold."""
    doc = check_document(load_json(ann), ann)
    protected = [ann.parent, *([images] if images is not None else [])]
    root_dir = output.guard_folder(out, protected)
    cats = sorted(doc.get("categories") or [], key=lambda c: c["id"])
    names = {c["id"]: str(c["name"]) for c in cats}
    root = etree.Element("annotations")
    etree.SubElement(root, "version").text = "1.1"
    labels = etree.SubElement(etree.SubElement(etree.SubElement(root, "meta"), "task"), "labels")
    for c in cats:
        etree.SubElement(etree.SubElement(labels, "label"), "name").text = str(c["name"])
    by_image: dict[Any, list[dict[str, Any]]] = {}
    for a in doc.get("annotations") or []:
        by_image.setdefault(a.get("image_id"), []).append(a)
    kinds: dict[str, int] = {}
    keypoints = 0
    for im in doc["images"]:
        attrs = {k: str(int(im[k]) if k != "id" else im[k]) for k in ("id", "width", "height")}
        image = etree.SubElement(root, "image", id=attrs["id"], name=str(im["file_name"]))
        image.set("width", attrs["width"])
        image.set("height", attrs["height"])
        for a in by_image.pop(im["id"], []):
            kind = _shape(image, a, names[a["category_id"]])
            kinds[kind] = kinds.get(kind, 0) + 1
            keypoints += bool(a.get("num_keypoints") or a.get("keypoints"))
    target = output.child_path(root_dir, ann.stem, ".xml")
    xml = etree.tostring(root, pretty_print=True, xml_declaration=True, encoding="utf-8")
    output.write_bytes(target, xml, protected)
    n = sum(kinds.values())
    msgs = [f"wrote {target}: {len(doc['images'])} images, {n} objects ({len(cats)} labels)"]
    if kinds.get("rle"):
        msgs.append(
            f"{kinds['rle']} RLE mask(s) written as boxes: CVAT for images XML holds no RLE"
        )
    if kinds.get("multi"):
        msgs.append(f"{kinds['multi']} object(s) of several polygons written as boxes (one shape)")
    if keypoints:
        msgs.append(
            f"{keypoints} object(s) with keypoints: not kept (no CVAT box / polygon holds them)"
        )
    msgs.append(
        "COCO's 'area' is not kept: read back, a box's is w * h and a polygon's its rasterised pixels"
    )
    number = {c["id"]: k for k, c in enumerate(cats, 1)}
    for r in results:
        msgs.append(_write_results(r, root_dir, number, protected))
    return msgs


def _write_results(path: Path, root: Path, number: dict[Any, int], protected: list[Path]) -> str:
    """A COCO results JSON for the XML: ``category_id`` renumbered as the XML's labels are read
    (1-based in ``<labels>`` order), image ids kept; ``OUT/<stem>.json``; the message line."""
    entries = load_json(path)
    if not isinstance(entries, list):
        raise FormatError(path, "results must be a JSON array of objects")
    for k, e in enumerate(entries):
        if not isinstance(e, dict) or e.get("category_id") not in number:
            raise FormatError(path, "expected a category_id of the file", element=f"[{k}]")
        e["category_id"] = number[e["category_id"]]
    target = output.child_path(root, path.stem, ".json")
    output.write_text(target, json.dumps(entries), protected)
    return f"wrote {target}: {len(entries)} results (category ids as the XML's labels are read)"
