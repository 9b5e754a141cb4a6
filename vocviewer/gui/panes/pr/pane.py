"""``PRPane``: the precision/recall curve of the selected class, as the evaluation gives it.

One point per rank (``ClassEvaluation.precision[r]``, ``recall[r]``), coloured by the rank's verdict;
ranks with NaN precision are not drawn. Every spot carries ``data=rank``, so a click maps straight
to the detection: ``AppState.select_detection(class, rank)``. Nothing is computed here (no AP, no
interpolation): the pane draws what it is given. Dots differ by glyph as well as colour
(``core.palette.ROLE_STYLES``). With no class selected, ``pr_overview.ClassOverview`` draws every
class's curve, names it on hover and selects it on click.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt, Signal
from PySide6.QtGui import QPalette, QResizeEvent
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QMenu, QVBoxLayout, QWidget

from vocviewer.core.dataset import Dataset
from vocviewer.core.palette import ROLE_STYLES
from vocviewer.evaluation.analysis import FPKind
from vocviewer.evaluation.result import ClassEvaluation, Verdict, pr_polyline
from vocviewer.families.official import NOT_OFFICIAL, explain, mark
from vocviewer.gui.models.debounce import REFRESH_DELAY_MS, Debounced
from vocviewer.gui.models.state import AppState
from vocviewer.gui.panes.pane_sizes import keep_plot
from vocviewer.gui.panes.pr.band import PRBand
from vocviewer.gui.panes.pr.overview import SHOWN, ClassOverview
from vocviewer.gui.panes.pr.title import fits_title
from vocviewer.gui.widgets.plot_theme import cache_axes, clear_item, repaint_one_rect, theme_plot
from vocviewer.gui.widgets.verdict_style import (
    FP_KIND_STYLE,
    detection_role,
    detection_style,
    row_style,
)

CURVE_COLOR = "#1f6fb2"
#: Curve colour of result set ``i`` (``i % len``); the first is ``CURVE_COLOR``.
RESULT_COLORS = ("#1f6fb2", "#d81b60", "#f9a825", "#00897b", "#6d4c41", "#5e35b1")
SELECTED_COLOR = "#111111"
#: The title and the note in the plot for a result set that ranks nothing
#: (``LoadedResults.has_curves``).
NO_CURVES = "<b>Segmentation results</b>: no PR curve"
NO_CURVES_NOTE = "Segmentation results have no PR curve:\nsee the Summary tab (IoU per class)"
#: Below this plot height (px) the legend leaves out the counts of TP / FP kinds.
SMALL_PLOT_PX = 330
#: Dot styles in legend order: verdicts (TP, then false positives by kind when diagnosed), as
#: ``(verdict, FPKind or -1)``; ``OTHER`` is drawn as ``SIMILAR`` (both: "wrong class").
DOT_STYLES = (
    (int(Verdict.TP), -1),
    *((int(Verdict.FP), int(kind)) for kind in FP_KIND_STYLE if kind != FPKind.OTHER),
    (int(Verdict.FP), -1),
    (int(Verdict.DUPLICATE), -1),
    (int(Verdict.IGNORED), -1),
)


def dot_codes(verdict: np.ndarray, kind: np.ndarray | None) -> np.ndarray:
    """Each rank's ``DOT_STYLES`` index from its verdict and false-positive kind."""
    index = {style: i for i, style in enumerate(DOT_STYLES)}
    if kind is None:
        kind = np.full(len(verdict), -1)
    kind = np.where(np.isin(kind, list(FP_KIND_STYLE)), kind, -1)
    kind = np.where(kind == FPKind.OTHER, int(FPKind.SIMILAR), kind)
    codes = np.full(len(verdict), index[int(Verdict.IGNORED), -1], dtype=np.int64)
    for (v, k), i in index.items():
        hit = verdict == v
        if v == Verdict.FP:  # by kind where diagnosed, else a plain FP
            hit &= kind == k
        codes[hit] = i
    return codes


def stroke(color: Any) -> Any:
    """The pen of a stroked glyph (``x``, ``+``): its colour, darker when too pale for white."""
    return pg.mkPen(color.darker(170) if color.lightness() > 190 else color, width=1.8)


def reached(recall: np.ndarray, precision: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """An interpolated curve up to the last recall level it reaches: COCO writes precision 0 at
    the recall levels beyond the detector's, which would draw a line to recall 1."""
    hit = np.flatnonzero(precision > 0)
    end = int(hit[-1]) + 1 if len(hit) else 0
    return recall[:end], precision[:end]


class PRPane(QWidget):
    """Precision/recall of the selected class, every result set on the same axes; click a point
    of the current set's curve to open that detection.

    Signals
    -------
    export_requested()
        "Export figure…" was chosen from the right-click menu.
    """

    export_requested = Signal()

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.evaluation: ClassEvaluation | None = None
        self._compact = False
        self.plot = pg.PlotWidget(background="w")
        keep_plot(self.plot)  # the Messages area or a tall tab never crushes it
        item = self.plot.getPlotItem()
        item.setLabel("bottom", "Recall")
        item.setLabel("left", "Precision")
        item.showGrid(x=True, y=True, alpha=0.2)
        cache_axes(self.plot)  # not redrawn with every new curve
        repaint_one_rect(self.plot)  # 80 new curves: one rectangle repainted, not 80
        item.setXRange(-0.02, 1.05, padding=0.0)  # room for the "1.0" tick label
        item.setYRange(-0.02, 1.04, padding=0.0)
        item.setLimits(xMin=-0.05, xMax=1.05, yMin=-0.05, yMax=1.1)
        item.hideButtons()
        item.layout.setContentsMargins(4, 4, 10, 4)
        self._title, self._ink, self._muted = "", "#202124", "#5f6368"  # palette: apply_palette
        self._title_set: tuple[str, str] | None = None  # (rich text, ink) the plot shows
        self.legend = item.addLegend(  # bottom left: where precision/recall curves rarely go
            offset=(8, -8),
            labelTextColor="#202124",
            labelTextSize="9pt",
            brush=pg.mkBrush(255, 255, 255, 220),
            pen=pg.mkPen("#dadce0"),
        )
        self.curve = pg.PlotCurveItem(pen=pg.mkPen(CURVE_COLOR, width=2), connect="finite")
        # COCO / VisDrone: the protocol's own interpolated curve at the chosen IoU, beside the
        # ranked one the verdict dots sit on
        self.interpolated = pg.PlotCurveItem(connect="finite")
        self._dot_pen = pg.mkPen(255, 255, 255, 160, width=0.8)
        self.spots = pg.ScatterPlotItem(
            size=8,
            pen=self._dot_pen,
            hoverable=True,
            hoverSize=11,
            hoverPen=pg.mkPen(SELECTED_COLOR, width=1.5),
            tip=self._tip,
        )
        self.marker = pg.ScatterPlotItem(
            size=17, symbol="o", pen=pg.mkPen(SELECTED_COLOR, width=2.2), brush=None
        )
        item.addItem(self.interpolated)
        item.addItem(self.curve)
        item.addItem(self.spots)
        item.addItem(self.marker)
        self.note = pg.TextItem(NO_CURVES_NOTE, anchor=(0.5, 0.5))  # why the plot stays empty
        self.note.setPos(0.5, 0.5)
        self.note.hide()
        item.addItem(self.note)
        self.band = PRBand(state, item, self.legend, self)  # the bootstrap's precision band
        self._samples = [pg.ScatterPlotItem(size=9, pen=None) for _ in DOT_STYLES]
        self._brushes: list[Any] = []
        self._symbols = [ROLE_STYLES[detection_role(v, k)].glyph for v, k in DOT_STYLES]
        self._style_dots()
        self.others: list[pg.PlotCurveItem] = []  # the other result sets' curves of the class
        self.classes = ClassOverview(
            state, self.plot, self.legend
        )  # every class's curve when no class is selected
        self.overview = self.classes.curves  # class → its thin curve
        self.shown_combo = QComboBox()
        self.shown_combo.addItems([text for text, _, _ in SHOWN])
        self.shown_combo.setToolTip("Which classes the All-classes legend names (by AP)")
        self.shown_bar = QWidget()
        bar = QHBoxLayout(self.shown_bar)
        bar.setContentsMargins(6, 2, 6, 0)
        bar.addWidget(QLabel("Legend:"))
        bar.addWidget(self.shown_combo)
        hint = QLabel("hover: name · click: open")
        hint.setStyleSheet("color: #5f6368")
        bar.addWidget(hint, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.shown_bar)
        layout.addWidget(self.plot)
        self.apply_palette()
        self.refresh()

        item.getViewBox().setMenuEnabled(False)
        self.plot.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.menu = QMenu(self)
        export = self.menu.addAction("Export figure (PNG, SVG, PDF)…")
        export.setStatusTip("Save the precision/recall figure as PNG, SVG or PDF")
        export.triggered.connect(self.export_requested)
        self.menu.addAction(self.band.toggle)
        self.band.changed.connect(self.refresh)
        self.spots.sigClicked.connect(self._on_spots_clicked)
        self.plot.scene().sigMouseMoved.connect(self.classes.hover)
        self.plot.scene().sigMouseClicked.connect(self._on_plot_clicked)
        self.shown_combo.activated.connect(self.classes.set_choice)
        self.plot.customContextMenuRequested.connect(self._on_context_menu)
        state.dataset_loaded.connect(self._on_dataset_loaded)
        state.class_changed.connect(self.refresh)
        state.current_results_changed.connect(self.refresh)
        state.evaluation.started.connect(self.refresh)
        self._refresh_later = Debounced(self.refresh, REFRESH_DELAY_MS, self)
        self._prepare_later = Debounced(self._prepare_curves, 0, self)
        state.evaluation.class_evaluated.connect(self._on_class_evaluated)
        state.evaluation.finished.connect(self._refresh_later.flush_soon)
        state.selection_changed.connect(self._update_marker)
        state.evaluation.evidence_replaced.connect(self.refresh)

    # --- drawing -------------------------------------------------------------------------------
    def _on_dataset_loaded(self, dataset: Dataset) -> None:
        self.classes.clear()
        self.refresh()
        self._prepare_later.request_now()  # the class curves, in a turn of their own

    def _prepare_curves(self) -> None:
        """The class curves made ahead, some per turn, while no results are in or they are
        being evaluated (made on use after: the first drawing of every class, at the end of a
        fast evaluation, made the half not made yet in its stall)."""
        ds, st = self.state.dataset, self.state
        evaluating = any(k.startswith("eval/") for k in st.jobs.running_keys())
        if ds is None or (st.current_results >= 0 and not evaluating):
            return
        if self.classes.prepare(len(ds.classes)):
            self._prepare_later.request_now()  # the next ones in the next turn

    def _style_dots(self) -> None:
        """Brushes of the dots and legend samples in the active palette, glyph per verdict."""
        self._brushes = [pg.mkBrush(detection_style(v, k)[0]) for v, k in DOT_STYLES]
        for sample, brush, symbol in zip(self._samples, self._brushes, self._symbols, strict=True):
            sample.setBrush(brush)
            sample.setSymbol(symbol)
            sample.setPen(stroke(brush.color()) if symbol in "x+" else None)

    def refresh_palette(self) -> None:
        """Redraw in the active palette (View ▸ Palette)."""
        self._style_dots()
        self.refresh()

    def refresh(self) -> None:
        """Redraw from the state's selected class and current result set."""
        st = self.state
        ev = st.class_evaluation(st.selected_class)
        self.show_evaluation(ev)
        self.classes.show(st.selected_class < 0)
        self.shown_bar.setVisible(st.selected_class < 0 and self.classes.on)
        curveless = st.current_results >= 0 and not st.results[st.current_results].has_curves
        self.note.setVisible(curveless)
        self.note.setColor(self._muted)
        if ev is None:
            if st.current_results < 0:
                title = "Add results (Ctrl+R) to evaluate" if st.dataset else ""
            elif curveless:
                title = NO_CURVES  # never "evaluating…": no curve will come
            elif st.selected_class < 0:
                title = self._overview_title()
            else:
                title = f"{st.dataset.classes[st.selected_class]}: evaluating…"  # type: ignore[union-attr]
            self._set_title(title)

    def _overview_title(self) -> str:
        st = self.state
        assert st.dataset is not None
        evals = st.evaluations[st.current_results]
        if evals.summary is not None and not evals.det:  # a summary without classes
            return f"<b>{evals.summary.protocol}</b>: no detections · see the Summary tab"
        mean = evals.headline("det", len(st.dataset.classes))
        settings = st.evaluation.settings
        name = settings.ap_name if settings.averages_thresholds else "mAP"
        m = "evaluating…" if mean is None else f"{name} {mean:.3f}{self._not_official()}"
        return f"<b>All classes</b> &nbsp; {m}"

    def show_evaluation(self, ev: ClassEvaluation | None) -> None:
        """Draw one class's ranked evaluation (``None`` clears the plot)."""
        self.evaluation = ev
        overview = ev is None and self.state.selected_class < 0  # the legend is the overview's
        if not overview:
            self.legend.clear()
        self._show_others(-1)
        self.band.hide()
        if not overview:  # (hidden and shown again by the overview: its area repainted, ~3 ms)
            self.legend.setVisible(ev is not None and len(ev) > 0)
        clear_item(self.interpolated)
        if ev is None or not len(ev):
            for item in (self.curve, self.spots, self.marker):
                clear_item(item)
            if ev is not None:
                view = self.state.evaluation.view_of(self.state.current_results, ev.class_index)
                left = view.left_out if view is not None else ""
                ap = "—" if ev.ap != ev.ap else f"{ev.ap:.3f}"
                ap = f"— ({left}: not in the averages)" if left else ap
                self._set_title(f"{ev.class_name}: no detections (AP {ap}){self._not_official()}")
            return
        ranks = np.flatnonzero(np.isfinite(ev.precision) & np.isfinite(ev.recall))
        x, y = ev.recall[ranks], ev.precision[ranks]
        st = self.state
        pc = st.evaluation.view_of(st.current_results, ev.class_index)
        pc = pc if st.evaluation.settings.averages_thresholds else None
        self.curve.setData(*pr_polyline(ev.recall, ev.precision))
        diagnosis = self.state.class_diagnosis(ev.class_index)
        codes = dot_codes(ev.verdict, diagnosis.kind if diagnosis is not None else None)
        brushes = np.array(self._brushes, dtype=object)[codes[ranks]]
        symbols = np.array(self._symbols, dtype=object)[codes[ranks]]
        pens = [
            stroke(b.color()) if m in "x+" else self._dot_pen
            for b, m in zip(brushes, symbols, strict=True)
        ]
        self.spots.setData(
            x=x, y=y, data=ranks, brush=list(brushes), symbol=list(symbols), pen=pens
        )
        name = self._results_name()
        color = RESULT_COLORS[max(self.state.current_results, 0) % len(RESULT_COLORS)]
        self.curve.setPen(pg.mkPen(color, width=2))
        at, view = "", st.evaluation.view_of(st.current_results, ev.class_index)
        left = view.left_out if view is not None else ""  # out of the averages: no number
        shown = "—" if left else f"{ev.ap:.3f}"
        if pc is not None:
            area = "" if pc.area == "all" else f" {pc.area}"
            at = f"AP{round(pc.iou * 100)}{area} {'—' if left else f'{pc.ap_at:.3f}'}"
            self.legend.addItem(self.curve, f"{name}  AP[.5:.95] {shown}")
            self.interpolated.setPen(pg.mkPen(color, width=1.5, style=Qt.PenStyle.DotLine))
            self.interpolated.setData(*reached(pc.curve_recall, pc.curve_precision))
            self.legend.addItem(self.interpolated, f"interpolated, {at}")
        else:
            self.legend.addItem(self.curve, f"{name}  AP {shown}")
        self.band.draw(ev.class_index, color)
        self._show_others(ev.class_index)
        counts = np.bincount(codes, minlength=len(DOT_STYLES))
        self._compact = self._is_small()
        for i, (v, k) in enumerate(DOT_STYLES):
            if counts[i] and not self._compact:  # a small plot keeps the curve visible instead
                self.legend.addItem(self._samples[i], f"{detection_style(v, k)[2]} ({counts[i]})")
        self._place_legend(x, y)
        ap = f"AP {ev.ap:.3f}" if pc is None else f"{at} · AP[.5:.95] {ev.ap:.3f}"
        if left:  # never a number the averages leave out
            ap = f"AP — ({left}: not in the averages)"
        ap += self._not_official()
        sizes = f"{ev.npos} positives" + ("" if pc is not None else f" · {ev.ndet} detections")
        self._set_title(
            f"<b>{ev.class_name}</b> &nbsp; {ap} &nbsp; "
            f"<span style='color:{self._muted}'>{sizes}</span>"
        )
        self._update_marker()

    def _not_official(self) -> str:
        """A red "NOT OFFICIAL (…)" after numbers that are not official (``families.official``;
        the reasons on hover). ``<font>``: a narrow pane drops ``<span>``s, never this."""
        st = self.state
        text = mark(st.evaluation.not_official(st.current_results))
        return f" <font color='#c5221f'>{text}</font>" if text else ""

    def _is_small(self) -> bool:
        """Too small for the dots' counts in the legend (the status bar's colour key stays)."""
        return self.plot.height() < SMALL_PLOT_PX

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._title and fits_title(self._title, event.size().width()) != fits_title(
            self._title, event.oldSize().width()
        ):
            self._set_title(self._title)
        if self.evaluation is not None and self._is_small() != self._compact:
            self.show_evaluation(self.evaluation)

    def _place_legend(self, x: np.ndarray, y: np.ndarray) -> None:
        """Anchor the legend in the plot corner with the fewest points of the curve under it."""
        corners = {  # (anchor on the legend and on the plot, offset): region it would cover
            ((1, 0), (-8, 8)): (x > 0.5) & (y > 0.62),
            ((0, 1), (8, -8)): (x < 0.5) & (y < 0.38),
            ((1, 1), (-8, -8)): (x > 0.5) & (y < 0.38),
            ((0, 0), (8, 8)): (x < 0.5) & (y > 0.62),
        }
        (anchor, offset), _ = min(corners.items(), key=lambda kv: int(np.count_nonzero(kv[1])))
        self.legend.anchor(itemPos=anchor, parentPos=anchor, offset=offset)

    def _show_others(self, class_index: int) -> None:
        """Draw the other result sets' curves of ``class_index`` (dashed; -1 removes them)."""
        item = self.plot.getPlotItem()
        for curve in self.others:
            item.removeItem(curve)
        self.others = []
        st = self.state
        for i, evals in enumerate(st.evaluations):
            ev = evals.det.get(class_index) if i != st.current_results else None
            if ev is None or not len(ev):
                continue
            pen = pg.mkPen(
                RESULT_COLORS[i % len(RESULT_COLORS)], width=2, style=Qt.PenStyle.DashLine
            )
            curve = pg.PlotCurveItem(*pr_polyline(ev.recall, ev.precision), pen=pen)
            curve.setZValue(-1)
            item.addItem(curve)
            ap_name = st.evaluation.settings.ap_name  # the same AP as the current set's
            self.legend.addItem(curve, f"{st.results[i].results.name}  {ap_name} {ev.ap:.3f}")
            self.others.append(curve)

    def title_html(self) -> str:
        """The plot's whole title (rich text), as set before a narrow pane shortens it."""
        return self._title

    def _set_title(self, html: str) -> None:
        item = self.plot.getPlotItem()
        self._title = html
        if not fits_title(html, self.width()):  # a narrow pane keeps the essentials
            html = re.sub(r"\s*(&nbsp;\s*)*<span[^>]*>.*?</span>", "", html)
        if (html, self._ink) != self._title_set:  # laying out rich text costs ~5 ms
            item.setTitle(html, color=self._ink, size="10pt")
            self._title_set = (html, self._ink)
        reasons = self.state.evaluation.not_official(self.state.current_results)
        item.titleLabel.setToolTip(explain(reasons) if NOT_OFFICIAL in html else "")
        item.titleLabel.setMinimumWidth(0)  # a long title must not widen the plot past the pane

    def apply_palette(self) -> None:
        """Plot background, axes, legend, title and markers in the widget palette's colours
        (the window's theme); called again on every palette change."""
        pal = self.palette()
        bg, ink, muted = theme_plot(self.plot, pal)
        self._ink, self._muted = ink.name(), muted.name()
        self.legend.setBrush(pg.mkBrush(bg.red(), bg.green(), bg.blue(), 220))
        self.legend.setPen(pg.mkPen(pal.color(QPalette.ColorRole.Mid)))
        self.legend.setLabelTextColor(ink)
        self.spots.setPen(pg.mkPen(bg.red(), bg.green(), bg.blue(), 160, width=0.8))
        self.spots.opts["hoverPen"] = pg.mkPen(ink, width=1.5)
        self.marker.setPen(pg.mkPen(ink, width=2.2))
        if self._title:
            self.refresh()  # the title's colours are in its text

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.apply_palette()

    def _results_name(self) -> str:
        st = self.state
        return st.results[st.current_results].results.name if st.current_results >= 0 else ""

    def _update_marker(self, *_args: object) -> None:
        ev, sel = self.evaluation, self.state.selected_detection
        if ev is None or sel is None or sel[0] != ev.class_index:
            self.marker.setData([])
            return
        x, y = float(ev.recall[sel[1]]), float(ev.precision[sel[1]])
        if np.isfinite(x) and np.isfinite(y):
            self.marker.setData([x], [y])
        else:
            self.marker.setData([])

    def _on_class_evaluated(self, index: int, ev: ClassEvaluation) -> None:
        st = self.state
        mine = index == st.current_results and st.selected_class in (-1, ev.class_index)
        if ev.task == "det" and (mine or st.selected_class == ev.class_index):
            self._refresh_later.request()

    def _on_overview_clicked(self, class_index: int, *_args: object) -> None:
        self.state.select_class(class_index)

    def _on_plot_clicked(self, event: Any) -> None:
        """A click near an All-classes curve selects its class."""
        pick = self.evaluation is None and not event.isAccepted()
        if pick and self.classes.click(event.scenePos()):
            event.accept()

    def _tip(self, x: float, y: float, data: Any) -> str:
        ev = self.evaluation
        if ev is None or data is None:
            return ""
        r = int(data)
        ds = self.state.dataset
        image = str(ds.images.id[ev.image_index[r]]) if ds is not None else "?"
        verdict = row_style(self.state.evaluations[self.state.current_results], int(ev.order[r]))[2]
        return (
            f"rank {r + 1} · {verdict}\nscore {ev.score[r]:.4g}\nimage {image}\n"
            f"precision {y:.3f} · recall {x:.3f}"
        )

    def _on_context_menu(self, pos: QPoint) -> None:
        self.menu.popup(self.plot.mapToGlobal(pos))

    # --- clicks --------------------------------------------------------------------------------
    def _on_spots_clicked(self, _item: object, points: Any, event: Any = None) -> None:
        """``spots.sigClicked`` slot: select the clicked rank (the nearest of overlapping spots)."""
        ev = self.evaluation
        if ev is None or points is None or not len(points):
            return
        rank = self._pick(list(points), event)
        self.state.click_pr_point(ev.class_index, rank)

    def _pick(self, points: list[Any], event: Any) -> int:
        ranks = [int(p.data()) for p in points]
        pos = event.pos() if event is not None and hasattr(event, "pos") else None
        if not isinstance(pos, QPointF) or len(points) == 1:
            return min(ranks)
        (x0, x1), (y0, y1) = self.plot.getPlotItem().getViewBox().viewRange()
        sx, sy = max(x1 - x0, 1e-9), max(y1 - y0, 1e-9)
        d = [
            ((p.pos().x() - pos.x()) / sx) ** 2 + ((p.pos().y() - pos.y()) / sy) ** 2
            for p in points
        ]
        best = min(range(len(points)), key=lambda i: (d[i], ranks[i]))
        return ranks[best]
