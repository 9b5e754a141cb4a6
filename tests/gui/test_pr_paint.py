"""The PR plot paints its axes from a pixmap kept while they do not change, and the pixels are
those of axes drawn afresh: after an IoU change (new curves, same axes), a resize, a zoom and a
change of theme. It repaints the changes of many curves at once as one rectangle, and what is
on screen after each change (repainted in parts) is what a whole new rendering gives."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint
from PySide6.QtGui import QImage, QPalette
from PySide6.QtWidgets import QApplication, QGraphicsItem, QGraphicsView

from tests.gui.test_consistency import coco_case, open_case
from tests.gui.test_rederive_panes import settled

CACHED = QGraphicsItem.CacheMode.DeviceCoordinateCache


def axes(pane: Any) -> list[Any]:
    item = pane.plot.getPlotItem()
    return [item.getAxis("left"), item.getAxis("bottom")]


def uncached_grab(pane: Any) -> QImage:
    """The plot as it paints with its axes drawn afresh (their cache off, then on again)."""
    for axis in axes(pane):
        axis.setCacheMode(QGraphicsItem.CacheMode.NoCache)
    image = pane.plot.grab().toImage()
    for axis in axes(pane):
        axis.setCacheMode(CACHED)
    return image


def test_cached_axes_paint_as_axes_drawn_afresh(qtbot, make_window, tmp_path):
    win = open_case(qtbot, make_window, coco_case(tmp_path))
    pane, st = win.pr_pane, win.state
    qtbot.waitUntil(lambda: settled(win), timeout=60_000)
    assert all(axis.cacheMode() == CACHED for axis in axes(pane))
    assert pane.classes.on

    def same() -> None:
        QApplication.processEvents()
        shown = pane.plot.grab().toImage()  # from the kept pixmaps
        assert shown == uncached_grab(pane)

    same()
    for value in (0.75, 0.5):
        with qtbot.waitSignal(st.evaluation.evidence_replaced, timeout=60_000):
            st.evaluation.set_iou(value)
        qtbot.waitUntil(lambda: settled(win), timeout=60_000)
        same()
    win.resize(1100, 760)  # a new size: new ticks, a longer grid
    qtbot.wait(50)
    same()
    pane.plot.getPlotItem().setXRange(0.2, 0.8, padding=0.0)  # a zoom: new tick labels
    same()
    palette = QPalette(pane.palette())
    palette.setColor(QPalette.ColorRole.Base, palette.color(QPalette.ColorRole.Text))
    palette.setColor(QPalette.ColorRole.Text, pane.palette().color(QPalette.ColorRole.Base))
    pane.setPalette(palette)  # another theme: the axes' pens change
    pane.apply_palette()
    same()


def on_screen(win: Any, widget: Any) -> QImage:
    """What the window shows of ``widget`` (the screen's copy, updated in parts by repaints)."""
    top = widget.mapTo(win, QPoint(0, 0))
    shot = win.screen().grabWindow(win.winId(), top.x(), top.y(), widget.width(), widget.height())
    return shot.toImage().convertToFormat(QImage.Format.Format_RGB32)


def test_a_change_repaints_as_a_whole_rendering_would(qtbot, make_window, tmp_path):
    win = open_case(qtbot, make_window, coco_case(tmp_path))
    pane, st = win.pr_pane, win.state
    one_rect = QGraphicsView.ViewportUpdateMode.BoundingRectViewportUpdate
    assert pane.plot.viewportUpdateMode() == one_rect
    qtbot.waitUntil(lambda: settled(win), timeout=60_000)
    assert pane.classes.on
    for what, value in (("iou", 0.75), ("area", "small"), ("iou", 0.5), ("area", "all")):
        with qtbot.waitSignal(st.evaluation.evidence_replaced, timeout=60_000):
            (st.evaluation.set_iou if what == "iou" else st.evaluation.set_area)(value)
        qtbot.waitUntil(lambda: settled(win), timeout=60_000)
        qtbot.wait(30)  # the queued repaints
        whole = pane.plot.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
        assert on_screen(win, pane.plot) == whole, (what, value)
