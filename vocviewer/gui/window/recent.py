"""``RecentFiles``: the datasets opened lately, with the result sets added to them and the image
set chosen, kept in ``QSettings`` (newest first, at most ``LIMIT``; entries are JSON so paths keep
any character).

Each stored entry is ``{"dataset", "result_sets": [[path, ...], ...], "image_set", "sources"}``
and, once views were saved, ``"views": [{"name", "filter"}, ...]``;
older lists read as well: ``"results": [path, ...]`` (one set: they were opened together) or a
bare path string (the dataset alone). The settings file lives in the user's configuration folder;
a list is never stored when that file would lie inside one of the datasets it names
(``formats.output.guard_target``). A damaged or foreign value reads as an empty list or loses
only its bad entries, never an exception.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from PySide6.QtCore import QObject, QSettings, Signal

from vocviewer.core.errors import OutputError
from vocviewer.formats import output
from vocviewer.gui.models.tasks import Message, image_set_choices

if TYPE_CHECKING:
    from vocviewer.gui.models.state import AppState

KEY = "recent/datasets"
LIMIT = 10


@dataclass(frozen=True)
class RecentEntry:
    """A dataset path, the result sets added to it (each the paths added together), its
    ``open_dataset`` sources (``images``, ``devkit``) as strings, the image set browsed last
    (``""``: all images; ``None``: not recorded) and the saved views (each a name and its
    filter in JSON form: ``core.view_filter.filter_payload``)."""

    dataset: str
    result_sets: tuple[tuple[str, ...], ...] = ()
    sources: dict[str, str] = field(default_factory=dict)
    image_set: str | None = None
    views: tuple[tuple[str, dict[str, Any]], ...] = ()

    def __post_init__(self) -> None:
        """Paths given flat (``("a.txt", "b.txt")``) are one set, as ``open_dataset`` takes them."""
        sets = self.result_sets
        if any(isinstance(p, str) for p in sets):
            flat = tuple(p for p in sets if isinstance(p, str))
            nested = tuple(tuple(p) for p in sets if not isinstance(p, str))
            object.__setattr__(self, "result_sets", ((flat,) if flat else ()) + nested)

    @property
    def results(self) -> tuple[str, ...]:
        """Every result path of every set, in order."""
        return tuple(p for paths in self.result_sets for p in paths)

    def with_results(self, paths: Sequence[str | Path]) -> RecentEntry:
        """This entry with ``paths`` as one more result set (unchanged if empty or known)."""
        new = tuple(str(p) for p in paths)
        if not new or new in self.result_sets:
            return self
        return replace(self, result_sets=(*self.result_sets, new))

    def label(self) -> str:
        """Menu text: the dataset path, its result paths (or sets), its image set."""
        n, k = len(self.results), len(self.result_sets)
        results = f"  (+{n} result{'s' if n != 1 else ''})" if n else ""
        if k > 1:
            results = f"  (+{k} result sets)"
        shown = "all images" if self.image_set == "" else self.image_set
        return self.dataset + results + (f"  [{shown}]" if shown else "")


def _strings(items: object) -> tuple[str, ...]:
    return tuple(i for i in items if isinstance(i, str) and i) if isinstance(items, list) else ()


def _entry(d: object) -> RecentEntry | None:
    """The entry a stored value describes (an object, or an older bare path), else ``None``."""
    if isinstance(d, str) and d:
        return RecentEntry(d)
    if not isinstance(d, dict) or not isinstance(d.get("dataset"), str) or not d["dataset"]:
        return None
    sets, sources = d.get("result_sets"), d.get("sources", {})
    if not isinstance(sources, dict):
        return None
    if isinstance(sets, list):
        result_sets = tuple(s for s in map(_strings, sets) if s)
    else:  # an older entry: the paths were opened together, as one set
        old = _strings(d.get("results", []))
        result_sets = (old,) if old else ()
    image_set = d.get("image_set")
    views = d.get("views", [])
    return RecentEntry(
        d["dataset"],
        result_sets,
        {k: v for k, v in sources.items() if isinstance(k, str) and isinstance(v, str)},
        image_set if isinstance(image_set, str) else None,
        tuple(
            (v["name"], v["filter"])
            for v in (views if isinstance(views, list) else [])
            if isinstance(v, dict)
            and isinstance(v.get("name"), str)
            and isinstance(v.get("filter"), dict)
        ),
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
            {
                "dataset": e.dataset,
                "result_sets": [list(paths) for paths in e.result_sets],
                "image_set": e.image_set,
                "sources": e.sources,
                **({"views": [{"name": n, "filter": f} for n, f in e.views]} if e.views else {}),
            }
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
        """Put ``entry`` first (replacing any entry of the same dataset, whose saved views it
        keeps if it brings none)."""
        entries = self.entries()
        old = next((e for e in entries if e.dataset == entry.dataset), None)
        if old is not None and not entry.views:
            entry = replace(entry, views=old.views)
        self._store([entry] + [e for e in entries if e.dataset != entry.dataset])

    def set_views(self, dataset: str, views: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """Remember ``dataset``'s saved views (JSON form)."""
        self._edit(dataset, lambda e: replace(e, views=tuple(views)))

    def views_of(self, dataset: str) -> tuple[tuple[str, dict[str, Any]], ...]:
        """The saved views remembered with ``dataset`` (none if it is not listed)."""
        return next((e.views for e in self.entries() if e.dataset == dataset), ())

    def add_results(self, dataset: str, paths: Sequence[str | Path]) -> None:
        """Remember result ``paths`` as one more result set of ``dataset`` (no-op if the
        dataset is not listed or the same set is already there)."""
        self._edit(dataset, lambda e: e.with_results(paths))

    def set_image_set(self, dataset: str, image_set: str | None) -> None:
        """Remember that ``dataset`` was last browsed on ``image_set``."""
        self._edit(dataset, lambda e: replace(e, image_set=image_set))

    def _edit(self, dataset: str, change: Callable[[RecentEntry], RecentEntry]) -> None:
        entries = self.entries()
        for i, e in enumerate(entries):
            if e.dataset == dataset:
                new = change(e)
                if new != e:
                    entries[i] = new
                    self._store(entries)
                return

    def clear(self) -> None:
        self._store([])


class Opener(Protocol):
    """What ``SetOpener`` needs of the window (``OpenController``)."""

    state: AppState
    opened: RecentEntry | None

    def open_dataset(
        self,
        path: str | Path,
        results: Sequence[str | Path] = (),
        image_set: str | None = None,
        **sources: str | Path | None,
    ) -> RecentEntry: ...

    def add_results(self, paths: Sequence[str | Path]) -> None: ...


class SetOpener(QObject):
    """Opens a dataset with several result sets: the first with the dataset, each next one once
    the one before it arrived or failed, so that they keep their order in ``state.results``.

    ``image_set`` is browsed once every set is in (as if chosen in the image browser, so a set
    the results were not made on does not stop them from loading; ``""``: all images; ``None``:
    the state's own choice); with ``explicit`` the dataset opens on it instead, as
    ``open_dataset`` does when asked for an image set (``vocviewer open --image-set``). ``index_of[k]`` is the ``state.results`` index of set ``k`` once it
    arrived. ``loaded`` is emitted once the dataset is open (before any result set),
    ``finished`` after the last set; nothing more happens if the dataset fails or another
    dataset is opened meanwhile (the newest opener of a window wins).
    """

    _running: ClassVar[weakref.WeakKeyDictionary[QObject, SetOpener]] = weakref.WeakKeyDictionary()

    loaded = Signal()
    finished = Signal()

    def __init__(
        self,
        window: Opener,
        dataset: str | Path,
        sets: Sequence[Sequence[str | Path]],
        image_set: str | None = None,
        sources: Mapping[str, str | Path] | None = None,
        parent: QObject | None = None,
        *,
        explicit: bool = False,
    ) -> None:
        super().__init__(parent)
        self.window, self.state = window, window.state
        self.sets = [tuple(s) for s in sets if s]
        self.image_set = None if explicit else image_set
        self.index_of: dict[int, int] = {}
        self._next = 0  # the set being loaded
        self._open = self._stopped = False
        st = self.state
        previous = self._running.get(st)
        if previous is not None:
            previous._stop()
        self._running[st] = self
        st.dataset_loaded.connect(self._on_dataset)
        st.results_added.connect(self._on_added)
        st.load_failed.connect(self._on_failed)
        first = self.sets[0] if self.sets else ()
        opens_on = image_set if explicit else None
        self._entry = window.open_dataset(dataset, first, opens_on, **(sources or {}))

    def _on_dataset(self, _dataset: object) -> None:
        if self._open or self.window.opened is not self._entry:  # another dataset opened
            self._stop()
            return
        self._open = True
        self.loaded.emit()
        if not self.sets:
            self._done()

    def _on_added(self, index: int) -> None:
        if self._open:
            self.index_of[self._next] = index
            self._advance()

    def _on_failed(self, _text: str) -> None:
        if self._open:
            self._advance()  # a set that cannot be read: the others still come
        else:
            self._stop()  # the dataset itself failed

    def _advance(self) -> None:
        self._next += 1
        if self._next < len(self.sets):
            self.window.add_results(self.sets[self._next])
        else:
            self._done()

    def _done(self) -> None:
        self._stop()
        st, name = self.state, self.image_set
        if name is not None and st.dataset is not None:
            key = name or None  # "": all images
            if key in (k for _, k in image_set_choices(st.dataset)):
                if key != st.image_set:
                    st.set_image_set(key)
            else:
                where = st.dataset.root or st.dataset.name
                st.post([Message("warning", f"{where}: no image set {name!r} to show")])
        self.finished.emit()

    def _stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        st = self.state
        for signal, slot in (
            (st.dataset_loaded, self._on_dataset),
            (st.results_added, self._on_added),
            (st.load_failed, self._on_failed),
        ):
            signal.disconnect(slot)
        self.deleteLater()
