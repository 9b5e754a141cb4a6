"""Bad-input matrix, outputs (issue 10): 1 writes into the dataset, 2 path traversal through ids,
5 a non-UTF-8 output path printed to a strict stream, 7 temp files. Every case runs the real CLI
(or the window's export actions) on a copy of the embedded demo or a generated COCO set and checks
that no byte under the dataset's roots changed and that the message names the target."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PIL import Image

from vocviewer.cli import main
from vocviewer.demo import write_demo
from vocviewer.formats.output import TEMP_SUFFIX

REPO = Path(__file__).resolve().parents[2]


def snapshot(*roots: Path) -> dict[str, bytes]:
    """Every path under ``roots`` → its bytes' SHA-256 (a link's target, ``dir`` for folders)."""
    out: dict[str, bytes] = {}
    for root in roots:
        for p in [root, *root.rglob("*")]:
            if p.is_symlink():
                out[str(p)] = b"link:" + os.fsencode(os.readlink(p))
            elif p.is_file():
                out[str(p)] = hashlib.sha256(p.read_bytes()).digest()
            else:
                out[str(p)] = b"dir"
    return out


def env(**extra: str) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    e["QT_QPA_PLATFORM"] = "offscreen"
    e["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [e.get("PYTHONPATH")])])
    e.update(extra)
    return e


def run(*args: str | Path, timeout: float = 120, **extra: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "vocviewer", *map(os.fspath, args)]
    return subprocess.run(cmd, capture_output=True, env=env(**extra), timeout=timeout, check=False)


@pytest.fixture(scope="module")
def voc(demo, tmp_path_factory):
    """A private copy of the demo: ``(devkit, year folder, results folder)``."""
    devkit = tmp_path_factory.mktemp("voc") / "VOCdevkit"
    shutil.copytree(demo.devkit, devkit)
    return devkit, devkit / "VOC2012", devkit / "results" / "VOC2012"


def make_coco(base: Path) -> tuple[Path, Path, Path]:
    """``coco/annotations/instances_val2017.json``, ``coco/val2017/*.jpg`` and a results JSON
    outside both: ``(annotation file, image folder, results file)``."""
    ann_dir, img_dir = base / "coco" / "annotations", base / "coco" / "val2017"
    ann_dir.mkdir(parents=True)
    img_dir.mkdir()
    images, anns, dets = [], [], []
    for i in range(1, 4):
        Image.new("RGB", (64, 48), (40 * i, 90, 120)).save(img_dir / f"{i:012d}.jpg")
        images.append({"id": i, "file_name": f"{i:012d}.jpg", "width": 64, "height": 48})
        box = [4.0 * i, 5.0, 20.0, 16.0]
        anns.append(
            {
                "id": i,
                "image_id": i,
                "category_id": 1 + i % 2,
                "bbox": box,
                "area": 320.0,
                "iscrowd": 0,
            }
        )
        dets.append({"image_id": i, "category_id": 1 + i % 2, "bbox": box, "score": 0.5 + i / 10})
    cats = [
        {"id": 1, "name": "cat", "supercategory": "animal"},
        {"id": 2, "name": "dog", "supercategory": "animal"},
    ]
    ann = ann_dir / "instances_val2017.json"
    ann.write_text(json.dumps({"images": images, "annotations": anns, "categories": cats}))
    res = base / "res.json"
    res.write_text(json.dumps(dets))
    return ann, img_dir, res


@pytest.fixture(scope="module")
def coco(tmp_path_factory):
    return make_coco(tmp_path_factory.mktemp("cocoset"))


# --- 1: nothing is written under a dataset root -------------------------------------------------
# (argv, target), with {Y} the year folder, {D} the devkit root, {R} the results, {A} the COCO
# annotation file, {I} its image folder (guessed by the reader), {C} the COCO results
CASE1 = {
    "eval --json over an annotation": (
        "eval {Y} --results {R} --json {Y}/Annotations/2012_000002.xml",
        "{Y}/Annotations/2012_000002.xml",
    ),
    "eval --json into the devkit's results folder": (
        "eval {Y} --results {R} --json {D}/results/VOC2012/ap.json",
        "{D}/results/VOC2012/ap.json",
    ),
    "eval --json in the devkit root opened": (
        "eval {D} --results {R} --json {D}/t.json",
        "{D}/t.json",
    ),
    "export --table in the devkit root": (
        "export {D} --results {R} --table {D}/t.csv",
        "{D}/t.csv",
    ),
    "export --pr-curves in the year folder": (
        "export {Y} --results {R} --pr-curves {Y}/figs --classes dog",
        "{Y}/figs",
    ),
    "export --images into JPEGImages": (
        "export {Y} --results {R} --images {Y}/JPEGImages --ids 2012_000002",
        "{Y}/JPEGImages",
    ),
    "open --screenshot in the year folder": (
        "open {Y} --results {R} --screenshot {Y}/shot.png",
        "{Y}/shot.png",
    ),
    "eval --json through a symlink into the dataset": (
        "eval {Y} --results {R} --json {L}/2012_000003.xml",
        "{L}/2012_000003.xml",
    ),
    "COCO eval --json in the annotation folder": (
        "eval {A} --results {C} --json {A}.out.json",
        "{A}.out.json",
    ),
    "COCO eval --json over the annotation file": ("eval {A} --results {C} --json {A}", "{A}"),
    "COCO eval --json in the guessed image folder": (
        "eval {A} --results {C} --json {I}/out.json",
        "{I}/out.json",
    ),
    "COCO eval --json over the results input": ("eval {A} --results {C} --json {C}", "{C}"),
    "demo --dir inside the year folder": ("demo --no-gui --dir {Y}/demo", "{Y}/demo"),
    "demo --screenshot inside the demo": (
        "demo --dir {T}/d --screenshot {T}/d/VOCdevkit/s.png",
        "{T}/d/VOCdevkit/s.png",
    ),
}


@pytest.mark.parametrize("case", list(CASE1))
def test_1_nothing_is_written_into_the_dataset(case, voc, coco, tmp_path, capsys, qapp):
    devkit, year, results = voc
    ann, images, res = coco
    link = tmp_path / "link"
    link.symlink_to(year / "Annotations")
    names = {"Y": year, "D": devkit, "R": results, "A": ann, "I": images, "C": res, "L": link}
    names["T"] = tmp_path
    argv, target = (s.format(**names) for s in CASE1[case])
    before = snapshot(devkit, ann.parent.parent, res)
    assert main(argv.split()) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"vocviewer: error: {target}") and "Traceback" not in err
    assert "refusing to" in err or "is inside the dataset folder" in err
    assert TEMP_SUFFIX not in err
    assert snapshot(devkit, ann.parent.parent, res) == before
    assert not (tmp_path / "d").exists()


def test_1_refused_before_the_results_are_read_or_evaluated(voc, coco, tmp_path, capsys):
    """The target is checked first: the missing results file is never reached."""
    _, year, _ = voc
    ann, images, _ = coco
    for argv in (
        ["eval", str(year), "--results", str(tmp_path / "missing"), "--json", str(year / "x")],
        ["eval", str(ann), "--results", str(tmp_path / "missing"), "--json", str(images / "x")],
    ):
        assert main(argv) == 1
        assert "refusing to write inside the opened dataset folder" in capsys.readouterr().err


def test_1_screenshot_refused_at_save_when_only_the_reader_knows_the_folder(coco):
    """``open ann.json --screenshot val2017/shot.png``: the image folder is the reader's guess, so
    the window loads and the save itself refuses it."""
    ann, images, _ = coco
    before = snapshot(ann.parent.parent)
    done = run("open", ann, "--screenshot", images / "shot.png")
    err = os.fsdecode(done.stderr)
    assert done.returncode == 1, err
    assert f"vocviewer: error: {images / 'shot.png'}: refusing to write inside" in err
    assert snapshot(ann.parent.parent) == before


def test_1_json_outside_the_dataset_is_written(voc, tmp_path, capsys, qapp):
    devkit, year, results = voc
    before = snapshot(devkit)
    argv = ["eval", str(year), "--results", str(results), "--json", str(tmp_path / "r.json")]
    assert main(argv) == 0
    assert json.loads((tmp_path / "r.json").read_text())["task"] == "det"
    assert snapshot(devkit) == before and sorted(os.listdir(tmp_path)) == ["r.json"]


def test_1_demo_dir_is_never_mixed_with_other_data(tmp_path, capsys):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("precious")
    assert main(["demo", "--no-gui", "--dir", str(mine)]) == 1
    assert capsys.readouterr().err == (
        f"vocviewer: error: {mine}: exists, is not empty and holds no vocviewer demo; "
        "choose an empty or new folder\n"
    )
    assert os.listdir(mine) == ["thesis.tex"]
    cache = tmp_path / "cache"
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (cache / f".VOCdevkit-{dead}-abc" / "VOC2012").mkdir(parents=True)  # a killed writer's
    write_demo(cache, n_images=6)  # (what ``demo --dir`` runs, smaller)
    assert os.listdir(cache) == ["VOCdevkit"]  # built, moved into place, the stale build swept
    (cache / "notes.txt").write_text("mine")  # an earlier demo's folder may hold other files
    write_demo(cache, n_images=6, seed=4)
    assert (cache / "notes.txt").read_text() == "mine"


# --- 2: ids never leave the chosen folder ------------------------------------------------------
def test_2_an_id_with_dot_dot_is_refused_and_nothing_escapes(demo, tmp_path, capsys, qapp):
    devkit = tmp_path / "VOCdevkit"
    shutil.copytree(demo.devkit, devkit)
    year = devkit / "VOC2012"
    with (year / "ImageSets" / "Main" / "val.txt").open("a") as f:
        f.write("../../../../escaped\n")
    out = tmp_path / "out" / "a" / "b" / "c"
    out.mkdir(parents=True)
    before = snapshot(devkit)
    argv = [
        "export",
        str(year),
        "--results",
        str(devkit / "results" / "VOC2012"),
        "--images",
        str(out),
        "--ids",
        "2012_000002",
        "../../../../escaped",
    ]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err == (
        f"vocviewer: error: {out}/../../../../escaped.png: image id '../../../../escaped': "
        "not a plain file name\n"
    )
    assert not list(tmp_path.rglob("escaped*")) and not list(out.iterdir())  # nothing at all
    assert snapshot(devkit) == before
    argv[-1] = "../not-an-id"
    assert main(argv) == 1
    assert "--ids: no image '../not-an-id' in VOC2012" in capsys.readouterr().err


# --- 5: a non-UTF-8 (or non-ASCII) path printed to a strict stream -----------------------------
@pytest.mark.parametrize(
    ("encoding", "name"), [("utf-8:strict", b"n\xe9w"), ("ascii:strict", "tablé".encode())]
)
def test_5_paths_reach_a_strict_stdout_as_their_bytes(voc, tmp_path, encoding, name):
    _, year, results = voc
    folder = Path(os.fsdecode(os.path.join(os.fsencode(tmp_path), name)))
    table = folder / "ap.csv"
    done = run("export", year, "--results", results, "--table", table, PYTHONIOENCODING=encoding)
    assert done.returncode == 0, done.stderr
    assert done.stdout == os.fsencode(os.path.realpath(table)) + b"\n"
    assert b"Traceback" not in done.stderr
    assert table.read_text().startswith("class,")
    bad = Path(os.fsdecode(os.fsencode(year) + b"/\xff" + name + b".json"))
    done = run("eval", year, "--results", results, "--json", bad, PYTHONIOENCODING=encoding)
    assert done.returncode == 1 and b"Traceback" not in done.stderr
    assert done.stderr.startswith(b"vocviewer: error: " + os.fsencode(bad) + b": refusing")
    assert not bad.exists()


# --- 7: temp files ------------------------------------------------------------------------------
def test_7_sixteen_concurrent_json_writers_to_one_target_all_succeed(voc, tmp_path):
    _, year, results = voc
    target = tmp_path / "r.json"
    cmd = [
        sys.executable,
        "-m",
        "vocviewer",
        "eval",
        str(year),
        "--results",
        str(results),
        "--json",
        str(target),
    ]
    procs = [subprocess.Popen(cmd, env=env(), stdout=subprocess.DEVNULL) for _ in range(16)]
    assert [p.wait(timeout=300) for p in procs] == [0] * 16
    assert json.loads(target.read_text())["task"] == "det"
    assert os.listdir(tmp_path) == ["r.json"]


def test_7_refused_and_failed_targets_leave_nothing_and_name_the_target(voc, tmp_path, capsys):
    _, year, results = voc
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("x")
    base = ["eval", str(year), "--results", str(results), "--json"]
    for target, why in (
        ("folder", "refusing to replace a folder"),
        ("file/out.json", "cannot write here: Not a directory"),
    ):
        assert main([*base, str(tmp_path / target)]) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"vocviewer: error: {tmp_path / target}: {why}")
        assert TEMP_SUFFIX not in err
    assert sorted(os.listdir(tmp_path)) == ["file", "folder"]
    assert not os.listdir(tmp_path / "folder") and (tmp_path / "file").read_text() == "x"


def test_7_kill_during_export_leaves_no_scratch_folder_and_the_next_run_sweeps(voc, tmp_path):
    _, year, results = voc
    ids = (year / "ImageSets" / "Main" / "val.txt").read_text().split()[:12]
    out = tmp_path / "out"
    cmd = [
        sys.executable,
        "-m",
        "vocviewer",
        "export",
        str(year),
        "--results",
        str(results),
        "--images",
        str(out),
        "--ids",
        *ids,
    ]
    proc = subprocess.Popen(cmd, env=env(), stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not (out.is_dir() and any(p.suffix == ".png" for p in out.iterdir())):
        if proc.poll() is not None or time.monotonic() > deadline:
            break
        time.sleep(0.002)
    proc.send_signal(signal.SIGKILL)  # mid-export: some images written, one maybe half
    proc.wait(timeout=30)
    left = list(tmp_path.rglob(".*"))
    assert all(p.is_file() and p.name.endswith(TEMP_SUFFIX) for p in left), left
    done = subprocess.run(cmd, env=env(), capture_output=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{i}.png" for i in ids)


# --- the window's exports ----------------------------------------------------------------------
@pytest.fixture
def window(qtbot, voc, tmp_path):
    from PySide6.QtCore import QSettings

    from vocviewer.gui.window.main_window import MainWindow

    _, year, results = voc
    win = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(win)
    win.resize(1200, 800)
    win.show()
    win.open_dataset(year, (results,), "val")
    qtbot.waitUntil(
        lambda: win.state.dataset is not None and bool(win.state.results) and win.state.is_idle(),
        timeout=30_000,
    )
    win.state.select_class(win.state.dataset.class_index("dog"))
    messages: list = []
    win.state.messages_posted.connect(messages.extend)
    yield win, messages
    win.view.shutdown()
    win.state.shutdown()


def test_window_exports_into_the_dataset_are_refused_in_the_message_area(window, voc, tmp_path):
    win, messages = window
    devkit, year, _ = voc
    before = snapshot(devkit)
    targets = {
        win.export_pr: year / "pr_dog.png",
        win.export_image: devkit / "img.png",
        win.export_table: year / "Annotations" / "2012_000002.xml",
    }
    for action, target in targets.items():
        action(str(target))
        last = messages[-1]
        assert last.level == "error" and str(target) in last.text and "refusing" in last.text
        assert TEMP_SUFFIX not in last.text
    assert snapshot(devkit) == before
    win.export_pr(str(tmp_path / "pr_dog.pdf"))
    assert messages[-1].level == "info" and (tmp_path / "pr_dog.pdf").read_bytes()[:4] == b"%PDF"


def test_window_file_dialogs_cannot_bypass_the_guard(window, voc, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    win, messages = window
    devkit, year, _ = voc
    asked: list[str] = []

    def choose(_parent, _title, proposed, _filters):
        asked.append(proposed)
        return str(year / "JPEGImages" / "2012_000002.jpg"), ""  # the user picks a dataset file

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(choose))
    monkeypatch.chdir(year)  # the working folder is inside the dataset: not proposed
    before = snapshot(devkit)
    win.export_image()
    assert messages[-1].level == "error" and "refusing" in messages[-1].text
    assert snapshot(devkit) == before
    assert len(asked) == 1 and Path(asked[0]).parent == devkit.parent  # beside the dataset


# --- the recent-files store --------------------------------------------------------------------
DAMAGED = [
    "not json",
    "{}",
    "5",
    '"text"',
    "[1, null, {}]",
    '[{"dataset": 5}]',
    '[{"dataset": "/x", "results": "abc", "sources": []}]',
    "[" * 100_000,
]


@pytest.mark.parametrize("value", [*DAMAGED, ["a", "b"], 7])
def test_recent_list_reads_damaged_values_as_defaults(qapp, tmp_path, value):
    from PySide6.QtCore import QSettings

    from vocviewer.gui.window.recent import KEY, RecentEntry, RecentFiles

    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    settings.setValue(KEY, value)
    recent = RecentFiles(settings)
    assert recent.entries() == []
    recent.add(RecentEntry("/data/VOC2012"))
    assert [e.dataset for e in recent.entries()] == ["/data/VOC2012"]


def test_recent_list_keeps_good_entries_beside_bad_ones(qapp, tmp_path):
    from PySide6.QtCore import QSettings

    from vocviewer.gui.window.recent import KEY, RecentEntry, RecentFiles

    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    good = {"dataset": "/d", "results": ["/r", 3], "sources": {"images": "/i", "x": 1}}
    settings.setValue(KEY, json.dumps([7, good, {"dataset": ""}]))
    assert RecentFiles(settings).entries() == [RecentEntry("/d", ("/r",), {"images": "/i"})]


def test_recent_list_is_never_written_into_a_dataset_it_names(qapp, voc, tmp_path):
    from PySide6.QtCore import QSettings

    from vocviewer.gui.window.recent import RecentEntry, RecentFiles

    devkit, year, _ = voc
    before = snapshot(devkit)
    inside = QSettings(str(year / "vocviewer.ini"), QSettings.Format.IniFormat)
    recent = RecentFiles(inside)
    recent.add(RecentEntry(str(year)))
    assert recent.error is not None and "refusing to write inside" in str(recent.error)
    inside.sync()
    assert snapshot(devkit) == before
    default = __import__("vocviewer.gui.window.recent", fromlist=["x"]).default_settings()
    assert Path(default.fileName()).is_relative_to(os.environ["XDG_CONFIG_HOME"])
