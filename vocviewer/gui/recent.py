"""``RecentFiles``: the datasets opened lately, with the result files added to them, kept in
``QSettings`` (newest first, at most ``LIMIT``; entries are JSON so paths keep any character)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Signal

KEY = "recent/datasets"
LIMIT = 10


@dataclass(frozen=True)
class RecentEntry:
    """A dataset path, the result paths added to it, and its ``open_dataset`` sources
    (``images``, ``devkit``) as strings."""

    dataset: str
    results: tuple[str, ...] = ()
    sources: dict[str, str] = field(default_factory=dict)

    def label(self) -> str:
        """Menu text: the dataset path, and how many result sets come with it."""
        n = len(self.results)
        return self.dataset + (f"  (+{n} result{'s' if n != 1 else ''})" if n else "")


def default_settings() -> QSettings:
    """The user's settings file (INI, per user)."""
    return QSettings(
        QSettings.Format.IniFormat, QSettings.Scope.UserScope, "vocviewer", "vocviewer"
    )


class RecentFiles(QObject):
    """Newest-first list of ``RecentEntry`` in ``settings``; ``changed`` after every edit."""

    changed = Signal()

    def __init__(self, settings: QSettings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.settings = settings

    def entries(self) -> list[RecentEntry]:
        raw = self.settings.value(KEY, "[]")
        try:
            items = json.loads(raw if isinstance(raw, str) else "[]")
            return [
                RecentEntry(
                    str(d["dataset"]),
                    tuple(str(r) for r in d.get("results", [])),
                    {str(k): str(v) for k, v in d.get("sources", {}).items()},
                )
                for d in items
            ]
        except (ValueError, TypeError, KeyError, AttributeError):
            return []  # a damaged entry list is forgotten, not fatal

    def _store(self, entries: Sequence[RecentEntry]) -> None:
        data = [
            {"dataset": e.dataset, "results": list(e.results), "sources": e.sources}
            for e in entries[:LIMIT]
        ]
        self.settings.setValue(KEY, json.dumps(data))
        self.settings.sync()
        self.changed.emit()

    def add(self, entry: RecentEntry) -> None:
        """Put ``entry`` first (replacing any entry of the same dataset)."""
        self._store([entry] + [e for e in self.entries() if e.dataset != entry.dataset])

    def add_results(self, dataset: str, paths: Sequence[str | Path]) -> None:
        """Remember result ``paths`` for ``dataset`` (no-op if the dataset is not listed)."""
        entries = self.entries()
        for i, e in enumerate(entries):
            if e.dataset == dataset:
                new = tuple(dict.fromkeys(e.results + tuple(str(p) for p in paths)))
                entries[i] = RecentEntry(e.dataset, new, e.sources)
                self._store(entries)
                return

    def clear(self) -> None:
        self._store([])
