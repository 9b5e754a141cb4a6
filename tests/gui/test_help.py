"""Help menu: the shortcut list generated from the window's actions, Getting started, About."""

from __future__ import annotations

from collections import defaultdict

import numpy
import PySide6
import pytest
from PySide6.QtCore import Qt, qVersion
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QApplication, QMenu

from vocviewer.gui.widgets.pane_keys import PANE_KEYS
from vocviewer.gui.window.help_dialogs import (
    AboutDialog,
    GettingStartedDialog,
    ShortcutsDialog,
    key_text,
    menu_actions,
    plain,
)


def keyed_actions(win) -> list[QAction]:
    return [a for a in win.findChildren(QAction) if key_text(a)]


def menu_bar_actions(win) -> list[tuple[str, QAction]]:
    found = []
    for top in win.menuBar().actions():
        found.append(("", top))
        found.extend(menu_actions(top.menu(), plain(top.text())))
        found.extend(
            (plain(top.text()), a.menu().menuAction())
            for a in top.menu().actions()
            if isinstance(a.menu(), QMenu)
        )
    return found


def open_shortcuts(qtbot, win, key) -> ShortcutsDialog:
    win.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win, timeout=5000)
    win.view.setFocus()
    qtbot.keyClick(win.view, key)
    dialogs = [d for d in win.findChildren(ShortcutsDialog) if d.isVisible()]
    assert len(dialogs) == 1
    return dialogs[0]


@pytest.mark.parametrize("key", [Qt.Key.Key_F1, Qt.Key.Key_Question])
def test_f1_and_question_mark_open_the_shortcut_list(qtbot, make_window, key):
    win = make_window()
    dialog = open_shortcuts(qtbot, win, key)
    assert not dialog.isModal()
    assert ("Keyboard shortcuts", "F1, ?") in dialog.listed()
    dialog.close()


def test_shortcut_list_is_every_action_with_keys_plus_the_pane_keys(qtbot, window):
    # the Recent menu is filled when shown: fill it as a user would
    window.opening.recent_menu.aboutToShow.emit()
    dialog = open_shortcuts(qtbot, window, Qt.Key.Key_F1)
    listed = dialog.listed()
    keyed = {(plain(a.text()), key_text(a)) for a in keyed_actions(window)}
    assert len(keyed) >= 28  # toggles, navigation, zoom, files, help, segmentation
    assert keyed <= set(listed)
    assert {(k, v) for k, v in listed if v} == keyed | {(pk.action, pk.names) for pk in PANE_KEYS}
    # Z, S, ], [ and Ctrl+F are real actions in a menu, shown with their keys
    in_menus = {plain(a.text()): key_text(a) for _, a in menu_bar_actions(window)}
    for text, key in (
        ("Zoom to selection", "Z"),
        ("Segmentation overlay", "S"),
        ("Next false positive", "]"),
        ("Previous false positive", "["),
        ("Find image", "Ctrl+F"),
        ("Keyboard shortcuts", "F1, ?"),
    ):
        assert in_menus[text] == key


def test_shortcut_list_filter_and_menu_paths(qtbot, window):
    dialog = open_shortcuts(qtbot, window, Qt.Key.Key_F1)
    dialog.filter.setText("false POSITIVE next")
    assert dialog.listed() == [("Next false positive", "]")]
    dialog.filter.setText("only false")
    rows = {
        dialog.tree.topLevelItem(g).child(r).text(2)
        for g in range(dialog.tree.topLevelItemCount())
        for r in range(dialog.tree.topLevelItem(g).childCount())
        if not dialog.tree.topLevelItem(g).child(r).isHidden()
    }
    assert "View ▸ Show" in rows
    dialog.filter.setText("no such thing at all")
    assert dialog.listed() == []
    dialog.filter.clear()
    assert len(dialog.listed()) >= 40


def test_no_two_actions_share_a_shortcut(window):
    window.opening.recent_menu.aboutToShow.emit()
    owners: dict[str, list[str]] = defaultdict(list)
    for act in keyed_actions(window):
        for seq in act.shortcuts():
            owners[seq.toString(QKeySequence.SequenceFormat.PortableText)].append(act.text())
    clashes = {k: v for k, v in owners.items() if len(v) > 1}
    assert clashes == {}


def test_every_menu_action_has_a_status_tip(window):
    window.opening.recent_menu.aboutToShow.emit()
    missing = [
        f"{path} ▸ {plain(a.text())}"
        for path, a in menu_bar_actions(window)
        if path and not a.statusTip()
    ]
    assert missing == []
    assert len(menu_bar_actions(window)) > 35


def test_about_shows_the_running_versions_and_copies_them(qtbot, make_window):
    win = make_window()
    win.help.act_about.trigger()
    (about,) = win.findChildren(AboutDialog)
    assert about.isVisible() and not about.isModal()
    text = about.label.text()
    for version in (numpy.__version__, PySide6.__version__, qVersion()):
        assert version in text
    about.copy_button.click()
    copied = QGuiApplication.clipboard().text()
    assert f"numpy {numpy.__version__}" in copied and f"PySide6 {PySide6.__version__}" in copied
    win.help.act_about.trigger()
    assert len(win.findChildren(AboutDialog)) == 1  # one dialog, brought to the front


def test_getting_started_names_the_panes_and_true_keys(qtbot, make_window):
    win = make_window()
    win.help.act_getting_started.trigger()
    (page,) = win.findChildren(GettingStartedDialog)
    text = page.text.toPlainText()
    for pane in ("Image list", "Inspector", "PR curve", "Confusion", "Messages"):
        assert pane in text
    actions = {plain(a.text()): key_text(a) for a in keyed_actions(win)}
    for text_, key in (
        ("Open dataset folder", "Ctrl+O"),
        ("Add results", "Ctrl+R"),
        ("Zoom to selection", "Z"),
        ("Messages", "Ctrl+M"),
        ("Find image", "Ctrl+F"),
    ):
        assert key in actions[text_].split(", ") and key in text


def test_pane_menus_have_status_tips_too(window):
    for menu in (window.browser.filter_menu, window.pr_pane.menu):
        for act in menu.actions():
            assert act.isSeparator() or act.statusTip(), act.text()
