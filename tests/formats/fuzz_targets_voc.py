"""Fuzz targets for the VOC-family readers, shared by the test suite and ``bench/fuzz.py``.

``TARGETS`` is a list of ``(name, make_valid_bytes(random.Random) -> bytes, read(path) -> object)``
tuples: ``make_valid_bytes`` writes one valid file of the format, ``read`` runs the real public
reader on the file at ``path`` (copied into the folder layout the reader expects where it needs
one). A reader must return data or raise ``FormatError`` naming a file; the problems it returns
are ``FormatError`` naming a file too (``check_outcome`` checks both). ``mutate(data, rng)``
damages valid bytes the ways a fuzzer should: byte flips, truncation, inserted junk, huge
numbers, NaN/inf, deep nesting, other encodings.
"""

from __future__ import annotations

import io
import random
import shutil
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np
from PIL import Image

from vocviewer.core.dataset import VOC_ACTIONS, VOC_CLASSES, VOC_PARTS, Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.palette import voc_palette_bytes
from vocviewer.families.voc.action_reader import read_action_results
from vocviewer.families.voc.layout_reader import read_layout_results
from vocviewer.families.voc.reader import read_voc, read_voc_results
from vocviewer.formats.label_png import read_label_png

IDS = tuple(f"2012_{k:06d}" for k in range(1, 9))
Target = tuple[str, Callable[[random.Random], bytes], Callable[[Path], object]]


def _num(rng: random.Random) -> str:
    return rng.choice([str(rng.randint(-5, 600)), f"{rng.uniform(0, 500):.3f}", "1e3", "0"])


def valid_annotation(rng: random.Random) -> bytes:
    objects = "".join(
        f"<object><name>{rng.choice(VOC_CLASSES)}</name><pose>Left</pose>"
        f"<truncated>{rng.randint(0, 1)}</truncated><difficult>{rng.randint(0, 1)}</difficult>"
        f"<bndbox><xmin>{_num(rng)}</xmin><ymin>{_num(rng)}</ymin><xmax>{_num(rng)}</xmax>"
        f"<ymax>{_num(rng)}</ymax></bndbox>"
        + (
            f"<part><name>{rng.choice(VOC_PARTS)}</name><bndbox><xmin>1</xmin><ymin>2</ymin>"
            "<xmax>3</xmax><ymax>4</ymax></bndbox></part>"
            if rng.random() < 0.3
            else ""
        )
        + (
            f"<actions><{VOC_ACTIONS[k]}>1</{VOC_ACTIONS[k]}></actions>"
            if (k := rng.randrange(12)) < 10
            else ""
        )
        + "</object>\n"
        for _ in range(rng.randint(0, 4))
    )
    return (
        '<?xml version="1.0"?>\n<annotation><folder>VOC2012</folder>'
        f"<filename>{IDS[0]}.jpg</filename><size><width>{rng.randint(1, 800)}</width>"
        f"<height>{rng.randint(1, 800)}</height><depth>3</depth></size>"
        f"<segmented>0</segmented>\n{objects}</annotation>\n"
    ).encode()


def valid_image_set(rng: random.Random) -> bytes:
    return "".join(
        f"{rng.choice(IDS)} {rng.choice(['1', '-1', '0'])}\n" for _ in range(20)
    ).encode()


def valid_det_results(rng: random.Random) -> bytes:
    return "".join(
        f"{rng.choice(IDS)} {rng.random():.6f} {_num(rng)} {_num(rng)} {_num(rng)} {_num(rng)}\n"
        for _ in range(rng.randint(0, 30))
    ).encode()


def valid_cls_results(rng: random.Random) -> bytes:
    return "".join(f"{i} {rng.uniform(-3, 3)!r}\n" for i in IDS).encode()


def valid_label_png(rng: random.Random) -> bytes:
    w, h = rng.randint(1, 40), rng.randint(1, 40)
    labels = bytes(rng.choice([0, *range(1, 21), 255]) for _ in range(w * h))
    img = Image.frombytes("P", (w, h), labels)
    img.putpalette(voc_palette_bytes())
    if rng.random() < 0.3:  # greyscale labels are valid too (what imread reads)
        img = Image.frombytes("L", (w, h), labels)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def valid_layout(rng: random.Random) -> bytes:
    layouts = "".join(
        f"<layout><image>{rng.choice(IDS)}</image><object>{rng.randint(1, 3)}</object>"
        f"<confidence>{rng.uniform(-5, 5)!r}</confidence>"
        + "".join(
            f"<part><class>{rng.choice(VOC_PARTS)}</class><bndbox><xmin>{_num(rng)}</xmin>"
            f"<ymin>{_num(rng)}</ymin><xmax>{_num(rng)}</xmax><ymax>{_num(rng)}</ymax></bndbox>"
            "</part>"
            for _ in range(rng.randint(0, 3))
        )
        + "</layout>\n"
        for _ in range(rng.randint(0, 5))
    )
    return f"<results>\n{layouts}</results>\n".encode()


def valid_action(rng: random.Random) -> bytes:
    return "".join(
        f"{rng.choice(IDS)} {rng.randint(1, 3)} {rng.uniform(-2, 2)!r}\n"
        for _ in range(rng.randint(0, 20))
    ).encode()


@cache
def _dataset_folder() -> Path:
    """A tiny VOC2012 folder (kept for the process): the ids in ``IDS``, one car each."""
    year = Path(tempfile.mkdtemp(prefix="vocviewer-fuzz-")) / "VOC2012"
    (year / "Annotations").mkdir(parents=True)
    (year / "ImageSets" / "Main").mkdir(parents=True)
    for i in IDS:
        (year / "Annotations" / f"{i}.xml").write_text(
            f"<annotation><filename>{i}.jpg</filename><object><name>car</name><bndbox>"
            "<xmin>1</xmin><ymin>2</ymin><xmax>30</xmax><ymax>40</ymax></bndbox></object>"
            "</annotation>"
        )
    (year / "ImageSets" / "Main" / "val.txt").write_text("".join(f"{i}\n" for i in IDS))
    return year


@cache
def _dataset() -> Dataset:
    return read_voc(_dataset_folder())


def _in_year(path: Path, where: str) -> Dataset:
    """``read_voc`` of a fresh year folder holding ``path`` at ``where`` (relative)."""
    with tempfile.TemporaryDirectory() as tmp:
        year = Path(tmp) / "VOC2012"
        shutil.copytree(_dataset_folder(), year)
        shutil.copyfile(path, year / where)
        return read_voc(year)


def read_annotation_file(path: Path) -> object:
    return _in_year(path, f"Annotations/{IDS[0]}.xml")


def read_image_set_file(path: Path) -> object:
    return _in_year(path, "ImageSets/Main/car_val.txt")


def _read_results(path: Path, name: str) -> object:
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / name
        shutil.copyfile(path, target)
        return read_voc_results(_dataset(), [target])


def read_det_results(path: Path) -> object:
    return _read_results(path, "comp4_det_val_car.txt")


def read_cls_results(path: Path) -> object:
    return _read_results(path, "comp1_cls_val_car.txt")


def read_layout_file(path: Path) -> object:
    return read_layout_results(path)


def read_action_file(path: Path) -> object:
    return read_action_results(path, "jumping")


TARGETS: list[Target] = [
    ("voc-annotation-xml", valid_annotation, read_annotation_file),
    ("voc-image-set", valid_image_set, read_image_set_file),
    ("voc-det-results", valid_det_results, read_det_results),
    ("voc-cls-results", valid_cls_results, read_cls_results),
    ("voc-seg-png", valid_label_png, read_label_png),
    ("voc-layout-xml", valid_layout, read_layout_file),
    ("voc-action-txt", valid_action, read_action_file),
]

_HUGE = [b"1e309", b"-1e309", b"nan", b"NaN", b"inf", b"-Inf", b"2147483648", b"9" * 400, b"-0"]


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to three random damages to ``data``."""
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(7)
        pos = rng.randint(0, len(data))
        if kind == 0 and data:  # flip bytes
            buf = bytearray(data)
            for _ in range(rng.randint(1, 8)):
                buf[rng.randrange(len(buf))] ^= 1 << rng.randrange(8)
            data = bytes(buf)
        elif kind == 1:  # truncate
            data = data[:pos]
        elif kind == 2:  # insert junk
            junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 40)))
            data = data[:pos] + junk + data[pos:]
        elif kind == 3:  # a number replaced by a huge or non-finite one
            digits = [k for k, b in enumerate(data) if 48 <= b <= 57]
            if digits:
                k = rng.choice(digits)
                data = data[:k] + rng.choice(_HUGE) + data[k + 1 :]
        elif kind == 4:  # deep nesting
            depth = rng.choice([10, 300, 5000])
            data = data[:pos] + b"<a>" * depth + b"</a>" * depth + data[pos:]
        elif kind == 5:  # another encoding
            text = data.decode("utf-8", errors="replace")
            data = text.encode(rng.choice(["utf-16", "utf-32", "latin-1"]), errors="replace")
        else:  # lines doubled or dropped
            lines = data.split(b"\n")
            k = rng.randrange(len(lines))
            lines[k : k + 1] = [] if rng.random() < 0.5 else [lines[k]] * rng.randint(2, 50)
            data = b"\n".join(lines)
    return data


def _problems_of(outcome: object) -> list[object]:
    if isinstance(outcome, tuple):
        return [p for part in outcome for p in _problems_of(part)]
    problems = getattr(outcome, "problems", None)
    return list(problems) if isinstance(problems, (tuple, list)) else []


def check_outcome(read: Callable[[Path], object], path: Path) -> object:
    """Run ``read(path)``: data or ``FormatError`` naming a file; problems likewise."""
    try:
        outcome = read(path)
    except FormatError as exc:
        outcome = exc
    if isinstance(outcome, FormatError):
        assert outcome.path is not None and outcome.path.name and outcome.message, outcome
        return outcome
    for problem in _problems_of(outcome):
        assert isinstance(problem, FormatError) and problem.path is not None, problem
    objects = getattr(outcome, "objects", None)
    if objects is not None:  # ground truth: non-finite boxes are left out
        assert np.isfinite(objects.box).all()
    return outcome
