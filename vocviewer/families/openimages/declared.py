"""Open Images' declarations

What the command line and the registry know of Open Images before its readers and evaluators are
imported (``registry.families``): its name, tasks, protocols, options, file hints and a cheap
``sniff``. ``benchmark.OpenImagesBenchmark`` inherits them (one source of truth)."""

from __future__ import annotations

from pathlib import Path

from vocviewer.families.base import CERTAIN, CliOption
from vocviewer.families.openimages import FILES


class OpenImagesDeclarations:
    """Open Images on the command line."""

    name = "openimages"
    title = "Open Images"
    tasks = ("det",)
    protocols = ("openimages",)
    options: tuple[CliOption, ...] = ()
    analyze_tasks: tuple[str, ...] = ()
    priority = 20
    hint = "an Open Images folder (*-annotations-bbox.csv, class descriptions, hierarchy)"
    files = FILES

    def sniff(self, path: Path, sources: dict[str, Path | None]) -> float:
        return CERTAIN if self.looks_like_dataset(path) else 0.0

    def looks_like_dataset(self, path: Path) -> bool:
        if not path.is_dir():
            return False
        from vocviewer.families.openimages.reader import looks_like_openimages  # a folder

        return looks_like_openimages(path)


DECLARED = OpenImagesDeclarations()
