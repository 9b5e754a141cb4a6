"""A new analysis's page is one class naming its analysis, registered at run time
(``gui.panes.analysis.pages.register_page``): the window's Analysis tab lists it under its
analysis's title, computes it from the window's own evidence and shows it, with no other file
edited (the analysis itself: ``tests/toy_analysis.py``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from tests.gui.test_analysis_pane import _open
from tests.toy_analysis import TOY
from vocviewer.evaluation.analyses import registry
from vocviewer.evaluation.result import Verdict
from vocviewer.gui.models.beyond_source import BeyondSource
from vocviewer.gui.models.state import AppState
from vocviewer.gui.panes.analysis.pages import (
    AnalysisPage,
    page_key,
    register_page,
    unregister_page,
)

SHOTS = os.environ.get("VOCVIEWER_SHOTS")  # a folder: save the page's screenshot there


class ToyPage(AnalysisPage):
    """The toy's page: the selected class's count (all classes: the sum)."""

    analysis = TOY.name

    def __init__(self, state: AppState, source: BeyondSource, parent: QWidget | None = None):
        super().__init__(state, source, parent)
        self.label = QLabel()
        QVBoxLayout(self).addWidget(self.label)

    def redraw(self) -> None:
        r, k = self.result(), self.state.selected_class
        if r is None:
            self.label.setText(self.source.waiting_words())
            return
        hits = [h for c, (_, h) in r.hits.items() if k < 0 or c == k]
        self.label.setText(f"{sum(hits)} true positives among the top {r.top} ranks")


@pytest.fixture
def toy() -> Iterator[None]:
    registry.register(TOY)
    register_page(ToyPage)
    yield
    unregister_page(ToyPage)
    registry.unregister(TOY.name)


def test_a_registered_page_shows_its_analysis_of_the_windows_evidence(
    toy, qtbot, make_window, demo
):
    win = _open(qtbot, make_window, demo.year_dir, (demo.results_dir,), "val")
    st, pane = win.state, win.analysis
    combo = pane.chart_combo
    i = combo.findData(page_key(TOY.name))
    assert i >= 0 and combo.itemText(i) == TOY.title
    page = pane.pages[TOY.name]
    pane.choose_chart(page_key(TOY.name))
    assert pane.stack.currentWidget() is page
    qtbot.waitUntil(lambda: "true positives" in page.label.text(), timeout=20_000)
    evidence = st.evaluation.evidence(st.current_results)  # the window's own
    evs = evidence.evaluations("det")
    want = sum(int(v == Verdict.TP) for e in evs for v in e.verdict[:5])
    assert page.label.text() == f"{want} true positives among the top 5 ranks"
    cat = st.dataset.classes.index("cat")
    st.select_class(cat)
    page.redraw()
    mine = next(e for e in evs if e.class_index == cat)
    assert page.label.text().startswith(f"{int((mine.verdict[:5] == Verdict.TP).sum())} ")
    if SHOTS:
        win.grab().save(str(Path(SHOTS, "toy-analysis.png")))
