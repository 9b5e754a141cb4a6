"""``TagsModel``: the window's tags and notes (``core.tags.Tags``), observable.

Targets name detections by the window's result-set index (``AppState.results``); the session
controller maps them to the session's order when saving and back when opening. A new dataset
starts with no tags (a session brings its own).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PySide6.QtCore import QObject, Signal

from vocviewer.core.tags import Fix, TagEntry, Tags, Target
from vocviewer.gui.models.state import AppState


class TagsModel(QObject):
    """The tags of the open dataset.

    Signals
    -------
    changed()
        A tag or note was added, removed or replaced (or all of them, ``replace``).
    """

    changed = Signal()

    def __init__(self, state: AppState, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.tags = Tags()
        self._rows: frozenset[int] | None = None  # tagged_rows, until the tags change
        state.dataset_loaded.connect(lambda _ds: self.replace(Tags()))

    def replace(self, tags: Tags) -> None:
        self.tags, self._rows = tags, None
        self.state.set_tags(tags)  # a filter on tags follows
        self.changed.emit()

    def get(self, target: Target) -> TagEntry:
        return self.tags.get(target)

    def toggle(self, target: Target, tag: str, fix: Fix | None = None) -> bool:
        """Add ``tag`` to ``target`` (with ``fix``) or remove it; whether it is now there."""
        self.replace(self.tags.toggle(target, tag, fix))
        return tag in self.tags.get(target).tags

    def toggle_many(self, targets: Sequence[tuple[Target, Fix | None]], tag: str) -> bool:
        """``tag`` added to every target lacking it (each with its fix), or, if all have it,
        removed from all; one ``changed``. Whether they now have it."""
        if not targets:
            return False
        tags = self.tags
        on = not all(tag in tags.get(t).tags for t, _ in targets)
        changed = [
            tags.toggled(target, tag, fix)
            for target, fix in targets
            if (tag in tags.get(target).tags) != on
        ]
        self.replace(tags.put_all(changed))
        return on

    def set_note(self, target: Target, note: str) -> None:
        self.replace(self.tags.with_note(target, note))

    def tagged_images(self) -> set[str]:
        """Ids of the images with a tag or note on them or on one of their boxes."""
        return self.tags.images()

    def tagged_rows(self) -> frozenset[int]:
        """The dataset's rows of ``tagged_images`` (worked out once per change of the tags)."""
        if self._rows is None:
            ds, ids = self.state.dataset, list(self.tags.images())
            rows = np.flatnonzero(np.isin(ds.images.id, ids)) if ds is not None and ids else []
            self._rows = frozenset(int(r) for r in rows)
        return self._rows
