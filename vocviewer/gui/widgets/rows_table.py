"""Read-only tables of keyed rows, shared by the panes: ``RowsTable`` over a ``HeldRowsModel``
(short lists that repaint while workers run) or a ``RowsModel`` (thousands of rows), and
``make_compact``, the look of every table of the window.

Each row has display strings, an int key (a detection row, an object row, an image row, ...) and
a colour for its first column; the table says which key was chosen (``row_chosen``) or activated
(Enter or double-click: ``row_activated``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QKeyEvent, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from vocviewer.gui.widgets.pane_keys import ACTIVATE_ROW

Index = QModelIndex | QPersistentModelIndex


def make_compact(view: QTableView) -> None:
    """The look of the window's tables: read-only, one row selected at a time, alternating rows
    one text line high, no grid, no wrapping, no row numbers."""
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setAlternatingRowColors(True)
    view.setShowGrid(False)
    view.setWordWrap(False)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 4)
    view.horizontalHeader().setHighlightSections(False)


class KeyedRows:
    """What both row models keep: display strings per row, an int key per row, a colour per
    row (for the first column)."""

    headers: tuple[str, ...]
    rows: list[tuple[str, ...]]
    keys: list[int]
    colors: list[QColor | None]

    def _keep(
        self, rows: list[tuple[str, ...]], keys: list[int], colors: list[QColor | None]
    ) -> None:
        self.rows, self.keys, self.colors = rows, keys, colors

    def row_of(self, key: int) -> int:
        return self.keys.index(key) if key in self.keys else -1


class RowsModel(KeyedRows, QAbstractTableModel):
    """Rows read on demand, for long lists (thousands of rows); painting calls ``data()`` in
    Python."""

    def __init__(self, headers: Sequence[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.headers = tuple(headers)
        self._keep([], [], [])

    def set_rows(
        self, rows: list[tuple[str, ...]], keys: list[int], colors: list[QColor | None]
    ) -> None:
        self.beginResetModel()
        self._keep(rows, keys, colors)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return len(self.headers)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.headers[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.rows[index.row()][index.column()]
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 0:
            return self.colors[index.row()]
        return None


class HeldRowsModel(KeyedRows, QStandardItemModel):
    """Rows handed to Qt when set: for short tables that repaint while workers run, since
    painting a Python model calls back into Python thousands of times, each call first waiting
    for the interpreter lock a busy worker holds. Rows set again with the same keys (a class's
    verdicts arriving for the image's detections) change only the cells that differ: every call
    into Qt may wait for that lock too, and a rebuild of 1,000 rows makes ~11,000."""

    def __init__(self, headers: Sequence[str], parent: QWidget | None = None) -> None:
        super().__init__(0, len(headers), parent)
        self.headers = tuple(headers)
        self.setHorizontalHeaderLabels(list(headers))
        self._keep([], [], [])

    def set_rows(
        self, rows: list[tuple[str, ...]], keys: list[int], colors: list[QColor | None]
    ) -> None:
        old_rows, old_keys, old_colors = self.rows, self.keys, self.colors
        self._keep(rows, keys, colors)
        if keys == old_keys and len(rows) == self.rowCount():
            self._update(rows, old_rows, colors, old_colors)
            return
        self.setRowCount(0)
        for texts, color in zip(rows, colors, strict=True):
            items = [QStandardItem(t) for t in texts]
            for item in items:
                item.setEditable(False)
            if color is not None:
                items[0].setForeground(color)
            self.appendRow(items)

    def _update(
        self,
        rows: list[tuple[str, ...]],
        old_rows: list[tuple[str, ...]],
        colors: list[QColor | None],
        old_colors: list[QColor | None],
    ) -> None:
        """Set the cells of ``rows`` that differ from ``old_rows`` (same keys, same length), and
        the first column's colour where it changed; as a rebuild would leave them."""
        for r, (new, old) in enumerate(zip(rows, old_rows, strict=True)):
            if new != old:
                for col, (text, was) in enumerate(zip(new, old, strict=True)):
                    if text != was:
                        self.item(r, col).setText(text)
            color, was_color = colors[r], old_colors[r]
            if color != was_color:
                first = self.item(r, 0)
                if color is None:
                    first.setData(None, Qt.ItemDataRole.ForegroundRole)
                else:
                    first.setForeground(color)


class RowsTable(QTableView):
    """A compact, read-only, single-selection table over a ``HeldRowsModel`` (``long``: over a
    ``RowsModel``, for lists of thousands of rows).

    Signals
    -------
    row_chosen(int)
        The current row changed to the row with this key.
    row_activated(int)
        Enter or double-click on the row with this key.
    """

    row_chosen = Signal(int)
    row_activated = Signal(int)

    def __init__(
        self,
        headers: Sequence[str],
        parent: QWidget | None = None,
        *,
        long: bool = False,
        model: Any = None,
    ) -> None:
        super().__init__(parent)
        if model is None:
            model = RowsModel(headers, self) if long else HeldRowsModel(headers, self)
        self.rows_model = model  # ``model``: any with ``headers``, ``row_of`` and ``keys``
        self.setModel(self.rows_model)
        make_compact(self)
        header = self.horizontalHeader()
        # fixed widths: sizing columns to their contents re-reads every cell on each image;
        # the wordy column (verdict / status / image) takes the remaining width
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        digit = self.fontMetrics().horizontalAdvance("0")
        for col, name in enumerate(headers):
            wide = name in ("Verdict", "Status", "Class", "Image")
            header.resizeSection(col, digit * (13 if wide else 7))
        header.setStretchLastSection(False)
        for col, name in enumerate(headers):
            if name in ("Verdict", "Status"):
                header.setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch)
        self._quiet = False

        self.selectionModel().currentRowChanged.connect(self._on_row_changed)
        self.doubleClicked.connect(self._on_double_clicked)

    def set_rows(
        self, rows: list[tuple[str, ...]], keys: list[int], colors: list[QColor | None]
    ) -> None:
        self._quiet = True
        self.rows_model.set_rows(rows, keys, colors)
        self._quiet = False

    def select_key(self, key: int) -> None:
        """Make the row with ``key`` current without emitting ``row_chosen`` (-1: none)."""
        self._quiet = True
        row = self.rows_model.row_of(key)
        if row < 0:
            self.clearSelection()
            self.setCurrentIndex(QModelIndex())
        else:
            self.selectRow(row)
            self.scrollTo(self.rows_model.index(row, 0))
        self._quiet = False

    def current_key(self) -> int:
        row = self.currentIndex().row()
        return self.rows_model.keys[row] if 0 <= row < len(self.rows_model.keys) else -1

    def _on_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not self._quiet and current.isValid():
            self.row_chosen.emit(self.rows_model.keys[current.row()])

    def _on_double_clicked(self, index: QModelIndex) -> None:
        self.row_activated.emit(self.rows_model.keys[index.row()])

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if ACTIVATE_ROW.matches(event.key()) and self.current_key() >= 0:
            self.row_activated.emit(self.current_key())
            return
        super().keyPressEvent(event)
