"""``OperatingChart``: the Analysis tab's operating point — precision, recall, F1 (and F-beta)
of the selected class (or all classes pooled) against the score threshold, at the IoU of the
window's verdicts (``families.beyond_ap``; ``vocviewer analyze --operating-point``'s numbers).

A click on the plot sets the threshold to the nearest score where the curves step; the header
gives the counts and rates there, and the list under the plot holds the detections kept at it
(lowest score first: the ones the threshold decides). The dashed line is the best threshold
(largest F1). "Draw at this threshold" sets the window's score slider to it (rounded down to
the slider's 0.01 step, so every detection kept there is drawn); "Draw at best F1 per class"
draws each class at its own best threshold (the deployment thresholds of
``vocviewer analyze --deploy-thresholds``), the slider then an offset added to each.
"""

from __future__ import annotations

import math
from html import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from vocviewer.evaluation.analyses.operating_point import ThresholdCurve
from vocviewer.evaluation.drawn import is_drawn
from vocviewer.evaluation.result import Verdict
from vocviewer.formats.thresholds import ClassThresholds
from vocviewer.gui.models.analysis_tasks import Members
from vocviewer.gui.models.beyond_source import BeyondSource
from vocviewer.gui.models.state import AppState
from vocviewer.gui.panes.analysis.members import MemberList, chart_over_list, fill_with, rich_header
from vocviewer.gui.panes.analysis.pages import AnalysisPage
from vocviewer.gui.widgets.plot_theme import fixed_plot, theme_plot

PLACEHOLDER = "Click the plot to set the threshold and list the detections kept there."
#: the curves drawn and their colours
SERIES = (("precision", "#1f6fb2"), ("recall", "#d81b60"), ("f1", "#00897b"))
VERDICT_WORD = {Verdict.TP: "TP", Verdict.FP: "FP", Verdict.DUPLICATE: "duplicate"}


class OperatingChart(AnalysisPage):
    """The curves of the selected class against the threshold, over the kept detections."""

    analysis = "operating_point"

    def __init__(
        self, state: AppState, source: BeyondSource, parent: QWidget | None = None
    ) -> None:
        super().__init__(state, source, parent)
        self.header = rich_header()
        self.plot = fixed_plot("rate")
        self.plot.getPlotItem().setLabel("bottom", "score threshold")
        self.lines = {
            name: self.plot.plot([], [], pen=pg.mkPen(color, width=2)) for name, color in SERIES
        }
        self.best_line = pg.InfiniteLine(angle=90, movable=False)
        self.chosen_line = pg.InfiniteLine(angle=90, movable=False)
        for item in (self.best_line, self.chosen_line):
            self.plot.addItem(item)
        self.plot.scene().sigMouseClicked.connect(self._on_scene_click)
        self.draw_button = QPushButton("Draw at this threshold")
        self.draw_button.setToolTip(
            "Set the window's score slider to the chosen threshold (its 0.01 step below)"
        )
        self.draw_button.clicked.connect(self.draw_at_threshold)
        self.per_class_button = QPushButton("Draw at best F1 per class")
        self.per_class_button.setToolTip(
            "Draw each class at its own best threshold (the deployment thresholds); the score "
            "slider becomes an offset added to each"
        )
        self.per_class_button.clicked.connect(self.draw_per_class)
        self.list = MemberList(state, None, PLACEHOLDER)
        self.list.zoom_requested.connect(self.zoom_requested)
        buttons = QHBoxLayout()  # under the header: the header keeps the pane's width
        buttons.addStretch(1)
        buttons.addWidget(self.draw_button)
        buttons.addWidget(self.per_class_button)
        head = QVBoxLayout()
        head.addWidget(self.header)
        head.addLayout(buttons)
        fill_with(self, chart_over_list(head, self.plot, self.list))
        self.curve: ThresholdCurve | None = None
        self.index: int | None = None  # the chosen threshold's index in ``curve``
        self.apply_palette()
        state.class_changed.connect(self._on_class)

    def _on_class(self, _k: int) -> None:
        if self.isVisible():  # hidden: drawn when shown (``AnalysisPane._show_chart``)
            self.redraw(reset=True)

    def redraw(self, reset: bool = False) -> None:
        """Draw the selected class's curves (``reset``: back to its best threshold)."""
        b, k = self.result(), self.state.selected_class
        curve = None
        if b is not None:
            curve = b.op.per_class.get(k) if k >= 0 else b.op.overall
        best = None if b is None else (b.op.overall_best if k < 0 else b.op.best.get(k))
        if curve is not self.curve or reset:
            self.curve, self.index = curve, best if curve is not None else None
        for name, _ in SERIES:
            ys = getattr(curve, name) if curve is not None else np.zeros(0)
            xs = curve.thresholds if curve is not None else np.zeros(0)
            ok = ~np.isnan(ys)
            self.lines[name].setData(xs[ok], ys[ok], stepMode=None)
        if curve is None or b is None:
            why = "no detections of this class" if b is not None else self.source.waiting_words()
            self.header.setText(why)
            self.best_line.setVisible(False)
            self.chosen_line.setVisible(False)
            self.list.clear()
            return
        self.best_line.setVisible(best is not None)
        if best is not None:
            self.best_line.setPos(float(curve.thresholds[best]))
        self.chosen_line.setVisible(self.index is not None)
        if self.index is not None:
            self.chosen_line.setPos(float(curve.thresholds[self.index]))
        lo = min(0.0, float(curve.thresholds.min(initial=0.0)))
        hi = max(1.0, float(curve.thresholds.max(initial=1.0)))
        self.plot.setXRange(lo, hi, padding=0.02)
        self.plot.setYRange(0.0, 1.0, padding=0.02)
        shown = self.source.current()
        self._header(shown.iou if shown is not None else 0.5, curve, best)
        self._list()

    def _header(self, iou: float, curve: ThresholdCurve, best: int | None) -> None:
        name = "all classes pooled" if curve.name == "overall" else escape(curve.name)
        parts = [f"<b>{name}</b> · IoU {iou:.2f}"]
        if self.index is not None:
            d = curve.at(float(curve.thresholds[self.index]))
            parts.append(
                f"score ≥ {d['threshold']:.3f}: P {d['precision']:.3f} · R {d['recall']:.3f} · "
                f"F1 {d['f1']:.3f} (TP {d['tp']}, FP {d['fp']}, FN {d['fn']})"
            )
        if best is not None:
            parts.append(f"best F1 at {float(curve.thresholds[best]):.3f} (dashed)")
        key = " ".join(f"<font color='{c}'>━ {n.replace('f1', 'F1')}</font>" for n, c in SERIES)
        self.header.setText(" · ".join(parts) + f"<br>{key}")

    def threshold(self) -> float | None:
        """The chosen threshold (``None``: none)."""
        if self.curve is None or self.index is None:
            return None
        return float(self.curve.thresholds[self.index])

    def _on_scene_click(self, event: object) -> None:
        pos = event.scenePos()  # type: ignore[attr-defined]
        vb = self.plot.getPlotItem().getViewBox()
        if self.curve is None or not vb.sceneBoundingRect().contains(pos):
            return
        self.choose_threshold(vb.mapSceneToView(pos).x())

    def scene_pos(self, threshold: float) -> QPointF:
        """Where ``threshold`` lies on the plot in scene coordinates (for clicks in tests)."""
        vb = self.plot.getPlotItem().getViewBox()
        return vb.mapViewToScene(QPointF(threshold, 0.5))

    def choose_threshold(self, x: float) -> None:
        """Set the threshold to the curve's step nearest ``x``, as a click there does."""
        c = self.curve
        if c is None or len(c.thresholds) == 0:
            return
        self.index = int(np.argmin(np.abs(c.thresholds - x)))
        self.redraw()

    def draw_at_threshold(self) -> None:
        """The window's score slider at the chosen threshold, rounded down to its 0.01 step
        (every detection kept at the threshold is drawn), one threshold for every class."""
        t = self.threshold()
        if t is not None:
            self.state.set_threshold(math.floor(round(t * 100, 9)) / 100)
            self.state.set_class_thresholds(None)

    def draw_per_class(self) -> None:
        """Draw each class at its best threshold (``OperatingPoint.thresholds``; a class
        without one at the window's one threshold), offset 0."""
        b, st = self.result(), self.state
        if b is None or st.current_results < 0:
            return
        name = st.results[st.current_results].results.name
        rule = "F1" if b.op.rule == "f1" else b.op.rule
        st.set_class_thresholds(ClassThresholds(b.op.thresholds(), 0.0, f"best {rule} of {name}"))

    def _list(self) -> None:
        """The detections kept at the chosen threshold, lowest score first."""
        t, k, evs = self.threshold(), self.state.selected_class, self.source.evaluations
        if t is None or math.isnan(t):
            self.list.clear()
            return
        chosen = [evs[k]] if k >= 0 and k in evs else list(evs.values()) if k < 0 else []
        rows, words = [], {}
        for ev in chosen:
            kept = np.flatnonzero(is_drawn(ev.score, t) & (ev.verdict != Verdict.IGNORED))
            for r in kept[::-1].tolist():
                row = int(ev.order[r])
                rows.append((float(ev.score[r]), row))
                words[row] = f"{ev.class_name}: {VERDICT_WORD[Verdict(int(ev.verdict[r]))]}"
        rows.sort(key=lambda p: p[0])
        m = Members(np.array([r for _, r in rows], dtype=np.int64), False)
        self.list.show_members(
            m,
            f"score ≥ {t:.3f}: {len(rows)} detections kept (lowest score first)",
            "The detections kept at the chosen threshold, as counted in P and R",
            lambda r: words.get(r, ""),
        )

    def member_rows(self) -> Members:
        return self.list.member_rows()

    def apply_palette(self) -> None:
        _, ink, muted = theme_plot(self.plot, self.palette())
        self.best_line.setPen(pg.mkPen(muted, width=1.5, style=Qt.PenStyle.DashLine))
        self.chosen_line.setPen(pg.mkPen(ink, width=1.5))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "best_line"):
            self.apply_palette()
