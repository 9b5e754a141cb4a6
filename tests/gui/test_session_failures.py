"""Sessions and Open Recent record only the result sets that loaded: a set that failed is said
once, by file, and neither saved nor reopened (issue 20, item 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from vocviewer.gui.window.recent import SetOpener


@pytest.fixture
def settings(tmp_path):
    return QSettings(str(tmp_path / "vocviewer.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def start(make_window):
    """Windows on a settings file or ``QSettings`` (``make_window``)."""
    return make_window


@pytest.fixture
def five_sets(demo, tmp_path) -> tuple[list[Path], list[Path]]:
    """Two result sets that load (the demo's results folder, every other comp4 line as comp3)
    and three that cannot (an empty folder, a JSON file, a text file that is no result file)."""
    other = tmp_path / "weaker"
    other.mkdir()
    for f in sorted((demo.results_dir / "Main").glob("comp4_det_val_*.txt")):
        lines = f.read_text().splitlines()[::2]
        (other / f.name.replace("comp4", "comp3")).write_text("\n".join(lines) + "\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    (tmp_path / "dets.json").write_text('[{"image_id": 1}]')
    (tmp_path / "notes.txt").write_text("not a result file\n")
    good = [demo.results_dir, other]
    bad = [empty, tmp_path / "dets.json", tmp_path / "notes.txt"]
    return good, bad


def messages(win) -> list[str]:
    return [win.messages.list.item(i).text() for i in range(win.messages.count())]


def open_five(qtbot, win, demo, five_sets) -> SetOpener:
    good, bad = five_sets
    order = [good[0], bad[0], bad[1], good[1], bad[2]]
    opener = SetOpener(win.opening, demo.year_dir, [[p] for p in order], "val", {}, win)
    done = []
    opener.finished.connect(lambda: done.append(True))
    qtbot.waitUntil(lambda: bool(done) and win.state.is_idle(), timeout=60_000)
    return opener


def test_only_the_result_sets_that_loaded_are_saved_and_recent(
    qtbot, start, settings, demo, five_sets, tmp_path
):
    good, bad = five_sets
    win = start(settings)
    open_five(qtbot, win, demo, five_sets)
    st = win.state
    assert len(st.results) == 2
    text = "\n".join(messages(win))
    for path in bad:  # each failure said once, naming its file
        assert sum(str(path) in m for m in messages(win)) == 1, (path, text)
    st.set_current_results(1)

    target = win.sessions.save_session(tmp_path / "s.json")
    data = json.loads(target.read_text())
    saved = [[str((target.parent / p).resolve()) for p in s] for s in data["result_sets"]]
    assert saved == [[str(good[0].resolve())], [str(good[1].resolve())]]
    assert data["current_result_set"] == 1

    (entry,) = win.opening.recent.entries()
    assert entry.result_sets == ((str(good[0]),), (str(good[1]),))
    win.opening.recent_menu.aboutToShow.emit()
    (act,) = [a for a in win.opening.recent_menu.actions() if a.text().startswith("&1")]
    assert "(+2 result sets)" in act.text()

    # reopening the session: both sets, the chosen one current, and no error repeated
    again = start()
    again.sessions.open_session(target)
    qtbot.waitUntil(lambda: len(again.state.results) == 2 and again.state.is_idle(), timeout=60_000)
    qtbot.wait(200)
    assert again.state.current_results == 1
    assert messages(again) == []

    # and Open Recent likewise
    third = start(QSettings(settings.fileName(), QSettings.Format.IniFormat))
    third.open_recent(third.opening.recent.entries()[0])
    qtbot.waitUntil(lambda: len(third.state.results) == 2 and third.state.is_idle(), timeout=60_000)
    qtbot.wait(200)
    assert messages(third) == []


def test_results_added_later_are_recorded_only_once_they_load(
    qtbot, start, settings, demo, five_sets, tmp_path
):
    good, bad = five_sets
    win = start(settings)
    win.open_dataset(demo.year_dir, (good[0],), "val")
    qtbot.waitUntil(lambda: len(win.state.results) == 1 and win.state.is_idle(), timeout=60_000)
    win.add_results([bad[2]])
    win.add_results([good[1]])
    qtbot.waitUntil(lambda: len(win.state.results) == 2 and win.state.is_idle(), timeout=60_000)
    qtbot.wait(100)
    assert sum(str(bad[2]) in m for m in messages(win)) == 1
    assert win.opening.opened.result_sets == ((str(good[0]),), (str(good[1]),))
    (entry,) = win.opening.recent.entries()
    assert entry.result_sets == win.opening.opened.result_sets
    session = win.sessions.capture()
    assert session.result_sets == ((Path(good[0]),), (Path(good[1]),))
