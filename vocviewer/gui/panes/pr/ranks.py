"""``RankRows``: every rank of one class's evaluation as table rows, read on demand (a virtual
model: 500,000 ranks cost nothing until painted). Row ``r`` is rank ``r``; the Ranks tab shows it
and follows the selection and the detection walk."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QWidget

from vocviewer.core.dataset import Dataset
from vocviewer.evaluation.result import ClassEvaluation
from vocviewer.gui.models.evaluation import ResultEvaluations
from vocviewer.gui.widgets.verdict_style import row_style

Index = QModelIndex | QPersistentModelIndex
HEADERS = ("Rank", "Score", "Image", "Verdict", "Prec.", "Rec.")


class RankRows(QAbstractTableModel):
    """The ranks of ``ev`` (set with ``show``); keys are ranks."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.headers = HEADERS
        self.ev: ClassEvaluation | None = None
        self.evals: ResultEvaluations | None = None
        self.dataset: Dataset | None = None

    def show(
        self, ev: ClassEvaluation | None, evals: ResultEvaluations | None, dataset: Dataset | None
    ) -> None:
        """List every rank of ``ev`` (``None``: nothing)."""
        self.beginResetModel()
        self.ev, self.evals, self.dataset = ev, evals, dataset
        self.endResetModel()

    @property
    def keys(self) -> range:
        return range(len(self.ev) if self.ev is not None else 0)

    def row_of(self, key: int) -> int:
        return key if 0 <= key < len(self.keys) else -1

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.keys)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return len(HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        horizontal = orientation == Qt.Orientation.Horizontal
        if role == Qt.ItemDataRole.DisplayRole and horizontal:
            return HEADERS[section]
        return None

    def text(self, r: int, col: int) -> str:
        """The cell at rank ``r``, column ``col``."""
        ev, evals, ds = self.ev, self.evals, self.dataset
        assert ev is not None and evals is not None and ds is not None
        if col == 0:
            return str(r + 1)
        if col == 1:
            return f"{ev.score[r]:.3f}"
        if col == 2:
            return str(ds.images.id[int(ev.image_index[r])])
        if col == 3:
            return row_style(evals, int(ev.order[r]))[2]
        return f"{(ev.precision if col == 4 else ev.recall)[r]:.3f}"

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or self.ev is None or self.evals is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.text(index.row(), index.column())
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 0:
            return row_style(self.evals, int(self.ev.order[index.row()]))[0]
        return None
