"""Fuzz targets for the VisDrone and ILSVRC readers, and the mutations every fuzzer applies.

``TARGETS`` is a list of ``(name, make_valid_bytes, read)``: ``make_valid_bytes(random.Random)``
returns the bytes of one valid file of that format; ``read(path)`` reads such a file and returns
what the reader returns, or raises ``FormatError`` naming ``path``. The in-suite property tests
(tests/formats/test_fuzz_visdrone_ilsvrc.py) and the long run (bench/fuzz.py) share them.

Readers that need their file inside a folder layout (a VisDrone split, an ILSVRC GT folder) get a
copy placed there; a ``FormatError`` naming the copy is re-raised naming ``path``, so the check
"the error names the file" stays exact.
"""

from __future__ import annotations

import io
import random
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

from vocviewer.core.errors import FormatError

Target = tuple[str, Callable[[random.Random], bytes], Callable[[Path], object]]

WNIDS = ("n001", "n002", "n003", "n004")
N_IMAGES = 3

# ---------------------------------------------------------------- mutations


_SPECIAL = (
    b"nan",
    b"NaN",
    b"-nan",
    b"inf",
    b"-inf",
    b"Infinity",
    b"1e308",
    b"-1e308",
    b"1e999",
    b"-1",
    b"0",
    b"-0",
    b"1e-320",
    b"2147483648",
    b"9223372036854775808",
    b"1" * 40,
    b"0x10",
    b"1_0",
    b"abc",
    b"",
    b"\x00",
    b"\xff\xfe",
    b"\xe2\x80\xa8",
    b"1.5",
    b"100000",
)
_TOKENS = (
    *_SPECIAL,
    b",",
    b"\n",
    b"\r",
    b" ",
    b"\t",
    b"<",
    b">",
    b"&",
    b"&amp;",
    b"]]>",
    b"#",
    b"<object>",
    b"</object>",
    b"<!--",
    b"-->",
    b'"',
    b"'",
)
_NUMBER = re.compile(rb"[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?")
_ELEMENT = re.compile(rb"<(\w+)[^>]*>.*?</\1>", re.DOTALL)


def _flip(data: bytes, rng: random.Random, other: bytes) -> bytes:
    b = bytearray(data or b"\x00")
    for _ in range(rng.randint(1, 8)):
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    return bytes(b)


def _truncate(data: bytes, rng: random.Random, other: bytes) -> bytes:
    return data[: rng.randint(0, len(data))]


def _insert(data: bytes, rng: random.Random, other: bytes) -> bytes:
    at = rng.randint(0, len(data))
    piece = rng.choice(_TOKENS) if rng.random() < 0.7 else rng.randbytes(rng.randint(1, 16))
    return data[:at] + piece * rng.choice((1, 1, 1, 3, 50)) + data[at:]


def _splice(data: bytes, rng: random.Random, other: bytes) -> bytes:
    return data[: rng.randint(0, len(data))] + other[rng.randint(0, len(other)) :]


def _numbers(data: bytes, rng: random.Random, other: bytes) -> bytes:
    found = list(_NUMBER.finditer(data))
    if not found:
        return _insert(data, rng, other)
    picked = sorted(rng.sample(found, rng.randint(1, min(4, len(found)))), key=lambda m: m.start())
    out, last = [], 0
    for m in picked:
        out += [data[last : m.start()], rng.choice(_SPECIAL)]
        last = m.end()
    return b"".join([*out, data[last:]])


def _delete(data: bytes, rng: random.Random, other: bytes) -> bytes:
    elements = list(_ELEMENT.finditer(data)) if rng.random() < 0.5 else []
    if elements:
        m = rng.choice(elements)
        return data[: m.start()] + data[m.end() :]
    lines = data.split(b"\n")
    if len(lines) > 1:
        k = rng.randrange(len(lines))
        if rng.random() < 0.3:  # duplicate instead of delete
            return b"\n".join([*lines[: k + 1], lines[k], *lines[k + 1 :]])
        return b"\n".join(lines[:k] + lines[k + 1 :])
    a = rng.randint(0, len(data))
    return data[:a] + data[rng.randint(a, len(data)) :]


MUTATIONS: dict[str, Callable[[bytes, random.Random, bytes], bytes]] = {
    "flip": _flip,
    "truncate": _truncate,
    "insert": _insert,
    "splice": _splice,
    "numbers": _numbers,
    "delete": _delete,
}


def mutate(data: bytes, rng: random.Random, other: bytes) -> bytes:
    """One to three random mutations of ``data`` (``other``: a second valid file to splice)."""
    for _ in range(rng.randint(1, 3)):
        data = MUTATIONS[rng.choice(sorted(MUTATIONS))](data, rng, other)
    return data


def make_case(make_valid: Callable[[random.Random], bytes], seed: int) -> tuple[str, bytes]:
    """The case ``seed`` of a target: ``("random", bytes)`` one time in eight, else
    ``("mutated", bytes)``; the same seed always gives the same bytes."""
    rng = random.Random(seed)
    if rng.random() < 0.125:
        return "random", rng.randbytes(rng.choice((0, 1, 16, 200, 2000)))
    return "mutated", mutate(make_valid(rng), rng, make_valid(rng))


# ---------------------------------------------------------------- valid files


def _num(rng: random.Random, lo: float, hi: float) -> str:
    v = rng.uniform(lo, hi)
    return str(int(v)) if rng.random() < 0.5 else f"{v:.{rng.randint(1, 6)}f}"


def visdrone_gt_bytes(rng: random.Random) -> bytes:
    rows = []
    for _ in range(rng.randint(1, 20)):
        cat = rng.randint(0, 11)
        score = 0 if cat in (0, 11) else rng.choice((1, 1, 1, 0))
        ints = [rng.randint(0, 1000), rng.randint(0, 800), rng.randint(1, 200), rng.randint(1, 200)]
        rows.append(",".join(map(str, [*ints, score, cat, rng.randint(0, 2), rng.randint(0, 2)])))
    end = rng.choice(("\n", ",\n", "\r\n"))
    return "".join(r + end for r in rows).encode()


def visdrone_results_bytes(rng: random.Random) -> bytes:
    rows = []
    for _ in range(rng.randint(0, 20)):
        box = [_num(rng, 0, 1000), _num(rng, 0, 800), _num(rng, 1, 200), _num(rng, 1, 200)]
        rows.append(",".join([*box, f"{rng.random():.4f}", str(rng.randint(1, 10)), "-1", "-1"]))
    return "".join(r + "\n" for r in rows).encode()


def image_bytes(rng: random.Random) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    size = (rng.randint(1, 64), rng.randint(1, 64))
    Image.new("L", size, rng.randint(0, 255)).save(buf, format=rng.choice(("JPEG", "PNG")))
    return buf.getvalue()


def ilsvrc_xml_bytes(rng: random.Random) -> bytes:
    objs = []
    for _ in range(rng.randint(0, 5)):
        x1, y1 = rng.randint(1, 300), rng.randint(1, 300)
        x2, y2 = x1 + rng.randint(0, 200), y1 + rng.randint(0, 200)
        objs.append(
            f"<object><name>{rng.choice(WNIDS)}</name><bndbox><xmin>{x1}</xmin><ymin>{y1}</ymin>"
            f"<xmax>{x2}</xmax><ymax>{y2}</ymax></bndbox></object>"
        )
    size = f"<size><width>{rng.randint(300, 800)}</width><height>{rng.randint(300, 800)}</height>"
    text = f"<annotation><folder>val</folder><filename>x</filename>{size}</size>{''.join(objs)}"
    return (text + "</annotation>\n").encode()


def det_submission_bytes(rng: random.Random) -> bytes:
    rows = []
    for _ in range(rng.randint(0, 20)):
        x1, y1 = rng.uniform(0, 300), rng.uniform(0, 300)
        box = f"{x1:.1f} {y1:.1f} {x1 + rng.uniform(0, 99):.1f} {y1 + rng.uniform(0, 99):.1f}"
        img, lab = rng.randint(1, N_IMAGES), rng.randint(1, len(WNIDS))
        rows.append(f"{img} {lab} {rng.random():.5f} {box}")
    return "".join(r + "\n" for r in rows).encode()


def mapping_txt_bytes(rng: random.Random) -> bytes:
    n = rng.randint(1, 30)
    wnid_first = rng.random() < 0.3
    lines = ["# synsets"] if rng.random() < 0.3 else []
    for k in rng.sample(range(1, n + 1), n):
        wnid, name = f"n{k:08d}", " ".join(rng.choice(("red", "fox", "tench")) for _ in range(2))
        lines.append(f"{wnid} {k} {name}" if wnid_first else f"{k} {wnid} {name}")
    return "".join(x + "\n" for x in lines).encode()


def _mat_bytes(rng: random.Random, id_field: str, name_field: str) -> bytes:
    import numpy as np
    from scipy.io import savemat  # type: ignore[import-untyped, unused-ignore]

    n = rng.randint(1, 12)
    syn = np.empty(n, dtype=[(id_field, object), ("WNID", object), (name_field, object)])
    for i, k in enumerate(rng.sample(range(1, n + 1), n)):
        syn[i] = (k, f"n{k:08d}", rng.choice(("dog", "tench, Tinca tinca", "")))
    buf = io.BytesIO()
    savemat(buf, {"synsets": syn}, do_compression=rng.random() < 0.5)
    return buf.getvalue()


def det_list_bytes(rng: random.Random) -> bytes:
    return "".join(f"img{i} {i + 1}\n" for i in range(N_IMAGES)).encode()


def det_blacklist_bytes(rng: random.Random) -> bytes:
    pairs = [(rng.randint(1, N_IMAGES), rng.choice(WNIDS)) for _ in range(rng.randint(0, 6))]
    return "".join(f"{i} {w}\n" for i, w in pairs).encode()


def clsloc_labels_bytes(rng: random.Random) -> bytes:
    return "".join(f"{rng.randint(1, len(WNIDS))}\n" for _ in range(N_IMAGES)).encode()


def clsloc_submission_bytes(rng: random.Random) -> bytes:
    lines = []
    for _ in range(N_IMAGES):
        guesses = [
            f"{rng.randint(0, len(WNIDS))} {rng.randint(1, 50)} {rng.randint(1, 50)} "
            f"{rng.randint(50, 200)} {rng.randint(50, 200)}"
            for _ in range(rng.randint(0, 5))
        ]
        lines.append(rng.choice((" ", ",")).join(guesses))
    return "".join(x + "\n" for x in lines).encode()


# ---------------------------------------------------------------- readers with their context


@cache
def _fixture() -> Path:
    """A valid ILSVRC devkit (DET and CLS-LOC), GT folders and a VisDrone split, once per process."""
    root = Path(tempfile.mkdtemp(prefix="vocviewer-fuzz-fixture-"))
    data = root / "devkit" / "data"
    (data / "det_lists").mkdir(parents=True)
    mapping = "".join(f"{k + 1} {w} name {k + 1}\n" for k, w in enumerate(WNIDS))
    (data / "meta_det.txt").write_text(mapping)
    (data / "meta_clsloc.txt").write_text(mapping)
    (data / "det_lists" / "val.txt").write_text(
        "".join(f"img{i} {i + 1}\n" for i in range(N_IMAGES))
    )
    for gt in ("det_gt", "clsloc_gt"):
        (root / gt).mkdir()
        for i in range(N_IMAGES):
            name = f"img{i}" if gt == "det_gt" else f"ILSVRC2012_val_{i + 1:08d}"
            (root / gt / f"{name}.xml").write_bytes(ilsvrc_xml_bytes(random.Random(i)))
    (data / "ILSVRC2014_clsloc_validation_ground_truth.txt").write_text("1\n2\n3\n")
    (data / "ILSVRC2014_det_validation_blacklist.txt").write_text("1 n001\n")
    split = root / "visdrone"
    (split / "annotations").mkdir(parents=True)
    (split / "images").mkdir()
    (split / "annotations" / "0000.txt").write_text("0,0,10,10,1,4,0,0\n")
    from PIL import Image

    Image.new("L", (1200, 900)).save(split / "images" / "0000.jpg")
    return root


@contextmanager
def _named_as(path: Path, placed: Path) -> Iterator[None]:
    """Re-raise a ``FormatError`` naming ``placed`` (the copy) as naming ``path``."""
    try:
        yield
    except FormatError as e:
        if e.path != placed:
            raise
        raise FormatError(path, e.message, line=e.line, element=e.element) from None


def _place(path: Path, dest_dir: Path, name: str) -> Path:
    """A fresh folder ``dest_dir`` holding a copy of ``path`` as ``name``."""
    shutil.rmtree(dest_dir, ignore_errors=True)
    dest_dir.mkdir(parents=True)
    shutil.copyfile(path, dest_dir / name)
    return dest_dir / name


def read_visdrone_gt(path: Path) -> object:
    from vocviewer.families.visdrone.reader import read_visdrone

    split = path.parent / f"{path.name}.split"
    placed = _place(path, split / "annotations", "0000.txt")
    shutil.copytree(_fixture() / "visdrone" / "images", split / "images", dirs_exist_ok=True)
    with _named_as(path, placed):
        return read_visdrone(split)


def read_visdrone_image(path: Path) -> object:
    """A split whose one annotation file holds an ignored region, so the image header is read."""
    from vocviewer.families.visdrone.reader import read_visdrone

    split = path.parent / f"{path.name}.split"
    _place(path, split / "images", "0000.jpg")
    (split / "annotations").mkdir()
    (split / "annotations" / "0000.txt").write_text("0,0,10,10,1,4,0,0\n0,0,5,5,0,0,0,0\n")
    return read_visdrone(split)


@cache
def _visdrone_dataset() -> object:
    from vocviewer.families.visdrone.reader import read_visdrone

    return read_visdrone(_fixture() / "visdrone")


def read_visdrone_res(path: Path) -> object:
    from vocviewer.families.visdrone.reader import read_visdrone_results

    placed = _place(path, path.parent / f"{path.name}.res", "0000.txt")
    with _named_as(path, placed):
        return read_visdrone_results(_visdrone_dataset(), [placed.parent])  # type: ignore[arg-type]


def read_det_xml(path: Path) -> object:
    from vocviewer.families.ilsvrc.reader import read_ilsvrc_det

    gt = path.parent / f"{path.name}.gt"
    shutil.rmtree(gt, ignore_errors=True)
    shutil.copytree(_fixture() / "det_gt", gt)
    placed = gt / "img1.xml"
    shutil.copyfile(path, placed)
    with _named_as(path, placed):
        return read_ilsvrc_det(gt, _fixture() / "devkit")


def _read_det_with(path: Path, relative: str) -> object:
    """``read_ilsvrc_det`` with a copy of the devkit whose ``data/<relative>`` is ``path``."""
    from vocviewer.families.ilsvrc.reader import read_ilsvrc_det

    devkit = path.parent / f"{path.name}.devkit"
    shutil.rmtree(devkit, ignore_errors=True)
    shutil.copytree(_fixture() / "devkit", devkit)
    placed = devkit / "data" / relative
    shutil.copyfile(path, placed)
    with _named_as(path, placed):
        return read_ilsvrc_det(_fixture() / "det_gt", devkit)


def read_det_list(path: Path) -> object:
    return _read_det_with(path, "det_lists/val.txt")


def read_det_blacklist(path: Path) -> object:
    return _read_det_with(path, "ILSVRC2014_det_validation_blacklist.txt")


@cache
def _det_dataset() -> object:
    from vocviewer.families.ilsvrc.reader import read_ilsvrc_det

    return read_ilsvrc_det(_fixture() / "det_gt", _fixture() / "devkit")


def read_det_submission(path: Path) -> object:
    from vocviewer.families.ilsvrc.reader import read_ilsvrc_det_results

    return read_ilsvrc_det_results(_det_dataset(), path)  # type: ignore[arg-type]


def read_meta_det_txt(path: Path) -> object:
    from vocviewer.families.ilsvrc.reader import read_synsets

    placed = _place(path, path.parent / f"{path.name}.data", "meta_det.txt")
    with _named_as(path, placed):
        return read_synsets(placed.parent)


def read_meta_det_mat(path: Path) -> object:
    from vocviewer.families.ilsvrc.reader import read_synsets

    placed = _place(path, path.parent / f"{path.name}.data", "meta_det.mat")
    with _named_as(path, placed):
        return read_synsets(placed.parent)


def read_meta_clsloc_mat(path: Path) -> object:
    from vocviewer.families.ilsvrc.clsloc_reader import read_clsloc_synsets

    placed = _place(path, path.parent / f"{path.name}.data", "meta_clsloc.mat")
    with _named_as(path, placed):
        return read_clsloc_synsets(placed.parent)


def read_clsloc_labels(path: Path) -> object:
    from vocviewer.families.ilsvrc.clsloc_reader import read_ilsvrc_clsloc

    return read_ilsvrc_clsloc(path, _fixture() / "devkit")


@cache
def _clsloc_dataset() -> object:
    from vocviewer.families.ilsvrc.clsloc_reader import read_ilsvrc_clsloc

    return read_ilsvrc_clsloc(_fixture() / "clsloc_gt", _fixture() / "devkit")


def read_clsloc_submission(path: Path) -> object:
    from vocviewer.families.ilsvrc.clsloc_reader import read_ilsvrc_clsloc_results

    return read_ilsvrc_clsloc_results(_clsloc_dataset(), path)  # type: ignore[arg-type]


TARGETS: list[Target] = [
    ("visdrone-annotations", visdrone_gt_bytes, read_visdrone_gt),
    ("visdrone-results", visdrone_results_bytes, read_visdrone_res),
    ("visdrone-image-header", image_bytes, read_visdrone_image),
    ("ilsvrc-det-xml", ilsvrc_xml_bytes, read_det_xml),
    ("ilsvrc-det-submission", det_submission_bytes, read_det_submission),
    ("ilsvrc-det-val-list", det_list_bytes, read_det_list),
    ("ilsvrc-det-blacklist", det_blacklist_bytes, read_det_blacklist),
    ("ilsvrc-meta_det.txt", mapping_txt_bytes, read_meta_det_txt),
    (
        "ilsvrc-meta_det.mat",
        lambda r: _mat_bytes(r, "ILSVRC2014_DET_ID", "name"),
        read_meta_det_mat,
    ),
    (
        "ilsvrc-meta_clsloc.mat",
        lambda r: _mat_bytes(r, "ILSVRC2014_ID", "words"),
        read_meta_clsloc_mat,
    ),
    ("ilsvrc-clsloc-labels", clsloc_labels_bytes, read_clsloc_labels),
    ("ilsvrc-clsloc-submission", clsloc_submission_bytes, read_clsloc_submission),
]
