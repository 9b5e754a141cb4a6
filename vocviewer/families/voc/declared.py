"""PASCAL VOC's declarations

What the command line and the registry know of PASCAL VOC before its readers and evaluators are
imported (``registry.families``): its name, tasks, protocols, options, file hints and a cheap
``sniff``. ``benchmark.VocBenchmark`` inherits them (one source of truth)."""

from __future__ import annotations

from pathlib import Path

from vocviewer.families.base import CERTAIN, CliOption
from vocviewer.families.voc import FILES

#: what a VOC dataset looks like (the "not a dataset" message)
VOC_HINT = (
    "a PASCAL VOC folder (a year folder with Annotations/ and ImageSets/, or a "
    "VOCdevkit folder holding one)"
)


class VocDeclarations:
    """PASCAL VOC on the command line."""

    name = "voc"
    title = "VOC"
    tasks = ("det", "cls", "seg", "layout", "action")
    protocols = ("voc2007", "voc2012")
    options = (
        CliOption(
            "--image-set",
            "VOC image set (default: the one named in the result file names)",
            kind="str",
            metavar="S",
        ),
        CliOption(
            "--iou",
            "VOC detection: IoU threshold of a match (default 0.5, the devkit's; any other "
            "makes the numbers NOT OFFICIAL)",
            kind="float",
            metavar="T",
        ),
    )
    analyze_tasks = ("det", "cls")
    priority = 30
    hint = VOC_HINT
    files = FILES
    #: ``vocviewer convert`` pairs (source family, target format)
    conversions = (("coco", "voc"),)

    def sniff(self, path: Path, sources: dict[str, Path | None]) -> float:
        return CERTAIN if self.looks_like_dataset(path) else 0.0

    def looks_like_dataset(self, path: Path) -> bool:
        if not path.is_dir():
            return False
        from vocviewer.families.voc.reader import looks_like_voc  # a folder: VOC's reader runs

        return looks_like_voc(path)


DECLARED = VocDeclarations()
