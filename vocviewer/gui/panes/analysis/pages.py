"""The Analysis tab's pages of the analyses beyond AP (``evaluation.analyses.registry``): each
page module declares its page, an ``AnalysisPage`` naming its analysis; ``BUILTIN`` lists them in
the chart combo's order and ``register_page`` adds one at run time (a plug-in, a test). The tab
(``pane``) builds one of each, titled by its analysis's ``title``, and draws it from the
window's own evidence (``models.beyond_source``)."""

from __future__ import annotations

import importlib
from typing import Any, ClassVar

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from vocviewer.gui.models.beyond_source import BeyondSource
from vocviewer.gui.models.state import AppState

#: the page classes, ``"module:Class"``, in the chart combo's order
BUILTIN: tuple[str, ...] = (
    "vocviewer.gui.panes.analysis.operating:OperatingChart",
    "vocviewer.gui.panes.analysis.reliability:ReliabilityChart",
    "vocviewer.gui.panes.analysis.lrp_page:LRPChart",
)


class AnalysisPage(QWidget):
    """The page of analysis ``analysis`` (its registry name): built as ``Page(state, source)``,
    ``redraw()`` draws ``result()`` (``None`` while it is computed: ``source.waiting_words()``
    says why).

    Signals
    -------
    zoom_requested()
        A listed detection was opened (Enter / double-click): show it zoomed in.
    """

    analysis: ClassVar[str] = ""
    zoom_requested = Signal()

    def __init__(
        self, state: AppState, source: BeyondSource, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.state, self.source = state, source

    def result(self) -> Any | None:
        """This page's analysis of what the window shows (``None``: not computed yet)."""
        return self.source.result(self.analysis)

    def redraw(self) -> None:
        raise NotImplementedError


_added: list[type[AnalysisPage]] = []


def pages() -> tuple[type[AnalysisPage], ...]:
    """Every page class, the built-in ones first."""
    builtin = []
    for spec in BUILTIN:
        module, _, name = spec.partition(":")
        builtin.append(getattr(importlib.import_module(module), name))
    return (*builtin, *_added)


def register_page(page: type[AnalysisPage]) -> None:
    """Add ``page`` after the others (windows built from now on show it)."""
    _added.append(page)


def unregister_page(page: type[AnalysisPage]) -> None:
    _added[:] = [p for p in _added if p is not page]


def page_key(analysis: str) -> str:
    """The chart combo's data of analysis ``analysis``'s page (``AnalysisPane.choose_chart``)."""
    return f"#{analysis}"
