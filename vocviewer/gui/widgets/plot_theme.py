"""Plots of the panes: ``fixed_plot`` (no mouse panning, zoom or menu) and ``theme_plot`` (a
pyqtgraph plot in its widget's palette colours: the window's theme)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QColor, QPalette


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


def fixed_plot(left_label: str, min_height: int = 130) -> pg.PlotWidget:
    """A plot the mouse does not pan, zoom or open a menu on, its y axis named ``left_label``."""
    plot = pg.PlotWidget()
    plot.setMenuEnabled(False)
    plot.setMouseEnabled(x=False, y=False)
    plot.hideButtons()
    plot.setMinimumHeight(min_height)
    plot.getPlotItem().setLabel("left", left_label)
    return plot
