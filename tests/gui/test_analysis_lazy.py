"""The Analysis tab builds its pages other than TIDE's (and the comparison) the first time they
are shown or reached (``AnalysisPane.built``): a window that never shows them never pays for
them, and a page built late behaves as one built with the window (in the stack, laid out,
its members' zoom requests forwarded)."""

from __future__ import annotations

from vocviewer.gui.panes.analysis.pages import AnalysisPage, page_key
from vocviewer.gui.panes.analysis.pane import CURVES


def _built_pages(pane) -> list[object]:
    """The stack's pages other than TIDE's breakdown and the comparison."""
    stack = pane.stack
    fixed = (pane.splitter, pane.compare)
    return [stack.widget(i) for i in range(stack.count()) if stack.widget(i) not in fixed]


def test_a_new_window_builds_no_page_until_one_is_shown(qtbot, window):
    pane = window.analysis
    assert _built_pages(pane) == []
    assert not pane.isVisible()


def test_a_page_is_built_when_chosen_and_forwards_zoom_requests(qtbot, window):
    win, pane = window, window.analysis
    win.right_tabs.setCurrentWidget(pane)
    qtbot.waitUntil(lambda: pane.chart_combo.findData(CURVES) >= 0, timeout=30_000)
    assert _built_pages(pane) == []  # TIDE's page is in front: nothing else built
    name = next(iter(pane.page_types))
    pane.choose_chart(page_key(name))
    page = pane.stack.currentWidget()
    assert isinstance(page, AnalysisPage) and page.analysis == name
    assert _built_pages(pane) == [page] and page.isVisible()
    assert pane.built(name) is page  # built once: reaching it again finds the same page
    with qtbot.waitSignal(pane.zoom_requested, timeout=1000):
        page.zoom_requested.emit()
    pane.choose_chart(CURVES)
    curves = pane.curves
    assert pane.stack.currentWidget() is curves and curves.isVisible()
    with qtbot.waitSignal(pane.zoom_requested, timeout=1000):
        curves.list.zoom_requested.emit()
    assert len(_built_pages(pane)) == 2
    assert set(pane.pages) == set(pane.page_types)  # ``pages`` reaches (builds) every one
    assert len(_built_pages(pane)) == 1 + len(pane.page_types)
