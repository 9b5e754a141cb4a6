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


def test_the_analysis_tab_itself_is_built_when_first_shown(qtbot, make_window, tiny):
    """``MainWindow.analysis``: a window whose Analysis tab is never shown never builds it (nor
    imports it); showing the tab builds it in its place, in front, as if built with the window."""
    from vocviewer.gui.panes.analysis.pane import AnalysisPane

    win = make_window()
    win.state.set_dataset(tiny[0])
    with qtbot.waitSignal(win.state.evaluation.finished, timeout=10_000):
        win.state.add_result_set(tiny[1])
    qtbot.waitUntil(win.state.is_idle, timeout=10_000)
    tabs = win.right_tabs
    index = next(i for i in range(tabs.count()) if tabs.tabText(i) == "Analysis")
    assert win.findChildren(AnalysisPane) == [] and win._analysis is None
    changed: list[int] = []
    tabs.currentChanged.connect(changed.append)
    tabs.setCurrentIndex(index)
    pane = tabs.currentWidget()
    assert isinstance(pane, AnalysisPane) and win.analysis is pane
    assert tabs.indexOf(pane) == index and tabs.tabText(index) == "Analysis"
    assert changed == [index] and pane.isVisible()
    assert win.findChildren(AnalysisPane) == [pane]  # once
    qtbot.waitUntil(lambda: pane.tide is not None, timeout=30_000)  # it works as before
    with qtbot.waitSignal(win.pr_pane.band.changed, timeout=1000):  # the PR plot's bootstrap
        pane.jobs.outcome_changed.emit()  # band follows its jobs


def test_asking_for_the_analysis_tab_builds_it_behind(qtbot, make_window):
    win = make_window()
    front = win.right_tabs.currentWidget()
    pane = win.analysis
    assert win.right_tabs.currentWidget() is front and not pane.isVisible()
    assert win.right_tabs.indexOf(pane) >= 0 and win.analysis is pane
