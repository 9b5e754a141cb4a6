"""Bad-input matrix, VisDrone and ILSVRC rows (issue 10 cases 3, 4, 5, 6), through the real CLI.

Each case builds a valid VisDrone split or ILSVRC folder, breaks one file, runs ``vocviewer eval``
and checks the exit code and that stderr names the file with its line or element.
"""

from __future__ import annotations

import io
import os
import random
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from tests.evaluation import test_ilsvrc_clsloc as clsloc_fixture
from tests.evaluation.test_ilsvrc import write_fixture as det_fixture
from tests.evaluation.test_visdrone_reference import write_split
from vocviewer.cli import main

pytestmark = pytest.mark.timeout(60)  # a FIFO that blocks fails the case instead of hanging


def _png_header(width: int, height: int) -> bytes:
    """A tiny PNG whose header declares ``width`` x ``height`` pixels."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IEND", b"")


def _mat(fields: dict[str, object]) -> bytes:
    from scipy.io import savemat

    buf = io.BytesIO()
    savemat(buf, fields)
    return buf.getvalue()


def _synsets(**columns: list[object]) -> np.ndarray:
    names = list(columns)
    arr = np.empty(len(columns[names[0]]), dtype=[(n, object) for n in names])
    for i in range(len(arr)):
        arr[i] = tuple(columns[n][i] for n in names)
    return arr


# ---------------------------------------------------------------- builders: (argv, broken file)


def visdrone(tmp: Path, *, gt: str | None = None, res: str | None = None, image: bytes = b""):
    split, results = write_split(tmp, [([(0, 0, 10, 10, 1, 4)], [(0, 0, 10, 10, 0.9, 4)], 0, 0)])
    if gt is not None:
        (split / "annotations" / "0000.txt").write_text(gt)
    if res is not None:
        (results / "0000.txt").write_text(res)
    if image:
        (split / "images" / "0000.jpg").write_bytes(image)
    return ["eval", str(split), "--results", str(results), "--protocol", "visdrone"], split, results


def det(tmp: Path):
    gt, devkit, pred = det_fixture(
        tmp,
        [[(0, 1, 1, 50, 50)], [(1, 5, 5, 30, 30)]],
        [(1, 1, 0.9, 1, 1, 50, 50), (2, 2, 0.8, 5, 5, 30, 30)],
    )
    argv = [
        "eval",
        str(gt),
        "--results",
        str(pred),
        "--protocol",
        "ilsvrc",
        "--devkit",
        str(devkit),
    ]
    return argv, gt, devkit / "data", pred


def clsloc(tmp: Path):
    images = [(1, [(1, 1, 1, 100, 100)]), (2, [(2, 1, 1, 100, 100)])]
    gt, devkit, pred = clsloc_fixture.write_fixture(tmp, images, [[(1, 1, 1, 100, 100)]] * 2)
    argv = [
        "eval",
        str(gt),
        "--results",
        str(pred),
        "--protocol",
        "ilsvrc",
        "--task",
        "clsloc",
        "--devkit",
        str(devkit),
    ]
    return argv, gt, devkit / "data", pred


def _replace_mapping(data: Path, name: str, content: bytes) -> Path:
    for old in ("meta_det.txt", "meta_clsloc.txt"):
        (data / old).unlink(missing_ok=True)
    (data / name).write_bytes(content)
    return data / name


# ---------------------------------------------------------------- case 5: garbage meta files


def meta_txt(content: bytes, task: str = "det"):
    def setup(tmp: Path):
        argv, _, data, _ = (det if task == "det" else clsloc)(tmp)
        name = "meta_det.txt" if task == "det" else "meta_clsloc.txt"
        return argv, _replace_mapping(data, name, content)

    return setup


def meta_mat(content: bytes | None = None, task: str = "det", **fields: object):
    def setup(tmp: Path):
        argv, _, data, _ = (det if task == "det" else clsloc)(tmp)
        name = "meta_det.mat" if task == "det" else "meta_clsloc.mat"
        return argv, _replace_mapping(data, name, content if content is not None else _mat(fields))

    return setup


WNIDS = ["n001", "n002", "n003", "n004"]
CASES = {
    "5-meta_det.txt-binary-junk": (meta_txt(bytes(range(256)) * 4), 1, ":1: "),
    "5-meta_det.txt-one-column": (meta_txt(b"1 n001 a\n2\n"), 1, ":2: "),
    "5-meta_det.txt-non-integer-id": (meta_txt(b"1 n001 a\nx n002 b\n"), 1, ":2: "),
    "5-meta_det.txt-duplicate-id": (meta_txt(b"1 n001 a\n1 n002 b\n"), 1, ":2: "),
    "5-meta_det.txt-huge-id": (meta_txt(b"1 n001 a\n1e300 n002 b\n"), 1, ":2: "),
    "5-meta_det.txt-gap": (meta_txt(b"1 n001 a\n3 n003 c\n"), 1, "2 is missing"),
    "5-meta_det.mat-random-bytes": (
        meta_mat(random.Random(1).randbytes(64) * 8),
        1,
        "meta_det.mat: ",
    ),
    "5-meta_det.mat-truncated": (
        meta_mat(
            _mat({"synsets": _synsets(ILSVRC2014_DET_ID=[1], WNID=["n001"], name=["a"])})[:200]
        ),
        1,
        "meta_det.mat",
    ),
    "5-meta_det.mat-no-synsets": (meta_mat(other=np.arange(3)), 1, "no variable 'synsets'"),
    "5-meta_det.mat-wrong-fields": (
        meta_mat(synsets=_synsets(ID=[1, 2], WNID=["n001", "n002"])),
        1,
        "(synsets(1))",
    ),
    "5-meta_det.mat-id-not-a-number": (
        meta_mat(synsets=_synsets(ILSVRC2014_DET_ID=["x"], WNID=["n001"], name=["a"])),
        1,
        "(synsets(1).ILSVRC2014_DET_ID)",
    ),
    "5-meta_det.mat-hdf5": (meta_mat(b"\x89HDF\r\n\x1a\n" + bytes(600)), 1, "v7.3 (HDF5)"),
    "5-meta_clsloc.txt-binary-junk": (meta_txt(b"\x00\xff\xfe junk\n", "clsloc"), 1, ":1: "),
    "5-meta_clsloc.mat-random-bytes": (
        meta_mat(random.Random(2).randbytes(512), "clsloc"),
        1,
        "meta_clsloc.mat",
    ),
    "5-meta_clsloc.mat-wnid-missing": (
        meta_mat(task="clsloc", synsets=_synsets(ILSVRC2014_ID=[1], WNID=[""], words=["a"])),
        1,
        "(synsets(1).WNID)",
    ),
}


# ---------------------------------------------------------------- cases 3, 4, 6


def _case(build, expect_code: int, where: str):
    return build, expect_code, where


def vis_gt(text: str):
    return lambda tmp: (lambda r: (r[0], r[1] / "annotations" / "0000.txt"))(visdrone(tmp, gt=text))


def vis_res(text: str):
    return lambda tmp: (lambda r: (r[0], r[2] / "0000.txt"))(visdrone(tmp, res=text))


def vis_image(data: bytes):
    def setup(tmp: Path):
        argv, split, _ = visdrone(tmp, gt="0,0,10,10,1,4,0,0\n0,0,5,5,0,0,0,0\n", image=data)
        return argv, split / "images" / "0000.jpg"

    return setup


def vis_fifo_results(tmp: Path):
    argv, _, results = visdrone(tmp)
    (results / "0000.txt").unlink()
    os.mkfifo(results / "0000.txt")
    return argv, results / "0000.txt"


def vis_loop_annotation(tmp: Path):
    argv, split, _ = visdrone(tmp)
    loop = split / "annotations" / "0001.txt"
    loop.symlink_to(loop)
    return argv, loop


def det_xml(body: str):
    def setup(tmp: Path):
        argv, gt, _, _ = det(tmp)
        (gt / "img1.xml").write_text(f"<annotation>\n{body}\n</annotation>\n")
        return argv, gt / "img1.xml"

    return setup


def det_pred(text: str):
    def setup(tmp: Path):
        argv, _, _, pred = det(tmp)
        pred.write_text(text)
        return argv, pred

    return setup


def det_pred_dev_zero(tmp: Path):
    argv, _, _, pred = det(tmp)
    pred.unlink()
    pred.symlink_to("/dev/zero")
    return argv, pred


def det_fifo_mapping(tmp: Path):
    argv, _, data, _ = det(tmp)
    (data / "meta_det.txt").unlink()
    os.mkfifo(data / "meta_det.txt")
    return argv, data / "meta_det.txt"


def det_loop_xml(tmp: Path):
    argv, gt, _, _ = det(tmp)
    (gt / "img1.xml").unlink()
    (gt / "img1.xml").symlink_to(gt / "img1.xml")
    return argv, gt / "img1.xml"


def clsloc_pred(text: str):
    def setup(tmp: Path):
        argv, _, _, pred = clsloc(tmp)
        pred.write_text(text)
        return argv, pred

    return setup


OBJ = "<object><name>n001</name><bndbox><xmin>{}</xmin><ymin>1</ymin><xmax>9</xmax><ymax>9</ymax></bndbox></object>"
CASES |= {
    "3-visdrone-image-declares-100000x100000": (
        vis_image(_png_header(100_000, 100_000)),
        0,
        "pixels",
    ),
    "3-visdrone-image-not-an-image": (
        vis_image(b"GIF89a garbage"),
        0,
        "cannot read the image size",
    ),
    "4-visdrone-annotation-nan": (vis_gt("0,0,10,10,1,4,0,0\nnan,0,10,10,1,4,0,0\n"), 0, ":2: "),
    "4-visdrone-annotation-abc": (vis_gt("abc,0,10,10,1,4,0,0\n"), 0, ":1: "),
    "4-visdrone-annotation-inf-width": (vis_gt("0,0,inf,10,1,4,0,0\n"), 0, ":1: "),
    "4-visdrone-annotation-negative-height": (vis_gt("0,0,10,-5,1,4,0,0\n"), 0, ":1: "),
    "4-visdrone-annotation-7-columns": (vis_gt("0,0,10,10,1,4,0\n"), 0, ":1: "),
    "4-visdrone-result-inf-kept": (
        vis_res("0,0,10,10,0.9,4,-1,-1\n-inf,-inf,inf,inf,0.97,4,-1,-1\n"),
        0,
        ":2: ",
    ),
    "4-visdrone-result-nan-score-kept": (vis_res("0,0,10,10,nan,4,-1,-1\n"), 0, ":1: "),
    "4-visdrone-result-negative-width": (vis_res("0,0,-10,10,0.9,4,-1,-1\n"), 1, ":1: "),
    "4-visdrone-result-non-numeric": (
        vis_res("0,0,10,10,0.9,4,-1,-1\n0,0,x,1,0.5,4,-1,-1\n"),
        1,
        ":2: ",
    ),
    "4-ilsvrc-xml-xmin-abc": (det_xml(OBJ.format("abc")), 0, "(annotation/object[1]/bndbox/xmin)"),
    "4-ilsvrc-xml-xmin-nan": (det_xml(OBJ.format("NaN")), 0, "(annotation/object[1]/bndbox/xmin)"),
    "4-ilsvrc-xml-malformed": (det_xml("<object><name>n001</object>"), 0, ":2: malformed XML"),
    "4-ilsvrc-submission-inf-kept": (det_pred("1 1 0.97 -inf -inf inf inf\n"), 0, ":1: "),
    "4-ilsvrc-submission-nan-confidence-kept": (det_pred("1 1 nan 1 1 50 50\n"), 0, ":1: "),
    "4-ilsvrc-submission-6-fields": (det_pred("1 1 0.9 1 1 50 50\n1 1 0.9 1 1 50\n"), 1, ":2: "),
    "4-ilsvrc-submission-det-id-out-of-range": (det_pred("1 999 0.9 1 1 50 50\n"), 1, ":1: "),
    "4-ilsvrc-submission-binary": (det_pred("1 1 0.9 1 1 50 50\n\x00\x01\x02\n"), 1, ":2: "),
    "4-clsloc-submission-inf-kept": (clsloc_pred("1 -inf 1 inf 100\n2 1 1 100 100\n"), 0, ":1: "),
    "4-clsloc-submission-label-abc": (clsloc_pred("abc 1 1 100 100\n2 1 1 100 100\n"), 1, ":1: "),
    "6-visdrone-results-fifo": (vis_fifo_results, 1, "FIFO"),
    "6-visdrone-annotation-symlink-loop": (vis_loop_annotation, 0, "symbolic link loop"),
    "6-ilsvrc-submission-dev-zero": (det_pred_dev_zero, 1, "character device"),
    "6-ilsvrc-meta_det.txt-fifo": (det_fifo_mapping, 1, "FIFO"),
    "6-ilsvrc-xml-symlink-loop": (det_loop_xml, 0, "symbolic link loop"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_gives_a_located_message(case, tmp_path, capsys):
    build, code, where = CASES[case]
    argv, broken = build(tmp_path)
    assert main(argv) == code
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if str(broken) in ln and where in ln]
    assert lines, f"no message naming {broken} with {where!r}:\n{err}"
    assert "Traceback" not in err
    # a located message: file:line or file (element) right after the path
    assert any(ln.split(str(broken), 1)[1][:2] in (": ", ":1", ":2", ":3", " (") for ln in lines)
