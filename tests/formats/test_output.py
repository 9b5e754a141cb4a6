"""The guarded writer: never inside a protected root, never over a non-file, nothing left behind."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

from vocviewer.core.errors import OutputError
from vocviewer.formats.output import TEMP_SUFFIX, child_path, write_bytes, write_text, write_with


def test_written_file_has_umask_permissions_and_no_temp_left(tmp_path):
    target = write_text(tmp_path / "a.txt", "x y\n")
    assert target.read_text() == "x y\n"
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]


def test_failure_keeps_the_old_file_and_removes_the_temp(tmp_path):
    target = tmp_path / "b.bin"
    write_bytes(target, b"old")
    with pytest.raises(TypeError):
        write_bytes(target, "not bytes")  # type: ignore[arg-type]

    def fail(tmp):
        tmp.write_bytes(b"half")
        raise OSError(28, "No space left on device")

    with pytest.raises(OutputError) as err:
        write_with(target, fail)
    assert str(err.value).startswith(str(target)) and TEMP_SUFFIX not in str(err.value)
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["b.bin"]


@pytest.mark.parametrize("where", ["root", "inside", "via_symlink"])
def test_targets_inside_a_protected_root_are_refused(tmp_path, where):
    root = tmp_path / "VOC2012"
    (root / "Annotations").mkdir(parents=True)
    gt = root / "Annotations" / "x.xml"
    gt.write_text("<annotation/>")
    link = tmp_path / "link"
    link.symlink_to(root / "Annotations")
    target = {"root": root, "inside": gt, "via_symlink": link / "x.xml"}[where]
    with pytest.raises(OutputError, match="inside the opened dataset"):
        write_text(target, "{}", protected=[root])
    assert gt.read_text() == "<annotation/>"


def test_non_regular_targets_are_refused(tmp_path):
    (tmp_path / "d").mkdir()
    os.mkfifo(tmp_path / "fifo")
    for name in ("d", "fifo"):
        with pytest.raises(OutputError, match="refusing to replace"):
            write_text(tmp_path / name, "x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d", "fifo"]


@pytest.mark.parametrize("name", ["../../escaped", "a/b", "..", ".", "", ".hidden", "a\\b", "a\0b"])
def test_child_path_refuses_names_that_leave_the_folder(tmp_path, name):
    with pytest.raises(OutputError, match="not a plain file name"):
        child_path(tmp_path, name, ".png")


def test_child_path_keeps_plain_ids(tmp_path):
    assert child_path(tmp_path, "2012_000002", ".png") == tmp_path / "2012_000002.png"


def test_a_killed_writers_temp_is_swept_by_the_next_write(tmp_path):
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    stale = tmp_path / f".t.json.{dead}-abcdef{TEMP_SUFFIX}"
    stale.write_text("partial")
    alive = tmp_path / f".t.json.{os.getppid()}-abcdef{TEMP_SUFFIX}"  # a running process's
    alive.write_text("in progress")
    write_text(tmp_path / "t.json", "{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["t.json", alive.name])


def test_concurrent_writers_to_one_target_all_succeed(tmp_path):
    target = tmp_path / "out.json"
    code = (
        "import sys; from vocviewer.formats.output import write_text\n"
        "for i in range(50): write_text(sys.argv[1], sys.argv[2] * 1000)\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code, str(target), str(k)]) for k in range(8)]
    assert [p.wait(timeout=120) for p in procs] == [0] * 8
    assert len(set(target.read_text())) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_guard_folder_refuses_protected_folders_and_files(tmp_path):
    from vocviewer.formats.output import guard_folder

    root = tmp_path / "VOC2012"
    root.mkdir()
    (tmp_path / "f").write_text("x")
    assert guard_folder(tmp_path / "new" / "deeper", [root]) == tmp_path / "new" / "deeper"
    with pytest.raises(OutputError, match="inside the opened dataset folder"):
        guard_folder(root / "figs", [root])
    with pytest.raises(OutputError, match="is not a folder"):
        guard_folder(tmp_path / "f")


# --- every reader names the dataset's folders (Dataset.roots) -----------------------------------
def test_voc_roots_are_the_year_folder_and_its_devkit_root(demo, tmp_path):
    from vocviewer.families.voc.reader import read_voc

    devkit, year = demo.devkit, demo.year_dir
    assert set(read_voc(year).protected_roots) == {year, devkit}
    assert set(read_voc(devkit).protected_roots) == {year, devkit}
    assert set(read_voc(year / "Annotations").protected_roots) == {
        year,
        year / "Annotations",
        devkit,
    }
    plain = tmp_path / "data" / "myvoc"  # a year folder in an ordinary folder: only itself
    (plain / "Annotations").mkdir(parents=True)
    (plain / "ImageSets" / "Main").mkdir(parents=True)
    assert read_voc(plain).protected_roots == (plain,)
    (tmp_path / "data" / "VOCcode").mkdir()  # ... unless that folder is a devkit
    assert set(read_voc(plain).protected_roots) == {plain, tmp_path / "data"}


def test_coco_visdrone_and_ilsvrc_roots(tmp_path):
    from tests.bad_input.test_output import make_coco
    from tests.evaluation.test_ilsvrc import write_fixture as write_det
    from tests.evaluation.test_ilsvrc_clsloc import write_fixture as write_clsloc
    from tests.evaluation.test_visdrone_reference import write_split
    from vocviewer.families.coco.reader import read_coco
    from vocviewer.families.ilsvrc.clsloc_reader import read_ilsvrc_clsloc
    from vocviewer.families.ilsvrc.reader import read_ilsvrc_det
    from vocviewer.families.visdrone.reader import read_visdrone

    ann, images, _ = make_coco(tmp_path / "c")
    assert set(read_coco(ann).protected_roots) == {ann, ann.parent, images}
    other = tmp_path / "elsewhere"
    assert set(read_coco(ann, other).protected_roots) == {ann, ann.parent, other}
    split, _ = write_split(tmp_path / "v", [([(0, 0, 10, 10, 1, 4)], [], 0, 0)])
    assert read_visdrone(split).protected_roots == (split,)
    gt, devkit, _ = write_det(tmp_path / "d", [[(0, 1, 1, 5, 5)]], [])
    assert set(read_ilsvrc_det(gt, devkit).protected_roots) == {gt, devkit}
    gt, devkit, _ = write_clsloc(tmp_path / "l", [(1, [(1, 1, 1, 5, 5)])], [[(1, 1, 1, 5, 5)]])
    assert set(read_ilsvrc_clsloc(gt, devkit).protected_roots) == {gt, devkit}
