"""``SavedViews``: the window's named filters (``core.view_filter.ViewFilter``), observable.

A saved view is a name and a filter; saving under a name that exists replaces it. Sessions store
them (``formats.session``: ``views``) and Open Recent keeps them with the dataset; a new dataset
starts with the views its session or recent entry brings (none otherwise).
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QObject, Signal

from vocviewer.core.view_filter import ViewFilter


class SavedViews(QObject):
    """Named filters, in the order saved.

    Signals
    -------
    changed()
        A view was saved or removed (or all of them replaced).
    """

    changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.views: dict[str, ViewFilter] = {}

    def save(self, name: str, flt: ViewFilter) -> None:
        self.views[name] = flt
        self.changed.emit()

    def remove(self, name: str) -> None:
        if self.views.pop(name, None) is not None:
            self.changed.emit()

    def replace(self, views: Iterable[tuple[str, ViewFilter]]) -> None:
        self.views = dict(views)
        self.changed.emit()

    def name_of(self, flt: ViewFilter) -> str | None:
        """The name of a saved view equal to ``flt`` (the first), else ``None``."""
        return next((n for n, f in self.views.items() if f == flt), None)
