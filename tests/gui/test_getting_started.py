"""Help ▸ Getting started covers every menu, menu action and pane of the window (issue 20, item
11): a menu action or tab added without a word in Getting started fails here, by name."""

from __future__ import annotations

import json

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QWidget

from vocviewer.gui.window.help_dialogs import (
    GettingStartedDialog,
    getting_started_text,
    key_text,
    not_in_getting_started,
    plain,
)
from vocviewer.gui.window.recent import KEY


def test_every_menu_action_and_tab_of_the_window_is_in_getting_started(
    qtbot, make_window, tmp_path
):
    win = make_window()
    # Open Recent filled as a user sees it: its entries are the user's data, not described
    settings = QSettings(str(tmp_path / "v.ini"), QSettings.Format.IniFormat)
    settings.setValue(KEY, json.dumps([{"dataset": "/data/VOC2012", "result_sets": [["a"]]}]))
    win.opening.recent.settings = settings
    win.opening.recent_menu.aboutToShow.emit()
    assert any("/data/VOC2012" in a.text() for a in win.opening.recent_menu.actions())
    assert not_in_getting_started(win) == []


def test_a_new_menu_action_or_tab_fails_until_it_is_described(make_window):
    win = make_window()
    win.view_menu.addAction("Frobnicate the boxes")
    win.right_tabs.addTab(QWidget(), "Heatmap")
    (walk,) = [a.menu() for a in win.menuBar().actions() if plain(a.text()) == "Walk"]
    sub = walk.addMenu("Sorting")
    sub.addAction("By area")
    assert not_in_getting_started(win) == [
        "View ▸ Frobnicate the boxes",
        "Walk ▸ Sorting",
        "Walk ▸ Sorting ▸ By area",
        "tab Heatmap",
    ]


def test_getting_started_tells_of_the_walk_the_analysis_the_grid_and_sessions(qtbot, make_window):
    win = make_window()
    win.help.act_getting_started.trigger()
    (page,) = win.findChildren(GettingStartedDialog)
    shown = " ".join(page.text.toPlainText().split()).casefold()
    assert shown == getting_started_text()
    for words in ("walk", "cycle walk mode (w)", "analysis", "thumbnail grid", "save session"):
        assert words in shown, words
    keys = {plain(a.text()): key_text(a) for a in win.findChildren(type(win.opening.act_demo))}
    assert keys["Cycle walk mode"] == "W" and keys["Thumbnail grid"] == "Ctrl+G"
    assert keys["Save session"] == "Ctrl+S"
