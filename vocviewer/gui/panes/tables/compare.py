"""``ComparePane``: images where result set A gets the selected class right and B wrong (or the
reverse), biggest TP-count difference first (``evaluation.analysis.compare_images``).

Choosing a row opens that image with both result sets drawn: A as usual, B dashed, each label
tagged "A" / "B" (``ImageView.set_compare``).
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from vocviewer.evaluation.analysis import compare_images
from vocviewer.gui.models.state import AppState
from vocviewer.gui.widgets.rows_table import RowsTable

A_BETTER, B_BETTER = QColor("#2e7d32"), QColor("#c62828")


class ComparePane(QWidget):
    """Two result-set choosers and the list of images where they differ for the selected class.

    Signals
    -------
    pair_chosen(int, int)
        An image of the list was chosen: draw result set A (index) with B (index) beside it.
    """

    pair_chosen = Signal(int, int)

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.combo_a = QComboBox()
        self.combo_b = QComboBox()
        self.summary = QLabel()
        self.summary.setWordWrap(True)  # a long line wraps; it never widens the pane
        self.summary.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.summary.setStyleSheet("color: #5f6368;")
        self.table = RowsTable(("Image", "TP A", "TP B", "Δ TP", "FP A", "FP B"), long=True)
        top = QHBoxLayout()
        top.setContentsMargins(4, 4, 4, 0)
        top.addWidget(QLabel("A"))
        top.addWidget(self.combo_a, 1)
        top.addWidget(QLabel("B"))
        top.addWidget(self.combo_b, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)
        self.refresh()

        self.combo_a.activated.connect(self.refresh)
        self.combo_b.activated.connect(self.refresh)
        self.table.row_chosen.connect(self._on_row_chosen)
        state.dataset_loaded.connect(self._on_results_listed)
        state.results_added.connect(self._on_results_listed)
        state.class_changed.connect(self.refresh)
        state.threshold_changed.connect(self.refresh)
        state.evaluation.evidence_replaced.connect(self.refresh)
        state.evaluation.class_evaluated.connect(self._on_class_evaluated)

    def _on_results_listed(self, *_args: object) -> None:
        names = [r.results.name for r in self.state.results]
        for combo, default in ((self.combo_a, 0), (self.combo_b, 1)):
            keep = combo.currentIndex()
            combo.clear()
            combo.addItems(names)
            combo.setCurrentIndex(keep if 0 <= keep < len(names) else min(default, len(names) - 1))
        if len(names) > 1 and self.combo_a.currentIndex() == self.combo_b.currentIndex():
            self.combo_b.setCurrentIndex(1 if self.combo_a.currentIndex() == 0 else 0)
        self.refresh()

    def _on_row_chosen(self, image: int) -> None:
        self.pair_chosen.emit(self.combo_a.currentIndex(), self.combo_b.currentIndex())
        self.state.set_current_image(image)

    def _on_class_evaluated(self, _index: int, ev: object) -> None:
        if getattr(ev, "class_index", -2) == self.state.selected_class:
            self.refresh()

    def refresh(self, *_args: object) -> None:
        """Recompute the list for the chosen pair and the selected class."""
        st, ds, k = self.state, self.state.dataset, self.state.selected_class
        a, b = self.combo_a.currentIndex(), self.combo_b.currentIndex()
        self.table.set_rows([], [], [])
        if ds is None or len(st.results) < 2:
            self.summary.setText("  Add a second result set (File ▸ Add results…) to compare.")
            return
        if k < 0:
            self.summary.setText("  Select a class to compare the two result sets on it.")
            return
        ev_a, ev_b = st.evaluations[a].det.get(k), st.evaluations[b].det.get(k)
        if ev_a is None or ev_b is None or a == b:
            self.summary.setText("  Choose two different, evaluated result sets.")
            return
        t = st.class_drawn_threshold(k)
        cmp = compare_images(ds, ev_a, ev_b, t)
        rows, colors = [], []
        for i in range(len(cmp)):
            d = int(cmp.difference[i])
            rows.append(
                (
                    str(ds.images.id[int(cmp.image[i])]),
                    str(int(cmp.tp_a[i])),
                    str(int(cmp.tp_b[i])),
                    f"{d:+d}",
                    str(int(cmp.fp_a[i])),
                    str(int(cmp.fp_b[i])),
                )
            )
            colors.append(A_BETTER if d > 0 else B_BETTER)
        self.table.set_rows(rows, cmp.image.tolist(), colors)
        better_a, better_b = int((cmp.difference > 0).sum()), int((cmp.difference < 0).sum())
        n, name = len(cmp), ds.classes[k]
        at = f" at {st.threshold_words(k)}" if t > 0 else ""
        aps = f"AP A {ev_a.ap:.3f}, B {ev_b.ap:.3f}"
        if not n:
            self.summary.setText(
                f"  {name}: the same TP and FP counts on every image{at} ({aps}"
                + ("; the ranking differs)" if ev_a.ap != ev_b.ap else ")")
            )
            return
        self.summary.setText(
            f"  {name}: {n} image{'s' if n != 1 else ''} differ{'s' if n == 1 else ''}{at}"
            f" · A finds more on {better_a}, B on {better_b} · {aps} · choose one to see both"
        )
