"""The window at 1366 x 768 and at its default 1400 x 900, with the demo open (issue 20, item 12):
the Analysis charts and lists keep a usable size, the Messages area does not crush the confusion
matrix, and no toolbar widget is silently dropped (the second toolbar wraps under the first)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QAbstractItemView, QWidget

from vocviewer.gui.panes.pane_sizes import (
    LIST_MIN_ROWS,
    MATRIX_MIN_ROWS,
    PLOT_MIN_HEIGHT,
    PLOT_MIN_WIDTH,
)
from vocviewer.gui.window.toolbar_rows import extension_button

SIZES = [(1366, 768), (1400, 900)]


@pytest.fixture
def demo_window(qtbot, make_window, demo):
    win = make_window()
    win.open_each(demo.year_dir, demo.result_sets, "val")  # detections and segmentation PNGs
    st = win.state
    qtbot.waitUntil(lambda: len(st.results) == 2 and st.is_idle(), timeout=60_000)
    return win


def shown_height(widget: QWidget) -> int:
    """Pixel rows of ``widget`` on screen: its rectangle clipped by every parent's (a scroll
    area's viewport, a tab, the window)."""
    if not widget.isVisible():
        return 0
    shown = QRect(widget.mapToGlobal(QPoint(0, 0)), widget.size())
    parent = widget.parentWidget()
    while parent is not None:
        shown &= QRect(parent.mapToGlobal(QPoint(0, 0)), parent.size())
        parent = parent.parentWidget()
    return max(shown.height(), 0)


def shown_rows(view: QAbstractItemView) -> float:
    row = view.sizeHintForRow(0) if view.model().rowCount() else view.fontMetrics().height() + 4
    if hasattr(view, "verticalHeader"):
        row = max(row, view.verticalHeader().defaultSectionSize())
    return shown_height(view.viewport()) / row


def resize(qtbot, win, w: int, h: int) -> None:
    win.resize(w, h)
    qtbot.waitUntil(lambda: win.size().toTuple() == (w, h), timeout=5000)
    qtbot.wait(100)  # the toolbars wrap after the resize event


def reachable(win) -> dict[str, bool]:
    """Each toolbar widget meant to be shown: on screen, or behind its toolbar's » button."""
    out = {}
    for bar in (win.toolbar, win.eval_toolbar):
        ext = extension_button(bar)
        overflow = ext is not None and ext.isVisible()
        for act in bar.actions():
            widget = bar.widgetForAction(act)
            if widget is None or act.isSeparator() or not act.isVisible():
                continue
            name = act.text() or widget.toolTip()[:30]
            inside = bar.rect().contains(widget.geometry())
            out[name] = (widget.isVisible() and inside) or overflow
    return out


@pytest.mark.parametrize("size", SIZES)
def test_every_toolbar_widget_is_shown(qtbot, demo_window, size):
    win = demo_window
    resize(qtbot, win, *size)
    shown = reachable(win)
    assert win.protocol.seg_opacity.isVisible() and "Opacity of the segmentation overlay" in {
        w.toolTip() for w in win.eval_toolbar.findChildren(QWidget) if w.isVisible()
    }
    assert shown and all(shown.values()), shown
    for bar in (win.toolbar, win.eval_toolbar):  # nothing behind a » either
        ext = extension_button(bar)
        assert ext is None or not ext.isVisible()


@pytest.mark.parametrize("width", [1280, 1100])
def test_a_narrower_window_wraps_the_toolbar_instead_of_dropping_widgets(qtbot, demo_window, width):
    win = demo_window
    resize(qtbot, win, width, 768)
    assert win.toolbar_rows.wrapped == (width < win.toolbar_rows.needed_width())
    shown = reachable(win)
    assert all(shown.values()), shown
    assert win.protocol.seg_opacity.isVisible()
    resize(qtbot, win, 1920, 1080)  # and back on one row when there is room
    assert not win.toolbar_rows.wrapped
    assert win.toolbar.geometry().top() == win.eval_toolbar.geometry().top()


@pytest.mark.parametrize("size", SIZES)
def test_the_analysis_charts_and_lists_keep_a_usable_size(qtbot, demo_window, size):
    win = demo_window
    resize(qtbot, win, *size)
    pane = win.analysis
    win.right_tabs.setCurrentWidget(pane)
    qtbot.waitUntil(lambda: pane.tide is not None, timeout=60_000)
    qtbot.wait(100)
    assert shown_height(pane.plot) >= PLOT_MIN_HEIGHT and pane.plot.width() >= PLOT_MIN_WIDTH
    assert shown_rows(pane.list.members) >= LIST_MIN_ROWS
    pane.chart_combo.setCurrentIndex(pane.chart_combo.findData("#curves"))  # analyze()
    qtbot.wait(100)
    curves = pane.curves
    assert curves.isVisible()
    assert shown_height(curves.plot) >= PLOT_MIN_HEIGHT
    assert curves.plot.width() >= PLOT_MIN_WIDTH
    assert shown_rows(curves.list.members) >= LIST_MIN_ROWS
    assert shown_height(win.pr_pane.plot) >= PLOT_MIN_HEIGHT  # and the PR plot above them


@pytest.mark.parametrize("size", SIZES)
def test_messages_do_not_crush_the_confusion_matrix(qtbot, demo_window, size):
    win = demo_window
    resize(qtbot, win, *size)
    win.right_tabs.setCurrentWidget(win.confusion)
    win.display.act_messages.setChecked(True)
    qtbot.waitUntil(lambda: win.confusion.model.rowCount() > 0, timeout=30_000)
    qtbot.wait(100)
    assert win.messages.isVisible() and shown_height(win.messages) >= 60
    assert shown_rows(win.confusion.table) >= MATRIX_MIN_ROWS
    assert shown_height(win.pr_pane.plot) >= PLOT_MIN_HEIGHT
