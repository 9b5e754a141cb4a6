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
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from vocviewer.benchmarks.view_analysis import SetInterval
from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis import object_name
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
from vocviewer.gui.panes.overlays import MISSED_COLOR
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
        self.plot = pg.PlotWidget()
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.setMinimumHeight(150)
        self.plot.getPlotItem().setLabel("left", "dAP (AP points)")
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
        self.boot_button = QPushButton("Bootstrap mAP")
        self.boot_button.setToolTip(
            "Resample the images with replacement (seed 0) and give the percentile interval "
            "of the result set's mean AP, as vocviewer analyze --bootstrap N does"
        )
        self.replicates = QSpinBox()
        self.replicates.setRange(10, 1_000_000)
        self.replicates.setValue(1000)
        self.replicates.setSuffix(" replicates")
        self.boot_progress = QProgressBar()
        self.boot_progress.setVisible(False)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setVisible(False)
        self.boot_label = QLabel()
        self.boot_label.setWordWrap(True)

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
        self.splitter.setSizes([230, 170])
        boot = QHBoxLayout()
        boot.addWidget(self.boot_button)
        boot.addWidget(self.replicates)
        boot.addWidget(self.boot_progress, 1)
        boot.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.splitter, 1)
        layout.addLayout(boot)
        layout.addWidget(self.boot_label)

        self.tide: TideResult | None = None
        self.values: dict[str, float] = {}
        self.bar: str | None = None
        self._members = Members(np.zeros(0, np.int64), False)
        self._dirty = True
        self._ink, self._muted, self._fill = "#000", "#888", QColor("#4477aa")
        self.apply_palette()

        self.members.row_chosen.connect(self._select)
        self.members.row_activated.connect(self._open_member)
        self.walk_button.clicked.connect(self.walk_these)
        self.boot_button.clicked.connect(self.run_bootstrap)
        self.cancel_button.clicked.connect(self.jobs.cancel_bootstrap)
        self.jobs.tide_ready.connect(self._on_tide)
        self.jobs.tide_failed.connect(self._on_tide_failed)
        self.jobs.boot_progress.connect(self._on_boot_progress)
        self.jobs.boot_done.connect(self._on_boot_done)
        state.dataset_loaded.connect(self._on_dataset)
        state.current_results_changed.connect(self._invalidate)
        state.results_added.connect(self._invalidate)
        state.class_changed.connect(lambda _k: self._show())

    # --- computing ---------------------------------------------------------------------------
    def _results(self) -> ResultSet | None:
        st = self.state
        return st.results[st.current_results].results if st.current_results >= 0 else None

    def _on_dataset(self, _dataset: Dataset) -> None:
        self.bar, self.tide = None, None
        self.boot_label.clear()
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
            self.tide = None
            self._show(reason or "Add a result set to see what each error costs.")
            return
        known, tide = self.jobs.cached(res)
        if known:
            self.tide = tide
            self._show()
            return
        self.tide = None
        self._show(f"Analysing {escape(res.name)} …")
        self.jobs.request_tide(res)

    def _on_tide(self, results: ResultSet, tide: TideResult | None) -> None:
        if results is self._results():
            self.tide = tide
            self._show(None if tide is not None else self.jobs.reason_not_analysed())

    def _on_tide_failed(self, results: ResultSet, why: str) -> None:
        if results is self._results():
            self.tide = None
            self._show(f"Not analysed: {escape(why)}")

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
        pens = [
            pg.mkPen(self._ink, width=2.5) if n == self.bar else pg.mkPen(None) for n in BARS
        ]
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
            f"{name}: {len(rows)} {what}{'s' if len(rows) != 1 else ''}{cls} — {BAR_WORDS[name]}"
            f" (dAP {self.values.get(name, 0.0):.2f}). Enter opens one."
        )
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
        if i >= 0 and row < len(st.evaluations[i].rank_by_row):
            if st.evaluations[i].rank_by_row[row] >= 0:
                st.select_detection_row(row)
                return
        if self.tide is not None:  # not ranked in the window (e.g. beyond its cap): its image
            st.set_current_image(int(self.tide.evidence.image_index[row]))

    def walk_these(self) -> None:
        """Set the detection walk to the chosen bar's mode (``WALK_OF``)."""
        key = WALK_OF.get(self.bar or "")
        if self.walk is not None and key is not None:
            self.walk.set_mode(key)

    # --- the bootstrap -----------------------------------------------------------------------
    def run_bootstrap(self) -> None:
        """Bootstrap the current result set's mean AP with the chosen number of replicates."""
        res = self._results()
        reason = self.jobs.reason_not_analysed()
        if res is None or reason is not None:
            self.boot_label.setText(reason or "Add a result set first.")
            return
        n = self.replicates.value()
        self.boot_progress.setRange(0, n)
        self.boot_progress.setValue(0)
        self.boot_progress.setVisible(True)
        self.cancel_button.setVisible(True)
        self.boot_button.setEnabled(False)
        self.boot_label.setText(f"Bootstrapping {res.name}: {n} replicates …")
        self.jobs.run_bootstrap(res, n)

    def _on_boot_progress(self, done: int, total: int) -> None:
        self.boot_progress.setRange(0, total)
        self.boot_progress.setValue(done)

    def _on_boot_done(self, out: SetInterval | str) -> None:
        self.boot_progress.setVisible(False)
        self.cancel_button.setVisible(False)
        self.boot_button.setEnabled(True)
        if isinstance(out, str):
            self.boot_label.setText(out)
            return
        res = self._results()
        unit = " (percent)" if out.percent else ""
        self.boot_label.setText(
            f"{escape(res.name) if res else ''}: {out.metric}{unit} {out.point:.3f}, "
            f"{out.level:.0%} interval [{out.low:.3f}, {out.high:.3f}] "
            f"({out.replicates} replicates over images, seed {out.seed})"
        )

    # --- theme -------------------------------------------------------------------------------
    def apply_palette(self) -> None:
        """Background, axes and bars in the widget palette's colours (the window's theme)."""
        pal = self.palette()
        bg, ink = pal.color(QPalette.ColorRole.Base), pal.color(QPalette.ColorRole.Text)
        mix = zip(ink.getRgbF(), bg.getRgbF(), strict=True)
        muted = QColor.fromRgbF(*(0.55 * a + 0.45 * b for a, b in mix))
        self._ink, self._muted = ink.name(), muted.name()
        self._fill = pal.color(QPalette.ColorRole.Highlight)
        self.plot.setBackground(bg)
        for side in ("left", "bottom"):
            axis = self.plot.getPlotItem().getAxis(side)
            axis.setPen(pg.mkPen(muted))
            axis.setTextPen(pg.mkPen(ink))
        if self.tide is not None:
            self._show()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "tide"):
            self.apply_palette()
