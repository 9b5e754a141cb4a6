"""Help ▸ Keyboard shortcuts, Getting started and About: non-modal dialogs over the window, and
``HelpController``, which owns the three actions and keeps one dialog of each.

``ShortcutsDialog`` lists every action of the window, read from its ``QAction`` objects and its
menu bar each time it is shown (so the list cannot drift from the menus), grouped by menu, then
the keys panes handle themselves (``widgets.pane_keys.PANE_KEYS``), with a filter line.
"""

from __future__ import annotations

import platform
import re
import sys
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, qVersion
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence, QShowEvent, QTextDocument
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QPushButton,
    QTabWidget,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

import vocviewer
from vocviewer.gui.widgets.pane_keys import PANE_KEYS
from vocviewer.gui.window.actions import make_action
from vocviewer.gui.window.help_text import getting_started_html

#: the group of actions with keys that sit in no menu of the menu bar
ELSEWHERE = "Toolbar and right-click menus"
#: the group of the keys panes handle themselves
IN_PANES = "Inside a pane"


def plain(text: str) -> str:
    """Menu text without its ``&`` mnemonic marks and trailing ellipsis."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("…")


def key_text(action: QAction) -> str:
    """The action's shortcuts as the menus show them, comma-separated ("" if none)."""
    native = QKeySequence.SequenceFormat.NativeText
    return ", ".join(s.toString(native) for s in action.shortcuts() if not s.isEmpty())


def menu_actions(menu: QMenu, path: str) -> list[tuple[str, QAction]]:
    """(menu path, action) for every action of ``menu`` and its submenus, separators left out."""
    found: list[tuple[str, QAction]] = []
    for act in menu.actions():
        sub = act.menu()
        if isinstance(sub, QMenu):
            found.extend(menu_actions(sub, f"{path} ▸ {plain(sub.title())}"))
        elif not act.isSeparator():
            found.append((path, act))
    return found


def action_rows(window: QMainWindow) -> list[tuple[str, str, str, str, str]]:
    """(group, action, keys, menu path, status tip) for every menu action of ``window``, then
    every action with keys in no menu (toolbar, right-click menus), then the panes' own keys."""
    rows: list[tuple[str, str, str, str, str]] = []
    in_menus: set[int] = set()
    for top in window.menuBar().actions():
        menu = top.menu()
        if not isinstance(menu, QMenu):
            continue
        group = plain(menu.title())
        for path, act in menu_actions(menu, group):
            in_menus.add(id(act))
            rows.append((group, plain(act.text()), key_text(act), path, act.statusTip()))
    for act in window.findChildren(QAction):
        if id(act) not in in_menus and key_text(act):
            tip = act.statusTip() or act.toolTip()
            rows.append((ELSEWHERE, plain(act.text()), key_text(act), "", tip))
    for pk in PANE_KEYS:
        rows.append((IN_PANES, pk.action, pk.names, pk.where, pk.what))
    return rows


def getting_started_text() -> str:
    """Getting started as the page shows it: plain text, casefolded, spaces collapsed."""
    doc = QTextDocument()
    doc.setHtml(getting_started_html())
    return " ".join(doc.toPlainText().split()).casefold()


def not_in_getting_started(window: QMainWindow) -> list[str]:
    """What ``window`` offers that Getting started does not name: each menu of the menu bar and
    each submenu (``"View ▸ Palette"``), each of their actions (``"Walk ▸ Cycle walk mode"``)
    and each tab of its tab widgets (``"tab Analysis"``). A menu filled from the user's data
    when shown (its ``generated`` property set: Open Recent) counts by its title only."""
    page = getting_started_text()
    missing: list[str] = []

    def named(text: str) -> bool:
        words = re.escape(" ".join(plain(text).split()).casefold())
        return re.search(rf"(?<!\w){words}(?!\w)", page) is not None  # whole words

    def walk(menu: QMenu, path: str) -> None:
        if not named(menu.title()):
            missing.append(path)
        if menu.property("generated"):
            return
        for act in menu.actions():
            sub = act.menu()
            if isinstance(sub, QMenu):
                walk(sub, f"{path} ▸ {plain(sub.title())}")
            elif not act.isSeparator() and not named(act.text()):
                missing.append(f"{path} ▸ {plain(act.text())}")

    for top in window.menuBar().actions():
        if isinstance(top.menu(), QMenu):
            walk(top.menu(), plain(top.menu().title()))
    for tabs in window.findChildren(QTabWidget):
        missing += [
            f"tab {tabs.tabText(i)}" for i in range(tabs.count()) if not named(tabs.tabText(i))
        ]
    return missing


class ShortcutsDialog(QDialog):
    """Help ▸ Keyboard shortcuts: the window's actions and keys, grouped, with a filter."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window_ = window
        self.setWindowTitle("Keyboard shortcuts — vocviewer")
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter: action, key or description")
        self.filter.setClearButtonEnabled(True)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Action", "Keys", "Menu or pane", "What it does"])
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        self.tree.setWordWrap(True)
        header = self.tree.header()
        for col in (0, 1, 2):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.filter)
        layout.addWidget(self.tree, 1)
        layout.addWidget(buttons)
        self.resize(980, 640)
        self.filter.textChanged.connect(self.apply_filter)

    def showEvent(self, event: QShowEvent) -> None:
        self.refresh()  # read the actions as they are now
        super().showEvent(event)

    def refresh(self) -> None:
        """Rebuild the list from the window's actions and menus."""
        self.tree.clear()
        groups: dict[str, QTreeWidgetItem] = {}
        bold = self.tree.font()
        bold.setBold(True)
        for group, *cols in action_rows(self.window_):
            parent = groups.get(group)
            if parent is None:
                parent = groups[group] = QTreeWidgetItem(self.tree, [group])
                parent.setFirstColumnSpanned(True)
                parent.setFont(0, bold)
                parent.setFlags(Qt.ItemFlag.ItemIsEnabled)
            item = QTreeWidgetItem(parent, cols)
            item.setToolTip(3, cols[3])
        self.tree.expandAll()
        self.apply_filter(self.filter.text())

    def apply_filter(self, text: str) -> None:
        """Show the rows containing every word of ``text`` (any column, any case)."""
        words = text.casefold().split()
        for g in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(g)
            shown = 0
            for r in range(group.childCount()):
                item = group.child(r)
                hay = " ".join(item.text(c) for c in range(4)).casefold()
                hide = not all(w in hay for w in words)
                item.setHidden(hide)
                shown += not hide
            group.setHidden(shown == 0)

    def listed(self) -> list[tuple[str, str]]:
        """(action, keys) of the rows shown, for tests."""
        return [
            (g.child(r).text(0), g.child(r).text(1))
            for g in (self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount()))
            if not g.isHidden()
            for r in range(g.childCount())
            if not g.child(r).isHidden()
        ]


class GettingStartedDialog(QDialog):
    """Help ▸ Getting started: what each pane is and the first steps (offline HTML)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Getting started — vocviewer")
        self.text = QTextBrowser()
        self.text.setOpenLinks(False)
        self.text.setHtml(getting_started_html())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)
        self.resize(720, 640)


def versions() -> list[tuple[str, str]]:
    """(component, version) of vocviewer and the libraries it runs on, as loaded now."""
    import numpy
    import PIL
    import pyqtgraph
    import PySide6
    from lxml import etree

    return [
        ("vocviewer", vocviewer.__version__),
        ("Python", platform.python_version()),
        ("Qt", qVersion()),
        ("PySide6", PySide6.__version__),
        ("pyqtgraph", str(pyqtgraph.__version__)),
        ("numpy", numpy.__version__),
        ("Pillow", PIL.__version__),
        ("lxml", ".".join(map(str, etree.LXML_VERSION))),
        ("Platform", f"{platform.platform()} ({sys.platform})"),
    ]


class AboutDialog(QDialog):
    """Help ▸ About: what vocviewer is and the versions it runs on, with a Copy button."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("About vocviewer")
        rows = versions()
        self.version_text = "\n".join(f"{name} {ver}" for name, ver in rows)
        table = "".join(f"<tr><td>{name}</td><td>&nbsp;&nbsp;{ver}</td></tr>" for name, ver in rows)
        self.label = QLabel(
            f"<h3>vocviewer {vocviewer.__version__}</h3><p>Browse object-recognition benchmarks "
            "and evaluate results exactly as the official devkits do; click a point of a "
            "precision/recall curve to see the detection behind it.</p><table>"
            f"{table}</table>"
        )
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.copy_button = QPushButton("Copy")
        self.copy_button.setToolTip("Copy the versions to the clipboard, for a bug report")
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.close)
        self.copy_button.clicked.connect(self.copy)
        layout = QVBoxLayout(self)
        layout.addWidget(self.label, 1)
        layout.addWidget(buttons)
        self.setMinimumWidth(460)

    def copy(self) -> None:
        """Put the versions, one per line, on the clipboard."""
        QGuiApplication.clipboard().setText(self.version_text)


class HelpController(QObject):
    """The Help menu's actions over ``window`` (whose actions and menus the shortcuts list
    reads); one dialog of each, made on first use, non-modal, closed with ``close_dialogs``."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window_ = window
        self._dialogs: dict[str, QDialog] = {}
        self.act_shortcuts = make_action(
            self,
            "&Keyboard shortcuts",
            ("F1", "?"),
            self.show_shortcuts,
            "List every action and key of the window, with a filter",
        )
        self.act_getting_started = make_action(
            self,
            "&Getting started",
            (),
            self.show_getting_started,
            "What each pane is and the first steps",
        )
        self.act_about = make_action(
            self,
            "&About vocviewer",
            (),
            self.show_about,
            "The versions of vocviewer and of the libraries it runs on",
        )

    def window_actions(self) -> list[QAction]:
        return [self.act_shortcuts, self.act_getting_started, self.act_about]

    def _show(self, name: str, make: Callable[[], QDialog]) -> QDialog:
        """Show the one dialog ``name`` (made on first use), non-modal, in front."""
        dialog = self._dialogs.get(name)
        if dialog is None:
            dialog = self._dialogs[name] = make()
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()
        return dialog

    def show_shortcuts(self) -> None:
        self._show("shortcuts", lambda: ShortcutsDialog(self.window_))

    def show_getting_started(self) -> None:
        self._show("getting-started", lambda: GettingStartedDialog(self.window_))

    def show_about(self) -> None:
        self._show("about", lambda: AboutDialog(self.window_))

    def close_dialogs(self) -> None:
        """Help's dialogs go with the window."""
        for dialog in self._dialogs.values():
            dialog.close()
