"""View ▸ Palette: the verdict colours (colour-blind safe, classic, high contrast) and whether
every detection label names its verdict.

``PaletteMenu`` (the window puts it in its View menu) applies the palette stored under
``"view/palette"`` (and ``"view/verdict_words"``) when the window has a ``QSettings`` — the
default palette otherwise — and stores each choice there. A change recolours
every pane: the image is redrawn, the PR pane and the colour key in the status bar refreshed, the
tables repainted.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu, QWidget

from vocviewer.core.palette import DEFAULT_PALETTE, PALETTES
from vocviewer.gui.panes.image.view import ImageView
from vocviewer.gui.panes.pr.pane import PRPane
from vocviewer.gui.widgets.verdict_style import (
    active_palette,
    apply_palette,
    colour_key,
    set_verdict_words,
    signals,
    verdict_words,
)
from vocviewer.gui.window.status_line import StatusLine

PALETTE_KEY = "view/palette"
WORDS_KEY = "view/verdict_words"


class PaletteMenu(QMenu):
    """The View ▸ Palette submenu of ``window`` (``palette_actions[key]`` per palette,
    ``words_action`` for verdict words in every label)."""

    def __init__(
        self,
        host: QWidget,
        settings: QSettings | None,
        status: StatusLine,
        view: ImageView,
        pr_pane: PRPane,
        panes: Sequence[QWidget],
    ) -> None:
        """``status``: its colour key; ``view``, ``pr_pane``: redrawn; ``host`` and ``panes``:
        repainted (tables take their colours from the shared QColors when they repaint)."""
        super().__init__("&Palette", host)
        self.settings = settings
        self.status, self.view, self.pr_pane = status, view, pr_pane
        self.repainted = (host, *panes)
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
        status.colour_key_label.setText(colour_key())  # built before the stored palette came

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
        self.status.colour_key_label.setText(colour_key())
        self.view.redraw_overlays()
        self.pr_pane.refresh_palette()
        for widget in self.repainted:
            widget.update()
