"""CVAT for images 1.1 XML → ``shapes.Annotated``.

The layout (CVAT's "CVAT for images 1.1" export)::

    <annotations>
      <version>1.1</version>
      <meta><task>… <labels><label><name>car</name>…</label></labels></task></meta>
      <image id="0" name="frame_000.jpg" width="640" height="480">
        <box label="car" occluded="0" xtl="10.5" ytl="20" xbr="99" ybr="80.25" z_order="0">
          <attribute name="difficult">false</attribute>
        </box>
        <polygon label="person" occluded="1" points="1.0,2.0;30,4;15,40"/>
      </image>
    </annotations>

Boxes and polygons are read (their ``occluded`` and ``<attribute>`` children kept); a tag is an
image label, not an object; CVAT's other shapes (polylines, points, ellipses, masks, cuboids,
skeletons) are no box or polygon a detector is scored on: each is left out with a problem (a
warning, not lost ground truth). Anything else, or a box / polygon with a missing or non-numeric
coordinate, is a ``FormatError`` naming the file, its line and the element.
"""

from __future__ import annotations

import math
from pathlib import Path

from lxml import etree

from vocviewer.core.errors import FormatError
from vocviewer.families.cvat.shapes import Annotated, Shape, SourceImage
from vocviewer.formats.input import read_bytes
from vocviewer.formats.text_fields import make_parser

FORMAT = "CVAT for images 1.1"
#: CVAT's shapes that are not boxes or polygons (left out with a problem)
OTHER_SHAPES = ("polyline", "points", "ellipse", "mask", "cuboid", "skeleton")


def _error(path: Path, node: etree._Element, where: str, message: str) -> FormatError:
    return FormatError(path, message, line=node.sourceline, element=where)


def _attr(path: Path, node: etree._Element, where: str, name: str) -> str:
    value = node.get(name)
    if value is None:
        raise _error(path, node, where, f'<{node.tag}> has no "{name}" attribute')
    return str(value)


def _number(path: Path, node: etree._Element, where: str, name: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise _error(path, node, where, f'"{name}" is {text!r}; expected a finite number')
    return value


def _size(path: Path, node: etree._Element, where: str, name: str) -> int:
    text = _attr(path, node, where, name)
    if not text.strip().isdigit() or int(text) <= 0:
        raise _error(path, node, where, f'"{name}" is {text!r}; expected a positive integer')
    return int(text)


def _points(path: Path, node: etree._Element, where: str) -> tuple[float, ...]:
    text = _attr(path, node, where, "points")
    out: list[float] = []
    for pair in text.split(";"):
        xy = pair.split(",")
        if len(xy) != 2:
            raise _error(path, node, where, f'"points" has {pair!r}; expected "x,y;x,y;..."')
        out += [_number(path, node, where, "points", v) for v in xy]
    if len(out) < 6:
        raise _error(
            path, node, where, f'"points" has {len(out) // 2} vertices; expected 3 or more'
        )
    return tuple(out)


def _shape(path: Path, node: etree._Element, where: str) -> Shape:
    label = _attr(path, node, where, "label")
    occluded = node.get("occluded", "0").strip()
    if occluded not in ("0", "1"):
        raise _error(path, node, where, f'"occluded" is {occluded!r}; expected 0 or 1')
    attributes: dict[str, str] = {}
    for k, a in enumerate(node.iterchildren("attribute"), 1):
        name = _attr(path, a, f"{where}/attribute[{k}]", "name")
        attributes[name] = a.text or ""
    if node.tag == "box":
        points = tuple(
            _number(path, node, where, n, _attr(path, node, where, n))
            for n in ("xtl", "ytl", "xbr", "ybr")
        )
    else:
        points = _points(path, node, where)
    return Shape(
        label,
        "box" if node.tag == "box" else "polygon",
        points,
        occluded == "1",
        attributes,
        None,
        f"{path.name}:{node.sourceline}",
    )


def _labels(root: etree._Element) -> list[str]:
    """The ``<meta>`` labels (task, job or project), in order."""
    names: list[str] = []
    for label in root.iterfind("meta//labels/label"):
        name = label.findtext("name")
        if name is not None and name not in names:
            names.append(name)
    return names


def read_cvat_xml(
    path: str | Path, image_dir: str | Path | None = None
) -> tuple[Annotated, list[FormatError]]:
    """Read a CVAT for images 1.1 XML; ``image_dir`` (default: the XML's folder) holds the images
    its ``name`` attributes name. Returns the annotations and the problems (shapes left out)."""
    p = Path(path)
    try:
        root = etree.fromstring(read_bytes(p), make_parser())
    except etree.XMLSyntaxError as exc:
        raise FormatError(p, f"is not well-formed XML: {exc.msg}", line=exc.lineno) from None
    if root.tag != "annotations":
        raise FormatError(p, f"<{root.tag}> is not CVAT's <annotations>", line=root.sourceline)
    track = root.find("track")
    if track is not None:
        raise _error(
            p,
            track,
            "annotations/track",
            "a CVAT for video file (<track>); export the task as CVAT for images 1.1",
        )
    labels = _labels(root)
    problems: list[FormatError] = []
    images: list[SourceImage] = []
    seen: set[int] = set()
    for i, node in enumerate(root.iterchildren("image"), 1):
        where = f"annotations/image[{i}]"
        text = _attr(p, node, where, "id")
        if not text.strip().isdigit():
            raise _error(p, node, where, f'"id" is {text!r}; expected an integer')
        image_id = int(text)
        if image_id in seen:
            raise _error(p, node, where, f"a second image with id {image_id}")
        seen.add(image_id)
        name = _attr(p, node, where, "name")
        w, h = _size(p, node, where, "width"), _size(p, node, where, "height")
        shapes: list[Shape] = []
        counts: dict[str, int] = {}
        for child in node.iterchildren(tag=etree.Element):
            n = counts[child.tag] = counts.get(child.tag, 0) + 1
            at = f"{where}/{child.tag}[{n}]"
            if child.tag in ("box", "polygon"):
                shapes.append(_shape(p, child, at))
            elif child.tag in OTHER_SHAPES:
                problems.append(
                    _error(p, child, at, f"a <{child.tag}> is not a box or polygon; left out")
                )
            elif child.tag != "tag":
                raise _error(
                    p,
                    child,
                    at,
                    f"<{child.tag}> is not a CVAT shape; expected <box> "
                    "or <polygon> (or " + ", ".join(OTHER_SHAPES) + ", tag)",
                )
        for s in shapes:
            if s.label not in labels:
                labels.append(s.label)
        images.append(SourceImage(image_id, name, w, h, tuple(shapes)))
    if not images:
        raise FormatError(p, "has no <image> elements; expected CVAT for images 1.1")
    folder = Path(image_dir) if image_dir is not None else p.parent
    return Annotated(FORMAT, p, folder, tuple(labels), tuple(images)), problems
