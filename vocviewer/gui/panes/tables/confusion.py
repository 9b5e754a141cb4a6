"""``ConfusionPane``: the current result set's confusion matrix (``evaluation.confusion``) at the
drawn score threshold and the protocol's IoU threshold, and the members of the chosen cell.

Rows are the detections' classes; columns the class of the object a detection lies on, then
duplicate, background and missed (objects no drawn true positive found). Clicking a cell lists its
detections or objects; Enter or double-click opens one in the image view, selected and zoomed to.
"Rows normalised" shows each cell as its share of the row, "Hide diagonal" blanks the true
positives (the counts and the members stay). The matrix is computed in a worker (``confusion`` job, latest wins) and only while the pane is
shown.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

import numpy as np
from PySide6.QtCore import (
    QAbstractTableModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QKeyEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from vocviewer.core.dataset import Dataset
from vocviewer.evaluation.analysis import fmt_iou, object_name
from vocviewer.evaluation.confusion import ConfusionMatrix, confusion_matrix
from vocviewer.evaluation.result import ClassEvaluation, Verdict
from vocviewer.gui.models.debounce import REFRESH_DELAY_MS, Debounced
from vocviewer.gui.models.state import AppState
from vocviewer.gui.models.tasks import error_message
from vocviewer.gui.models.worker import Worker
from vocviewer.gui.panes.pane_sizes import MATRIX_MIN_ROWS, keep_rows
from vocviewer.gui.widgets.pane_keys import CONFUSION_ARROWS
from vocviewer.gui.widgets.rotated_header import RotatedHeader
from vocviewer.gui.widgets.rows_table import RowsTable
from vocviewer.gui.widgets.verdict_style import MISSED_COLOR, VERDICT_STYLE, WRONG_CLASS_COLOR

Index = QModelIndex | QPersistentModelIndex
#: Tint of each kind of cell: diagonal, other class, duplicate, background, missed.
TINTS = {
    "tp": VERDICT_STYLE[Verdict.TP][0],
    "confused": WRONG_CLASS_COLOR,
    "duplicate": VERDICT_STYLE[Verdict.DUPLICATE][0],
    "background": VERDICT_STYLE[Verdict.FP][0],
    "missed": MISSED_COLOR.darker(115),
}
#: Column headers of the extra columns (class columns show their first four letters).
#: Show only rows / columns with counts when there are more classes than this.
COMPACT_ABOVE = 25


def _tint(base: QColor, share: float) -> QColor:
    """``base`` blended into white by ``share`` (0: white, 1: the full colour; square-root scale
    so small counts stay visible)."""
    a = 0.12 + 0.78 * math.sqrt(max(0.0, min(1.0, share))) if share > 0 else 0.0
    return QColor(
        round(255 + (base.red() - 255) * a),
        round(255 + (base.green() - 255) * a),
        round(255 + (base.blue() - 255) * a),
    )


class ConfusionModel(QAbstractTableModel):
    """Counts of a ``ConfusionMatrix`` restricted to shown ``rows`` (classes) and ``cols``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.matrix: ConfusionMatrix | None = None
        self.rows = np.zeros(0, dtype=np.int64)
        self.cols = np.zeros(0, dtype=np.int64)
        self.shares = np.zeros((0, 0))
        self.normalised = self.hide_diagonal = False

    def set_view(self, normalised: bool, hide_diagonal: bool) -> None:
        """Show each row's shares (``row_normalised``) instead of counts; leave the diagonal
        (true positives) blank."""
        self.beginResetModel()
        self.normalised, self.hide_diagonal = normalised, hide_diagonal
        self.endResetModel()

    def set_matrix(self, matrix: ConfusionMatrix | None, compact: bool) -> None:
        self.beginResetModel()
        self.matrix = matrix
        self.shares = np.zeros((0, 0))
        if matrix is None:
            self.rows = self.cols = np.zeros(0, dtype=np.int64)
        else:
            from vocviewer.evaluation.analyses.operating_point import row_normalised

            self.shares = row_normalised(matrix.counts)
            c = matrix.counts
            k = len(matrix.classes)
            self.rows = np.arange(k, dtype=np.int64)
            # duplicate, background, missed first: with 80 classes they would be far off-screen
            self.cols = np.r_[np.arange(k, c.shape[1]), np.arange(k)].astype(np.int64)
            if compact:
                used = c.sum(axis=1) > 0
                self.rows = np.flatnonzero(used).astype(np.int64)
                keep_col = c.sum(axis=0) > 0
                keep_col[:k] |= used  # a shown class keeps its column (the diagonal)
                keep_col[k:] = True
                self.cols = self.cols[keep_col[self.cols]]
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.cols)

    def cell(self, index: Index) -> tuple[int, int]:
        """(class row, matrix column) of a model index."""
        return int(self.rows[index.row()]), int(self.cols[index.column()])

    def kind(self, row: int, col: int) -> str:
        assert self.matrix is not None
        k = len(self.matrix.classes)
        if col < k:
            return "tp" if col == row else "confused"
        return ("duplicate", "background", "missed")[col - k]

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        m = self.matrix
        if m is None:
            return None
        horizontal = orientation == Qt.Orientation.Horizontal
        name = (
            m.column_labels[int(self.cols[section])]
            if horizontal
            else m.classes[int(self.rows[section])]
        )
        if role == Qt.ItemDataRole.DisplayRole:
            return name  # whole: the header reads bottom-to-top (``RotatedHeader``)
        if role == Qt.ItemDataRole.ToolTipRole:
            return name
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        m = self.matrix
        if m is None or not index.isValid():
            return None
        row, col = self.cell(index)
        n = int(m.counts[row, col])
        if self.hide_diagonal and col == row and role != Qt.ItemDataRole.ToolTipRole:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            if self.normalised:
                return f"{self.shares[row, col]:.2f}" if n else ""
            return str(n) if n else ""
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignCenter)
        if role == Qt.ItemDataRole.BackgroundRole:
            total = int(m.counts[row].sum())
            return _tint(TINTS[self.kind(row, col)], n / total if total else 0.0) if n else None
        if role == Qt.ItemDataRole.ForegroundRole:  # dark ink on the light tints, in any theme
            return QColor("#202124") if n else None
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.describe(row, col)
        return None

    def describe(self, row: int, col: int) -> str:
        """The cell in words (``12 cat detections lie on a dog (IoU ≥ 0.50)``)."""
        assert self.matrix is not None
        m = self.matrix
        n, name = int(m.counts[row, col]), m.classes[row]
        thr = f"score ≥ {m.class_threshold(row):.2f}"
        iou = f"IoU ≥ {m.iou_threshold:.2f}"
        det = f"{name} detection{'s' if n != 1 else ''}"
        return {
            "tp": f"{n} true positive {det} ({thr})",
            "confused": f"{n} false positive {det} on a {m.column_labels[col]} ({iou}, {thr})",
            "duplicate": f"{n} {det} duplicating a higher-ranked one ({thr})",
            "background": f"{n} false positive {det} on no object of another class ({iou}; "
            f"background or poor localisation; {thr})",
            "missed": f"{n} {name} object{'s' if n != 1 else ''} found by no true positive "
            f"with {thr}",
        }[self.kind(row, col)]


class ConfusionPane(QWidget):
    """The matrix over the list of the chosen cell's members.

    Signals
    -------
    zoom_requested()
        A member was opened (Enter / double-click): show it zoomed in.
    """

    zoom_requested = Signal()

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.summary = QLabel()
        self.summary.setToolTip(
            "Rows: the detected class. Columns: the class of the object a detection lies on "
            "(the diagonal: true positives), then duplicates, false positives on no object of "
            "another class (background or poor localisation), and objects no true positive "
            "found (missed). Detections below the score threshold are left out."
        )
        # its own row, wrapped to the pane's width (beside the check boxes it was squeezed to a
        # few pixels, one letter a line, at the window's default size)
        self.summary.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.summary.setWordWrap(True)
        self.compact = QCheckBox("Only classes with counts")
        self.compact.setToolTip("Hide classes with no detection and no missed object")
        self.normalise = QCheckBox("Rows normalised")
        self.normalise.setToolTip("Each cell as its share of the row (the class's detections)")
        self.hide_diagonal = QCheckBox("Hide diagonal")
        self.hide_diagonal.setToolTip("Leave the true positives blank: the confusions stand out")
        self.model = ConfusionModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        self.table.installEventFilter(self)  # arrow keys move between cells, not images
        size = self.fontMetrics().height() + 4
        self.table.verticalHeader().setDefaultSectionSize(size)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        hh = RotatedHeader(self.table)
        self.table.setHorizontalHeader(hh)
        hh.setDefaultSectionSize(self.fontMetrics().horizontalAdvance("0000") + 8)
        hh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        # its size must not widen the right-hand tabs when it is shown (the layout would jump)
        self.table.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Expanding)
        self.setMinimumWidth(0)
        self.members = RowsTable(("Rank", "Score", "Image", "Detail"), long=True)
        self.members.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.cell_label = QLabel("Click a cell to list its detections or objects.")
        self.cell_label.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(self.compact)
        top.addWidget(self.normalise)
        top.addWidget(self.hide_diagonal)
        top.addStretch(1)
        lower = QWidget()
        lower_box = QVBoxLayout(lower)
        lower_box.setContentsMargins(0, 0, 0, 0)
        lower_box.addWidget(self.cell_label)
        lower_box.addWidget(self.members, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(lower)
        self.splitter.setSizes([300, 120])
        self.splitter.setStretchFactor(0, 1)  # the matrix takes what the window gives
        self.splitter.setChildrenCollapsible(False)
        self._keep_matrix_rows()  # never crushed (the header as tall as its labels)
        self.model.modelReset.connect(self._keep_matrix_rows)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.summary)
        layout.addLayout(top)
        layout.addWidget(self.splitter, 1)
        self.matrix: ConfusionMatrix | None = None
        self._cell: tuple[int, int] | None = None
        self._keys: list[tuple[int, int]] = []  # member key -> (class, rank) or (-1, object)
        self._dirty = True
        self._later = Debounced(self.refresh, REFRESH_DELAY_MS, self)

        self.compact.toggled.connect(self._show_matrix)
        for box in (self.normalise, self.hide_diagonal):
            box.toggled.connect(self._on_view_toggled)
        self.table.selectionModel().currentChanged.connect(self._on_cell)
        self.members.row_chosen.connect(self._select)
        self.members.row_activated.connect(self._open_member)
        state.dataset_loaded.connect(self._on_dataset_loaded)
        for signal in (
            state.evaluation.class_evaluated,
            state.threshold_changed,
            state.current_results_changed,
            state.evaluation.finished,
            state.evaluation.evidence_replaced,
        ):
            signal.connect(self._invalidate)

    def _on_dataset_loaded(self, dataset: Dataset) -> None:
        self._cell = None
        self.compact.setChecked(len(dataset.classes) > COMPACT_ABOVE)
        self._invalidate()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and CONFUSION_ARROWS.matches(event.key())
        ):
            event.accept()  # the table takes the key; the window's shortcut does not fire
            return True
        return super().eventFilter(watched, event)

    # --- computing ---------------------------------------------------------------------------
    def _keep_matrix_rows(self) -> None:
        keep_rows(self.table, MATRIX_MIN_ROWS, scroll_bar=True)

    def _invalidate(self, *_args: object) -> None:
        self._dirty = True
        if self.isVisible():
            self._later.request()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._dirty:
            self.refresh()

    def refresh(self) -> None:
        """Recompute the matrix in a worker from the current evaluations."""
        st = self.state
        self._dirty = False
        i = st.current_results
        evals = st.evaluations[i].det if i >= 0 else {}
        if st.dataset is None or i < 0 or not evals:
            st.jobs.cancel("confusion", notify=False)
            self._set_matrix(None)
            return
        ev = st.evaluations[i]
        worker = Worker(
            confusion_matrix,
            st.dataset,
            st.results[i].results,
            dict(ev.det),
            ev.missed.copy(),
            score_threshold=st.drawn_thresholds,
            iou_threshold=st.evaluation.verdict_iou(),
            plus_one=st.dataset.plus_one,
        )
        st.jobs.start(
            "confusion",
            worker,
            on_returned=self._set_matrix,
            on_errored=lambda exc: st.post([error_message(exc, "Confusion matrix")]),
        )

    def _set_matrix(self, matrix: ConfusionMatrix | None) -> None:
        self.matrix = matrix
        self._show_matrix()

    def _on_view_toggled(self, _on: bool) -> None:
        self.model.set_view(self.normalise.isChecked(), self.hide_diagonal.isChecked())

    def _show_matrix(self, *_args: object) -> None:
        st, m = self.state, self.matrix
        self.model.set_matrix(m, self.compact.isChecked())
        if m is None:
            self.summary.setText("Add a result set to see its confusion matrix.")
            self._list_cell(None)
            return
        name = st.results[st.current_results].results.name if st.current_results >= 0 else ""
        self.summary.setText(
            f"<b>{escape(name)}</b> · {m.threshold_words()} · IoU ≥ {m.iou_threshold:.2f}"
        )
        self._list_cell(self._cell)
        if self._cell is not None:
            self.select_cell(*self._cell)

    # --- the chosen cell ---------------------------------------------------------------------
    def _on_cell(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self._cell = self.model.cell(current)
            self._list_cell(self._cell)

    def select_cell(self, row: int, col: int) -> None:
        """Choose cell (class ``row``, matrix column ``col``) as a click would."""
        r = np.flatnonzero(self.model.rows == row)
        c = np.flatnonzero(self.model.cols == col)
        if len(r) and len(c):
            self.table.setCurrentIndex(self.model.index(int(r[0]), int(c[0])))

    def _list_cell(self, cell: tuple[int, int] | None) -> None:
        m, st = self.matrix, self.state
        if m is None or cell is None or st.dataset is None or st.current_results < 0:
            self._keys = []
            self.members.set_rows([], [], [])
            return
        row, col = cell
        ds = st.dataset
        self.cell_label.setText(self.model.describe(row, col) + ". Enter opens one.")
        rows: list[tuple[str, ...]] = []
        colors: list[QColor | None] = []
        keys: list[tuple[int, int]] = []
        if col == m.missed_column:
            for obj in m.objects_in(row):
                image = int(ds.objects.image_index[obj])
                rows.append(("—", "—", str(ds.images.id[image]), object_name(ds, int(obj))))
                keys.append((-1, int(obj)))
                colors.append(TINTS["missed"])
        else:
            ev = st.evaluations[st.current_results].det[row]
            here = (m.class_index == row) & (m.column == col)
            for rank, gt, iou in zip(
                m.rank[here], m.confused_gt[here], m.confused_iou[here], strict=True
            ):
                detail = self._detail(ev, int(rank), int(gt), float(iou))
                image = str(ds.images.id[int(ev.image_index[rank])])
                rows.append((str(rank + 1), f"{ev.score[rank]:.3f}", image, detail))
                keys.append((row, int(rank)))
                colors.append(TINTS[self.model.kind(row, col)])
        self._keys = keys
        self.members.set_rows(rows, list(range(len(rows))), colors)

    def _detail(self, ev: ClassEvaluation, rank: int, confused_gt: int, iou: float) -> str:
        assert self.state.dataset is not None
        if confused_gt >= 0:
            return f"on {object_name(self.state.dataset, confused_gt)} (IoU {fmt_iou(iou)})"
        if ev.verdict[rank] == Verdict.TP:
            return f"true positive (IoU {fmt_iou(float(ev.best_iou[rank]))})"
        if ev.verdict[rank] == Verdict.DUPLICATE:
            return f"duplicate of rank {int(ev.duplicate_of[rank]) + 1}"
        if int(ev.best_gt[rank]) >= 0:
            return f"best IoU with its class {fmt_iou(float(ev.best_iou[rank]))}"
        return "on nothing"

    def _open_member(self, key: int) -> None:
        self._select(key)
        self.zoom_requested.emit()

    def _select(self, key: int) -> None:
        if not 0 <= key < len(self._keys):
            return
        st = self.state
        k, n = self._keys[key]
        if k >= 0:
            st.select_detection(k, n)
            return
        assert st.dataset is not None
        label = int(st.dataset.objects.label[n])
        st.select_class(label)
        st.set_current_image(int(st.dataset.objects.image_index[n]))
        st.select_object(n)
