"""Issue 10's bad-input matrix, the window's part: cases 4, 5 (screenshot mode), 6 and 8.

Real files in real formats, the real window (pytest-qt) or the real command in a subprocess.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from PySide6.QtCore import QTimer

from tests.gui import conftest as gui_fixtures
from vocviewer.gui.panes.image.drawable import NOT_DRAWN

make_window = gui_fixtures.make_window  # the window factory fixture of tests/gui

IMAGE = "2012_000002"  # the first val image of the demo: a car, a horse, a cow, ...


def copy_demo(demo, tmp_path: Path) -> tuple[Path, Path]:
    """A private copy of the demo (year folder, detection results folder)."""
    root = tmp_path / "demo"
    shutil.copytree(demo.devkit, root)
    year = root / demo.year_dir.name
    res = tmp_path / "res"
    res.mkdir()
    for f in (Path(demo.results_dir) / "Main").glob("comp4_det_val_*.txt"):
        shutil.copy(f, res / f.name)
    return year, res


def messages(win) -> list[str]:
    return [win.messages.list.item(i).text() for i in range(win.messages.count())]


def open_demo_window(qtbot, make_window, year: Path, res: Path):
    win = make_window()
    win.open_dataset(year, (res,), "val")
    qtbot.waitUntil(
        lambda: win.state.dataset is not None and bool(win.state.results), timeout=20_000
    )
    qtbot.waitUntil(lambda: win.state.is_idle(), timeout=30_000)
    st = win.state
    st.set_current_image(st.dataset.image_index(IMAGE))
    qtbot.waitUntil(lambda: win.view.shown_image == st.current_image, timeout=10_000)
    return win


def drawn(win) -> dict[str, int]:
    return {k: len(win.view.overlay_items(k)) for k in ("gt", "det", "note")}


# --- case 4: one NaN / infinite coordinate ---------------------------------------------------
@pytest.mark.parametrize("numbers", ["-inf -inf inf inf", "-inf -inf -inf -inf", "inf 1 2 inf"])
def test_case4_result_line_with_infinite_coordinates(
    qtbot, make_window, demo, tmp_path, capfd, numbers
):
    year, res = copy_demo(demo, tmp_path)
    clean = open_demo_window(qtbot, make_window, year, res)
    expected = drawn(clean)
    assert expected["det"] > 0 and expected["gt"] > 0
    car = res / "comp4_det_val_car.txt"
    n_lines = len(car.read_text().splitlines())
    with car.open("a") as f:
        f.write(f"{IMAGE} 0.97 {numbers}\n")
    win = open_demo_window(qtbot, make_window, year, res)
    assert drawn(win) == expected  # every other box still drawn; the bad one is not
    st = win.state
    det = st.results[0].results.detections
    row = next(
        r
        for r in np.flatnonzero(det.line == n_lines + 1).tolist()
        if str(st.results[0].results.files[det.file_index[r]]).endswith(car.name)
    )
    st.select_detection_row(row)
    qtbot.waitUntil(lambda: drawn(win)["note"] == 1, timeout=5000)
    assert NOT_DRAWN in win.side.why.text() and f"{car.name}:{n_lines + 1}" in win.side.why.text()
    assert not [m for m in messages(win) if "internal error" in m]
    assert capfd.readouterr().err == ""


def test_case4_annotation_with_nan_coordinate(qtbot, make_window, demo, tmp_path, capfd):
    year, res = copy_demo(demo, tmp_path)
    xml = year / "Annotations" / f"{IMAGE}.xml"
    text = xml.read_text()
    n_objects = text.count("<object>")
    start = text.index("<xmin>") + len("<xmin>")
    xml.write_text(text[:start] + "nan" + text[text.index("</xmin>", start) :])
    win = open_demo_window(qtbot, make_window, year, res)
    assert drawn(win)["gt"] == n_objects - 1  # the other objects of the image are drawn
    said = [m for m in messages(win) if xml.name in m]
    assert said and "xmin" in said[0]  # the file and the element
    assert capfd.readouterr().err == ""


# --- case 5: screenshot mode says why it failed -----------------------------------------------
def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["QT_QPA_PLATFORM"] = "offscreen"
    return env


def _coco(tmp_path: Path) -> Path:
    (tmp_path / "img").mkdir(exist_ok=True)
    Image.new("RGB", (10, 10)).save(tmp_path / "img" / "a.jpg")
    path = tmp_path / "instances_x.json"
    doc = {
        "images": [{"id": 1, "file_name": "a.jpg", "width": 10, "height": 10}],
        "annotations": [],
        "categories": [{"id": 1, "name": "thing"}],
    }
    path.write_text(json.dumps(doc))
    return path


def _case_missing(tmp_path, demo):
    return [str(tmp_path / "no-such-folder")], "no-such-folder"


def _case_fifo_results(tmp_path, demo):
    ann = _coco(tmp_path)
    fifo = tmp_path / "results.json"
    os.mkfifo(fifo)
    return [str(ann), "--images", str(tmp_path / "img"), "--results", str(fifo)], fifo.name


def _case_fifo_annotations(tmp_path, demo):
    fifo = tmp_path / "instances_fifo.json"
    os.mkfifo(fifo)
    return [str(fifo)], fifo.name


def _case_malformed_annotation_file(tmp_path, demo):
    path = tmp_path / "instances_bad.json"
    path.write_text('{"images": [{"id": 1, "file_name": "a.jpg"')
    return [str(path)], path.name


def _case_garbage_coco(tmp_path, demo):
    path = tmp_path / "instances_garbage.json"
    path.write_bytes(b"\x00\xff garbage \x89PNG")
    return [str(path)], path.name


def _case_coco_image_id_too_large(tmp_path, demo):
    """A fatal schema error (an image id beyond 64 bits); a wrong ``width`` is only a warning."""
    path = _coco(tmp_path)
    doc = json.loads(path.read_text())
    doc["images"][0]["id"] = 2**70
    path.write_text(json.dumps(doc))
    return [str(path), "--images", str(tmp_path / "img")], path.name


def _case_deeply_nested_json(tmp_path, demo):
    path = tmp_path / "instances_deep.json"
    path.write_text('{"images": ' + "[" * 100_000 + "]" * 100_000 + "}")
    return [str(path)], path.name


def _case_malformed_results(tmp_path, demo):
    ann = _coco(tmp_path)
    res = tmp_path / "results.json"
    res.write_text('[{"image_id": 1, "category_id": 1, "bbox": [1, 2, ')
    return [str(ann), "--images", str(tmp_path / "img"), "--results", str(res)], res.name


SCREENSHOT_CASES = {
    "missing-folder": _case_missing,
    "fifo-as-results": _case_fifo_results,
    "fifo-as-annotations": _case_fifo_annotations,
    "malformed-json": _case_malformed_annotation_file,
    "garbage-coco-json": _case_garbage_coco,
    "coco-image-id-2**70": _case_coco_image_id_too_large,
    "json-nested-100000-deep": _case_deeply_nested_json,
    "malformed-results": _case_malformed_results,
}


@pytest.mark.parametrize("case", list(SCREENSHOT_CASES))
def test_case5_screenshot_prints_the_error_and_exits_1(tmp_path, tmp_path_factory, demo, case):
    args, name = SCREENSHOT_CASES[case](tmp_path, demo)
    shot = tmp_path_factory.mktemp("shots") / "shot.png"  # an annotation JSON's folder is protected
    proc = subprocess.Popen(
        [sys.executable, "-m", "vocviewer", "open", *args, "--screenshot", str(shot)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    fifos = [Path(a) for a in args if Path(a).is_fifo()]
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        for fifo in fifos:  # a reader still blocking on a FIFO gets garbage; it must say so
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                continue  # nobody reading it
            os.write(fd, b"garbage\n")
            os.close(fd)
        time.sleep(0.1)
    _, err = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
    assert proc.returncode == 1, err
    lines = err.strip().splitlines()
    assert lines and lines[0].startswith("vocviewer: error: ") and name in lines[0], err
    assert "Traceback" not in err
    assert not shot.exists()


def test_case5_screenshot_with_a_malformed_xml_shows_the_rest_and_the_message(tmp_path, demo):
    """One unreadable annotation is not a failed load: the rest is shown, exit 0, and the
    message area is open in the picture."""
    year, _ = copy_demo(demo, tmp_path)
    (year / "Annotations" / f"{IMAGE}.xml").write_text("<annotation><object><name>car")
    shot = tmp_path / "out" / "shot.png"
    done = subprocess.run(
        [sys.executable, "-m", "vocviewer", "open", str(year), "--screenshot", str(shot)],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    with Image.open(shot) as im:
        assert im.width > 800


# --- case 6: a FIFO never freezes the window --------------------------------------------------
def test_case6_fifo_as_coco_results_reaches_the_message_area(qtbot, make_window, tmp_path):
    ann = _coco(tmp_path)
    fifo = tmp_path / "results.json"
    os.mkfifo(fifo)
    win = make_window()
    win.open_dataset(ann, (fifo,), images=tmp_path / "img")
    qtbot.waitUntil(lambda: win.state.dataset is not None, timeout=20_000)

    def named() -> list[str]:
        return [m for m in messages(win) if fifo.name in m]

    fired: list[int] = []  # the event loop keeps turning while the file is being opened
    QTimer.singleShot(300, lambda: fired.append(1))
    qtbot.waitUntil(lambda: bool(fired), timeout=5000)
    if not named():  # a reader that still blocks on a FIFO: feed it garbage, it must say so
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            fd = -1  # nobody reading: the error is on its way
        if fd >= 0:
            os.write(fd, b"[{garbage")
            os.close(fd)
    qtbot.waitUntil(lambda: bool(named()), timeout=20_000)
    assert named()[0].startswith("Cannot read results")
    qtbot.waitUntil(win.state.is_idle, timeout=10_000)


# --- case 8: no raw numpy RuntimeWarnings -----------------------------------------------------
@pytest.mark.parametrize(
    "numbers", ["-inf -inf -inf -inf", "1e308 1e308 -1e308 -1e308", "-1e308 -1e308 1e308 1e308"]
)
def test_case8_eval_of_overflowing_rows_warns_nothing(tmp_path, demo, numbers):
    from vocviewer.families.voc.reader import read_voc

    year, res = copy_demo(demo, tmp_path)
    ds = read_voc(year)
    car = ds.classes.index("car")
    on = ds.objects.image_index[(ds.objects.label == car) & ~ds.objects.difficult]
    image = ds.images.id[int(next(i for i in on if i in ds.images_in_set("val")))]
    with (res / "comp4_det_val_car.txt").open("a") as f:
        f.write(f"{image} 0.999 {numbers}\n")
    done = subprocess.run(
        [
            sys.executable,
            "-W",
            "error::RuntimeWarning",
            "-m",
            "vocviewer",
            "eval",
            str(year),
            "--results",
            str(res),
        ],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "RuntimeWarning" not in done.stderr and "Traceback" not in done.stderr
    assert "car" in done.stdout
