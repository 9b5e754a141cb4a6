"""The All-classes PR plot: one thin curve per class, named on hover, clicked to select the class.

``ClassOverview`` draws the curves of the current result set when no class is selected. The
curves of the ``n`` best (or worst) classes by AP are coloured and listed in the legend
(``choice``: ``SHOWN``); the rest are light grey. Moving the mouse over the plot highlights the
nearest curve within ``PICK_PX`` screen pixels and names it (class and AP); a click on it selects
that class (``AppState.select_class``). The nearest curve is found over every segment of every
drawn curve at once, in screen pixels.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF

from vocviewer.evaluation.curve_style import CurveStyle
from vocviewer.evaluation.polylines import polyline_of
from vocviewer.evaluation.result import ClassEvaluation
from vocviewer.gui.models.curve_paths import path_of
from vocviewer.gui.models.state import AppState

#: Legend choices: (menu text, "best" / "worst" / "", how many)
SHOWN = (
    ("Best 5 classes", "best", 5),
    ("Worst 5 classes", "worst", 5),
    ("Best 10 classes", "best", 10),
    ("Worst 10 classes", "worst", 10),
    ("No legend", "", 0),
)
#: Curve colours of the listed classes (Tableau 20: dark then light of each hue).
LISTED_COLORS = (
    *("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"),
    *("#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"),
    *("#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5"),
    *("#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5"),
)
UNLISTED_COLOR = (150, 150, 150, 110)
#: How an exported figure draws the listed and the other curves (``ClassOverview.figure``).
LISTED_STYLE_WIDTH, UNLISTED_STYLE = 2.0, CurveStyle("#969696", 1.0, False, 110 / 255)
HOVER_COLOR = "#111111"
#: How close (screen pixels) the mouse must come to a curve to name or click it.
PICK_PX = 8.0


class _Curve(pg.PlotCurveItem):
    """A class's curve, whose data bounds are read straight off its polyline (all finite):
    pyqtgraph's own look, per axis after each new polyline, guards against NaN and infinity
    (~3 ms of the GUI thread per IoU change for 80 curves). Its rectangle is pyqtgraph's, the
    length of a screen pixel in data units given (``pixel``, every curve's the same: one parent,
    no transform of their own) instead of worked out per curve (~1.5 ms for 80 curves)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.pixel: tuple[float, float] | None = None  # (x, y) of ``pixel_lengths``
        super().__init__(*args, **kwargs)

    def viewTransformChanged(self) -> None:
        self.pixel = None  # (a new transform: a pixel's length changed)
        super().viewTransformChanged()

    def boundingRect(self) -> QRectF:
        if self._boundingRect is None and self.pixel is not None:
            (x0, x1), (y0, y1) = self.dataBounds(ax=0), self.dataBounds(ax=1)
            if None not in (x0, x1, y0, y1):
                pad = self.pixelPadding()  # as pyqtgraph's: bounds plus the pen's pixels
                px, py = (self.pixel[0] * pad, self.pixel[1] * pad) if pad > 0 else (0.0, 0.0)
                self._boundingRect = QRectF(
                    x0 - px, y0 - py, (2 * px) + x1 - x0, (2 * py) + y1 - y0
                )
        return super().boundingRect()  # type: ignore[no-any-return]

    def dataBounds(self, ax: int, frac: float = 1.0, orthoRange: Any = None) -> Any:
        data, cache = (self.xData, self.yData)[ax], self._boundsCache[ax]
        plain = frac >= 1.0 and orthoRange is None and self.opts.get("connect") == "all"
        pens = (self.opts["pen"], self.opts["shadowPen"])
        plain = plain and all(p is None or p.isCosmetic() for p in pens)  # (no pen margin)
        if cache is not None or not plain or data is None or not len(data):
            return super().dataBounds(ax, frac, orthoRange)
        bounds = (float(data.min()), float(data.max()))
        if not (math.isfinite(bounds[0]) and math.isfinite(bounds[1])):
            return super().dataBounds(ax, frac, orthoRange)
        self._boundsCache[ax] = [(frac, orthoRange), bounds]
        return bounds


def pixel_lengths(curve: pg.PlotCurveItem) -> tuple[float, float]:
    """The length in data units of a screen pixel along x and along y at ``curve``, as
    pyqtgraph's ``PlotCurveItem.boundingRect`` works it out (0 where there is none)."""
    lengths = []
    for v in curve.pixelVectors():
        try:
            lengths.append(0.0 if v is None else v.length())
        except OverflowError:
            lengths.append(0.0)
    return lengths[0], lengths[1]


class ClassOverview:
    """The overview curves drawn in ``plot`` (a ``pg.PlotWidget``) from ``state``, listed in
    ``legend`` while shown: ``curves`` class → curve item."""

    def __init__(self, state: AppState, plot: pg.PlotWidget, legend: pg.LegendItem) -> None:
        self.state = state
        self.legend = legend
        self.plot_item = plot.getPlotItem()
        self.curves: dict[int, pg.PlotCurveItem] = {}
        self._drawn: dict[int, ClassEvaluation] = {}
        self.choice = 0  # index into SHOWN
        self.listed: list[int] = []  # classes in the legend, in legend order
        self.hovered = -1
        self._ranks: dict[int, int] = {}  # each drawn curve's legend rank as styled (-1: grey)
        self._entries: list[tuple[int, str]] = []  # the legend as filled: (class, text)
        self._segments = np.zeros((0, 4))  # x1, y1, x2, y2 of every drawn segment (data units)
        self._segment_class = np.zeros(0, dtype=np.int64)
        #: the classes whose segments ``nearest`` needs, gathered on the first pick after a draw
        self._segments_due: dict[int, ClassEvaluation] | None = None
        self.label = pg.TextItem(
            color="#202124", fill=pg.mkBrush(255, 255, 255, 230), anchor=(0, 1)
        )
        self.label.setZValue(50)
        self.label.hide()
        self.plot_item.addItem(self.label, ignoreBounds=True)

    @property
    def on(self) -> bool:
        return any(c.isVisible() for c in self.curves.values())

    def clear(self) -> None:
        for curve in self.curves.values():
            self.plot_item.removeItem(curve)
        self.curves.clear()  # in place: ``PRPane.overview`` is this dict
        self._drawn, self.listed, self._ranks, self._entries = {}, [], {}, []
        self._segments_due = {}  # no segments
        self._set_hover(-1)

    def prepare(self, n_classes: int, most: int = 20) -> bool:
        """Create up to ``most`` more of the curves of ``n_classes`` classes, hidden (80 cost
        ~30 ms; done in turns of their own while the results load and are evaluated, so the
        first drawing of every class, when a fast evaluation's classes arrive together, does
        not add that to its stall); whether some are still to make."""
        todo = [k for k in range(n_classes) if k not in self.curves]
        for k in todo[:most]:
            self._curve(k).setVisible(False)
        return len(todo) > most

    def _curve(self, k: int) -> pg.PlotCurveItem:
        """Class ``k``'s curve (created on first use, or by ``prepare``)."""
        if k not in self.curves:
            curve = _Curve(connect="finite")
            self.plot_item.addItem(curve)
            self.curves[k] = curve
        return self.curves[k]

    def show(self, on: bool) -> None:
        """Draw the current result set's class curves (``on``), or hide them all."""
        st = self.state
        done = st.evaluations[st.current_results].det if on and st.current_results >= 0 else {}
        done = {k: ev for k, ev in done.items() if len(ev)}
        for k, curve in self.curves.items():
            if k not in done:
                curve.setVisible(False)
        pixel = None
        for k, ev in done.items():
            curve = self._curve(k)
            if self._drawn.get(k) is not ev:  # new arrivals only: setData is costly
                pixel = pixel_lengths(curve) if pixel is None else pixel
                curve.pixel = pixel
                # the polyline's points are all finite: one polygon, no looking for gaps
                curve.setData(*polyline_of(ev), connect="all", skipFiniteCheck=True)
                path = path_of(ev)  # (the path it would build, built in the worker)
                if path is not None:
                    curve.path = path
                self._drawn[k] = ev
            curve.setVisible(True)
        self._segments_due = done  # gathered when a pick needs them, not on every redraw
        self._restyle(done)
        if not done:
            self._set_hover(-1)
            if on:  # no curve yet: no legend (``_restyle`` shows it with curves)
                self.legend.setVisible(False)

    def _segments_of(self, done: dict[int, ClassEvaluation]) -> None:
        parts, owners = [], []
        for k in done:
            x, y = self.curves[k].getData()
            if x is None or len(x) < 2:
                continue
            seg = np.column_stack((x[:-1], y[:-1], x[1:], y[1:]))
            seg = seg[np.isfinite(seg).all(axis=1)]
            parts.append(seg)
            owners.append(np.full(len(seg), k, dtype=np.int64))
        self._segments = np.concatenate(parts) if parts else np.zeros((0, 4))
        self._segment_class = np.concatenate(owners) if owners else np.zeros(0, dtype=np.int64)

    def _restyle(self, done: dict[int, ClassEvaluation]) -> None:
        """Colour the listed classes, grey the rest, and fill the legend."""
        _, order, n = SHOWN[self.choice]
        aps = sorted(done, key=lambda k: (-done[k].ap if order == "best" else done[k].ap, k))
        self.listed = aps[:n] if order else []
        rank = {k: i for i, k in enumerate(self.listed)}
        legend = self.legend
        for k in done:  # restyled only where the rank changed (80 pens cost ~10 ms)
            curve, r = self.curves[k], rank.get(k, -1)
            if self._ranks.get(k) == r:
                continue
            self._ranks[k] = r
            if r >= 0:
                curve.setPen(pg.mkPen(LISTED_COLORS[r % len(LISTED_COLORS)], width=1.6))
                curve.setZValue(2 + len(self.listed) - r)
            else:
                curve.setPen(pg.mkPen(UNLISTED_COLOR, width=1))
                curve.setZValue(1)
        if done:  # shown: the legend is the overview's (the class view clears it first)
            ds = self.state.dataset
            names = ds.classes if ds is not None else ()
            entries = [
                (k, f"{names[k] if k < len(names) else k}  {done[k].ap:.3f}") for k in self.listed
            ]
            if entries != self._entries or len(legend.items) != len(entries):  # ~4 ms an item
                legend.clear()
                for k, text in entries:
                    legend.addItem(self.curves[k], text)
                self._entries = entries
            legend.setVisible(bool(self.listed))
            # bottom left: below every curve's start, where PR curves rarely go
            legend.anchor(itemPos=(0, 1), parentPos=(0, 1), offset=(8, -8))
        if self.hovered in done:
            self._set_hover(self.hovered)
        else:
            self._set_hover(-1)

    def figure(self) -> tuple[list[tuple[str, ClassEvaluation]], list[CurveStyle]]:
        """The plot as shown, to export it: each drawn class's ``(name, evaluation)`` and its
        ``CurveStyle`` — the unlisted ones grey and unnamed, then the listed ones in legend
        order, coloured and named (empty when the overview is not shown)."""
        ds = self.state.dataset
        shown = {k: ev for k, ev in self._drawn.items() if self.curves[k].isVisible()}
        listed = [k for k in self.listed if k in shown]
        curves: list[tuple[str, ClassEvaluation]] = []
        styles: list[CurveStyle] = []
        for k in [k for k in sorted(shown) if k not in listed] + listed:
            curves.append((ds.classes[k] if ds is not None else str(k), shown[k]))
            if k in listed:
                color = LISTED_COLORS[listed.index(k) % len(LISTED_COLORS)]
                styles.append(CurveStyle(color, LISTED_STYLE_WIDTH))
            else:
                styles.append(UNLISTED_STYLE)
        return curves, styles

    def set_choice(self, index: int) -> None:
        """Which classes the legend lists (``SHOWN[index]``)."""
        self.choice = int(index)
        if self.on:
            self.show(True)

    # --- hover and click -----------------------------------------------------------------------
    def nearest(self, scene_pos: QPointF) -> int:
        """The class whose curve passes nearest ``scene_pos`` (scene coordinates of the plot),
        within ``PICK_PX`` screen pixels; -1 if none."""
        if self._segments_due is not None:
            self._segments_of(self._segments_due)
            self._segments_due = None
        if not self.on or not len(self._segments):
            return -1
        vb = self.plot_item.getViewBox()
        if not vb.sceneBoundingRect().contains(scene_pos):
            return -1
        p = vb.mapSceneToView(scene_pos)
        (x0, x1), (y0, y1) = vb.viewRange()
        rect = vb.sceneBoundingRect()
        sx, sy = rect.width() / max(x1 - x0, 1e-12), rect.height() / max(y1 - y0, 1e-12)
        s = self._segments * (sx, sy, sx, sy)
        px, py = p.x() * sx, p.y() * sy
        dx, dy = s[:, 2] - s[:, 0], s[:, 3] - s[:, 1]
        length2 = dx * dx + dy * dy
        with np.errstate(invalid="ignore", divide="ignore"):
            t = np.clip(((px - s[:, 0]) * dx + (py - s[:, 1]) * dy) / length2, 0.0, 1.0)
        t = np.nan_to_num(t)
        d2 = (s[:, 0] + t * dx - px) ** 2 + (s[:, 1] + t * dy - py) ** 2
        i = int(np.argmin(d2))
        return int(self._segment_class[i]) if d2[i] <= PICK_PX**2 else -1

    def hover(self, scene_pos: QPointF) -> int:
        """Highlight and name the curve nearest ``scene_pos``; returns its class (-1: none)."""
        k = self.nearest(scene_pos)
        self._set_hover(k, scene_pos)
        return k

    def click(self, scene_pos: QPointF) -> bool:
        """Select the class of the curve under ``scene_pos``; whether there was one."""
        k = self.nearest(scene_pos)
        if k >= 0:
            self.state.select_class(k)
        return k >= 0

    def _set_hover(self, k: int, scene_pos: QPointF | None = None) -> None:
        if self.hovered in self.curves and self.hovered != k:
            self.curves[self.hovered].setShadowPen(None)
        self.hovered = k
        if k < 0 or k not in self._drawn:
            self.label.hide()
            self.hovered = -1
            return
        curve = self.curves[k]
        curve.setShadowPen(pg.mkPen(HOVER_COLOR, width=3.5))
        ds = self.state.dataset
        name = ds.classes[k] if ds is not None else str(k)
        ev = self._drawn[k]
        self.label.setText(f"{name}  AP {ev.ap:.3f} · click to open")
        if scene_pos is not None:
            p = self.plot_item.getViewBox().mapSceneToView(scene_pos)
            self.label.setPos(p.x(), p.y())
        self.label.show()
