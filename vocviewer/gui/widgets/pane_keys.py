"""Keys a pane handles itself rather than through one of the window's actions.

One table: the handlers test their key events against these entries, and Help ▸ Keyboard
shortcuts lists them beside the window's actions, so the two cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt


@dataclass(frozen=True)
class PaneKey:
    """Keys (``Qt.Key`` values, no modifier; ``names`` as Help shows them) that do ``action``
    (said at length in ``what``) while the focus is in ``where``."""

    keys: tuple[Qt.Key, ...]
    names: str
    action: str
    where: str
    what: str

    def matches(self, key: int) -> bool:
        """Whether a key event's ``key()`` is one of these keys."""
        return key in self.keys


ACTIVATE_ROW = PaneKey(
    (Qt.Key.Key_Return, Qt.Key.Key_Enter),
    "Enter",
    "Open the row",
    "Inspector, Compare, Confusion, Grid, Patches",
    "Open its image, the detection or object zoomed to",
)
CONFUSION_ARROWS = PaneKey(
    (Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Up, Qt.Key.Key_Down),
    "← → ↑ ↓",
    "Move between cells",
    "Confusion matrix",
    "Move between cells (not to another image)",
)

PAGE_KEYS = PaneKey(
    (Qt.Key.Key_PageDown, Qt.Key.Key_PageUp),
    "PgDn PgUp",
    "Move one page",
    "Grid, Patches",
    "Move the current cell one screen down / up (elsewhere: next / previous image)",
)

#: every key a pane handles itself, in the order Help lists them
PANE_KEYS = (ACTIVATE_ROW, CONFUSION_ARROWS, PAGE_KEYS)
