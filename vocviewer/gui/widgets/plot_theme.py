"""Plots of the panes: ``fixed_plot`` (no mouse panning, zoom or menu), ``theme_plot`` (a
pyqtgraph plot in its widget's palette colours: the window's theme), ``cache_axes`` (axes
painted from a pixmap while they do not change), ``repaint_one_rect`` (many items changed at
once repainted as one rectangle), ``clear_item`` (a curve or dots emptied unless empty) and
``paint_with_window`` (a scene's changes repainted with the window's next repaint)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QGraphicsView


def theme_plot(plot: pg.PlotWidget, palette: QPalette) -> tuple[QColor, QColor, QColor]:
    """Background and axes of ``plot`` from ``palette``; returns ``(background, ink, muted)``
    (muted: ink blended 55 / 45 into the background, for axes and secondary text)."""
    bg, ink = palette.color(QPalette.ColorRole.Base), palette.color(QPalette.ColorRole.Text)
    mix = zip(ink.getRgbF(), bg.getRgbF(), strict=True)
    muted = QColor.fromRgbF(*(0.55 * a + 0.45 * b for a, b in mix))
    plot.setBackground(bg)
    for side in ("left", "bottom"):
        axis = plot.getPlotItem().getAxis(side)
        axis.setPen(pg.mkPen(muted))
        axis.setTextPen(pg.mkPen(ink))
    return bg, ink, muted


def cache_axes(plot: pg.PlotWidget) -> None:
    """Paint the axes of ``plot`` (ticks, labels and, when shown, the grid across the plot) from
    a pixmap Qt keeps until they change (a new range, size, pen or text: each calls ``update``):
    redrawing them took ~5 ms of every repaint of the PR plot, e.g. after each IoU change whose
    curves are new but whose axes are not. The pixels are the same."""
    for side in ("left", "bottom"):
        plot.getPlotItem().getAxis(side).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)


def repaint_one_rect(plot: pg.PlotWidget) -> None:
    """Repaint what changed in ``plot`` as one rectangle (the bounding rectangle of the changes)
    rather than as the region of every changed item's rectangle: with 80 curves new at once
    (an IoU change on the All-classes plot) drawing clipped to a region of 80 rectangles took
    ~12 ms a repaint, drawing within their bounding rectangle ~7.5 ms. The pixels are the
    same: what is repainted is drawn afresh."""
    plot.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.BoundingRectViewportUpdate)


def fixed_plot(left_label: str, min_height: int = 130) -> pg.PlotWidget:
    """A plot the mouse does not pan, zoom or open a menu on, its y axis named ``left_label``."""
    plot = pg.PlotWidget()
    plot.setMenuEnabled(False)
    plot.setMouseEnabled(x=False, y=False)
    plot.hideButtons()
    plot.setMinimumHeight(min_height)
    plot.getPlotItem().setLabel("left", left_label)
    return plot


def paint_with_window(scene: QGraphicsScene) -> None:
    """Let the changes of ``scene``'s items wait for the window's next repaint instead of
    repainting the window at once: a scene whose ``changed`` signal nobody hears repaints the
    window as soon as it gathers its changes (``QGraphicsView``'s direct updates), so two
    scenes changed together (an IoU change: the image, the PR plot) repaint it twice. Heard,
    its views learn the changes from that signal and repaint with the next repaint of the
    window. Only for a view that repaints its whole viewport (``FullViewportUpdate``): heard,
    the scene reports an item's new rectangle, not the one it leaves, and an item that moves
    its rectangle before telling Qt (pyqtgraph's curves) would leave its old pixels."""
    scene.changed.connect(_ignore)


def _ignore(*_args: object) -> None:
    pass


def clear_item(item: pg.PlotCurveItem | pg.ScatterPlotItem) -> None:
    """Empty ``item`` unless it is empty already: emptying an empty item repaints the plot
    around it, e.g. the class curve and dots on each change of the area range while the
    All-classes curves are shown, whose drawing does not change."""
    if isinstance(item, pg.ScatterPlotItem):
        if len(item.data):
            item.setData([])
    elif item.xData is None or len(item.xData):
        item.setData([], [])
