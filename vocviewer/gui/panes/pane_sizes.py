"""Minimum sizes that keep the panes usable in a small window (1366 x 768, the default 1400 x 900):
a chart never shrinks below ``PLOT_MIN_HEIGHT`` px, a list below ``LIST_MIN_ROWS`` rows, the
confusion matrix below ``MATRIX_MIN_ROWS`` rows; where a page needs more room than its tab has,
it scrolls (``scrolled``) instead of crushing them."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QScrollArea,
    QSplitter,
    QStyle,
    QTableView,
    QWidget,
)

PLOT_MIN_HEIGHT = 150
PLOT_MIN_WIDTH = 240
LIST_MIN_ROWS = 4
MATRIX_MIN_ROWS = 6


def rows_height(
    view: QAbstractItemView, rows: int, header: int | None = None, scroll_bar: bool = False
) -> int:
    """Pixels that show ``rows`` rows of ``view`` under its header (``header`` px if given),
    with room for a horizontal scroll bar if ``scroll_bar``."""
    row = view.sizeHintForRow(0) if view.model() is not None and view.model().rowCount() else -1
    if isinstance(view, QTableView):
        row = max(row, view.verticalHeader().defaultSectionSize())
        if header is None:
            header = view.horizontalHeader().sizeHint().height()
    row = max(row, view.fontMetrics().height() + 4)
    bar = view.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent) if scroll_bar else 0
    return (header or 0) + rows * row + bar + 2 * view.frameWidth()


def keep_rows(view: QAbstractItemView, rows: int, scroll_bar: bool = False) -> None:
    """Never shrink ``view`` below ``rows`` rows (``rows_height``)."""
    view.setMinimumHeight(rows_height(view, rows, scroll_bar=scroll_bar))


def keep_plot(plot: QWidget, caption_lines: int = 0) -> None:
    """Never shrink a chart below ``PLOT_MIN_WIDTH`` x ``PLOT_MIN_HEIGHT``; with
    ``caption_lines``, its parent keeps room for that many lines of a wrapped caption above it
    too (a splitter does not ask a word-wrapped label for its height)."""
    plot.setMinimumSize(PLOT_MIN_WIDTH, PLOT_MIN_HEIGHT)
    parent = plot.parentWidget()
    if caption_lines and parent is not None:
        lines = caption_lines * parent.fontMetrics().lineSpacing()
        parent.setMinimumHeight(PLOT_MIN_HEIGHT + lines + 8)


def scrolled(page: QWidget) -> QScrollArea:
    """``page`` in a frameless scroll area that it fills; below its minimum size it scrolls."""
    area = QScrollArea()
    area.setWidget(page)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    return area


class KeepRoom(QObject):
    """Keeps the last child of a two-child vertical ``splitter`` at least ``need()`` px tall
    whenever the splitter is resized (the window, the Messages area) or ``watched`` (what
    ``need`` measures) needs another height, taking it from the first child down to that
    child's minimum; a handle the user drags stays where it is put until then."""

    def __init__(self, splitter: QSplitter, need: Callable[[], int], watched: QWidget) -> None:
        super().__init__(splitter)
        self.splitter, self.need = splitter, need
        self._pending, self._resized, self._needed = False, False, -1
        splitter.installEventFilter(self)
        watched.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kinds = (QEvent.Type.Resize, QEvent.Type.LayoutRequest, QEvent.Type.Show)
        if event.type() in kinds:
            self._resized |= watched is self.splitter and event.type() == QEvent.Type.Resize
            if not self._pending:
                self._pending = True
                QTimer.singleShot(0, lambda: self.apply(always=self._resized))
        return False

    def apply(self, always: bool = True) -> None:
        """Give the last child its room now, if the first can spare it (unless ``always`` is
        false and the need is the same as last time)."""
        self._pending = self._resized = False
        need = self.need()
        if not always and need == self._needed:
            return
        self._needed = need
        first, last = self.splitter.sizes()
        total, floor = first + last, self.splitter.widget(0).minimumSizeHint().height()
        want = min(need, total - floor)
        if last < want:
            self.splitter.setSizes([total - want, want])
