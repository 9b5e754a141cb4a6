"""``ToolbarRows``: the window's toolbars side by side when they fit its width, else one per row.

Qt hides the widgets of a toolbar that does not fit behind a small » extension button, where
nobody looks for them (the segmentation opacity below 1366 px). Instead the second toolbar wraps
under the first as soon as the two do not fit side by side, so every widget stays in sight down
to the width of one toolbar; only narrower than that does the » button hold the rest.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QMainWindow, QToolBar, QToolButton
from shiboken6 import isValid

#: Qt's name of a toolbar's overflow button (``QToolBarExtension``).
EXTENSION_BUTTON = "qt_toolbar_ext_button"


def extension_button(bar: QToolBar) -> QToolButton | None:
    """The » button a toolbar shows when its widgets do not fit (``None`` if it has none)."""
    found = [b for b in bar.findChildren(QToolButton) if b.objectName() == EXTENSION_BUTTON]
    return found[0] if found else None


class ToolbarRows(QObject):
    """Wraps ``second`` onto its own row under ``first`` in ``window`` while the two toolbars'
    full widths (``sizeHint``) exceed the window's; rechecked when the window is resized and
    when a toolbar's contents change (a control shown for one dataset family only)."""

    def __init__(self, window: QMainWindow, first: QToolBar, second: QToolBar) -> None:
        super().__init__(window)
        self.window, self.first, self.second = window, first, second
        self.wrapped = False
        self._pending = False
        for watched in (window, first, second):
            watched.installEventFilter(self)

    def needed_width(self) -> int:
        """Width (px) the two toolbars need side by side, every widget shown."""
        return self.first.sizeHint().width() + self.second.sizeHint().width()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.Resize, QEvent.Type.LayoutRequest) and not self._pending:
            self._pending = True  # once per burst of events, after they are handled
            QTimer.singleShot(0, self, self.update)  # dropped if this object is gone
        return False

    def update(self) -> None:
        """Wrap or unwrap the second toolbar to fit the window's width now."""
        self._pending = False
        if not all(isValid(w) for w in (self.window, self.first, self.second)):
            return  # the window is being destroyed
        wrap = self.needed_width() > self.window.width()
        if wrap != self.wrapped:
            self.wrapped = wrap
            if wrap:
                self.window.insertToolBarBreak(self.second)
            else:
                self.window.removeToolBarBreak(self.second)
