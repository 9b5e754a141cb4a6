"""CVAT / LabelMe's declarations

What the command line and the registry know of CVAT / LabelMe before its readers and evaluators are
imported (``registry.families``): its name, tasks, protocols, options, file hints and a cheap
``sniff``. ``benchmark.CvatBenchmark`` inherits them (one source of truth)."""

from __future__ import annotations

from pathlib import Path

from vocviewer.families.base import CERTAIN, CliOption
from vocviewer.families.cvat import FILES
from vocviewer.formats.input import peek

#: the VOC protocols a CVAT / LabelMe file is evaluated by (boxes)
VOC_PROTOCOLS = ("voc2012", "voc2007")


def looks_like_cvat(path: Path) -> bool:
    """A ``.xml`` file whose first KB opens ``<annotations>`` (cheap)."""
    if not (path.is_file() and path.suffix.lower() == ".xml"):
        return False
    head = peek(path, 2048)
    return b"<annotations" in head and b"<annotation>" not in head


def is_labelme_file(path: Path) -> bool:
    """A ``.json`` file whose first KB shows LabelMe's keys (cheap)."""
    if not (path.is_file() and path.suffix.lower() == ".json"):
        return False
    head = peek(path, 4096)
    return head.lstrip().startswith(b"{") and b'"shapes"' in head


def labelme_files(path: Path) -> list[Path]:
    """The LabelMe files of a folder (sorted by name) or ``[path]`` for one file."""
    if path.is_dir():
        return sorted(f for f in path.glob("*.json") if f.is_file())
    return [path]


def looks_like_labelme(path: Path) -> bool:
    """A LabelMe file, or a folder whose first JSON file is one (cheap)."""
    if path.is_dir():
        files = labelme_files(path)
        return bool(files) and is_labelme_file(files[0])
    return is_labelme_file(path)


class CvatDeclarations:
    """CVAT / LabelMe on the command line."""

    name = "cvat"
    title = "CVAT / LabelMe"
    tasks = ("bbox", "segm")
    protocols = ("coco", *VOC_PROTOCOLS)
    options = (
        CliOption("--images", "CVAT: the image folder (default: beside the XML)", source=True),
    )
    analyze_tasks = ("bbox", "segm")
    priority = 20  # above COCO's: its datasets carry COCO's record too
    hint = "a CVAT for images 1.1 .xml or a folder of LabelMe .json files"
    files = FILES
    #: ``vocviewer convert`` pairs (source family, target format)
    conversions = (("cvat", "coco"), ("coco", "cvat"), ("cvat", "voc"))

    def sniff(self, path: Path, sources: dict[str, Path | None]) -> float:
        return CERTAIN if self.looks_like_dataset(path) else 0.0

    def looks_like_dataset(self, path: Path) -> bool:
        return looks_like_cvat(path) or looks_like_labelme(path)


DECLARED = CvatDeclarations()
