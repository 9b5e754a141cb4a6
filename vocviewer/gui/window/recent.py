"""``RecentFiles``: the datasets opened lately, with the result files added to them, kept in
``QSettings`` (newest first, at most ``LIMIT``; entries are JSON so paths keep any character).

The settings file lives in the user's configuration folder; a list is never stored when that file
would lie inside one of the datasets it names (``formats.output.guard_target``). A damaged or
foreign value reads as an empty list or loses only its bad entries, never an exception.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Signal

from vocviewer.core.errors import OutputError
from vocviewer.formats import output

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


def _entry(d: object) -> RecentEntry | None:
    """The entry a stored JSON object describes, or ``None`` if it is not one."""
    if not isinstance(d, dict) or not isinstance(d.get("dataset"), str) or not d["dataset"]:
        return None
    results, sources = d.get("results", []), d.get("sources", {})
    if not isinstance(results, list) or not isinstance(sources, dict):
        return None
    return RecentEntry(
        d["dataset"],
        tuple(r for r in results if isinstance(r, str)),
        {k: v for k, v in sources.items() if isinstance(k, str) and isinstance(v, str)},
    )


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
        self.error: OutputError | None = None  # why the list was last not stored, if it was not

    def entries(self) -> list[RecentEntry]:
        raw = self.settings.value(KEY, "[]")
        try:
            items = json.loads(raw) if isinstance(raw, str) else []
        except (ValueError, RecursionError):
            return []  # a damaged entry list is forgotten, not fatal
        if not isinstance(items, list):
            return []
        return [e for e in map(_entry, items[: 4 * LIMIT]) if e is not None][:LIMIT]

    def _store(self, entries: Sequence[RecentEntry]) -> None:
        data = [
            {"dataset": e.dataset, "results": list(e.results), "sources": e.sources}
            for e in entries[:LIMIT]
        ]
        named = [Path(p) for e in entries[:LIMIT] for p in (e.dataset, *e.sources.values())]
        roots = [p if p.is_dir() else p.parent for p in named if p.exists()]
        try:  # a settings file inside a dataset it lists (an odd XDG_CONFIG_HOME) stays untouched
            output.guard_target(self.settings.fileName(), roots)
        except OutputError as e:
            self.error = e
            return
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
