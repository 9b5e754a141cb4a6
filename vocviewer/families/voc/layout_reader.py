"""VOC person-layout results XML (``<comp>_layout_<set>.xml``, VOC2011 devkit manual §6.3).

::

    <results>
      <layout>
        <image>2009_000183</image> <object>1</object> <confidence>-1189</confidence>
        <part><class>head</class>
              <bndbox><xmin>191</xmin><ymin>25</ymin><xmax>323</xmax><ymax>209</ymax></bndbox>
        </part> ...
      </layout> ...
    </results>

``object`` is the person's 1-based position among its image's objects; boxes are 1-based inclusive
pixels, stored as written. Element text is cleaned as the devkit does (tab/CR/LF deleted, spaces
trimmed). A layout with a problem (missing or non-numeric field, NaN, unknown part class) is left
out and the problem names the file, line and element path; ``strict`` raises the first instead.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
from lxml import etree

from vocviewer.core.dataset import VOC_PARTS
from vocviewer.core.errors import FormatError
from vocviewer.families.voc.person_results import LayoutResults
from vocviewer.formats.input import read_bytes
from vocviewer.formats.output import write_bytes
from vocviewer.formats.text_fields import FileProblems, clean, to_float, to_int

#: ``<comp>_layout_<set>.xml``.
LAYOUT_NAME = re.compile(r"^(?P<comp>.+?)_layout_(?P<set>.+)\.xml$")
_BOX = ("xmin", "ymin", "xmax", "ymax")


class _Bad(Exception):
    def __init__(self, message: str, node: etree._Element, path: str) -> None:
        super().__init__(message)
        self.message, self.line, self.element = message, node.sourceline, path


def _child(node: etree._Element, tag: str, path: str) -> tuple[str, etree._Element]:
    found = [c for c in node if c.tag == tag]
    if not found:
        raise _Bad(f"<{tag}> is missing", node, path)
    return clean(found[0].text), found[0]


def _number(node: etree._Element, tag: str, path: str) -> float:
    text, el = _child(node, tag, path)
    value = to_float(text)
    if value is None or math.isnan(value):
        raise _Bad(f"<{tag}> is {text!r}; expected a number", el, f"{path}/{tag}")
    return value


def read_layout_results(
    path: str | Path, *, strict: bool = False
) -> tuple[LayoutResults, list[FormatError]]:
    """Read a layout results file; returns the layouts read and the problems met.

    Raises
    ------
    FormatError
        The file is missing, not a regular file (FIFO, device, link loop), not well-formed XML,
        or (``strict``) any layout has a problem.
    """
    p = Path(path)
    data = read_bytes(p)  # regular files only, bounded: FormatError naming the file
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        raise FormatError(p, f"is not well-formed XML: {exc.msg}", line=exc.lineno) from None
    problems: list[FormatError] = []
    fp = FileProblems(problems, p)
    ids: list[str] = []
    objects: list[int] = []
    confidences: list[float] = []
    lines: list[int] = []
    part_rows: list[tuple[float, ...]] = []
    layouts = [c for c in root if c.tag == "layout"]
    for n, node in enumerate(layouts, 1):
        where = f"{root.tag}/layout[{n}]"
        try:
            image, _ = _child(node, "image", where)
            if not image:
                raise _Bad("<image> is empty", node, f"{where}/image")
            text, el = _child(node, "object", where)
            obj = to_int(text)
            if obj is None or not 1 <= obj < 2**31:
                raise _Bad(
                    f"<object> is {text!r}; expected an index in 1..2^31-1", el, f"{where}/object"
                )
            conf = _number(node, "confidence", where)
            parts: list[tuple[float, ...]] = []
            for k, part in enumerate((c for c in node if c.tag == "part"), 1):
                ppath = f"{where}/part[{k}]"
                cls, el = _child(part, "class", ppath)
                if cls not in VOC_PARTS:
                    raise _Bad(
                        f"unknown part class {cls!r}; expected one of {', '.join(VOC_PARTS)}",
                        el,
                        f"{ppath}/class",
                    )
                _, bb = _child(part, "bndbox", ppath)
                box = [_number(bb, t, f"{ppath}/bndbox") for t in _BOX]
                parts.append((VOC_PARTS.index(cls), *box, part.sourceline or 0))
        except _Bad as bad:
            if strict:
                raise FormatError(p, bad.message, line=bad.line, element=bad.element) from None
            fp.add(f"{bad.message}; layout left out", line=bad.line, element=bad.element)
            continue
        row = len(ids)
        ids.append(image)
        objects.append(obj)
        confidences.append(conf)
        lines.append(node.sourceline or 0)
        part_rows += [(row, *rest) for rest in parts]
    fp.close()
    table = np.array(part_rows, dtype=np.float64).reshape(-1, 7)
    result = LayoutResults(
        image_id=np.array(ids, dtype=np.str_),
        object_number=np.array(objects, dtype=np.int64),
        confidence=np.array(confidences, dtype=np.float64),
        part_layout=table[:, 0].astype(np.int64),
        part_class=table[:, 1].astype(np.int8),
        part_box=table[:, 2:6],
        layout_line=np.array(lines, dtype=np.int64),
        part_line=table[:, 6].astype(np.int64),
        path=p,
    )
    return result, problems


def _num(value: float) -> str:
    """A number as text that reads back to the same double (integers without ``.0``)."""
    if math.isfinite(value) and value == int(value) and abs(value) < 2**53:
        return str(int(value))
    return repr(float(value)).replace("inf", "Inf")


def _el(tag: str, text: str | None = None, *kids: etree._Element) -> etree._Element:
    node = etree.Element(tag)
    node.text = text
    node.extend(kids)
    return node


def write_layout_results(path: str | Path, layouts: LayoutResults) -> Path:
    """Write ``layouts`` as a results XML (the devkit's ``VOCwritexml`` job), atomically."""
    target = Path(path)
    root = _el("results")
    for lay in range(len(layouts)):
        parts = []
        for p in layouts.parts_of(lay):
            box = [_el(t, _num(float(v))) for t, v in zip(_BOX, layouts.part_box[p], strict=True)]
            parts.append(
                _el(
                    "part",
                    None,
                    _el("class", VOC_PARTS[layouts.part_class[p]]),
                    _el("bndbox", None, *box),
                )
            )
        root.append(
            _el(
                "layout",
                None,
                _el("image", str(layouts.image_id[lay])),
                _el("object", str(int(layouts.object_number[lay]))),
                _el("confidence", _num(float(layouts.confidence[lay]))),
                *parts,
            )
        )
    data = etree.tostring(root, pretty_print=True)
    return write_bytes(target, data)


def find_layout_results(path: str | Path, image_set: str | None = None) -> Path:
    """The layout results file meant by ``path``: the file itself, or the one
    ``<comp>_layout_<set>.xml`` in ``path`` or ``path/Layout/`` (``image_set`` selects)."""
    p = Path(path)
    if not p.exists():
        raise FormatError(p, "does not exist")
    if not p.is_dir():
        return p  # a file (or a FIFO, refused when read)
    base = p / "Layout" if (p / "Layout").is_dir() else p
    found = sorted(
        f
        for f in base.iterdir()
        if (m := LAYOUT_NAME.match(f.name)) and (image_set is None or m["set"] == image_set)
    )
    if len(found) != 1:
        what = "no" if not found else "several"
        wanted = f"<comp>_layout_{image_set or '<set>'}.xml"
        raise FormatError(base, f"{what} layout results files named {wanted} here")
    return found[0]
