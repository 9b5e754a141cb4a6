"""View ▸ Palette: the verdict colours (colour-blind safe, classic, high contrast) and whether
every detection label names its verdict.

``install_palette_menu(window, settings)`` adds the submenu to ``window.view_menu``, applies the
palette stored under ``"view/palette"`` (and ``"view/verdict_words"``) when the window has a
``QSettings`` — the default palette otherwise — and stores each choice there. A change recolours
every pane: the image is redrawn, the PR pane and the colour key in the status bar refreshed, the
tables repainted.
"""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QLabel, QMenu, QWidget

from vocviewer.core.palette import DEFAULT_PALETTE, PALETTES
from vocviewer.gui.widgets.verdict_style import (
    active_palette,
    apply_palette,
    colour_key,
    set_verdict_words,
    signals,
    verdict_words,
)


class PaletteHost(Protocol):
    """What of the main window the menu uses (the window itself is a ``QWidget``)."""

    view_menu: QMenu
    after_toggles: QAction
    colour_key_label: QLabel
    view: Any  # ImageView: redraw_overlays()
    pr_pane: Any  # PRPane: refresh_palette()
    side: QWidget
    confusion: QWidget
    ap_table: QWidget

    def update(self) -> None: ...


PALETTE_KEY = "view/palette"
WORDS_KEY = "view/verdict_words"


class PaletteMenu(QMenu):
    """The View ▸ Palette submenu of ``window`` (``palette_actions[key]`` per palette,
    ``words_action`` for verdict words in every label)."""

    def __init__(self, window: PaletteHost, settings: QSettings | None) -> None:
        super().__init__("&Palette", window)  # type: ignore[call-overload]
        self.window_ = window
        self.settings = settings
        self.menuAction().setStatusTip("Colours of the verdicts: TP, each kind of FP, missed")
        group = QActionGroup(self)
        self.palette_actions: dict[str, QAction] = {}
        for key, palette in PALETTES.items():
            title = palette.title + (" (default)" if key == DEFAULT_PALETTE else "")
            act = self.addAction(title)
            act.setCheckable(True)
            act.setData(key)
            act.setStatusTip(f"Draw verdicts in the {palette.title.lower()} palette")
            group.addAction(act)
            self.palette_actions[key] = act
        self.addSeparator()
        self.words_action = self.addAction("Verdict in every label")
        self.words_action.setCheckable(True)
        self.words_action.setStatusTip("Name the verdict (TP, FP: background, …) in every label")
        stored, words = DEFAULT_PALETTE, False
        if settings is not None:
            value = settings.value(PALETTE_KEY, DEFAULT_PALETTE)
            stored = value if isinstance(value, str) and value in PALETTES else DEFAULT_PALETTE
            words = str(settings.value(WORDS_KEY, "false")).lower() in ("true", "1")
        apply_palette(stored)
        set_verdict_words(words)
        self._sync()
        window.colour_key_label.setText(colour_key())  # built before the stored palette came

        group.triggered.connect(self._on_palette_chosen)
        self.words_action.toggled.connect(self._on_words_toggled)
        signals().palette_changed.connect(self._on_palette_changed)

    def choose(self, key: str) -> None:
        """Use palette ``key`` (stored in the settings, if any)."""
        if self.settings is not None:
            self.settings.setValue(PALETTE_KEY, key)
        apply_palette(key)

    def _on_palette_chosen(self, action: QAction) -> None:
        self.choose(str(action.data()))

    def _on_words_toggled(self, on: bool) -> None:
        if self.settings is not None:
            self.settings.setValue(WORDS_KEY, bool(on))
        set_verdict_words(on)

    def _sync(self) -> None:
        self.palette_actions[active_palette()].setChecked(True)
        self.words_action.setChecked(verdict_words())

    def _on_palette_changed(self, _key: str) -> None:
        self._sync()
        win = self.window_
        win.colour_key_label.setText(colour_key())
        win.view.redraw_overlays()
        win.pr_pane.refresh_palette()
        win.update()  # tables take their colours from the shared QColors when they repaint
        for child in (win.side, win.confusion, win.ap_table):
            child.update()


def install_palette_menu(window: PaletteHost, settings: QSettings | None) -> PaletteMenu:
    """Add View ▸ Palette to ``window`` (after its drawing toggles) and apply the stored choice."""
    menu = PaletteMenu(window, settings)
    window.view_menu.insertMenu(window.after_toggles, menu)
    window.palette_menu = menu  # type: ignore[attr-defined]
    return menu
