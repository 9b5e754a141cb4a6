"""The compiled VOC annotation reader (``vocviewer.kernel._voc``) against lxml's path.

Every folder is read twice, with the kernel and with ``VOCVIEWER_KERNEL=0`` (lxml and
``annotations.read_annotation``), and the two datasets must be identical: every array equal bit
for bit, dtype included, the per-image fields dicts in the same order, the same problems. Each
edge case also says whether the kernel reads the file itself or leaves it to lxml (so the
comparisons are not vacuous, and odd files are never half-read in C)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.kernel.test_json_kernel import both, diff
from vocviewer import kernel
from vocviewer.core.dataset import VOC_CLASSES, VOC_POSES
from vocviewer.evaluation.analysis import classify_false_positives
from vocviewer.evaluation.matching import best_overlaps, group_offsets
from vocviewer.families.voc.evaluate import iter_evaluate_voc_det
from vocviewer.families.voc.reader import read_voc, read_voc_results
from vocviewer.formats.input import MAX_IMAGE_PIXELS

_voc = kernel.load("_voc")
pytestmark = pytest.mark.skipif(_voc is None, reason="the _voc kernel is not built here")

BENCH = Path(__file__).resolve().parents[2] / "bench"
POSES = tuple(p.lower() for p in VOC_POSES)

OBJ = (
    "<object><name>{name}</name><pose>Left</pose><truncated>1</truncated>"
    "<difficult>{d}</difficult><bndbox><xmin>{x}</xmin><ymin>20</ymin><xmax>80.5</xmax>"
    "<ymax>90</ymax></bndbox></object>"
)


def plain(obj: str = OBJ.format(name="dog", d=0, x=10), head: str = "", size: str = "") -> str:
    size = size or "<size><width>500</width><height>375</height><depth>3</depth></size>"
    return (
        f"{head}<annotation>\n\t<folder>VOC2007</folder>\n\t<filename>x.jpg</filename>\n"
        f"\t<source><database>db</database></source>{size}<segmented>1</segmented>\n"
        f"{obj}</annotation>\n"
    )


# (name, file text, whether the kernel reads it itself)
CASES = [
    ("plain", plain(), True),
    (
        "two objects",
        plain(OBJ.format(name="cat", d=1, x=3) + OBJ.format(name="dog", d=0, x=4)),
        True,
    ),
    ("no objects", plain(""), True),
    ("declaration", plain(head='<?xml version="1.0" encoding="UTF-8"?>\n'), True),
    ("declaration single quotes", plain(head="<?xml version='1.0' standalone='yes' ?>"), True),
    ("declaration latin-1", plain(head='<?xml version="1.0" encoding="ISO-8859-1"?>'), False),
    ("declaration without version", plain(head='<?xml encoding="utf-8"?>'), False),
    ("BOM", "\ufeff" + plain(), False),
    ("comment", plain().replace("<folder>", "<!-- c --><folder>"), False),
    ("entity", plain().replace("db<", "a &amp; b<"), False),
    ("CDATA", plain().replace("db<", "<![CDATA[db]]><"), False),
    ("attribute", plain().replace("<object>", '<object id="1">'), False),
    ("empty element", plain().replace("<segmented>1</segmented>", "<segmented/>"), False),
    (
        "spaces in tags",
        plain().replace("<folder>", "<folder >").replace("</folder>", "</folder\n>"),
        True,
    ),
    ("text cleaned", plain(OBJ.format(name="\n\t dog \t", d=" 1 ", x=" 1e1\n")), True),
    ("crlf", plain().replace("\n", "\r\n"), True),
    ("number forms", plain(OBJ.format(name="dog", d=0, x="+.5e+1")), True),
    (
        "integral float size",
        plain(size="<size><width>500.0</width><height>3.75e2</height></size>"),
        True,
    ),
    ("size unknown 0", plain(size="<size><width>0</width><height>375</height></size>"), True),
    ("size not a number", plain(size="<size><width>a</width><height>375</height></size>"), False),
    ("size fractional", plain(size="<size><width>5.5</width><height>375</height></size>"), False),
    (
        "size too big",
        plain(size="<size><width>100000</width><height>100000</height></size>"),
        False,
    ),
    ("size nested", plain(size="<size><width><v>5</v></width></size>"), False),
    ("size leaf", plain(size="<size>500 x 375</size>"), True),
    ("box nan", plain(OBJ.format(name="dog", d=0, x="nan")), False),
    ("box inf", plain(OBJ.format(name="dog", d=0, x="1e999")), False),
    ("box underscore", plain(OBJ.format(name="dog", d=0, x="1_0")), False),
    ("box hex", plain(OBJ.format(name="dog", d=0, x="0x10")), False),
    ("box empty", plain(OBJ.format(name="dog", d=0, x="")), False),
    ("box missing", plain(OBJ.format(name="dog", d=0, x=1).replace("<ymax>90</ymax>", "")), False),
    ("unknown class", plain(OBJ.format(name="zebra", d=0, x=1)), False),
    ("class case", plain(OBJ.format(name="Dog", d=0, x=1)), False),
    ("no name", plain("<object><bndbox><xmin>1</xmin></bndbox></object>"), False),
    ("no bndbox", plain("<object><name>dog</name></object>"), False),
    (
        "pose unknown and case",
        plain(OBJ.format(name="dog", d=0, x=1).replace("Left", "FRONTAL x")),
        True,
    ),
    ("pose case", plain(OBJ.format(name="dog", d=0, x=1).replace("Left", "rEAR")), True),
    (
        "duplicate tags",
        plain(
            OBJ.format(name="dog", d=0, x=1).replace(
                "<name>dog</name>", "<name>dog</name><name>cat</name>"
            )
        ),
        True,
    ),
    (
        "part",
        plain(
            OBJ.format(name="person", d=0, x=1).replace(
                "</object>",
                "<part><name>head</name><bndbox><xmin>1</xmin><ymin>1</ymin><xmax>2</xmax><ymax>2</ymax></bndbox></part></object>",
            )
        ),
        False,
    ),
    (
        "actions",
        plain(
            OBJ.format(name="person", d=0, x=1).replace(
                "</object>", "<actions><jumping>1</jumping></actions></object>"
            )
        ),
        False,
    ),
    ("mixed content", plain().replace("<source>", "<source>text"), False),
    ("text after child", plain().replace("</source>", "text</source>"), False),
    (
        "nested filename",
        plain().replace("<filename>x.jpg</filename>", "<filename><a>x</a></filename>"),
        False,
    ),
    ("empty filename", plain().replace("x.jpg", " "), True),
    (
        "deep scalar",
        plain().replace("<database>db</database>", "<database><a>b</a></database><x>1</x>"),
        True,
    ),
    ("non-ASCII", plain().replace("db<", "d\u00e9b<"), False),
    ("root not annotation", plain().replace("annotation>", "annot>"), False),
    ("not closed", plain()[:-15], False),
    ("wrong close", plain().replace("</folder>", "</fold>"), False),
    ("trailing text", plain() + "x", False),
    ("second root", plain() + "<annotation></annotation>", False),
    ("empty file", "", False),
    ("control char", plain().replace("db<", "d\x01b<"), False),
]


def write(folder: Path, files: dict[str, str]) -> Path:
    (folder / "Annotations").mkdir(parents=True)
    (folder / "ImageSets" / "Main").mkdir(parents=True)
    for name, text in files.items():
        (folder / "Annotations" / f"{name}.xml").write_bytes(text.encode("utf-8"))
    (folder / "ImageSets" / "Main" / "test.txt").write_text("".join(f"{n}\n" for n in files))
    return folder


def taken(path: Path) -> bool:
    """Whether the kernel reads ``path`` itself (no fall-back to lxml)."""
    assert _voc is not None
    got = _voc.annotations([os.fsencode(path)], [0], VOC_CLASSES, POSES, 8 << 20, MAX_IMAGE_PIXELS)
    return got[0] is not None


@pytest.mark.parametrize(("name", "text", "fast"), CASES, ids=[c[0] for c in CASES])
def test_case_identical(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str, text: str, fast: bool
) -> None:
    folder = write(tmp_path / "VOC2007", {"000001": text, "000002": plain()})
    py, k = both(monkeypatch, read_voc, folder)
    assert diff(py, k) is None
    assert taken(folder / "Annotations" / "000001.xml") is fast


def test_all_cases_in_one_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Files the kernel reads and files it leaves to lxml, interleaved: the object rows, their
    order and the images' fields come out as on the Python path."""
    folder = write(tmp_path / "VOC2012", {f"{i:06d}": text for i, (_, text, _) in enumerate(CASES)})
    py, k = both(monkeypatch, read_voc, folder)
    assert diff(py, k) is None
    assert len(py.objects) > 20 and py.problems


def test_many_files_across_threads_and_chunks(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """More files than the kernel reads in one threaded batch (2,048), every case repeated:
    the rows come out in file order, as on the Python path."""
    n = 2100
    files = {f"{i:06d}": CASES[i % len(CASES)][1] for i in range(n)}
    folder = write(tmp_path / "VOC2012", files)
    py, k = both(monkeypatch, read_voc, folder)
    assert diff(py, k) is None
    assert len(py.images.id) == n and len(py.objects) > n // 2


def test_generated_devkit_identical(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The VOC2007-test-shaped generator (bench/gen_workloads.py voc) at a small size: every
    file taken by the kernel, the dataset identical."""
    sys.path.insert(0, str(BENCH))
    try:
        import gen_workloads
    finally:
        sys.path.remove(str(BENCH))
    gen_workloads.voc(gen_workloads.load_shared(), 60, 10, 1, tmp_path)
    folder = tmp_path / "VOC2007"
    py, k = both(monkeypatch, read_voc, folder)
    assert diff(py, k) is None
    assert len(py.objects) > 100
    assert all(taken(p) for p in (folder / "Annotations").iterdir())


def test_unreadable_entries_left_to_python(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A FIFO named like an annotation, and a file removed between listing and reading, take
    the Python path's problems."""
    folder = write(tmp_path / "VOC2007", {"000001": plain()})
    os.mkfifo(folder / "Annotations" / "000002.xml")
    py, k = both(monkeypatch, read_voc, folder)
    assert diff(py, k) is None
    assert not taken(folder / "Annotations" / "000002.xml")
    assert not taken(folder / "Annotations" / "missing.xml")


# --- results files ----------------------------------------------------------------------------

LINE = "000002 0.981 205.7 98.9 378.6 268.3\n"
RESULT_CASES = [
    ("plain", LINE * 3 + "000001 0.5 1 2 3 4\n", True),
    ("no final newline", LINE + "000001 0.5 1 2 3 4", True),
    ("trailing blank lines", LINE + "\n\n  \n", True),
    ("several spaces", "000002  0.9   1 2 3 4  \n", True),
    ("number forms", "000002 +.5 5. -0 1e2 2.5E-3\n000001 -0.0 007 1e+1 .0e0 9e22\n", True),
    (
        "long and tiny numbers",
        "000002 0.1234567890123456789 9007199254740993 4.9e-324 1e23 "
        "123456789012345678901234567890\n",
        True,
    ),
    (
        "exponent edge",
        "000002 1e22 1e-22 12345678901234567e5 1.7976931348623157e308 2.2250738585072014e-308\n",
        True,
    ),
    ("blank line inside", LINE + "\n" + LINE, False),
    ("leading space", " " + LINE, False),
    ("tab", LINE.replace(" ", "\t"), False),
    ("crlf", LINE.replace("\n", "\r\n"), False),
    ("unknown id", LINE + "999999 0.5 1 2 3 4\n", False),
    ("too few fields", LINE + "000002 0.5 1 2 3\n", False),
    ("too many fields", LINE + "000002 0.5 1 2 3 4 5\n", False),
    ("nan", "000002 nan 1 2 3 4\n", False),
    ("inf", "000002 0.5 inf 2 3 4\n", False),
    ("overflow", "000002 0.5 1e999 2 3 4\n", False),
    ("underscore", "000002 0.5 1_0 2 3 4\n", False),
    ("hex", "000002 0.5 0x1 2 3 4\n", False),
    ("non-ASCII id", "00000\u0662 0.5 1 2 3 4\n", False),
    ("BOM", "\ufeff" + LINE, True),
    ("empty", "", False),
]


def write_results(folder: Path, text: str) -> Path:
    res = folder / "results"
    res.mkdir()
    (res / "comp4_det_test_dog.txt").write_bytes(text.encode("utf-8"))
    (res / "comp4_cls_test_dog.txt").write_bytes(
        "".join(
            " ".join(line.split()[:2]) + "\n" for line in text.splitlines() if line.strip()
        ).encode()
    )
    return res


@pytest.mark.parametrize(("name", "text", "fast"), RESULT_CASES, ids=[c[0] for c in RESULT_CASES])
def test_results_case_identical(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str, text: str, fast: bool
) -> None:
    ds = read_voc(write(tmp_path / "VOC2007", {"000001": plain(), "000002": plain()}))
    res = write_results(tmp_path, text)
    py, k = both(monkeypatch, read_voc_results, ds, [res])
    assert diff(py, k) is None
    assert _voc is not None
    row_of = {i: r for r, i in enumerate(ds.images.id.tolist())}
    data = text.encode().removeprefix(b"\xef\xbb\xbf")
    assert (_voc.results(data, 6, row_of) is not None) is fast


def test_results_numbers_as_float(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Random decimals of every shape (digits, point, exponent, sign): the kernel's doubles are
    float()'s, bit for bit, and it took the file."""
    rng = np.random.default_rng(7)
    tokens = []
    for _ in range(20000):
        a = "".join(rng.choice(list("0123456789"), int(rng.integers(0, 22))))
        b = "".join(rng.choice(list("0123456789"), int(rng.integers(0, 22))))
        t = (a or "0") + ("." + b if rng.random() < 0.7 else "")
        if rng.random() < 0.4:
            t += f"e{int(rng.integers(-330, 330))}"
        tokens.append(("-" if rng.random() < 0.3 else "") + t)
    tokens = [t for t in tokens if np.isfinite(float(t))]
    lines = [" ".join(["000001", *tokens[i : i + 5]]) for i in range(0, len(tokens) - 5, 5)]
    text = "\n".join(lines) + "\n"
    ds = read_voc(write(tmp_path / "VOC2007", {"000001": plain()}))
    assert _voc is not None
    got = _voc.results(text.encode(), 6, {"000001": 0})
    assert got is not None
    numbers = np.frombuffer(got[1], dtype=np.float64)
    expected = np.array([float(t) for line in lines for t in line.split()[1:]])
    assert numbers.tobytes() == expected.tobytes()
    res = write_results(tmp_path, text)
    py, k = both(monkeypatch, read_voc_results, ds, [res])
    assert diff(py, k) is None


# --- matching ---------------------------------------------------------------------------------


@pytest.mark.parametrize("plus_one", [True, False])
def test_best_overlaps_identical(monkeypatch: pytest.MonkeyPatch, plus_one: bool) -> None:
    """Random boxes on a coarse grid (ties), with NaN / inf coordinates and empty images: the
    kernel's best ground truth and overlap equal numpy's bit for bit."""
    rng = np.random.default_rng(3)
    n_img, n_gt, n_det = 50, 300, 4000
    gt_img = np.sort(rng.integers(0, n_img, n_gt))
    offsets = group_offsets(gt_img, n_img)

    def boxes(n: int) -> np.ndarray:
        xy = rng.integers(0, 20, (n, 2)) * 5.0
        b = np.column_stack([xy, xy + rng.integers(0, 8, (n, 2)) * 5.0])
        odd = rng.random((n, 4))
        b[odd < 0.01] = np.nan
        b[(odd >= 0.01) & (odd < 0.015)] = np.inf
        return b

    gt_box, det_box = boxes(n_gt), boxes(n_det)
    det_img = rng.integers(0, n_img, n_det)
    got = []
    for flag in ("0", "1"):
        monkeypatch.setenv("VOCVIEWER_KERNEL", flag)
        got.append(best_overlaps(det_img, det_box, offsets, gt_box, plus_one=plus_one))
    (b0, o0), (b1, o1) = got
    assert b0.dtype == b1.dtype and o0.dtype == o1.dtype
    assert b0.tobytes() == b1.tobytes() and o0.tobytes() == o1.tobytes()
    assert (b0 >= 0).sum() > 500


def test_voc_det_evaluation_identical(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The generated devkit evaluated on both paths: every class's evidence identical."""
    sys.path.insert(0, str(BENCH))
    try:
        import gen_workloads
    finally:
        sys.path.remove(str(BENCH))
    gen_workloads.voc(gen_workloads.load_shared(), 80, 30, 2, tmp_path)
    out = []
    for flag in ("0", "1"):
        monkeypatch.setenv("VOCVIEWER_KERNEL", flag)
        ds = read_voc(tmp_path / "VOC2007")
        rs = read_voc_results(ds, [tmp_path / "results"])
        out.append(list(iter_evaluate_voc_det(ds, rs, image_set="test")))
    assert diff(out[0], out[1]) is None
    assert sum(c.npos for c in out[0]) > 100


@pytest.mark.parametrize("plus_one", [True, False])
def test_false_positive_diagnosis_identical(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, plus_one: bool
) -> None:
    """The false-positive diagnosis (own class, similar classes, any other class) of every class
    of the generated devkit: the kernel's ``best_by_kind`` pass equals ``PairOverlaps``'."""
    sys.path.insert(0, str(BENCH))
    try:
        import gen_workloads
    finally:
        sys.path.remove(str(BENCH))
    gen_workloads.voc(gen_workloads.load_shared(), 80, 30, 4, tmp_path)
    ds = read_voc(tmp_path / "VOC2007")
    rs = read_voc_results(ds, [tmp_path / "results"])
    evs = list(iter_evaluate_voc_det(ds, rs, image_set="test"))
    out = []
    for flag in ("0", "1"):
        monkeypatch.setenv("VOCVIEWER_KERNEL", flag)
        out.append([classify_false_positives(ds, rs, ev, plus_one=plus_one) for ev in evs])
    assert diff(out[0], out[1]) is None
    kinds = np.concatenate([f.kind for f in out[0]])
    assert len(np.unique(kinds)) >= 4  # duplicates, localisation, similar / other, background
