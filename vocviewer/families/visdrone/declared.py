"""VisDrone-DET's declarations

What the command line and the registry know of VisDrone-DET before its readers and evaluators are
imported (``registry.families``): its name, tasks, protocols, options, file hints and a cheap
``sniff``. ``benchmark.VisDroneBenchmark`` inherits them (one source of truth)."""

from __future__ import annotations

from pathlib import Path

from vocviewer.families.base import CERTAIN, CliOption
from vocviewer.families.visdrone import FILES


class VisDroneDeclarations:
    """VisDrone-DET on the command line."""

    name = "visdrone"
    title = "VisDrone"
    tasks = ("det",)
    protocols = ("visdrone",)
    options: tuple[CliOption, ...] = ()
    analyze_tasks = ("det",)
    priority = 20
    hint = "a VisDrone split (annotations/ and images/)"
    files = FILES

    def sniff(self, path: Path, sources: dict[str, Path | None]) -> float:
        return CERTAIN if self.looks_like_dataset(path) else 0.0

    def looks_like_dataset(self, path: Path) -> bool:
        return path.is_dir() and looks_like_visdrone(path)


def looks_like_visdrone(path: Path) -> bool:
    """A folder holding ``annotations/*.txt`` and no VOC ``Annotations/*.xml``."""
    ann = path / "annotations"
    return ann.is_dir() and any(ann.glob("*.txt"))


DECLARED = VisDroneDeclarations()
