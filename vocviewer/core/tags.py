"""Tags and notes on images, objects and detections, with the corrections they stand for.

A ``Target`` names what is tagged in terms that survive reopening the same files: an image by its
id, an object by its image id and its position among the image's objects (``order_in_image``), a
detection by the index of its result set (in the session's order) and its row in that set's
``Detections``. A ``TagEntry`` holds a target's tags (``COMMON_TAGS`` or any short text), a free
note and, optionally, the ``Fix`` the tag asks for (a box to add, a class to relabel to, a box to
replace, an object to delete) — what ``formats.tag_export`` writes as annotation patches.
``Tags`` is an immutable collection: every change returns a new one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

#: The tags offered with a key each, in key order (Alt+1 ... Alt+5 in the window).
COMMON_TAGS: tuple[str, ...] = (
    "label error",
    "missing annotation",
    "wrong class",
    "loose box",
    "ambiguous",
)
#: What a target may be.
TARGET_KINDS = ("image", "object", "detection")
#: What a ``Fix`` may do.
FIX_ACTIONS = ("add", "relabel", "rebox", "delete")


@dataclass(frozen=True, order=True)
class Target:
    """``kind`` (``TARGET_KINDS``), ``image`` id, ``index`` (object: position in the image;
    detection: row in its set's ``Detections``; image: -1) and ``result_set`` (detection: the
    set's index; else -1)."""

    kind: str
    image: str
    index: int = -1
    result_set: int = -1

    def __post_init__(self) -> None:
        if self.kind not in TARGET_KINDS:
            raise ValueError(f"a tag target is one of {TARGET_KINDS}, not {self.kind!r}")


@dataclass(frozen=True)
class Fix:
    """A correction: ``action`` (``FIX_ACTIONS``), ``class_name`` (add / relabel: the class),
    ``box`` (add / rebox: xyxy in the dataset's convention); applies to the target's object
    (relabel / rebox / delete) or its image (add)."""

    action: str
    class_name: str | None = None
    box: tuple[float, float, float, float] | None = None

    def __post_init__(self) -> None:
        if self.action not in FIX_ACTIONS:
            raise ValueError(f"a fix is one of {FIX_ACTIONS}, not {self.action!r}")


@dataclass(frozen=True)
class TagEntry:
    """A target's ``tags`` (sorted, unique), ``note`` and ``fix``."""

    target: Target
    tags: tuple[str, ...] = ()
    note: str = ""
    fix: Fix | None = None

    @property
    def empty(self) -> bool:
        return not self.tags and not self.note and self.fix is None


@dataclass(frozen=True)
class Tags:
    """Every ``TagEntry`` by target (an entry with nothing in it is dropped)."""

    entries: dict[Target, TagEntry] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, target: Target) -> TagEntry:
        return self.entries.get(target, TagEntry(target))

    def put(self, entry: TagEntry) -> Tags:
        """A copy with ``entry`` in place of its target's (removed if empty)."""
        entries = dict(self.entries)
        entries.pop(entry.target, None)
        if not entry.empty:
            entries[entry.target] = entry
        return Tags(entries)

    def put_all(self, entries: Iterable[TagEntry]) -> Tags:
        """A copy with each of ``entries`` in place of its target's (``put``, one copy)."""
        out = dict(self.entries)
        for entry in entries:
            out.pop(entry.target, None)
            if not entry.empty:
                out[entry.target] = entry
        return Tags(out)

    def toggled(self, target: Target, tag: str, fix: Fix | None = None) -> TagEntry:
        """``target``'s entry with ``tag`` added (with ``fix``, if given), or removed if it is
        there (its fix with it)."""
        entry = self.get(target)
        if tag in entry.tags:
            kept = tuple(t for t in entry.tags if t != tag)
            return replace(entry, tags=kept, fix=entry.fix if kept else None)
        return replace(entry, tags=tuple(sorted({*entry.tags, tag})), fix=fix or entry.fix)

    def toggle(self, target: Target, tag: str, fix: Fix | None = None) -> Tags:
        """``tag`` toggled on ``target`` (``toggled``)."""
        return self.put(self.toggled(target, tag, fix))

    def renumbered(self, result_set: Callable[[int], int | None]) -> Tags:
        """The tags with each detection's result set renumbered by ``result_set`` (``None``:
        the detection's set is gone and its entry left out)."""
        out: dict[Target, TagEntry] = {}
        for target, entry in self.entries.items():
            if target.kind == "detection":
                where = result_set(target.result_set)
                if where is None:
                    continue
                target = replace(target, result_set=where)
                entry = replace(entry, target=target)
            out[target] = entry
        return Tags(out)

    def with_note(self, target: Target, note: str) -> Tags:
        return self.put(replace(self.get(target), note=note.strip()))

    def sorted(self) -> list[TagEntry]:
        """The entries by image id, then kind, index and result set."""
        return [self.entries[t] for t in sorted(self.entries, key=lambda t: (t.image, t))]

    def images(self) -> set[str]:
        """The ids of the images with any tag or note (on themselves or their boxes)."""
        return {t.image for t in self.entries}
