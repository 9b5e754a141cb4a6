"""What the window's dialogs, tool tips, drop message and help call the files it opens, read from
the registry's families (``families.registry.file_types``): a new family appears in them with no edit here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vocviewer.families.base import FileTypes


def listed(items: Iterable[str]) -> str:
    """``a, b or c`` (each item once, in order)."""
    kept = list(dict.fromkeys(items))
    return ", ".join(kept[:-1]) + f" or {kept[-1]}" if len(kept) > 1 else "".join(kept)


def _types() -> list[FileTypes]:
    from vocviewer.families.registry import file_types

    return file_types()


def dataset_folders() -> str:
    """The folders Open dataset folder opens (``a VOCdevkit year, a VisDrone split or ...``)."""
    return listed(t.dataset for t in _types() if not t.annotation_file)


def annotation_files() -> str:
    """The files Open annotation file opens (``a COCO annotation JSON or ...``)."""
    return listed(t.dataset for t in _types() if t.annotation_file)


def any_dataset() -> str:
    """Every kind of dataset the window opens."""
    return listed(t.dataset for t in _types())


def _filter(title: str, patterns: Iterable[str]) -> str:
    return f"{title} ({' '.join(dict.fromkeys(patterns))});;All files (*)"


def annotation_filter() -> str:
    """The file dialog filter of Open annotation file."""
    return _filter("Annotations", (p for t in _types() for p in t.dataset_patterns))


def results_filter() -> str:
    """The file dialog filter of Add results."""
    return _filter("Results", (p for t in _types() for p in t.result_patterns))


def results_folders() -> str:
    """The folders Add results folder takes (``results/VOC20xx or ...``)."""
    return listed(t.results_folder for t in _types() if t.results_folder)
