"""``LRPChart``: the Analysis tab's optimal LRP page (``vocviewer analyze --lrp``'s numbers, from
the window's own evidence at the IoU of its verdicts; ``evaluation.analyses.lrp``).

All classes: one bar per class, its oLRP (lower is better; 1 for a class found nowhere), the
header gives moLRP and its mean components; a click on a bar selects that class. One class: its
LRP after each rank against that rank's score, the dashed line at the oLRP threshold, the header
gives oLRP, its components and counts there, and the list holds the detections kept at that
threshold (lowest score first). "Draw at oLRP thresholds" draws each class at its own LRP-optimal
threshold (the score slider then an offset added to each).
"""

from __future__ import annotations

import math
from html import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from vocviewer.evaluation.analyses.lrp import ClassLRP, LRPAnalysis, lrp_curve
from vocviewer.evaluation.result import Verdict
from vocviewer.formats.thresholds import ClassThresholds
from vocviewer.gui.models.analysis_tasks import Members
from vocviewer.gui.models.beyond_source import BeyondSource
from vocviewer.gui.models.state import AppState
from vocviewer.gui.panes.analysis.members import MemberList, chart_over_list, fill_with, rich_header
from vocviewer.gui.panes.analysis.pages import AnalysisPage
from vocviewer.gui.widgets.plot_theme import fixed_plot, theme_plot

PLACEHOLDER = "Choose a class (or click its bar) to list the detections kept at its oLRP threshold."
VERDICT_WORD = {Verdict.TP: "TP", Verdict.FP: "FP", Verdict.DUPLICATE: "duplicate"}


def _num(x: float) -> str:
    return "—" if math.isnan(x) else f"{x:.3f}"


class LRPChart(AnalysisPage):
    """Per-class oLRP bars, or the selected class's LRP against the score threshold."""

    analysis = "lrp"

    def __init__(
        self, state: AppState, source: BeyondSource, parent: QWidget | None = None
    ) -> None:
        super().__init__(state, source, parent)
        self.header = rich_header()
        self.plot = fixed_plot("LRP (lower is better)")
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.8)
        self.line = self.plot.plot([], [])
        self.best_line = pg.InfiniteLine(angle=90, movable=False)
        for item in (self.bars, self.best_line):
            self.plot.addItem(item)
        self.plot.scene().sigMouseClicked.connect(self._on_scene_click)
        self.plot.scene().sigMouseMoved.connect(self._on_hover)
        self.draw_button = QPushButton("Draw at oLRP thresholds")
        self.draw_button.setToolTip(
            "Draw each class at its own LRP-optimal threshold; the score slider becomes an "
            "offset added to each"
        )
        self.draw_button.clicked.connect(self.draw_per_class)
        self.list = MemberList(state, None, PLACEHOLDER)
        self.list.zoom_requested.connect(self.zoom_requested)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.draw_button)
        head = QVBoxLayout()
        head.addWidget(self.header)
        head.addLayout(buttons)
        fill_with(self, chart_over_list(head, self.plot, self.list))
        self.classes: list[int] = []  # the class index of each bar, left to right
        self._fill = "#4477aa"
        self.apply_palette()
        state.class_changed.connect(self._on_class)

    def _on_class(self, _k: int) -> None:
        if self.isVisible():  # hidden: drawn when shown (``AnalysisPane._show_chart``)
            self.redraw()

    def chosen(self) -> ClassLRP | None:
        """The selected class's oLRP (``None``: all classes, or none for it)."""
        a, k = self.result(), self.state.selected_class
        if not isinstance(a, LRPAnalysis) or a.lrp is None or k < 0:
            return None
        return a.lrp.per_class.get(k)

    def redraw(self) -> None:
        a, k = self.result(), self.state.selected_class
        self.bars.setOpts(x=[], height=[])
        self.line.setData([], [])
        self.best_line.setVisible(False)
        self.list.clear()
        self.draw_button.setEnabled(a is not None and a.lrp is not None)
        if a is None or a.lrp is None:
            self.header.setText(self.source.waiting_words() if a is None else escape(a.note))
            self.classes = []
            return
        self.plot.getPlotItem().setLabel("bottom", "class" if k < 0 else "score threshold")
        if k < 0:
            self._draw_classes(a)
        else:
            self._draw_class(a, k)

    def _draw_classes(self, a: LRPAnalysis) -> None:
        assert a.lrp is not None
        per = a.lrp.per_class
        self.classes = sorted(per)
        heights = [per[k].olrp for k in self.classes]
        self.bars.setOpts(x=np.arange(len(heights)), height=heights, brush=self._fill)
        self._label_bars()
        self.plot.setXRange(-0.6, max(len(heights), 1) - 0.4, padding=0.02)
        self.plot.setYRange(0.0, 1.0, padding=0.02)
        m = a.lrp.means()
        self.header.setText(
            f"<b>all classes</b> · IoU {a.lrp.tau:.2f} · moLRP {_num(m['moLRP'])} "
            f"(Loc {_num(m['moLRP_loc'])} · FP {_num(m['moLRP_fp'])} · "
            f"FN {_num(m['moLRP_fn'])}) over {len(per)} classes · click a bar to choose its class"
        )

    def _label_bars(self) -> None:
        """Name the bars under them, every n-th where the names would overlap."""
        a = self.result()
        if not self.classes or a is None or a.lrp is None:
            return
        names = [a.lrp.per_class[k].name for k in self.classes]
        metrics = QFontMetrics(
            self.plot.getPlotItem().getAxis("bottom").style["tickFont"] or self.font()
        )
        widest = max(metrics.horizontalAdvance(n) for n in names) + 8
        room = max(self.plot.getPlotItem().getViewBox().width(), 1.0)
        step = max(1, math.ceil(len(names) * widest / room))
        ticks = [(i, n) for i, n in enumerate(names) if i % step == 0]
        self.plot.getPlotItem().getAxis("bottom").setTicks([ticks])

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._label_bars()

    def _draw_class(self, a: LRPAnalysis, k: int) -> None:
        assert a.lrp is not None
        self.classes = []
        self.plot.getPlotItem().getAxis("bottom").setTicks(None)
        c, ev = a.lrp.per_class.get(k), self.source.evaluations.get(k)
        if c is None or ev is None:
            self.header.setText("no objects of this class: it has no LRP")
            return
        self.line.setData(np.asarray(ev.score), lrp_curve(ev, a.lrp.tau))
        lo = min(0.0, float(np.min(ev.score, initial=0.0)))
        hi = max(1.0, float(np.max(ev.score, initial=1.0)))
        self.plot.setXRange(lo, hi, padding=0.02)
        self.plot.setYRange(0.0, 1.0, padding=0.02)
        title = f"<b>{escape(c.name)}</b> · IoU {a.lrp.tau:.2f} · oLRP {c.olrp:.3f}"
        if c.rank < 0:
            self.header.setText(f"{title}: no true positive, every object missed")
            return
        self.best_line.setPos(c.threshold)
        self.best_line.setVisible(True)
        self.header.setText(
            f"{title} at score ≥ {c.threshold:.3f} (dashed): Loc {_num(c.loc)} · "
            f"FP {_num(c.fp)} · FN {_num(c.fn)} (TP {c.n_tp}, FP {c.n_fp}, FN {c.n_fn})"
        )
        ranks = np.flatnonzero(ev.verdict[: c.rank + 1] != Verdict.IGNORED)[::-1]
        words = {
            int(ev.order[r]): f"{c.name}: {VERDICT_WORD[Verdict(int(ev.verdict[r]))]}"
            for r in ranks.tolist()
        }
        self.list.show_members(
            Members(ev.order[ranks].astype(np.int64), False),
            f"score ≥ {c.threshold:.3f}: {len(ranks)} detections counted (lowest score first)",
            "The detections LRP counts at the oLRP threshold (TP, FP and duplicates)",
            lambda r: words.get(r, ""),
        )

    def _on_scene_click(self, event: object) -> None:
        pos = event.scenePos()  # type: ignore[attr-defined]
        vb = self.plot.getPlotItem().getViewBox()
        if not self.classes or not vb.sceneBoundingRect().contains(pos):
            return
        self.choose_bar(round(vb.mapSceneToView(pos).x()))

    def _on_hover(self, pos: QPointF) -> None:
        """The hovered bar's class and oLRP as the plot's tooltip."""
        a, vb = self.result(), self.plot.getPlotItem().getViewBox()
        i = round(vb.mapSceneToView(pos).x())
        tip = ""
        if a is not None and a.lrp is not None and 0 <= i < len(self.classes):
            c = a.lrp.per_class[self.classes[i]]
            tip = f"{c.name}: oLRP {c.olrp:.3f} (click to choose)"
        self.plot.setToolTip(tip)

    def bar_scene_pos(self, i: int) -> QPointF:
        """Where bar ``i`` lies in scene coordinates (for clicks in tests)."""
        return self.plot.getPlotItem().getViewBox().mapViewToScene(QPointF(i, 0.02))

    def choose_bar(self, i: int) -> None:
        """Select the class of bar ``i``, as a click on it does."""
        if 0 <= i < len(self.classes):
            self.state.select_class(self.classes[i])
            self.redraw()

    def draw_per_class(self) -> None:
        """Draw each class at its oLRP threshold (a class without one at the window's one
        threshold), offset 0."""
        a, st = self.result(), self.state
        if a is None or a.lrp is None or st.current_results < 0:
            return
        name = st.results[st.current_results].results.name
        st.set_class_thresholds(ClassThresholds(a.lrp.thresholds(), 0.0, f"oLRP of {name}"))

    def member_rows(self) -> Members:
        return self.list.member_rows()

    def apply_palette(self) -> None:
        _, _, muted = theme_plot(self.plot, self.palette())
        self.line.setPen(pg.mkPen("#1f6fb2", width=2))
        self.best_line.setPen(pg.mkPen(muted, width=1.5, style=Qt.PenStyle.DashLine))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "best_line"):
            self.apply_palette()
