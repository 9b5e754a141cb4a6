"""What the thumbnail grid and the patches view share: the cell sizes offered, PgDn / PgUp
moving one page, and the tag marker painted on a tagged cell.

Both views are a ``QListView`` in icon mode over uniform cells; the window's PgDn / PgUp (next /
previous image) give way to them while one has the focus (``claims_page_keys``).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QKeyEvent, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QListView,
    QStyle,
    QStyleOptionViewItem,
)

from vocviewer.gui.widgets.pane_keys import PAGE_KEYS

#: Picture widths offered (logical pixels; the height is three quarters), smallest first.
THUMB_SIZES: tuple[int, ...] = (96, 128, 160, 224, 320)
DEFAULT_THUMB = 160
#: The tag marker's colour (a tagged image or box).
TAG_INK = QColor("#f2a900")


def thumb_height(width: int) -> int:
    return width * 3 // 4


def next_size(width: int, step: int) -> int:
    """The offered width ``step`` steps larger (> 0) or smaller than ``width``, clamped."""
    at = min(range(len(THUMB_SIZES)), key=lambda i: abs(THUMB_SIZES[i] - width))
    return THUMB_SIZES[max(0, min(len(THUMB_SIZES) - 1, at + step))]


def claims_page_keys(event: QEvent) -> bool:
    """A ``ShortcutOverride`` for PgDn / PgUp without modifiers: accept it (the view handles
    the key itself) and say so."""
    if event.type() != QEvent.Type.ShortcutOverride or not isinstance(event, QKeyEvent):
        return False
    if PAGE_KEYS.matches(event.key()) and event.modifiers() in (
        Qt.KeyboardModifier.NoModifier,
        Qt.KeyboardModifier.KeypadModifier,
    ):
        event.accept()
        return True
    return False


def page_of(view: QListView) -> tuple[int, int]:
    """``(columns, rows)`` of cells one screen of ``view`` shows (each at least 1)."""
    grid, port = view.gridSize(), view.viewport()
    columns = max(1, (port.width() - view.spacing()) // max(1, grid.width()))
    rows = max(1, port.height() // max(1, grid.height()))
    return columns, rows


def move_page(view: QListView, step: int) -> None:
    """Move the current cell ``step`` screens down (> 0) or up, same column, clamped to the
    first / last cell; it becomes the selection and is scrolled into view."""
    model = view.model()
    n = model.rowCount() if model is not None else 0
    if not n:
        return
    columns, rows = page_of(view)
    here = view.currentIndex().row() if view.currentIndex().isValid() else 0
    there = max(0, min(n - 1, here + step * columns * rows))
    index = model.index(there, 0)
    view.setCurrentIndex(index)
    view.scrollTo(index, QAbstractItemView.ScrollHint.EnsureVisible)


def grid_view(view: QListView, selection: QAbstractItemView.SelectionMode) -> None:
    """Set ``view`` up as a grid of equal cells scrolled by the pixel: icon mode, static,
    re-laid out on resize, 4 px apart, read-only, frameless, with ``selection``."""
    view.setViewMode(QListView.ViewMode.IconMode)
    view.setMovement(QListView.Movement.Static)
    view.setResizeMode(QListView.ResizeMode.Adjust)
    view.setUniformItemSizes(True)
    view.setSpacing(4)
    view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
    view.setSelectionMode(selection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setFrameShape(QFrame.Shape.NoFrame)


def begin_cell(
    painter: QPainter, option: QStyleOptionViewItem, thumb_w: int, pad: float
) -> tuple[QRectF, QRectF, bool]:
    """Start painting one grid cell: save the painter, fill a selected cell with the highlight;
    (the cell's rect, the picture's area ``thumb_w`` wide, centred, ``pad`` from the top, and
    whether it is selected). The caller restores the painter."""
    rect = QRectF(option.rect)
    selected = bool(option.state & QStyle.StateFlag.State_Selected)
    painter.save()
    if selected:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(option.palette.highlight())
        painter.drawRoundedRect(rect.adjusted(1, 1, -1, -1), 4, 4)
        painter.setBrush(Qt.BrushStyle.NoBrush)
    th = thumb_height(thumb_w)
    area = QRectF(rect.x() + (rect.width() - thumb_w) / 2, rect.y() + pad, thumb_w, th)
    return rect, area, selected


def paint_tag_marker(painter: QPainter, corner: QPointF, text: str) -> None:
    """A small amber flag with ``text`` (e.g. the number of tags) whose top-left is
    ``corner``."""
    fm = painter.fontMetrics()
    label = f"⚑ {text}" if text else "⚑"
    rect = QRectF(corner.x(), corner.y(), fm.horizontalAdvance(label) + 8, fm.height() + 2)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(TAG_INK)
    painter.drawRoundedRect(rect, 3, 3)
    painter.setPen(QColor("#000000"))
    painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), label)


def visible_rows(view: QListView, ahead: float = 0.0, behind: float = 0.0) -> range:
    """Rows of ``view`` whose cells are on screen, extended by ``ahead`` screens down and
    ``behind`` screens up."""
    model = view.model()
    n = model.rowCount() if model is not None else 0
    grid, port = view.gridSize(), view.viewport()
    if not n or grid.width() <= 0 or grid.height() <= 0:
        return range(0)
    columns = page_of(view)[0]
    value = view.verticalScrollBar().value()
    top = value - behind * port.height()
    bottom = value + (1.0 + ahead) * port.height()
    first = max(0, int(top // grid.height()) * columns)
    last = min(n, (int(bottom // grid.height()) + 1) * columns)
    return range(first, max(first, last))
