"""LabelMe JSON → ``shapes.Annotated``: a folder of one JSON file per image (or one such file).

Each file (LabelMe's own layout)::

    {"version": "5.4.1", "flags": {}, "imagePath": "img_000.jpg", "imageData": null,
     "imageHeight": 480, "imageWidth": 640,
     "shapes": [{"label": "car", "points": [[10, 20], [99, 80]], "group_id": null,
                 "shape_type": "rectangle", "flags": {"occluded": true}}, ...]}

Rectangles (two corners, any order) and polygons (three or more vertices; a shape without
``shape_type`` is a polygon, as LabelMe reads it) are read; shapes sharing a ``label`` and a
``group_id`` make one object (as LabelMe's ``labelme2coco`` joins them). LabelMe's other shapes
(circles, lines, points, line strips, masks) are left out with a problem (a warning). Image ids
are 1-based in the order of the files' names (the COCO results' ``image_id``). Anything else
malformed is a ``FormatError`` naming the file and the JSON entry.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

from vocviewer.core.errors import FormatError
from vocviewer.families.cvat.declared import labelme_files
from vocviewer.families.cvat.shapes import Annotated, Shape, SourceImage
from vocviewer.formats.json_input import load_json, show

FORMAT = "LabelMe JSON"
#: LabelMe's shapes that are not boxes or polygons (left out with a problem)
OTHER_SHAPES = ("circle", "line", "point", "points", "linestrip", "mask")


def _number(path: Path, value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise FormatError(path, f"expected a finite number, got {show(value)}", element=where)
    return float(value)


def _size(path: Path, doc: dict[str, Any], key: str) -> int:
    value = doc.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise FormatError(path, f"expected a positive integer, got {show(value)}", element=key)
    return value


def _shape(path: Path, s: Any, where: str, problems: list[FormatError]) -> Shape | None:
    if not isinstance(s, dict):
        raise FormatError(path, f"expected an object, got {show(s)}", element=where)
    label = s.get("label")
    if not isinstance(label, str) or not label:
        raise FormatError(path, f"expected a label, got {show(label)}", element=f"{where}.label")
    kind = s.get("shape_type") or "polygon"
    if kind in OTHER_SHAPES:
        problems.append(
            FormatError(path, f"a {kind} is not a box or polygon; left out", element=where)
        )
        return None
    if kind not in ("rectangle", "polygon"):
        raise FormatError(
            path,
            f"shape_type {show(kind)} is not LabelMe's; expected rectangle or "
            "polygon (or " + ", ".join(OTHER_SHAPES) + ")",
            element=f"{where}.shape_type",
        )
    pts = s.get("points")
    if not isinstance(pts, list):
        raise FormatError(
            path, f"expected a list of [x, y], got {show(pts)}", element=f"{where}.points"
        )
    flat: list[float] = []
    for k, xy in enumerate(pts):
        at = f"{where}.points[{k}]"
        if not isinstance(xy, list) or len(xy) != 2:
            raise FormatError(path, f"expected [x, y], got {show(xy)}", element=at)
        flat += [_number(path, xy[0], at), _number(path, xy[1], at)]
    need = 2 if kind == "rectangle" else 3
    if (len(flat) // 2 != 2) if kind == "rectangle" else len(flat) // 2 < need:
        what = "2 corners" if kind == "rectangle" else "3 or more vertices"
        raise FormatError(
            path,
            f"a {kind} with {len(flat) // 2} points; expected {what}",
            element=f"{where}.points",
        )
    flags = s.get("flags") or {}
    if not isinstance(flags, dict):
        raise FormatError(path, f"expected an object, got {show(flags)}", element=f"{where}.flags")
    group = s.get("group_id")
    if group is not None and (isinstance(group, bool) or not isinstance(group, int | str)):
        raise FormatError(
            path, f"expected an integer or null, got {show(group)}", element=f"{where}.group_id"
        )
    attributes = {str(k): str(v).lower() for k, v in flags.items()}
    occluded = attributes.get("occluded") == "true"
    if kind == "rectangle":
        x1, y1, x2, y2 = flat
        flat = [min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2)]
    return Shape(
        label,
        "box" if kind == "rectangle" else "polygon",
        tuple(flat),
        occluded,
        attributes,
        None if group is None else str(group),
        f"{path.name} ({where})",
    )


def _image(path: Path, index: int, root: Path, problems: list[FormatError]) -> SourceImage:
    doc = load_json(path)
    if not isinstance(doc, dict) or not isinstance(doc.get("shapes"), list):
        raise FormatError(path, "not a LabelMe file: expected an object with a 'shapes' list")
    image_path = doc.get("imagePath")
    if not isinstance(image_path, str) or not image_path:
        raise FormatError(
            path, f"expected the image's file name, got {show(image_path)}", element="imagePath"
        )
    w, h = _size(path, doc, "imageWidth"), _size(path, doc, "imageHeight")
    shapes = [_shape(path, s, f"shapes[{k}]", problems) for k, s in enumerate(doc["shapes"])]
    name = Path(os.path.relpath(path.parent / image_path, root)).as_posix()
    return SourceImage(index, name, w, h, tuple(s for s in shapes if s is not None))


def read_labelme(path: str | Path) -> tuple[Annotated, list[FormatError]]:
    """Read a folder of LabelMe JSON files (or one file). Returns the annotations and the
    problems (shapes left out). Images are found beside their JSON file (``imagePath``)."""
    p = Path(path)
    files = labelme_files(p)
    if not files:
        raise FormatError(p, "holds no .json files; expected LabelMe files")
    root = p if p.is_dir() else p.parent
    problems: list[FormatError] = []
    images = tuple(_image(f, k, root, problems) for k, f in enumerate(files, 1))
    labels = tuple(sorted({s.label for im in images for s in im.shapes}))
    return Annotated(FORMAT, p, root, labels, images), problems
