"""A results file with one NaN row: exactly one warning in the window's message area, naming the
file and its line (COCO: its JSON path), for every family the window opens (issue 10's
non-finite rule, ``ResultSet.warnings``). The CLI prints the same warning once
(``tests/test_cli_warnings.py``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.gui.test_protocol_window import COCO_MINI, INSTANCES, write_coco_results

pytestmark = pytest.mark.timeout(120)


def _open(qtbot, make_window, path: Path, results: Path, **kw):
    """The window with ``path`` and ``results`` open, idle; every posted ``Message`` recorded."""
    win = make_window()
    posted: list = []
    win.state.messages_posted.connect(posted.extend)
    win.open_dataset(path, (results,), kw.pop("image_set", None), **kw)
    st = win.state
    qtbot.waitUntil(lambda: st.dataset is not None and bool(st.results), timeout=30_000)
    qtbot.waitUntil(st.is_idle, timeout=30_000)
    return win, posted


def _the_one_warning(win, posted, needle: str) -> str:
    hits = [m for m in posted if "NaN" in m.text]
    assert len(hits) == 1, [m.text for m in posted]
    assert hits[0].level == "warning" and needle in hits[0].text, hits[0].text
    shown = [win.messages.list.item(i).text() for i in range(win.messages.count())]
    assert shown.count(hits[0].text) == 1
    return hits[0].text


def test_voc(qtbot, make_window, demo, tmp_path: Path) -> None:
    root = Path(shutil.copytree(demo.devkit, tmp_path / "devkit"))
    res = tmp_path / "comp4_det_val_car.txt"
    res.write_text("2012_000002 0.9 1 1 50 50\n2012_000002 nan 2 2 40 40\n")
    win, posted = _open(qtbot, make_window, root / demo.year_dir.name, res, image_set="val")
    _the_one_warning(win, posted, f"{res}:2:")


def test_coco(qtbot, make_window, tmp_path: Path) -> None:
    if not INSTANCES.is_file():
        pytest.skip("coco-mini is not available")
    from vocviewer.families.registry import open_dataset

    ds = open_dataset(INSTANCES, images=COCO_MINI / "val2017")
    res = write_coco_results(ds, tmp_path / "bbox_results.json")
    rows = json.loads(res.read_text())
    rows[3]["bbox"][0] = float("nan")
    res.write_text(json.dumps(rows))
    win, posted = _open(qtbot, make_window, INSTANCES, res, images=COCO_MINI / "val2017")
    _the_one_warning(win, posted, f"{res}")
    assert "[3].bbox" in _the_one_warning(win, posted, str(res))


def test_visdrone(qtbot, make_window, tmp_path: Path) -> None:
    from tests.evaluation.test_visdrone_reference import write_split

    gt = [(10, 10, 20, 20, 1, 4)]
    det = [(11, 11, 20, 19, 0.9, 4), (float("nan"), 5, 10, 10, 0.5, 4)]
    split, res = write_split(tmp_path, [(gt, det, 80, 100)])
    win, posted = _open(qtbot, make_window, split, res)
    _the_one_warning(win, posted, f"{res / '0000.txt'}:2:")


def test_ilsvrc_det(qtbot, make_window, tmp_path: Path) -> None:
    from tests.evaluation.test_ilsvrc import write_fixture

    images = [[(0, 1, 1, 40, 30)], [(1, 5, 5, 20, 20)]]
    preds = [(1, 1, 0.9, 1, 1, 40, 30), (2, 2, 0.8, 5, float("inf"), 20, 20)]
    gt, devkit, pred = write_fixture(tmp_path, images, preds)
    win, posted = _open(qtbot, make_window, gt, pred, devkit=devkit)
    _the_one_warning(win, posted, f"{pred}:2:")
