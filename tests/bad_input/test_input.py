"""Issue 10 bad-input matrix, the ``input`` part: VOC readers and image decoding.

Cases 3 (image files), 4 (non-finite VOC annotations and results), 5 (``<width>`` >= 2^31, a
segmentation PNG bomb), 6 (FIFOs, ``/dev/zero``, link loops), 9 (one bad line in a large results
file), 10a (greyscale segmentation results). Every run goes through the real CLI on a copy of the
demo (the session's demo is never changed) or on small generated files.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import sys
import warnings
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests.bad_input.peak_memory import peak_kb
from vocviewer.cli import main
from vocviewer.core.errors import FormatError
from vocviewer.families.voc import results_lines as voc_results_lines
from vocviewer.families.voc.reader import read_voc, read_voc_results
from vocviewer.families.voc.segmentation_reader import write_label_png
from vocviewer.formats.image_file import read_rgb

ROOT = Path(__file__).resolve().parents[2]
FIRST = "2012_000001"  # first demo image: objects bus, ...; in the val set


@pytest.fixture
def kit(demo, tmp_path: Path) -> tuple[Path, Path]:
    """``(year folder, results folder)`` of a private copy of the demo."""
    devkit = shutil.copytree(demo.devkit, tmp_path / "VOCdevkit", symlinks=True)
    return devkit / "VOC2012", devkit / "results" / "VOC2012"


def run(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    """``vocviewer ARGS`` in this process with numpy/Python warnings made errors."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def run_process(*args: object, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``vocviewer ARGS`` in a fresh process (for inputs that could hang it)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "vocviewer", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )
    assert "Traceback" not in done.stderr
    return done


def png_bomb(width: int, height: int, colour_type: int = 3) -> bytes:
    """A tiny PNG declaring ``width`` x ``height`` (palette or grey), data far too short."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    body = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0))
    if colour_type == 3:
        body += chunk(b"PLTE", bytes(768))
    body += chunk(b"IDAT", zlib.compress(bytes(1000))) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + body


def line_of(path: Path, needle: str) -> int:
    return next(k for k, ln in enumerate(path.read_text().split("\n"), 1) if needle in ln)


# --- case 3: image files ------------------------------------------------------------------


def _truncated_jpeg(path: Path) -> None:
    rng = np.random.default_rng(0)
    Image.fromarray(rng.integers(0, 255, (200, 300, 3), dtype=np.uint8)).save(path, "JPEG")
    path.write_bytes(path.read_bytes()[:3000])


IMAGE_CASES = {
    "bomb": (lambda p: p.write_bytes(png_bomb(100_000, 100_000)), "decompression bomb"),
    # Pillow warns above half its limit; no warning escapes, the short data is the error
    "warning band": (
        lambda p: p.write_bytes(png_bomb(12_000, 9_000, colour_type=0)),
        "cannot be decoded (",
    ),
    "truncated jpeg": (_truncated_jpeg, "cannot be decoded (image file is truncated"),
    "garbage": (lambda p: p.write_bytes(b"\xff\xd8\xffgarbage" * 10), "cannot be read as an image"),
    "folder": (lambda p: p.mkdir(), "expected a regular file, found a folder"),
}


@pytest.mark.parametrize("case", IMAGE_CASES)
def test_case3_image_file_gives_a_per_file_error(case: str, tmp_path: Path) -> None:
    from vocviewer.gui.panes.image.view import decode_image

    path = tmp_path / "image.jpg"
    make, expected = IMAGE_CASES[case]
    make(path)
    for decode in (read_rgb, decode_image):
        with pytest.raises(FormatError) as info:
            decode(path)
        assert info.value.path == path
        assert expected in info.value.message


def test_case3_export_of_a_bomb_stays_small(kit: tuple[Path, Path], tmp_path: Path) -> None:
    """``export --images`` draws a placeholder for a bomb JPEG, in well under 1 GB."""
    year, results = kit
    (year / "JPEGImages" / f"{FIRST}.jpg").write_bytes(png_bomb(100_000, 100_000))
    out = tmp_path / "out"
    args = ["vocviewer", "export", str(year), "--results", str(results)]
    kb, err = peak_kb([*args, "--images", str(out), "--ids", FIRST])
    assert "Traceback" not in err and "EXIT_CODE 0" in err, err
    assert kb < 1 << 20  # under 1 GB
    with Image.open(out / f"{FIRST}.png") as img:
        assert img.size == (500, 375)  # the annotated size


# --- case 4: non-finite numbers --------------------------------------------------------------


@pytest.mark.parametrize("value", ["abc", "nan", "inf", "-Inf", "1e999"])
def test_case4_non_finite_annotation_coordinate(
    value: str, kit: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    year, results = kit
    xml = year / "Annotations" / f"{FIRST}.xml"
    rows = read_voc(year).objects_of(read_voc(year).image_index(FIRST))
    objects_before = rows.stop - rows.start
    xml.write_text(re.sub(r"<xmin>[^<]*</xmin>", f"<xmin>{value}</xmin>", xml.read_text(), count=1))
    line = line_of(xml, f"<xmin>{value}</xmin>")
    where = f"{xml}:{line} (annotation/object[1]/bndbox/xmin)"

    code, _, err = run(capsys, "eval", year, "--results", results)
    assert code == 1
    assert (
        f"vocviewer: error: {where}: xmin is not a finite number: '{value}'; object left out" in err
    )
    assert (
        "1 problem(s) in the ground truth (objects left out); fix them or pass --keep-going" in err
    )

    code, out, err = run(capsys, "eval", year, "--results", results, "--keep-going")
    assert code == 0 and f"warning: {where}" in err
    assert "NOT OFFICIAL: 1 ground-truth problem(s) left objects out" in out
    ds = read_voc(year)
    rows = ds.objects_of(ds.image_index(FIRST))
    assert rows.stop - rows.start == objects_before - 1  # the other objects of the image load
    assert ds.objects.order_in_image[rows].tolist()[0] == 1  # object[1] is the one left out


def _first_val_image_with(results: Path, name: str) -> tuple[Path, str]:
    path = results / "Main" / f"comp4_det_val_{name}.txt"
    return path, path.read_text().split()[0]


def test_case4_non_finite_result_line_is_a_false_positive(
    kit: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    year, results = kit
    path, _ = _first_val_image_with(results, "car")
    ds = read_voc(year)
    val = set(ds.image_sets["Main/val"].tolist())
    cars = [
        i
        for i, k in zip(ds.objects.image_index.tolist(), ds.objects.label.tolist(), strict=True)
        if k == ds.class_index("car") and i in val
    ]
    image = str(ds.images.id[cars[0]])  # an image with a car: the overlaps are computed
    clean = path.read_text()
    n = clean.count("\n")
    json_inf, json_far = tmp_path / "inf.json", tmp_path / "far.json"

    # inf - inf in the overlap arithmetic: NaN, which must not print a numpy RuntimeWarning
    bad = f"{image} 0.97 -inf -inf inf inf\n{image} nan 1 2 3 4\n{image} 0.5 inf 1 inf 5\n"
    path.write_text(clean + bad)
    code, out, err = run(capsys, "eval", year, "--results", results, "--json", json_inf)
    assert code == 0 and "NOT OFFICIAL" not in out
    assert (
        f"vocviewer: warning: {path}:{n + 1}: 3 line(s) hold NaN or ±inf (first here); kept and "
        "evaluated as the official code does: such a box overlaps nothing (a false positive), "
        "a NaN score ranks last; never drawn"
    ) in err
    r = read_voc_results(read_voc(year), [path], image_set="val")
    assert r.detections.line.tolist()[-3:] == [n + 1, n + 2, n + 3] and not r.problems

    # the same rows as plain false positives (a box far outside, the lowest score): same numbers
    far = "1e5 1e5 2e5 2e5"
    path.write_text(clean + f"{image} 0.97 {far}\n{image} -1e300 {far}\n{image} 0.5 {far}\n")
    assert run(capsys, "eval", year, "--results", results, "--json", json_far)[0] == 0
    got, want = json.loads(json_inf.read_text()), json.loads(json_far.read_text())
    assert got["per_class"]["car"] == want["per_class"]["car"]
    assert got["per_class"]["car"]["ndet"] == n + 3


# --- case 5: sizes over the limits --------------------------------------------------------


@pytest.mark.parametrize(
    ("width", "height", "element", "message"),
    [
        (
            "2147483648",
            "375",
            "annotation/size/width",
            "image width is not an integer from 1 to 178,956,970: '2147483648'; using 0 (unknown)",
        ),
        (
            "1e400",
            "375",
            "annotation/size/width",
            "image width is not an integer: '1e400'; using 0 (unknown)",
        ),
        (
            "100000",
            "100000",
            "annotation/size",
            "image size 100000 x 100000 (10,000,000,000 pixels) is over the 178,956,970-pixel "
            "limit (Pillow's decompression-bomb threshold); using 0 x 0 (unknown)",
        ),
    ],
)
def test_case5_huge_declared_image_size(
    width: str,
    height: str,
    element: str,
    message: str,
    kit: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    year, results = kit
    xml = year / "Annotations" / f"{FIRST}.xml"
    text = re.sub(r"<width>\d+</width>", f"<width>{width}</width>", xml.read_text())
    xml.write_text(re.sub(r"<height>\d+</height>", f"<height>{height}</height>", text))
    code, out, err = run(capsys, "eval", year, "--results", results)
    assert code == 0 and "aeroplane" in out
    line = line_of(xml, "<width>" if element.endswith("width") else "<size>")
    assert f"vocviewer: warning: {xml}:{line} ({element}): {message}" in err
    ds = read_voc(year)
    assert ds.images.width[ds.image_index(FIRST)] == 0


def test_case5_segmentation_png_bomb(
    kit: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    year, results = kit
    bomb = sorted((results / "Segmentation" / "comp6_val_cls").glob("*.png"))[0]
    bomb.write_bytes(png_bomb(100_000, 100_000))
    code, _, err = run(capsys, "eval", year, "--task", "seg", "--results", results)
    assert code == 1
    assert f"vocviewer: error: {bomb}: refused as a decompression bomb: Image size " in err
    code, out, err = run(
        capsys, "eval", year, "--task", "seg", "--results", results, "--keep-going"
    )
    assert code == 0
    assert f"{bomb}: image {bomb.stem}: refused as a decompression bomb" in err + out
    assert "left out" in err + out


def test_case5_segmentation_result_of_another_size_is_never_decoded(
    kit: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """A 12,000 x 12,000 result (within Pillow's limit) is refused from its header alone."""
    year, results = kit
    big = sorted((results / "Segmentation" / "comp6_val_cls").glob("*.png"))[0]
    big.write_bytes(png_bomb(12_000, 12_000))  # its data is far too short: decoding would fail
    code, _, err = run(capsys, "eval", year, "--task", "seg", "--results", results)
    assert code == 1
    assert f"{big}: image {big.stem}: result is 12000x12000 but the ground truth is " in err


# --- case 6: FIFOs, devices, link loops --------------------------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "loop"])
def test_case6_special_results_file(kind: str, tmp_path: Path, demo) -> None:
    path = tmp_path / "comp4_det_val_car.txt"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero" if kind == "dev-zero" else path.name)
    done = run_process("eval", demo.year_dir, "--results", path, timeout=60)
    assert done.returncode == 1
    what = {
        "fifo": "expected a regular file, found a FIFO (named pipe); file skipped",
        "dev-zero": "expected a regular file, found a character device; file skipped",
        "loop": "symbolic link loop (the link points back at itself)",
    }[kind]
    assert done.stderr.startswith(f"vocviewer: error: {path}: {what}")


def test_case6_fifo_in_a_results_folder(kit: tuple[Path, Path]) -> None:
    year, results = kit
    fifo = results / "Main" / "comp4_det_val_car.txt"
    fifo.unlink()
    os.mkfifo(fifo)
    done = run_process("eval", year, "--results", results, timeout=60)
    assert done.returncode == 1
    assert f"{fifo}: expected a regular file, found a FIFO (named pipe); skipped" in done.stderr
    done = run_process("eval", year, "--results", results, "--keep-going", timeout=60)
    assert done.returncode == 0 and "aeroplane" in done.stdout


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("loop", "symbolic link loop (the link points back at itself); skipped"),
        ("dangling", "no such file (or a dangling symbolic link); skipped"),
        ("fifo", "expected a regular file, found a FIFO (named pipe); skipped"),
    ],
)
def test_case6_bad_entry_in_annotations_is_skipped(
    kind: str, message: str, kit: tuple[Path, Path]
) -> None:
    year, results = kit
    bad = year / "Annotations" / "zz_bad.xml"
    if kind == "fifo":
        os.mkfifo(bad)
    else:
        bad.symlink_to(bad.name if kind == "loop" else "missing.xml")
    done = run_process("eval", year, "--results", results, timeout=60)
    assert done.returncode == 0, done.stderr
    assert f"vocviewer: warning: {bad}: {message}" in done.stderr
    bad.unlink()
    clean = run_process("eval", year, "--results", results)
    assert done.stdout == clean.stdout  # the rest loaded: the same numbers


# --- case 9: one bad line in a large results file ---------------------------------------------


def test_case9_bad_last_line_costs_one_chunk(
    kit: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    year, results = kit
    ds = read_voc(year)
    path, image = _first_val_image_with(results, "dog")
    lines = [f"{image} {k / 7:.6f} {k % 50} 2 {k % 50 + 30} 40\n" for k in range(20_000)]
    path.write_text("".join(lines) + f"{image} 0.5 1 2 3\n")
    careful: list[int] = []
    real = voc_results_lines._read_carefully

    def spy(text: str, *args: object, **kw: object):  # type: ignore[no-untyped-def]
        careful.append(len(text))
        return real(text, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(voc_results_lines, "_read_carefully", spy)
    r = read_voc_results(ds, [path], image_set="val")
    # only a piece of at most CAREFUL_BYTES around the bad line is read line by line
    assert len(careful) == 1 and careful[0] <= voc_results_lines.CAREFUL_BYTES
    assert len(r.detections) == 20_000 and r.detections.line.tolist()[-1] == 20_000
    (problem,) = r.problems
    assert str(problem) == (
        f"{path}:20001: expected 6 fields (id score xmin ymin xmax ymax), found "
        f"'{image} 0.5 1 2 3'; line skipped"
    )


def test_case9_chunks_do_not_change_what_is_read(
    kit: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tiny chunks give exactly the rows, line numbers and problems of one chunk."""
    year, results = kit
    ds = read_voc(year)
    path, image = _first_val_image_with(results, "dog")
    rng = np.random.default_rng(3)
    rows = [f"{image} {s!r} 1 2 {b!r} 9\n" for s, b in rng.normal(size=(300, 2)).tolist()]
    for k, bad in zip(
        (5, 77, 78, 200, 299), ("\n", "x 1 1 1 1 1\n", "a b\n", "  \n", "1 2 3\n"), strict=True
    ):
        rows[k] = bad
    path.write_text("".join(rows))
    monkeypatch.setattr(voc_results_lines, "CAREFUL_BYTES", 1 << 30)  # all line by line
    whole = read_voc_results(ds, [path], image_set="val")
    assert len(whole.problems) == 3 and len(whole.detections) == 300 - 5
    for chunk, careful in ((64, 16), (1000, 100), (1 << 20, 300)):
        monkeypatch.setattr(voc_results_lines, "CHUNK_BYTES", chunk)
        monkeypatch.setattr(voc_results_lines, "CAREFUL_BYTES", careful)
        chunked = read_voc_results(ds, [path], image_set="val")
        assert [str(p) for p in whole.problems] == [str(p) for p in chunked.problems]
        for col in ("image_index", "score", "box", "line"):
            got, want = getattr(chunked.detections, col), getattr(whole.detections, col)
            assert np.array_equal(got, want)


# --- case 10a: greyscale segmentation results ---------------------------------------------------


def _seg_json(capsys: pytest.CaptureFixture[str], year: Path, results: Path, out: Path) -> dict:
    code, _, err = run(capsys, "eval", year, "--task", "seg", "--results", results, "--json", out)
    assert code == 0, err
    return json.loads(out.read_text())  # type: ignore[no-any-return]


def test_case10a_greyscale_results_equal_indexed(
    kit: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    year, results = kit
    indexed = _seg_json(capsys, year, results, tmp_path / "p.json")
    pngs = sorted((results / "Segmentation" / "comp6_val_cls").glob("*.png"))
    for png in pngs:
        with Image.open(png) as img:
            assert img.mode == "P"
            labels = np.array(img)
        Image.fromarray(labels).save(png)  # uint8 (H, W): mode "L"
    grey = _seg_json(capsys, year, results, tmp_path / "l.json")
    assert grey == indexed and grey["official"] and grey["images"] == len(pngs)


def _tiny_seg(root: Path, results: dict[str, np.ndarray], rgb: str = "") -> tuple[Path, Path]:
    """A year folder with two ground-truth PNGs and greyscale results (``rgb``: that one RGB)."""
    year = root / "VOC2012"
    for sub in ("Annotations", "ImageSets/Segmentation", "SegmentationClass"):
        (year / sub).mkdir(parents=True)
    (year / "ImageSets" / "Segmentation" / "val.txt").write_text("a\nb\n")
    gt = {"a": [[0, 1, 255], [1, 1, 0]], "b": [[2, 2, 0]]}
    for name, labels in gt.items():
        write_label_png(year / "SegmentationClass" / f"{name}.png", labels)
    out = root / "results" / "comp6_val_cls"
    out.mkdir(parents=True)
    for name, labels in results.items():
        arr = np.asarray(labels, dtype=np.uint8)
        Image.fromarray(np.stack([arr] * 3, -1) if name == rgb else arr).save(out / f"{name}.png")
    return year, out


def test_case10a_greyscale_hand_worked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """GT a = [[0,1,void],[1,1,0]], b = [[2,2,0]]; results a = [[0,1,1],[0,1,2]], b = [[2,0,0]].

    Counted pixels (void skipped): C[0,0] = 2 (a, b), C[0,2] = 1, C[1,0] = 1, C[1,1] = 2,
    C[2,0] = 1, C[2,2] = 1. IoU_0 = 2 / (3 + 4 - 2) = 40 %, IoU_1 = 2 / (3 + 2 - 2) = 66.7 %,
    IoU_2 = 1 / (2 + 2 - 1) = 33.3 %; labels 3-20 are absent (NaN), so the mean is NaN.
    """
    year, out = _tiny_seg(tmp_path, {"a": [[0, 1, 1], [0, 1, 2]], "b": [[2, 0, 0]]})
    got = _seg_json(capsys, year, out, tmp_path / "o.json")
    c = np.array(got["confusion"])
    want = np.zeros((21, 21), dtype=int)
    want[0, 0], want[0, 2], want[1, 0], want[1, 1], want[2, 0], want[2, 2] = 2, 1, 1, 2, 1, 1
    assert c.tolist() == want.tolist()
    iou = [got["per_class"][k]["iou"] for k in ("background", "aeroplane", "bicycle")]
    assert iou == pytest.approx([40.0, 200 / 3, 100 / 3], abs=1e-12)
    assert got["official"] and got["summary"]["mIoU"] != got["summary"]["mIoU"]  # NaN


@pytest.mark.parametrize(
    ("labels", "mode", "message"),
    [
        ([[0, 21, 1]], "L", "result has values above 20 (21); results must hold labels 0-20 only"),
        ([[0, 255, 1]], "L", "result has values above 20 (255)"),
        (
            [[0, 1, 1]],
            "RGB",
            "is a 'RGB' image; expected an indexed ('P') or 8-bit greyscale ('L') PNG whose pixel "
            "values are the labels 0-20 (255 void in ground truth); colours are not mapped back to labels",
        ),
    ],
)
def test_case10a_bad_greyscale_or_rgb_results(
    labels: list[list[int]],
    mode: str,
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    year, out = _tiny_seg(
        tmp_path, {"a": [[0, 1, 1], [0, 1, 2]], "b": labels}, rgb="b" if mode == "RGB" else ""
    )
    bad = out / "b.png"
    code, _, err = run(capsys, "eval", year, "--task", "seg", "--results", out)
    assert code == 1
    assert err.startswith(f"vocviewer: error: {bad}")
    assert message in err
