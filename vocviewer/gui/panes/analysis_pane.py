"""``AnalysisPane``: what each error costs the current result set (TIDE's dAP per error type, for
the selected class or the mean over classes), the detections or objects behind each bar, and a
bootstrap interval of the result set's mean AP.

The breakdown is computed in a worker (``models.analysis_tasks``) as ``vocviewer analyze``
computes it for the family, once per result set, and only while the pane is shown. Clicking a bar
lists its members under the chart; choosing one selects it in the image view (Enter or
double-click also zooms to it); "Walk these" sets the detection walk to the closest mode. The
bootstrap runs on demand, with progress and Cancel.
"""

from __future__ import annotations

from html import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, Qt, Signal
from PySide6.QtGui import QColor, QPalette, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from vocviewer.benchmarks.view_analysis import ViewAnalysis
from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis import object_name
from vocviewer.evaluation.characteristics import Characteristic
from vocviewer.evaluation.tide import KIND_NAMES, TideResult
from vocviewer.gui.models.analysis_tasks import (
    BAR_WORDS,
    BARS,
    WALK_OF,
    AnalysisJobs,
    Members,
    bar_members,
    bar_values,
)
from vocviewer.gui.models.state import AppState
from vocviewer.gui.models.walk import WALK_MODES, DetectionWalk
from vocviewer.gui.panes.analysis_bootstrap import BootstrapRow
from vocviewer.gui.panes.analysis_characteristics import CharacteristicsChart
from vocviewer.gui.panes.overlays import MISSED_COLOR
from vocviewer.gui.panes.plot_theme import fixed_plot, theme_plot
from vocviewer.gui.panes.side_panel import RowsTable

#: a bar's half width (bars stand at x = 0, 1, ..., the special ones after a gap)
HALF = 0.35
#: the x position of each bar
X_OF: dict[str, float] = {n: float(i + (i >= 6) * 0.6) for i, n in enumerate(BARS)}
#: the axis' name of each bar (the special ones shortened so every name fits)
TICK = {**{n: n for n in BARS}, "FalsePos": "FP", "FalseNeg": "FN"}


class AnalysisPane(QWidget):
    """The TIDE chart over the chosen bar's members, and the bootstrap row.

    Signals
    -------
    zoom_requested()
        A member was opened (Enter / double-click): show it zoomed in.
    """

    zoom_requested = Signal()

    def __init__(
        self, state: AppState, walk: DetectionWalk | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.state, self.walk = state, walk
        self.jobs = AnalysisJobs(state, self)
        self.header = QLabel()
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.plot = fixed_plot("dAP (AP points)")
        self.plot.getAxis("bottom").setTicks([[(X_OF[n], TICK[n]) for n in BARS]])
        self.bars = pg.BarGraphItem(x=[], height=[], width=2 * HALF)
        self.plot.addItem(self.bars)
        self.labels = {n: pg.TextItem(anchor=(0.5, 1.0)) for n in BARS}  # each bar's value
        for item in self.labels.values():
            self.plot.addItem(item)
        self.plot.scene().sigMouseClicked.connect(self._on_scene_click)
        self.list_label = QLabel("Click a bar to list its detections or objects.")
        self.list_label.setWordWrap(True)
        self.walk_button = QPushButton("Walk these")
        self.walk_button.setEnabled(False)
        self.members = RowsTable(("Rank", "Score", "Image", "Detail"), long=True)
        self.members.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.boot = BootstrapRow(self.jobs, self._results)
        self.chart_combo = QComboBox()
        self.chart_combo.setToolTip("What the chart shows: TIDE's breakdown or one characteristic")
        self.chart_combo.addItem("What each error costs (TIDE)", "")
        self.chars = CharacteristicsChart(state)

        top = QWidget()
        top_box = QVBoxLayout(top)
        top_box.setContentsMargins(0, 0, 0, 0)
        top_box.addWidget(self.header)
        top_box.addWidget(self.plot, 1)
        lower = QWidget()
        lower_box = QVBoxLayout(lower)
        lower_box.setContentsMargins(0, 0, 0, 0)
        caption = QHBoxLayout()
        caption.addWidget(self.list_label, 1)
        caption.addWidget(self.walk_button)
        lower_box.addLayout(caption)
        lower_box.addWidget(self.members, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(top)
        self.splitter.addWidget(lower)
        self.splitter.setSizes([260, 140])
        self.stack = QStackedWidget()
        self.stack.addWidget(self.splitter)
        self.stack.addWidget(self.chars)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.chart_combo)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.boot)

        self.tide: TideResult | None = None
        self.characteristics: dict[str, Characteristic] = {}
        self.values: dict[str, float] = {}
        self.bar: str | None = None
        self._members = Members(np.zeros(0, np.int64), False)
        self._dirty = True
        self._ink, self._muted, self._fill = "#000", "#888", QColor("#4477aa")
        self.apply_palette()

        self.members.row_chosen.connect(self._select)
        self.members.row_activated.connect(self._open_member)
        self.walk_button.clicked.connect(self.walk_these)
        self.chart_combo.currentIndexChanged.connect(lambda _i: self._show_chart())
        self.jobs.tide_ready.connect(self._on_tide)
        self.jobs.tide_failed.connect(self._on_tide_failed)
        state.dataset_loaded.connect(self._on_dataset)
        for signal in (
            state.current_results_changed,
            state.results_added,
            state.evaluation.started,  # another image set
            state.evaluation.finished,  # the window's ranks of the listed detections
            state.evaluation.evidence_replaced,
        ):
            signal.connect(self._invalidate)
        state.class_changed.connect(lambda _k: self._show())

    # --- computing ---------------------------------------------------------------------------
    def _results(self) -> ResultSet | None:
        st = self.state
        return st.results[st.current_results].results if st.current_results >= 0 else None

    def _on_dataset(self, _dataset: Dataset) -> None:
        self.bar = None
        self.boot.boot_label.clear()
        self._invalidate()

    def _invalidate(self, *_args: object) -> None:
        self._dirty = True
        if self.isVisible():
            self.refresh()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._dirty:
            self.refresh()

    def refresh(self) -> None:
        """Show the current result set's breakdown, computing it in a worker if needed."""
        self._dirty = False
        res, reason = self._results(), self.jobs.reason_not_analysed()
        if self.state.dataset is None or res is None or reason is not None:
            self._set_analysis(None, reason or "Add a result set to see what each error costs.")
            return
        known, analysis = self.jobs.cached(res)
        if known:
            self._set_analysis(analysis, self.jobs.reason_not_analysed())
            return
        self._set_analysis(None, f"Analysing {escape(res.name)} …")
        self.jobs.request_tide(res)

    def _on_tide(self, results: ResultSet, analysis: ViewAnalysis | None) -> None:
        if results is self._results():
            self._set_analysis(analysis, self.jobs.reason_not_analysed())

    def _on_tide_failed(self, results: ResultSet, why: str) -> None:
        if results is self._results():
            self._set_analysis(None, f"Not analysed: {escape(why)}")

    def _set_analysis(self, analysis: ViewAnalysis | None, message: str | None) -> None:
        self.tide = analysis.tide if analysis is not None else None
        self.characteristics = analysis.characteristics if analysis is not None else {}
        chosen = self.chart_combo.currentData()
        self.chart_combo.blockSignals(True)
        while self.chart_combo.count() > 1:
            self.chart_combo.removeItem(1)
        for name in self.characteristics:
            self.chart_combo.addItem(f"Objects by {name} (normalised AP)", name)
        self.chart_combo.setCurrentIndex(max(self.chart_combo.findData(chosen), 0))
        self.chart_combo.blockSignals(False)
        self._show(message if self.tide is None else None)
        self._show_chart()

    def _show_chart(self) -> None:
        """The TIDE page, or the characteristics page with the chosen characteristic."""
        name = self.chart_combo.currentData()
        res = self._results()
        self.chars.set_characteristic(
            self.characteristics.get(name) if name else None, res.name if res else ""
        )
        self.stack.setCurrentWidget(self.chars if name else self.splitter)

    def choose_chart(self, name: str) -> None:
        """Show characteristic ``name`` ("": TIDE's breakdown), as the chart combo does."""
        self.chart_combo.setCurrentIndex(max(self.chart_combo.findData(name), 0))

    # --- the chart ---------------------------------------------------------------------------
    def _class(self) -> int:
        return self.state.selected_class

    def _show(self, message: str | None = None) -> None:
        """Draw the bars of the current class (or the message instead) and list the chosen bar."""
        tide, st = self.tide, self.state
        if tide is None or st.dataset is None:
            self.values = {}
            self.bars.setOpts(x=[], height=[])
            for item in self.labels.values():
                item.setText("")
            self.header.setText(message or "")
            self._list(None)
            return
        k = self._class()
        self.values = bar_values(tide, k)
        res = self._results()
        name = escape(res.name if res is not None else "")
        if k < 0:
            what, base = "mean over classes", tide.ap
        else:
            what, base = escape(st.dataset.classes[k]), float(tide.class_ap[k])
        counted = k < 0 or bool(tide.class_counted["AP"][k])
        note = "" if counted else " — no objects and no detections of this class: nothing to fix"
        self.header.setText(
            f"<b>{name}</b> · {what} · TIDE: AP points gained by fixing each error type alone "
            f"(IoU 0.5; TIDE AP50 {base:.2f}){note}"
        )
        heights = [self.values[n] for n in BARS]
        brushes = [pg.mkBrush(self._fill if i < 6 else self._muted) for i in range(len(BARS))]
        pens = [pg.mkPen(self._ink, width=2.5) if n == self.bar else pg.mkPen(None) for n in BARS]
        self.bars.setOpts(
            x=[X_OF[n] for n in BARS], height=heights, brushes=brushes, pens=pens, width=2 * HALF
        )
        for n, h in zip(BARS, heights, strict=True):
            self.labels[n].setText(f"{h:.2f}", color=self._ink)
            self.labels[n].setPos(X_OF[n], max(h, 0.0))
        lo, hi = min(0.0, *heights), max(1.0, *heights)
        self.plot.setXRange(-0.6, X_OF[BARS[-1]] + 0.6, padding=0)
        self.plot.setYRange(lo, hi * 1.15, padding=0)
        self._list(self.bar)

    def _on_scene_click(self, event: object) -> None:
        pos = event.scenePos()  # type: ignore[attr-defined]
        vb = self.plot.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(pos):
            return
        name = self.bar_at(vb.mapSceneToView(pos))
        if name is not None:
            self.choose_bar(name)

    def bar_at(self, point: QPointF) -> str | None:
        """The bar under a point in data coordinates (its column, whatever its height)."""
        for n in BARS:
            if abs(point.x() - X_OF[n]) <= HALF:
                return n
        return None

    def bar_scene_pos(self, name: str) -> QPointF:
        """Where bar ``name``'s middle lies in scene coordinates (for clicks in tests)."""
        vb = self.plot.getPlotItem().getViewBox()
        return vb.mapViewToScene(QPointF(X_OF[name], self.values.get(name, 0.0) / 2))

    def choose_bar(self, name: str) -> None:
        """List bar ``name``'s detections or objects, as a click on it does."""
        self.bar = name
        self._show()

    # --- the chosen bar's members ------------------------------------------------------------
    def _list(self, name: str | None) -> None:
        tide, ds, st = self.tide, self.state.dataset, self.state
        self.walk_button.setEnabled(False)
        if tide is None or ds is None or name is None:
            self._members = Members(np.zeros(0, np.int64), False)
            self.members.set_rows([], [], [])
            if tide is not None:
                self.list_label.setText("Click a bar to list its detections or objects.")
            return
        k = self._class()
        m = self._members = bar_members(tide, name, k)
        ev = tide.evidence
        rows: list[tuple[str, ...]] = []
        colors: list[QColor | None] = []
        i = st.current_results
        ranks = st.evaluations[i].rank_by_row if i >= 0 else np.zeros(0, np.int64)
        for r in m.rows.tolist():
            if m.objects:
                image = str(ds.images.id[int(ds.objects.image_index[r])])
                rows.append(("—", "—", image, object_name(ds, r)))
                colors.append(MISSED_COLOR)
                continue
            rank = int(ranks[r]) + 1 if r < len(ranks) and ranks[r] >= 0 else 0
            rows.append(
                (
                    str(rank) if rank else "—",
                    f"{ev.score[r]:.3f}",
                    str(ds.images.id[int(ev.image_index[r])]),
                    self._detail(tide, r),
                )
            )
            colors.append(None)
        self.members.set_rows(rows, list(range(len(rows))), colors)
        what = "object" if m.objects else "detection"
        cls = "" if k < 0 else f" of {ds.classes[k]}"
        self.list_label.setText(
            f"{name}: {len(rows)} {what}{'s' if len(rows) != 1 else ''}{cls}, "
            f"dAP {self.values.get(name, 0.0):.2f}"
        )
        self.list_label.setToolTip(f"{name}: {BAR_WORDS[name]}. Enter or double-click opens one.")
        mode = next((w for w in WALK_MODES if w.key == WALK_OF.get(name)), None)
        self.walk_button.setEnabled(self.walk is not None and mode is not None)
        self.walk_button.setText(f"Walk: {mode.label}" if mode else "Walk these")
        self.walk_button.setToolTip(
            "Set the detection walk (Walk menu) to this mode: the window's own diagnosis of "
            "its false positives at the chosen IoU, the closest to TIDE's type"
            if mode
            else "The detection walk has no mode for this error type"
        )

    def _detail(self, tide: TideResult, row: int) -> str:
        assert self.state.dataset is not None
        ev = tide.evidence
        kind = KIND_NAMES[int(ev.kind[row])]
        parts = [kind]
        if int(ev.gt[row]) >= 0:
            parts.append(f"→ {object_name(self.state.dataset, int(ev.gt[row]))}")
        if ev.fixable[row]:
            parts.append("(fixed by the oracle)")
        if ev.ignored[row]:
            parts.append("(ignored region)")
        return " ".join(parts)

    def member_rows(self) -> Members:
        """The rows the list shows (detection or object rows), in its order."""
        return self._members

    def _open_member(self, key: int) -> None:
        self._select(key)
        self.zoom_requested.emit()

    def _select(self, key: int) -> None:
        m, st = self._members, self.state
        if not 0 <= key < len(m.rows) or st.dataset is None:
            return
        row = int(m.rows[key])
        if m.objects:
            st.set_current_image(int(st.dataset.objects.image_index[row]))
            st.select_object(row)
            return
        i = st.current_results
        ranks = st.evaluations[i].rank_by_row if i >= 0 else np.zeros(0, np.int64)
        if row < len(ranks) and ranks[row] >= 0:
            st.select_detection_row(row)
            return
        if self.tide is not None:  # not ranked in the window (e.g. beyond its cap): its image
            st.set_current_image(int(self.tide.evidence.image_index[row]))

    def walk_these(self) -> None:
        """Set the detection walk to the chosen bar's mode (``WALK_OF``)."""
        key = WALK_OF.get(self.bar or "")
        if self.walk is not None and key is not None:
            self.walk.set_mode(key)

    # --- theme -------------------------------------------------------------------------------
    def apply_palette(self) -> None:
        """Background, axes and bars in the widget palette's colours (the window's theme)."""
        pal = self.palette()
        _, ink, muted = theme_plot(self.plot, pal)
        self._ink, self._muted = ink.name(), muted.name()
        self._fill = pal.color(QPalette.ColorRole.Highlight)
        if self.tide is not None:
            self._show()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "tide"):
            self.apply_palette()
