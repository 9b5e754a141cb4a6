"""Opening by drag and drop, File ▸ Open annotation file, and File ▸ Open Recent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, QSettings, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent

from vocviewer.gui.window.recent import LIMIT, RecentEntry, RecentFiles


@pytest.fixture
def settings(tmp_path):
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def demo_window(qtbot, settings):
    def make():
        from vocviewer.gui.window.main_window import MainWindow

        win = MainWindow(settings=settings)
        qtbot.addWidget(win)
        win.resize(1400, 900)
        win.show()
        return win

    made = []
    yield lambda: made.append(make()) or made[-1]
    for win in made:
        win.view.shutdown()
        win.state.shutdown()


def drop(qtbot, win, paths: list[Path]) -> None:
    """Deliver a real drag-enter + drop of file URLs to the window."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    buttons, mods = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    pos = win.rect().center()
    enter = QDragEnterEvent(pos, Qt.DropAction.CopyAction, mime, buttons, mods)
    win.dragEnterEvent(enter)
    assert enter.isAccepted()
    event = QDropEvent(QPointF(pos), Qt.DropAction.CopyAction, mime, buttons, mods)
    win.dropEvent(event)
    assert event.isAccepted()


def loaded(win) -> bool:
    st = win.state
    return st.dataset is not None and bool(st.results) and st.is_idle()


def test_dropping_dataset_and_results_opens_both_and_remembers_them(qtbot, demo_window, demo):
    win = demo_window()
    drop(qtbot, win, [demo.results_dir, demo.year_dir])  # order does not matter
    qtbot.waitUntil(lambda: loaded(win), timeout=20_000)
    assert win.state.dataset.name == "VOC2012"
    assert win.state.results[0].results.detections.score.size > 0
    (entry,) = win.opening.recent.entries()
    assert entry == RecentEntry(str(demo.year_dir), (str(demo.results_dir),), {}, "val")


def test_dropping_results_adds_them_to_the_open_dataset(qtbot, demo_window, demo):
    win = demo_window()
    win.open_dataset(demo.year_dir, (), "val")
    qtbot.waitUntil(lambda: win.state.dataset is not None, timeout=20_000)
    det = sorted(demo.results_dir.rglob("comp4_det_val_*.txt"))
    drop(qtbot, win, det[:2])
    qtbot.waitUntil(lambda: loaded(win), timeout=20_000)
    assert len(win.state.results) == 1
    assert win.opening.recent.entries()[0].results == tuple(str(p) for p in det[:2])


def test_dropping_results_without_a_dataset_says_what_to_do(qtbot, demo_window, tmp_path):
    win = demo_window()
    stray = tmp_path / "comp4_det_val_cat.txt"
    stray.write_text("img 0.5 1 1 2 2\n")
    drop(qtbot, win, [stray])
    assert win.state.dataset is None
    assert win.messages.count() == 1
    assert "not a dataset" in win.messages.list.item(0).text()


def test_open_recent_reopens_with_results_and_reports_missing_ones(qtbot, demo_window, demo):
    win = demo_window()
    gone = demo.results_dir / "deleted.txt"
    win.opening.recent.add(RecentEntry(str(demo.year_dir), (str(demo.results_dir), str(gone))))
    win.opening.recent_menu.aboutToShow.emit()
    actions = [a for a in win.opening.recent_menu.actions() if a.text().startswith("&1")]
    assert actions and "(+2 results)" in actions[0].text()
    actions[0].trigger()
    qtbot.waitUntil(lambda: loaded(win), timeout=20_000)
    assert "deleted.txt: no longer exists" in win.messages.list.item(0).text()


def test_recent_list_is_newest_first_unique_and_bounded(settings):
    recent = RecentFiles(settings)
    for n in range(LIMIT + 3):
        recent.add(RecentEntry(f"/data/{n}"))
    recent.add(RecentEntry("/data/5", ("/r/a.json",), {"images": "/img"}))
    entries = recent.entries()
    assert len(entries) == LIMIT
    assert entries[0] == RecentEntry("/data/5", ("/r/a.json",), {"images": "/img"})
    assert [e.dataset for e in entries].count("/data/5") == 1
    recent.add_results("/data/5", ["/r/a.json", "/r/b.json"])  # one more result set
    assert recent.entries()[0].result_sets == (("/r/a.json",), ("/r/a.json", "/r/b.json"))
    # the file on disk is what a new window reads back
    again = RecentFiles(QSettings(settings.fileName(), QSettings.Format.IniFormat))
    assert again.entries() == recent.entries()


def test_damaged_recent_list_is_forgotten(settings):
    settings.setValue("recent/datasets", json.dumps([{"no": "dataset key"}]))
    assert RecentFiles(settings).entries() == []
    settings.setValue("recent/datasets", "not json")
    assert RecentFiles(settings).entries() == []
