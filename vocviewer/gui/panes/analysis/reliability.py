"""``ReliabilityChart``: the Analysis tab's calibration page — the reliability diagram of the
selected class (or all classes pooled) at the IoU of the window's verdicts: per equal-width
confidence bin the share of its detections that are true positives (bar), its mean confidence
(dot) and the diagonal of perfect calibration, with D-ECE and D-MCE (``families.beyond_ap``;
``vocviewer analyze --calibration``'s numbers). Clicking a bin lists its detections (highest
score first); choosing one opens it in the image view.
"""

from __future__ import annotations

import math
from html import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtWidgets import QWidget

from vocviewer.evaluation.analyses.calibration import Calibration
from vocviewer.evaluation.result import Verdict
from vocviewer.gui.models.analysis_tasks import Members
from vocviewer.gui.models.beyond_source import BeyondSource
from vocviewer.gui.models.state import AppState
from vocviewer.gui.panes.analysis.members import MemberList, chart_over_list, fill_with, rich_header
from vocviewer.gui.panes.analysis.pages import AnalysisPage
from vocviewer.gui.widgets.plot_theme import fixed_plot, theme_plot

PLACEHOLDER = "Click a bin to list its detections."


class ReliabilityChart(AnalysisPage):
    """The reliability diagram of the selected class over the chosen bin's detections."""

    analysis = "calibration"

    def __init__(
        self, state: AppState, source: BeyondSource, parent: QWidget | None = None
    ) -> None:
        super().__init__(state, source, parent)
        self.header = rich_header()
        self.plot = fixed_plot("precision (matched share)")
        self.plot.getPlotItem().setLabel("bottom", "confidence")
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.1)
        self.diagonal = pg.PlotDataItem([0, 1], [0, 1])
        self.dots = pg.ScatterPlotItem(size=7)
        for item in (self.bars, self.diagonal, self.dots):
            self.plot.addItem(item)
        self.plot.scene().sigMouseClicked.connect(self._on_scene_click)
        self.list = MemberList(state, None, PLACEHOLDER)
        self.list.zoom_requested.connect(self.zoom_requested)
        fill_with(self, chart_over_list(self.header, self.plot, self.list))
        self.cal: Calibration | None = None
        self.bin = -1
        self._ink, self._fill = "#000", "#4477aa"
        self.apply_palette()
        state.class_changed.connect(self._on_class)

    def calibration(self) -> Calibration | None:
        """The selected class's calibration (all classes: the pooled one)."""
        b, k = self.result(), self.state.selected_class
        if b is None:
            return None
        return b.per_class.get(k) if k >= 0 else b.overall

    def _on_class(self, _k: int) -> None:
        if self.isVisible():  # hidden: drawn when shown (``AnalysisPane._show_chart``)
            self.redraw()

    def redraw(self) -> None:
        cal = self.calibration()
        if cal is not self.cal:
            self.bin = -1
        self.cal = cal
        if cal is None:
            self.bars.setOpts(x=[], height=[])
            self.dots.setData([], [])
            b = self.source.current()
            self.header.setText(self.source.waiting_words() if b is None else "")
            self.list.clear()
            return
        e = cal.edges
        centre, width = (e[:-1] + e[1:]) / 2, float(e[1] - e[0])
        heights = np.nan_to_num(cal.precision)
        pens = [
            pg.mkPen(self._ink, width=2.5) if i == self.bin else pg.mkPen(None)
            for i in range(len(centre))
        ]
        self.bars.setOpts(
            x=centre, height=heights, width=0.9 * width, brush=pg.mkBrush(self._fill), pens=pens
        )
        ok = ~np.isnan(cal.confidence)
        self.dots.setData(cal.confidence[ok], cal.confidence[ok], brush=pg.mkBrush("#d81b60"))
        self.plot.setXRange(0.0, 1.0, padding=0.02)
        self.plot.setYRange(0.0, 1.0, padding=0.02)
        b = self.source.current()
        name = "all classes pooled" if cal.name == "overall" else escape(cal.name)
        ece = "—" if math.isnan(cal.d_ece) else f"{cal.d_ece:.4f}"
        mce = "—" if math.isnan(cal.d_mce) else f"{cal.d_mce:.4f}"
        iou = f"IoU {b.iou:.2f} · " if b is not None else ""
        self.header.setText(
            f"<b>{name}</b> · {iou}D-ECE {ece} · D-MCE {mce} · {cal.n} detections in "
            f"{len(cal.count)} bins (bars: share matched; dots: mean confidence)"
        )
        self._list()

    def _on_scene_click(self, event: object) -> None:
        pos = event.scenePos()  # type: ignore[attr-defined]
        vb = self.plot.getPlotItem().getViewBox()
        if self.cal is None or not vb.sceneBoundingRect().contains(pos):
            return
        x = vb.mapSceneToView(pos).x()
        b = int(np.searchsorted(self.cal.edges, x, side="right")) - 1
        if 0 <= b < len(self.cal.count):
            self.choose_bin(b)

    def bin_scene_pos(self, b: int) -> QPointF:
        """Where bin ``b`` lies in scene coordinates (for clicks in tests)."""
        assert self.cal is not None
        e = self.cal.edges
        vb = self.plot.getPlotItem().getViewBox()
        return vb.mapViewToScene(QPointF(float(e[b] + e[b + 1]) / 2, 0.05))

    def choose_bin(self, b: int) -> None:
        """List bin ``b``'s detections, as a click on it does."""
        self.bin = b
        self.redraw()

    def _list(self) -> None:
        cal, b, evs = self.cal, self.bin, self.source.evaluations
        if cal is None or not 0 <= b < len(cal.count):
            self.list.clear()
            return
        pairs = cal.members[b]
        scored = []
        words: dict[int, str] = {}
        for k, r in pairs.tolist():
            ev = evs[k]
            row = int(ev.order[r])
            scored.append((-float(ev.score[r]), row))
            tp = int(ev.verdict[r]) == Verdict.TP
            words[row] = f"{ev.class_name}: {'matched (TP)' if tp else 'unmatched'}"
        scored.sort()
        m = Members(np.array([row for _, row in scored], dtype=np.int64), False)
        lo, hi = cal.edges[b], cal.edges[b + 1]
        p = cal.precision[b]
        share = "" if math.isnan(p) else f", {p:.3f} matched"
        self.list.show_members(
            m,
            f"confidence [{lo:.2f}, {hi:.2f}): {len(scored)} detections{share}",
            "The detections of this confidence bin, as D-ECE counts them",
            lambda r: words.get(r, ""),
        )

    def member_rows(self) -> Members:
        return self.list.member_rows()

    def apply_palette(self) -> None:
        pal = self.palette()
        _, ink, muted = theme_plot(self.plot, pal)
        self._ink = ink.name()
        self.diagonal.setPen(pg.mkPen(muted, width=1.5, style=Qt.PenStyle.DashLine))
        if hasattr(self, "cal"):
            self.redraw()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "cal"):
            self.apply_palette()
