"""VOC annotation XML (``Annotations/<id>.xml``) → columnar objects and parts.

Per object only what the devkit's ``VOCreadrecxml.m`` reads is kept: ``name``, ``bndbox``,
``difficult``, ``truncated``, ``occluded``, ``pose``, ``actions`` and ``part`` children. Flags are
true only when their cleaned text is exactly ``1`` (PROTOCOLS.md §1.2); box numbers are stored as
written (1-based inclusive pixels, no rounding or clipping). Unlike the official reader, any
well-formed XML is accepted (declaration, comments, attributes, zero objects, missing optional
fields); real problems are reported with file, element path and line.

Files are read through ``formats.input`` (regular files only, bounded). ``<size>`` must hold
integers of at most ``MAX_IMAGE_PIXELS`` pixels together, else it is unknown (0) with a problem.
A box coordinate that is missing or not a finite number (``abc``, ``nan``, ``inf``) leaves that
object (or part) out with a problem naming ``annotation/object[k]/bndbox/<coord>``; the other
objects of the image still load. Such problems end in ``LEFT_OUT`` (or ``NOTHING_READ`` for a
file that gave no objects at all), so ``lost_ground_truth`` can tell them from harmless ones
(an object of an unknown class is no ground truth of any VOC class, as in the official code).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from lxml import etree

from vocviewer import kernel
from vocviewer.core.dataset import VOC_ACTIONS, VOC_CLASSES, VOC_PARTS, VOC_POSES
from vocviewer.core.errors import FormatError
from vocviewer.formats.input import MAX_IMAGE_PIXELS, check_image_size, read_bytes
from vocviewer.formats.problem_kinds import LEFT_OUT, NOTHING_READ
from vocviewer.formats.text_fields import clean, to_float, to_int

_COORDS = ("xmin", "ymin", "xmax", "ymax")
_CLASS_INDEX = {name: k for k, name in enumerate(VOC_CLASSES)}
_PART_INDEX = {name: k for k, name in enumerate(VOC_PARTS)}
_ACTION_INDEX = {name: k for k, name in enumerate(VOC_ACTIONS)}
_POSE_INDEX = {name.lower(): k for k, name in enumerate(VOC_POSES)}
_POSES_LOWER = tuple(name.lower() for name in VOC_POSES)


def _text(el: etree._Element) -> str:
    """Cleaned text of ``el`` (text split by comments is joined)."""
    return clean(el.text if len(el) == 0 else "".join(el.itertext()))


def _first_children(el: etree._Element) -> dict[str, etree._Element]:
    """First child element of each tag (comments and processing instructions skipped)."""
    found: dict[str, etree._Element] = {}
    for child in el:
        tag = child.tag
        if isinstance(tag, str) and tag not in found:
            found[tag] = child
    return found


@dataclass
class AnnotationColumns:
    """Accumulates objects and parts over many files, in the order they are read.

    ``objects`` holds one tuple per object: ``(image, label, x1, y1, x2, y2, difficult,
    truncated, occluded, pose, order_in_image)``; ``action_flags`` the ``(object row, action
    column)`` pairs whose flag is 1; ``parts`` ``(object row, part, x1, y1, x2, y2)``.
    """

    objects: list[tuple[float, ...]] = field(default_factory=list)
    action_flags: list[tuple[int, int]] = field(default_factory=list)
    parts: list[tuple[float, ...]] = field(default_factory=list)
    problems: list[FormatError] = field(default_factory=list)


class ImageInfo(NamedTuple):
    """Per-image fields of one annotation (``filename`` ``None`` if absent; sizes 0 if unknown).
    A tuple: thousands are made per dataset (``unknown_image()``: an image without one)."""

    filename: str | None
    width: int
    height: int
    segmented: bool
    fields: dict[str, str]


def unknown_image() -> ImageInfo:
    """The fields of an image whose annotation is missing or unreadable."""
    return ImageInfo(None, 0, 0, False, {})


def read_annotations(
    files: list[tuple[int, str]], cols: AnnotationColumns, parser: etree.XMLParser
) -> list[ImageInfo]:
    """``read_annotation`` of each ``(image row, path)``, in order: the plain files through the
    compiled reader (``vocviewer.kernel._voc``, same rows), the others (and all of them on
    the numpy path) through lxml."""
    fast: list[tuple[Any, ...] | None] = [None] * len(files)
    if files and (k := kernel.load("_voc")) is not None:
        paths = [os.fsencode(path) for _, path in files]
        rows = [row for row, _ in files]
        fast = k.annotations(paths, rows, VOC_CLASSES, _POSES_LOWER, 8 << 20, MAX_IMAGE_PIXELS)
    out = []
    for (row, path), got in zip(files, fast, strict=True):
        if got is None:
            out.append(read_annotation(Path(path), row, cols, parser))
            continue
        filename, width, height, segmented, fields, objects = got
        cols.objects.extend(objects)
        out.append(ImageInfo(filename, width, height, segmented, fields))
    return out


def read_annotation(
    path: Path, image: int, cols: AnnotationColumns, parser: etree.XMLParser
) -> ImageInfo:
    """Parse ``path`` and append its objects (for image row ``image``) to ``cols``.

    Malformed XML or an unreadable file adds one problem and no objects.
    """
    try:
        root = etree.fromstring(read_bytes(path), parser)
    except etree.XMLSyntaxError as exc:
        msg = exc.msg or "not well-formed"
        cols.problems.append(
            FormatError(path, f"malformed XML: {msg}; {NOTHING_READ}", line=exc.lineno)
        )
        return unknown_image()
    except FormatError as exc:
        cols.problems.append(FormatError(path, f"{exc.message}; {NOTHING_READ}"))
        return unknown_image()
    top = root.tag if isinstance(root.tag, str) else "?"
    if top != "annotation":
        cols.problems.append(
            FormatError(
                path,
                f"root element is <{top}>, expected <annotation>; {NOTHING_READ}",
                line=root.sourceline,
                element=top,
            )
        )
        return unknown_image()
    info = _image_info(root, path, cols.problems)
    order = 0
    for child in root:
        if child.tag != "object":
            continue
        order += 1
        _read_object(child, f"annotation/object[{order}]", path, image, order - 1, cols)
    return info


def _image_info(root: etree._Element, path: Path, problems: list[FormatError]) -> ImageInfo:
    els = _first_children(root)
    filename = _text(els["filename"]) if "filename" in els else ""
    width = height = 0
    size = els.get("size")
    if size is not None:
        dims = _first_children(size)
        width = _dimension(dims.get("width"), "width", path, problems)
        height = _dimension(dims.get("height"), "height", path, problems)
        if width > 0 and height > 0:
            try:
                check_image_size(path, width, height, element="annotation/size")
            except FormatError as exc:
                problems.append(
                    FormatError(
                        path,
                        f"{exc.message}; using 0 x 0 (unknown)",
                        line=size.sourceline,
                        element=exc.element,
                    )
                )
                width = height = 0
    segmented = "segmented" in els and _text(els["segmented"]) == "1"
    return ImageInfo(filename or None, width, height, segmented, _scalar_fields(els))


def _scalar_fields(els: dict[str, etree._Element]) -> dict[str, str]:
    """Image-level text fields other than objects, by path: ``folder``, ``source/database``,
    ``size/depth``, ``owner/name``, ... (PASreadrecord returns these too)."""
    out: dict[str, str] = {}
    for tag, el in els.items():
        if tag == "object":
            continue
        children = [c for c in el if isinstance(c.tag, str)]
        if not children:
            out[tag] = _text(el)
        for c in children:
            if not len(c):
                out.setdefault(f"{tag}/{c.tag}", _text(c))
    return out


def _dimension(
    el: etree._Element | None, name: str, path: Path, problems: list[FormatError]
) -> int:
    if el is None:
        return 0
    text = _text(el)
    value = to_int(text)
    if value is None or not 0 <= value <= MAX_IMAGE_PIXELS:
        what = "an integer" if value is None else f"an integer from 1 to {MAX_IMAGE_PIXELS:,}"
        problems.append(
            FormatError(
                path,
                f"image {name} is not {what}: {_shorten(text)}; using 0 (unknown)",
                line=el.sourceline,
                element=f"annotation/size/{name}",
            )
        )
        return 0
    return value


def _shorten(text: str, limit: int = 40) -> str:
    """``repr`` of element text, cut for a message."""
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def _read_object(
    obj: etree._Element, where: str, path: Path, image: int, order: int, cols: AnnotationColumns
) -> None:
    els: dict[str, etree._Element] = {}
    parts: list[etree._Element] = []
    for child in obj:
        tag = child.tag
        if tag == "part":
            parts.append(child)
        elif isinstance(tag, str) and tag not in els:
            els[tag] = child
    problems = cols.problems
    name_el = els.get("name")
    if name_el is None:
        problems.append(
            FormatError(path, "object has no <name>; skipped", line=obj.sourceline, element=where)
        )
        return
    name = _text(name_el)
    label = _CLASS_INDEX.get(name)
    if label is None:
        problems.append(
            FormatError(
                path,
                f"unknown class {name!r} (expected one of the 20 VOC classes); object skipped",
                line=name_el.sourceline,
                element=f"{where}/name",
            )
        )
        return
    bndbox = els.get("bndbox")
    if bndbox is None:
        problems.append(
            FormatError(
                path, f"object has no <bndbox>; {LEFT_OUT}", line=obj.sourceline, element=where
            )
        )
        return
    box = _read_box(bndbox, f"{where}/bndbox", path, problems, LEFT_OUT)
    if box is None:
        return
    pose_el = els.get("pose")
    pose = _POSE_INDEX.get(_text(pose_el).lower(), 0) if pose_el is not None else 0
    row = len(cols.objects)
    cols.objects.append(
        (
            image,
            label,
            *box,
            _flag(els, "difficult"),
            _flag(els, "truncated"),
            _flag(els, "occluded"),
            pose,
            order,
        )
    )
    actions = els.get("actions")
    if actions is not None:
        _read_actions(actions, f"{where}/actions", path, row, cols)
    for k, part in enumerate(parts, start=1):
        _read_part(part, f"{where}/part[{k}]", path, row, cols)


def _flag(els: dict[str, etree._Element], tag: str) -> bool:
    el = els.get(tag)
    return el is not None and _text(el) == "1"


def _read_box(
    bndbox: etree._Element, where: str, path: Path, problems: list[FormatError], left_out: str
) -> tuple[float, float, float, float] | None:
    """``(xmin, ymin, xmax, ymax)`` as written; ``None`` (and a problem per bad coordinate,
    ending in ``left_out``) if one is missing or not a finite number."""
    els = _first_children(bndbox)
    out = []
    for coord in _COORDS:
        el = els.get(coord)
        if el is None:
            problems.append(
                FormatError(
                    path,
                    f"<bndbox> has no <{coord}>; {left_out}",
                    line=bndbox.sourceline,
                    element=f"{where}/{coord}",
                )
            )
            continue
        text = _text(el)
        value = to_float(text)
        if value is None or not math.isfinite(value):
            problems.append(
                FormatError(
                    path,
                    f"{coord} is not a finite number: {_shorten(text)}; {left_out}",
                    line=el.sourceline,
                    element=f"{where}/{coord}",
                )
            )
            continue
        out.append(value)
    return (out[0], out[1], out[2], out[3]) if len(out) == 4 else None


def _read_actions(
    actions: etree._Element, where: str, path: Path, row: int, cols: AnnotationColumns
) -> None:
    for child in actions:
        tag = child.tag
        if not isinstance(tag, str):
            continue
        column = _ACTION_INDEX.get(tag)
        if column is None:
            cols.problems.append(
                FormatError(
                    path,
                    f"unknown action <{tag}> (expected one of {', '.join(VOC_ACTIONS)}); ignored",
                    line=child.sourceline,
                    element=f"{where}/{tag}",
                )
            )
        elif _text(child) == "1":
            cols.action_flags.append((row, column))


def _read_part(
    part: etree._Element, where: str, path: Path, row: int, cols: AnnotationColumns
) -> None:
    els = _first_children(part)
    name_el = els.get("name")
    name = _text(name_el) if name_el is not None else ""
    index = _PART_INDEX.get(name)
    if index is None:
        cols.problems.append(
            FormatError(
                path,
                f"unknown part {name!r} (expected {', '.join(VOC_PARTS)}); part skipped",
                line=(name_el if name_el is not None else part).sourceline,
                element=f"{where}/name",
            )
        )
        return
    bndbox = els.get("bndbox")
    if bndbox is None:
        cols.problems.append(
            FormatError(
                path, "part has no <bndbox>; part left out", line=part.sourceline, element=where
            )
        )
        return
    box = _read_box(bndbox, f"{where}/bndbox", path, cols.problems, "part left out")
    if box is not None:
        cols.parts.append((row, index, *box))
