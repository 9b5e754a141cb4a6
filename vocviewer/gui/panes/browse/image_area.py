"""``ImageArea``: the image view, or in its place the thumbnail grid or the patches view.

View ▸ Thumbnail grid (Ctrl+G) and View ▸ Patches (Ctrl+Shift+G) switch (each again: back to
the image); opening a cell or a patch switches back to the image. Larger / Smaller thumbnails
(Ctrl+= / Ctrl+-, while the grid or the patches have the focus, and in the View menu) step the
picture size of both through ``cells.THUMB_SIZES``; the window remembers it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QStackedWidget, QWidget

from vocviewer.gui.models.state import AppState
from vocviewer.gui.models.tags import TagsModel
from vocviewer.gui.panes.browse.cells import DEFAULT_THUMB, THUMB_SIZES, next_size
from vocviewer.gui.panes.browse.patches import PatchesPane
from vocviewer.gui.panes.browse.thumbnail_grid import ThumbnailGrid


def _action(owner: QWidget, text: str, keys: tuple[str, ...], tip: str) -> QAction:
    action = QAction(text, owner)
    action.setShortcuts([QKeySequence(k) for k in keys])
    action.setStatusTip(tip)
    return action


class ImageArea(QStackedWidget):
    """The image ``view`` (taking its place in its layout), the ``grid`` and the ``patches``."""

    def __init__(self, state: AppState, view: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        holder = view.parentWidget()
        layout = holder.layout() if holder is not None else None
        self.state = state
        self.view = view
        self.grid = ThumbnailGrid(state)
        self.patches = PatchesPane(state)
        self.thumb_w = DEFAULT_THUMB
        if layout is not None:  # take the view's place in its layout
            layout.replaceWidget(view, self)
        for page in (view, self.grid, self.patches):
            self.addWidget(page)
        self.act_grid = _action(
            self,
            "Thumbnail &grid",
            ("Ctrl+G",),
            "Show the listed images as a grid of thumbnails in place of the image (click or "
            "Enter opens one)",
        )
        self.act_grid.setToolTip("Thumbnail grid (Ctrl+G)")
        self.act_grid.setIconText("Grid")
        self.act_patches = _action(
            self,
            "&Patches",
            ("Ctrl+Shift+G",),
            "Show crops of the detections of a verdict, the missed objects or the objects of a "
            "class in place of the image (double-click or Enter opens one)",
        )
        self.act_patches.setIconText("Patches")
        for act in (self.act_grid, self.act_patches):
            act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            act.setCheckable(True)
        self.act_larger = _action(
            self, "&Larger thumbnails", ("Ctrl+=", "Ctrl++"), "Larger pictures in the grid"
        )
        self.act_smaller = _action(
            self, "S&maller thumbnails", ("Ctrl+-",), "Smaller pictures in the grid"
        )
        for act, step in ((self.act_larger, 1), (self.act_smaller, -1)):
            act.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            act.triggered.connect(lambda _=False, step=step: self.step_size(step))
            self.grid.addAction(act)
            self.patches.addAction(act)

        self.act_grid.toggled.connect(self.show_grid)
        self.act_patches.toggled.connect(self.show_patches)
        self.grid.open_requested.connect(self._on_open)
        self.patches.open_requested.connect(self._on_open)

    # --- pages ---------------------------------------------------------------------------------
    def show_grid(self, on: bool) -> None:
        """Show the grid (``True``) or the image view."""
        self._show(self.act_grid, self.grid, on)

    def show_patches(self, on: bool) -> None:
        """Show the patches (``True``) or the image view."""
        self._show(self.act_patches, self.patches, on)

    def _show(self, act: QAction, page: QWidget, on: bool) -> None:
        if act.isChecked() != on:
            act.setChecked(on)  # comes back here through ``toggled``
            return
        if on:
            for other in (self.act_grid, self.act_patches):
                if other is not act and other.isChecked():
                    other.blockSignals(True)
                    other.setChecked(False)
                    other.blockSignals(False)
        elif self.currentWidget() is not page:
            return  # the other page took over
        shown = page if on else self.view
        self.setCurrentWidget(shown)
        (self.patches.grid if shown is self.patches else shown).setFocus()

    def patches_in_front(self) -> bool:
        return self.currentWidget() is self.patches

    def _on_open(self, _row: int) -> None:
        for act in (self.act_grid, self.act_patches):
            act.setChecked(False)
        self.setCurrentWidget(self.view)
        self.view.setFocus()

    # --- size and tags -------------------------------------------------------------------------
    def step_size(self, step: int) -> None:
        self.set_thumb_size(next_size(self.thumb_w, step))

    def set_thumb_size(self, width: object) -> bool:
        """Pictures ``width`` wide in the grid and the patches (one of ``THUMB_SIZES``; anything
        else is refused: ``False``)."""
        if isinstance(width, bool) or width not in THUMB_SIZES:
            return False
        self.thumb_w = int(width)  # type: ignore[call-overload]
        self.grid.set_thumb_size(self.thumb_w)
        self.patches.grid.set_thumb_size(self.thumb_w)
        return True

    def set_tags(self, tags: TagsModel) -> None:
        """Flag tagged images in the grid and show the tags of patches, following ``tags``."""
        self.patches.set_tags(tags)

        tags.changed.connect(lambda: self.grid.set_marked(tags.tagged_rows()))
