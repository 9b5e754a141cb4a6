"""Planted label errors on a copy of the demo VOCdevkit (the label-error queue's test and bench).

``plant(year_dir, target, n, seed)`` copies the year folder's annotations and image sets to
``target`` (images and segmentations linked, never changed) and plants ``n`` errors of each kind
among distinct non-difficult ``val`` objects, chosen by ``numpy.random.default_rng(seed)``:

* missing: the object deleted from its XML;
* wrong_label: its ``name`` replaced by another class, drawn uniformly;
* loose_box: its box grown by ``LOOSEN`` of its width / height on every side, clipped to the image;
* duplicate: an exact copy appended to the image's objects.

Returns ``Planted``: per kind, (image id, box) of each deleted object, and (image id, object
position in the new XML) of the others (the duplicate: the appended copy); ``was`` holds what
each planted error replaced ((image id, box) of a deleted object or (image id, position) of a
changed one -> its original (class, box)).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from lxml import etree

from vocviewer.core.dataset import VOC_CLASSES

#: How much each side of a loosened box grows, as a share of the box's width / height.
LOOSEN = 0.3
KINDS = ("missing", "wrong_label", "loose_box", "duplicate")


@dataclass
class Planted:
    missing: list[tuple[str, tuple[float, ...]]] = field(default_factory=list)
    wrong_label: list[tuple[str, int]] = field(default_factory=list)
    loose_box: list[tuple[str, int]] = field(default_factory=list)
    duplicate: list[tuple[str, int]] = field(default_factory=list)
    was: dict[tuple[str, object], tuple[str, tuple[float, ...]]] = field(default_factory=dict)


def _box(obj: etree._Element) -> list[float]:
    return [float(obj.findtext(f"bndbox/{t}")) for t in ("xmin", "ymin", "xmax", "ymax")]


def _set_box(obj: etree._Element, box: list[float]) -> None:
    for t, v in zip(("xmin", "ymin", "xmax", "ymax"), box, strict=True):
        obj.find(f"bndbox/{t}").text = str(round(v))


def copy_year(year_dir: Path, target: Path) -> None:
    """Annotations and image sets copied; the other folders linked (read only)."""
    target.mkdir(parents=True)
    for sub in year_dir.iterdir():
        if sub.name in ("Annotations", "ImageSets"):
            shutil.copytree(sub, target / sub.name)
        else:
            os.symlink(sub.resolve(), target / sub.name)


def plant(
    year_dir: Path,
    target: Path,
    n: int = 20,
    seed: int = 0,
    among: set[tuple[str, int]] | None = None,
) -> Planted:
    """Plant ``n`` errors of each kind (module docstring); ``among``: only on these objects
    ((image id, position in the original XML); default: every non-difficult val object)."""
    copy_year(year_dir, target)
    rng = np.random.default_rng(seed)
    val = (target / "ImageSets" / "Main" / "val.txt").read_text().split()
    trees = {i: etree.parse(str(target / "Annotations" / f"{i}.xml")) for i in val}
    pool = [
        (i, k)
        for i in val
        for k, o in enumerate(trees[i].getroot().findall("object"))
        if o.findtext("difficult") != "1" and (among is None or (i, k) in among)
    ]
    chosen = rng.choice(len(pool), 4 * n, replace=False)
    by_kind = {kind: [pool[j] for j in chosen[m * n : (m + 1) * n]] for m, kind in enumerate(KINDS)}
    objects = {i: list(trees[i].getroot().findall("object")) for i in val}  # original positions
    planted = Planted()
    original = {
        (i, k): (str(o.findtext("name")), tuple(_box(o)))
        for i in val
        for k, o in enumerate(objects[i])
    }
    for i, k in by_kind["wrong_label"]:
        o = objects[i][k]
        others = [c for c in VOC_CLASSES if c != o.findtext("name")]
        o.find("name").text = str(others[int(rng.integers(len(others)))])
    for i, k in by_kind["loose_box"]:
        o = objects[i][k]
        size = trees[i].getroot().find("size")
        w, h = float(size.findtext("width")), float(size.findtext("height"))
        x1, y1, x2, y2 = _box(o)
        dx, dy = LOOSEN * (x2 - x1 + 1), LOOSEN * (y2 - y1 + 1)
        _set_box(o, [max(1, x1 - dx), max(1, y1 - dy), min(w, x2 + dx), min(h, y2 + dy)])
    for i, k in by_kind["duplicate"]:
        copy = etree.fromstring(etree.tostring(objects[i][k]))
        x1, y1, x2, y2 = _box(copy)
        _set_box(copy, [x1, y1, x2, y2])
        trees[i].getroot().append(copy)
    for i, k in by_kind["missing"]:
        o = objects[i][k]
        planted.missing.append((i, tuple(_box(o))))
        planted.was[(i, tuple(_box(o)))] = original[(i, k)]
        o.getparent().remove(o)
    for kind in ("wrong_label", "loose_box", "duplicate"):
        for i, k in by_kind[kind]:
            obj = objects[i][k] if kind != "duplicate" else trees[i].getroot().findall("object")[-1]
            position = trees[i].getroot().findall("object").index(obj)
            getattr(planted, kind).append((i, position))
            planted.was[(i, position)] = original[(i, k)]
    for i, tree in trees.items():
        tree.write(str(target / "Annotations" / f"{i}.xml"))
    return planted
