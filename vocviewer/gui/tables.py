"""Item models and the panes built on them: the image browser, the per-class AP table, messages.

Models are thin: they hold an array of rows and read everything else from the ``Dataset`` or the
``ClassEvaluation`` objects in ``AppState``. Views are virtualised (uniform row heights).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from PySide6.QtCore import (
    QAbstractListModel,
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QFont, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListView,
    QListWidget,
    QListWidgetItem,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from vocviewer.core.dataset import Dataset
from vocviewer.gui.debounce import REFRESH_DELAY_MS, Debounced
from vocviewer.gui.state import AppState, Message

COUNT_ROLE = Qt.ItemDataRole.UserRole + 1
SORT_ROLE = Qt.ItemDataRole.UserRole + 2
MUTED = QColor("#80868b")
Index = QModelIndex | QPersistentModelIndex


class ImageListModel(QAbstractListModel):
    """Rows of ``Dataset.images`` shown as ``id`` with the object count (``COUNT_ROLE``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.dataset: Dataset | None = None
        self.rows = np.zeros(0, dtype=np.int64)

    def set_rows(self, dataset: Dataset | None, rows: np.ndarray) -> None:
        self.beginResetModel()
        self.dataset, self.rows = dataset, np.asarray(rows, dtype=np.int64)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        ds = self.dataset
        if ds is None or not index.isValid():
            return None
        image = int(self.rows[index.row()])
        if role == Qt.ItemDataRole.DisplayRole:
            return str(ds.images.id[image])
        if role == COUNT_ROLE:
            return int(ds.object_offsets[image + 1] - ds.object_offsets[image])
        if role == Qt.ItemDataRole.ToolTipRole:
            sl = ds.objects_of(image)
            n, hard = sl.stop - sl.start, int(np.count_nonzero(ds.objects.difficult[sl]))
            return f"{ds.images.id[image]} · {n} objects" + (f" ({hard} difficult)" if hard else "")
        return None

    def row_of(self, image: int) -> int:
        hit = np.flatnonzero(self.rows == image)
        return int(hit[0]) if len(hit) else -1


class ImageRowDelegate(QStyledItemDelegate):
    """Paints an image row compactly: id on the left, object count right-aligned and muted."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        count = index.data(COUNT_ROLE)
        opt.text = ""
        style = opt.widget.style() if opt.widget is not None else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        rect = opt.rect.adjusted(6, 0, -8, 0)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        ink = opt.palette.highlightedText() if selected else opt.palette.text()
        painter.save()
        painter.setPen(ink.color())
        align = Qt.AlignmentFlag.AlignVCenter
        painter.drawText(rect, int(align | Qt.AlignmentFlag.AlignLeft), str(index.data()))
        painter.setPen(ink.color() if selected else MUTED)
        painter.drawText(rect, int(align | Qt.AlignmentFlag.AlignRight), f"{count}")
        painter.restore()


class ImageBrowser(QWidget):
    """Image-set chooser, class filter and the (filtered) image list; drives the current image."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.set_combo = QComboBox()
        self.class_combo = QComboBox()
        self.class_combo.setMaxVisibleItems(25)
        self.count_label = QLabel()
        self.count_label.setStyleSheet("color: #5f6368;")
        self.model = ImageListModel(self)
        self.list = QListView()
        self.list.setModel(self.model)
        self.list.setUniformItemSizes(True)
        self.list.setItemDelegate(ImageRowDelegate(self.list))
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Image set", self.set_combo)
        form.addRow("Class", self.class_combo)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 0, 6)
        layout.addLayout(form)
        layout.addWidget(self.count_label)
        layout.addWidget(self.list, 1)

        self.set_combo.activated.connect(self._on_set_chosen)
        self.class_combo.activated.connect(self._on_class_chosen)
        self.list.selectionModel().currentChanged.connect(self._on_current_row)
        state.dataset_loaded.connect(self._on_dataset_loaded)
        state.image_set_changed.connect(self._sync_set_combo)
        state.class_changed.connect(self._sync_class_combo)
        state.visible_images_changed.connect(self._on_visible_changed)
        state.image_changed.connect(self._sync_current)

    def _on_dataset_loaded(self, dataset: Dataset) -> None:
        self.set_combo.clear()
        for label, key in self.state.image_set_choices():
            self.set_combo.addItem(label, key)
        self.class_combo.clear()
        self.class_combo.addItem("All classes", -1)
        for k, name in enumerate(dataset.classes):
            self.class_combo.addItem(name, k)

    def _on_set_chosen(self, i: int) -> None:
        self.state.set_image_set(self.set_combo.itemData(i))

    def _on_class_chosen(self, i: int) -> None:
        self.state.select_class(int(self.class_combo.itemData(i)))

    def _sync_set_combo(self, key: str | None) -> None:
        i = self.set_combo.findData(key)
        if i >= 0:
            self.set_combo.setCurrentIndex(i)

    def _sync_class_combo(self, k: int) -> None:
        self.class_combo.setCurrentIndex(max(self.class_combo.findData(k), 0))

    def _on_visible_changed(self) -> None:
        st = self.state
        self.model.set_rows(st.dataset, st.visible_images)
        n = len(st.visible_images)
        self.count_label.setText(f"{n} image{'s' if n != 1 else ''}")
        self._sync_current(st.current_image)

    def _sync_current(self, image: int) -> None:
        row = self.model.row_of(image)
        if row < 0:
            self.list.clearSelection()
            return
        index = self.model.index(row)
        self.list.setCurrentIndex(index)
        self.list.scrollTo(index)

    def _on_current_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.state.set_current_image(int(self.model.rows[current.row()]))


class ApTableModel(QAbstractTableModel):
    """One row per class plus a mean row: class, one AP column per result set, then npos, ndet
    (and classification AP) of the current result set. ``SORT_ROLE`` gives numbers for sorting."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state

    def refresh(self) -> None:
        self.beginResetModel()
        self.endResetModel()

    def classes(self) -> tuple[str, ...]:
        return self.state.dataset.classes if self.state.dataset is not None else ()

    def _has_cls(self) -> bool:
        st = self.state
        return (
            st.current_results >= 0 and len(st.results[st.current_results].results.class_scores) > 0
        )

    def n_sets(self) -> int:
        """Number of AP columns: one per result set (at least one)."""
        return max(1, len(self.state.results))

    def headers(self) -> list[str]:
        st = self.state
        aps = ["AP"] if len(st.results) <= 1 else [_short(r.results.name) for r in st.results]
        return ["Class", *aps, "npos", "ndet"] + (["cls AP"] if self._has_cls() else [])

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        n = len(self.classes())
        return 0 if parent.isValid() or not n else n + 1

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return self.n_sets() + 3 + int(self._has_cls())

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.headers()[section]
        return None

    def _evaluation(self, row: int, col: int) -> Any:
        """The ``ClassEvaluation`` behind an AP cell (or ``None``)."""
        st, n = self.state, self.n_sets()
        if 1 <= col <= n and col - 1 < len(st.evaluations):
            return st.evaluations[col - 1].det.get(row)
        if col == n + 3:
            return st.class_evaluation(row, "cls")
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row, col, n = index.row(), index.column(), self.n_sets()
        mean_row = row == len(self.classes())
        is_ap = 1 <= col <= n or col == n + 3
        if role == Qt.ItemDataRole.TextAlignmentRole and col > 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.FontRole and mean_row:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole and is_ap and not mean_row:
            return _ap_tooltip(self._evaluation(row, col))
        if role == SORT_ROLE:
            if col == 0:
                return row
            ev = None if mean_row else self._evaluation(row, col)
            if ev is None and col in (n + 1, n + 2) and not mean_row:
                ev = self.state.class_evaluation(row, "det")
                return -1.0 if ev is None else float(ev.npos if col == n + 1 else ev.ndet)
            return -1.0 if ev is None or math.isnan(ev.ap) else float(ev.ap)
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if mean_row:
            if col == 0:
                return "mean"
            if 1 <= col <= n:
                return self._mean("det", col - 1)
            return self._mean("cls", self.state.current_results) if col == n + 3 else ""
        if col == 0:
            return self.classes()[row]
        if is_ap:
            ev = self._evaluation(row, col)
            if ev is None and col <= n and self.state.current_results >= 0:
                return "…"
            return _fmt_ap(ev)
        ev_det = self.state.class_evaluation(row, "det")
        if ev_det is None:
            return "…" if self.state.current_results >= 0 else ""
        return f"{ev_det.npos}" if col == n + 1 else f"{ev_det.ndet}"

    def _mean(self, task: str, index: int) -> str:
        st = self.state
        if index < 0 or index >= len(st.evaluations):
            return ""
        summary = st.evaluations[index].summary
        if task == "det" and summary is not None:  # COCO / VisDrone: the protocol's own AP
            ap = summary.stats.get("AP", math.nan) / (100.0 if summary.percent else 1.0)
            return "—" if math.isnan(ap) or ap < 0 else f"{ap:.3f}"
        mean = st.evaluations[index].mean_ap(task, len(self.classes()))
        if mean is None:
            return "…" if task == "det" or self._has_cls() else ""
        return "—" if math.isnan(mean) else f"{mean:.3f}"


class MeanLastProxy(QSortFilterProxyModel):
    """Sorts by ``SORT_ROLE`` and keeps the mean row (the source's last row) at the bottom."""

    def lessThan(self, left: Index, right: Index) -> bool:
        last = self.sourceModel().rowCount() - 1
        if left.row() == last or right.row() == last:
            bottom_is_left = left.row() == last
            ascending = self.sortOrder() == Qt.SortOrder.AscendingOrder
            return (not bottom_is_left) if ascending else bottom_is_left
        a, b = left.data(SORT_ROLE), right.data(SORT_ROLE)
        return bool(a < b) if a is not None and b is not None else False


def _short(name: str, n: int = 11) -> str:
    return name if len(name) <= n else name[: n - 1] + "…"


def _fmt_ap(ev: Any) -> str:
    if ev is None:
        return ""
    if not ev.has_results:
        return "n/a"
    return "NaN" if math.isnan(ev.ap) else f"{ev.ap:.3f}"


def _ap_tooltip(ev: Any) -> str | None:
    if ev is None:
        return None
    if not ev.has_results:
        return "No results file for this class: not evaluated, left out of the mean"
    if math.isnan(ev.ap):
        return "AP undefined: detections but no positives (as the devkit computes it); left out of the mean"
    return None


class ApTable(QTableView):
    """The per-class AP table (one AP column per result set; click a header to sort, the mean row
    stays last); selecting a row selects the class.

    (``app_state``, not ``state``: ``QAbstractItemView.state()`` exists.)"""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.app_state = state
        self.ap_model = ApTableModel(state, self)
        self.proxy = MeanLastProxy(self)
        self.proxy.setSourceModel(self.ap_model)
        self.proxy.setDynamicSortFilter(False)  # re-sort on header clicks, not on every class
        self.setModel(self.proxy)
        self.setSortingEnabled(True)
        self.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # class order until a header is clicked
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setAlternatingRowColors(True)
        self.setShowGrid(False)
        self.setWordWrap(False)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 4)
        self.horizontalHeader().setHighlightSections(False)
        self._reset()

        self.selectionModel().currentRowChanged.connect(self._on_row_changed)
        state.dataset_loaded.connect(self._reset)
        state.current_results_changed.connect(self._reset)
        state.results_added.connect(self._reset)
        self._rows_later = Debounced(self._update_all_rows, REFRESH_DELAY_MS, self)
        state.class_evaluated.connect(self._on_class_evaluated)
        state.evaluation_finished.connect(self._rows_later.flush)
        state.evaluation_started.connect(self._reset)
        state.class_changed.connect(self._sync_selection)
        state.protocol.summary_changed.connect(self._reset)
        state.protocol.evidence_replaced.connect(self._reset)

    def selectRow(self, row: int) -> None:
        """Select the row of class ``row`` (a source row), wherever sorting put it."""
        proxy_row = self.proxy.mapFromSource(self.ap_model.index(row, 0)).row()
        super().selectRow(proxy_row if proxy_row >= 0 else row)

    def _reset(self, *_args: object) -> None:
        self.ap_model.refresh()
        self.horizontalHeader().setStretchLastSection(False)
        for c in range(self.ap_model.columnCount()):
            self.horizontalHeader().setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        self._sync_selection(self.app_state.selected_class)

    def _on_class_evaluated(self, index: int, ev: Any) -> None:
        self._rows_later.request()  # a burst of classes → one relayout of the table

    def _update_all_rows(self) -> None:
        model = self.ap_model
        if model.rowCount() and model.columnCount():
            last = model.index(model.rowCount() - 1, model.columnCount() - 1)
            model.dataChanged.emit(model.index(0, 0), last)

    def _on_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            row = self.proxy.mapToSource(current).row()
            n = len(self.ap_model.classes())
            self.app_state.select_class(-1 if row >= n else row)

    def _sync_selection(self, k: int) -> None:
        current = self.proxy.mapToSource(self.currentIndex()).row()
        if k < 0:
            self.setCurrentIndex(QModelIndex())
            self.clearSelection()
        elif current != k and k < self.ap_model.rowCount():
            self.selectRow(k)


class MessagesPanel(QWidget):
    """Non-modal list of problems and errors (``AppState.messages_posted``), newest last, with a
    header that clears or hides it.

    Signals
    -------
    hide_requested()
        The close button was pressed.
    """

    hide_requested = Signal()

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.list = QListWidget()
        self.list.setWordWrap(True)
        self.list.setAlternatingRowColors(True)
        self.title = QLabel("<b>Messages</b>")
        clear = QToolButton()
        clear.setText("Clear")
        clear.setAutoRaise(True)
        close = QToolButton()
        close.setText("Hide")
        close.setAutoRaise(True)
        header = QHBoxLayout()
        header.setContentsMargins(6, 2, 2, 0)
        header.addWidget(self.title)
        header.addStretch(1)
        header.addWidget(clear)
        header.addWidget(close)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(header)
        layout.addWidget(self.list)
        icons = {
            "error": QStyle.StandardPixmap.SP_MessageBoxCritical,
            "warning": QStyle.StandardPixmap.SP_MessageBoxWarning,
            "info": QStyle.StandardPixmap.SP_MessageBoxInformation,
        }
        self._icons = {k: self.style().standardIcon(v) for k, v in icons.items()}

        clear.clicked.connect(self.list.clear)
        close.clicked.connect(self.hide_requested)
        state.messages_posted.connect(self.add_messages)

    def count(self) -> int:
        return self.list.count()

    def add_messages(self, messages: list[Message]) -> None:
        for m in messages:
            item = QListWidgetItem(self._icons.get(m.level, self._icons["info"]), m.text)
            item.setToolTip(m.text)
            self.list.addItem(item)
        self.list.scrollToBottom()
