"""ILSVRC's declarations

What the command line and the registry know of ILSVRC before its readers and evaluators are
imported (``registry.families``): its name, tasks, protocols, options, file hints and a cheap
``sniff``. ``benchmark.IlsvrcBenchmark`` inherits them (one source of truth)."""

from __future__ import annotations

from pathlib import Path

from vocviewer.families.base import CERTAIN, CliOption
from vocviewer.families.ilsvrc import FILES


class IlsvrcDeclarations:
    """ILSVRC on the command line."""

    name = "ilsvrc"
    title = "ILSVRC"
    tasks = ("det", "clsloc")
    protocols = ("ilsvrc",)
    options = (CliOption("--devkit", "ILSVRC devkit root (with data/)", source=True),)
    analyze_tasks = ("det",)
    priority = 40
    hint = "an ILSVRC annotation folder (with --devkit)"
    files = FILES

    def sniff(self, path: Path, sources: dict[str, Path | None]) -> float:
        return CERTAIN if sources.get("devkit") is not None else 0.0

    def looks_like_dataset(self, path: Path) -> bool:
        return False  # needs its devkit


DECLARED = IlsvrcDeclarations()
