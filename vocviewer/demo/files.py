"""The devkit's files, laid out as the VOC devkit does: annotation XML, image sets, palette PNGs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from lxml import etree
from PIL import Image

from vocviewer.core.dataset import VOC_ACTIONS, VOC_CLASSES
from vocviewer.demo.scenes import Box, DemoImage

YEAR = "VOC2012"
XYXY = ("xmin", "ymin", "xmax", "ymax")


def el(tag: str, *kids: object) -> etree._Element:
    """``<tag>`` with the element children in ``kids``, or the text of a single non-element."""
    e = etree.Element(tag)
    e.extend(k for k in kids if isinstance(k, etree._Element))
    e.text = next((str(k) for k in kids if not isinstance(k, etree._Element)), None)
    return e


def bndbox(box: Box) -> etree._Element:
    return el("bndbox", *(el(t, v) for t, v in zip(XYXY, box, strict=True)))


def annotation_xml(im: DemoImage) -> bytes:
    """The image's VOC XML: objects in drawing order, parts, action flags in alphabetical order."""
    objs = [
        el(
            "object",
            el("name", o.cls),
            el("pose", o.pose),
            el("truncated", int(o.truncated)),
            el("occluded", int(o.occluded)),
            el("difficult", int(o.difficult)),
            bndbox(o.box),
            *(el("part", el("name", n), bndbox(b)) for n, b in o.parts),
            *(
                [el("actions", *(el(a, int(a == o.action)) for a in sorted(VOC_ACTIONS)))]
                if o.action
                else []
            ),
        )
        for o in im.objs
    ]
    source = (
        el("database", f"The {YEAR} Database"),
        el("annotation", f"PASCAL {YEAR}"),
        el("image", "vocviewer demo"),
    )
    size = (el("width", im.width), el("height", im.height), el("depth", 3))
    root = el(
        "annotation",
        el("folder", YEAR),
        el("filename", f"{im.id}.jpg"),
        el("source", *source),
        el("size", *size),
        el("segmented", int(im.segmented)),
        *objs,
    )
    return etree.tostring(root, pretty_print=True)


def write_lines(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes("".join(f"{ln}\n" for ln in lines).encode())


def write_sets(year: Path, imgs: list[DemoImage]) -> None:
    files: dict[str, list[str]] = {}
    for s in ("train", "val", "trainval"):
        ims = sorted((im for im in imgs if s in (im.split, "trainval")), key=lambda im: im.id)
        files[f"Main/{s}.txt"] = [im.id for im in ims]
        for c in VOC_CLASSES:  # 1: a non-difficult c object, 0: only difficult ones, -1: none
            flags = {im.id: [o.difficult for o in im.objs if o.cls == c] for im in ims}
            lines = [f"{i} {1 - all(f) if f else -1:2d}" for i, f in flags.items()]
            files[f"Main/{c}_{s}.txt"] = lines
        files[f"Segmentation/{s}.txt"] = [im.id for im in ims if im.segmented]
        objs = [(im.id, k, o) for im in ims for k, o in enumerate(im.objs, 1)]
        files[f"Layout/{s}.txt"] = [f"{i} {k}" for i, k, o in objs if o.parts]
        acts = [(i, k, o.action) for i, k, o in objs if o.action]
        files[f"Action/{s}.txt"] = sorted({i for i, _, _ in acts})
        for a in VOC_ACTIONS:
            files[f"Action/{a}_{s}.txt"] = [f"{i} {k} {1 if x == a else -1:2d}" for i, k, x in acts]
    for name, lines in files.items():
        write_lines(year / "ImageSets" / name, lines)


def write_png(arr: np.ndarray, path: Path, palette: bytes) -> None:
    img = Image.fromarray(arr.astype(np.uint8))
    img.putpalette(palette)  # "L" becomes "P"
    img.save(path)
