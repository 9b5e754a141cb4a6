"""``CurvesChart``: the Analysis tab's COCO ``analyze()`` plot — the seven nested precision/recall
curves C75, C50, Loc, Sim, Oth, BG, FN of the selected class (or the mean over classes), each band
between a curve and the one below it filled in the official colours, the legend giving each
curve's area as COCO writes it (``[.202] C75``).

Clicking a band lists what it stands for (``models.analysis_tasks.band_members``), from the
window's own verdicts at IoU 0.5: the true positives at 0.75 (C75) and the others (C50), the
localisation, similar-class, other-class and background false positives (BG also holds the
duplicates, which ``analyze()`` counts as errors until its BG step), the missed objects (FN).
Choosing one opens it in the image view (``MemberList``).
"""

from __future__ import annotations

import math
from html import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QColor, QFontMetrics
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSplitter, QVBoxLayout, QWidget

from vocviewer.evaluation.analysis import FPKind, object_name
from vocviewer.evaluation.analysis_curves import CURVE_NAMES, AnalysisCurves
from vocviewer.families.view_analyser import CurveSet
from vocviewer.gui.models.analysis_tasks import (
    BAND_IOU,
    BAND_WORDS,
    WALK_OF_BAND,
    Members,
    band_members,
)
from vocviewer.gui.models.state import AppState
from vocviewer.gui.models.walk import DetectionWalk
from vocviewer.gui.panes.analysis.members import MemberList
from vocviewer.gui.widgets.plot_theme import fixed_plot, theme_plot

PLACEHOLDER = "Click a band to list its detections or objects."


class CurvesChart(QWidget):
    """The nested curves of one result set over the list of the chosen band's members."""

    def __init__(
        self, state: AppState, walk: DetectionWalk | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.state = state
        self.header = QLabel()
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.plot = fixed_plot("precision")
        self.plot.getPlotItem().setLabel("bottom", "recall")
        self.plot.setXRange(0, 1, padding=0.01)
        self.plot.setYRange(0, 1, padding=0.01)
        self.legend = QLabel()  # beside the plot: a legend inside would hide the curves
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.legend.setToolTip("Area under each curve, as COCO's analyze() writes it; click one")
        self.legend.linkActivated.connect(self.choose_band)
        bold = self.legend.font()
        bold.setBold(True)
        self.legend.setMinimumWidth(QFontMetrics(bold).horizontalAdvance("■ [1.000] C75") + 4)
        # the top curve first: each fills down to 0 over the ones above it in the nesting
        self.items = {n: pg.PlotDataItem([], [], fillLevel=0.0) for n in CURVE_NAMES}
        for z, n in enumerate(CURVE_NAMES):
            self.items[n].setZValue(len(CURVE_NAMES) - z)
            self.plot.addItem(self.items[n])
        self.plot.scene().sigMouseClicked.connect(self._on_scene_click)
        self.list = MemberList(state, walk, PLACEHOLDER)
        top = QWidget()
        top_box = QVBoxLayout(top)
        top_box.setContentsMargins(0, 0, 0, 0)
        top_box.addWidget(self.header)
        chart = QHBoxLayout()
        chart.addWidget(self.plot, 1)
        chart.addWidget(self.legend)
        top_box.addLayout(chart, 1)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(top)
        splitter.addWidget(self.list)
        splitter.setSizes([300, 140])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)
        self.curve_set: CurveSet | None = None
        self.shown: AnalysisCurves | None = None
        self.set_name, self.reason = "", ""
        self.band: str | None = None
        self._ink, self._bg = QColor("#000"), QColor("#fff")
        self._iou = np.zeros(0)  # IoU of each detection row with its object (NaN: none)
        self._obj = np.zeros(0, np.int64)  # that object's row (-1: none)
        self.apply_palette()
        state.class_changed.connect(lambda _k: self.redraw())
        state.evaluation.evidence_replaced.connect(lambda _i: self._list())
        state.evaluation.finished.connect(self._list)

    def set_curves(self, curves: CurveSet | None, set_name: str, reason: str = "") -> None:
        """Show ``curves`` of result set ``set_name`` (``None``: ``reason`` instead)."""
        if curves is not self.curve_set:
            self.band = None
        self.curve_set, self.set_name, self.reason = curves, set_name, reason
        self.redraw()

    def redraw(self) -> None:
        cs, k, ds = self.curve_set, self.state.selected_class, self.state.dataset
        self.legend.setText("")
        c = None if cs is None else cs.overall if k < 0 else cs.per_class.get(k)
        self.shown = c
        if c is None or ds is None:
            for item in self.items.values():
                item.setData([], [])
            if cs is not None and ds is not None:
                self.header.setText(f"<b>{escape(ds.classes[k])}</b>: no curves for this class")
            else:
                self.header.setText(escape(self.reason))
            self._list()
            return
        # the figures' colours and legend format (imported on first draw: the module pulls in
        # xml.sax and urllib, which the window's start does without)
        from vocviewer.evaluation.render.analyze_curves_svg import CURVE_COLORS, area_label

        areas = c.areas
        for n, p in c.curves().items():
            fill = self._bg if CURVE_COLORS[n] == "#ffffff" else QColor(CURVE_COLORS[n])
            bold = n == self.band
            self.items[n].setData(c.recall, np.nan_to_num(p))
            self.items[n].setPen(pg.mkPen(self._ink, width=2.5 if bold else 1))
            self.items[n].setBrush(pg.mkBrush(fill))
        lines = []
        for n in CURVE_NAMES:  # the official legend: C75 on top
            white = CURVE_COLORS[n] == "#ffffff"
            swatch = f"<span style='color:{self._ink.name() if white else CURVE_COLORS[n]}'>"
            swatch += "□" if white else "■"
            label = f"{area_label(areas[n])} {n}"
            label = f"<b>{label}</b>" if n == self.band else label
            link = f"<a href='{n}' style='color:{self._ink.name()}; text-decoration:none'>"
            lines.append(f"{swatch}</span> {link}{label}</a>")
        self.legend.setText("<br>".join(lines))
        what = "mean over classes" if k < 0 else escape(ds.classes[k])
        self.header.setText(
            f"<b>{escape(self.set_name)}</b> · {what} · analyze(): precision/recall as each "
            "error type is removed in turn (area under each curve in the legend)"
        )
        self._list()

    # --- clicks ------------------------------------------------------------------------------
    def _on_scene_click(self, event: object) -> None:
        pos = event.scenePos()  # type: ignore[attr-defined]
        vb = self.plot.getPlotItem().getViewBox()
        if self.shown is None or not vb.sceneBoundingRect().contains(pos):
            return
        name = self.band_at(vb.mapSceneToView(pos))
        if name is not None:
            self.choose_band(name)

    def band_at(self, point: QPointF) -> str | None:
        """The band under a point in data coordinates (recall, precision): the lowest curve at
        or above it; ``None`` outside [0, 1]²."""
        c, x, y = self.shown, point.x(), point.y()
        if c is None or not (0 <= x <= 1 and 0 <= y <= 1):
            return None
        i = int(np.argmin(np.abs(c.recall - x)))
        for n, p in c.curves().items():
            if y <= float(np.nan_to_num(p[i])):
                return n
        return None

    def band_scene_pos(self, name: str) -> QPointF:
        """Where band ``name`` is widest, in scene coordinates (for clicks in tests)."""
        c = self.shown
        vb = self.plot.getPlotItem().getViewBox()
        if c is None:
            return vb.mapViewToScene(QPointF(0.5, 0.5))
        curves = list(c.curves().values())
        j = CURVE_NAMES.index(name)
        top = np.nan_to_num(curves[j])
        below = np.nan_to_num(curves[j - 1]) if j else np.zeros_like(top)
        i = int(np.argmax(top - below))
        return vb.mapViewToScene(QPointF(float(c.recall[i]), float(top[i] + below[i]) / 2))

    def choose_band(self, name: str) -> None:
        """List band ``name``'s detections or objects, as a click on it does."""
        self.band = name
        self.redraw()

    # --- the chosen band's members -----------------------------------------------------------
    def _list(self) -> None:
        st, name, ds = self.state, self.band, self.state.dataset
        if self.shown is None or name is None or ds is None or st.current_results < 0:
            self.list.clear()
            return
        ev = st.evaluation
        at_band_iou = math.isclose(ev.verdict_iou(), BAND_IOU)
        if not at_band_iou or ev.area != ev.settings.areas[0]:
            self.list.clear(
                f"{name}: the window's verdicts are at IoU {ev.verdict_iou():.2f}, area "
                f"{ev.area}; choose IoU {BAND_IOU} and area {ev.settings.areas[0]} to list "
                "this band's members (analyze()'s bands are at 0.5)"
            )
            return
        k = st.selected_class
        evals = st.evaluations[st.current_results]
        m = band_members(evals.views, name, k)
        self._iou = np.full(len(evals.fp_kind_by_row), np.nan)
        self._obj = np.full(len(evals.fp_kind_by_row), -1, dtype=np.int64)
        for v in evals.views.values():  # the object each one found, aimed at or confused
            e, fp = v.evaluation, v.false_positives
            self._iou[e.order], self._obj[e.order] = e.best_iou, e.best_gt
            if fp is not None:
                wrong = fp.confused_gt >= 0
                iou = np.where(wrong, fp.confused_iou, fp.same_iou)
                obj = np.where(wrong, fp.confused_gt, fp.same_gt)
                self._iou[e.order[fp.kind > 0]] = iou[fp.kind > 0]
                self._obj[e.order[fp.kind > 0]] = obj[fp.kind > 0]
        what = "object" if m.objects else "detection"
        cls = "" if k < 0 else f" of {ds.classes[k]}"
        self.list.show_members(
            m,
            f"{name}: {len(m.rows)} {what}{'s' if len(m.rows) != 1 else ''}{cls} — "
            f"{BAND_WORDS[name]}",
            f"{name}: {BAND_WORDS[name]}, the window's verdicts at IoU 0.5",
            self._detail,
            WALK_OF_BAND.get(name),
        )

    def _detail(self, row: int) -> str:
        st = self.state
        evals = st.evaluations[st.current_results]
        kind = int(evals.fp_kind_by_row[row]) if row < len(evals.fp_kind_by_row) else -1
        iou = float(self._iou[row]) if row < len(self._iou) else math.nan
        obj = int(self._obj[row]) if row < len(self._obj) else -1
        text = FPKind(kind).label if kind > 0 else "true positive"
        if obj >= 0 and st.dataset is not None and kind != FPKind.BACKGROUND:
            text += f" → {object_name(st.dataset, obj)}"
        return text + ("" if math.isnan(iou) else f", IoU {iou:.2f}")

    def member_rows(self) -> Members:
        """The rows the list shows, in its order."""
        return self.list.member_rows()

    # --- theme -------------------------------------------------------------------------------
    def apply_palette(self) -> None:
        """Background, axes, curves and legend in the widget palette's colours (the window's
        theme); C75 and C50 fill with the background, as white fills the official plot."""
        pal = self.palette()
        bg, ink, _muted = theme_plot(self.plot, pal)
        self._ink, self._bg = ink, bg
        if hasattr(self, "curve_set"):
            self.redraw()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "curve_set"):
            self.apply_palette()
