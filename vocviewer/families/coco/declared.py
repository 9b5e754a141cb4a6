"""COCO's declarations

What the command line and the registry know of COCO before its readers and evaluators are
imported (``registry.families``): its name, tasks, protocols, options, file hints and a cheap
``sniff``. ``benchmark.CocoBenchmark`` inherits them (one source of truth)."""

from __future__ import annotations

from pathlib import Path

from vocviewer.families.base import CERTAIN, LIKELY, CliOption
from vocviewer.families.coco import FILES
from vocviewer.formats.input import peek

#: Boundary AP's dilation ratio (``--task boundary``); LVIS declares it too
DILATION_OPTION = CliOption(
    "--dilation-ratio",
    "Boundary AP (--task boundary): boundary width as a fraction of the image diagonal "
    "(default 0.02; NOT OFFICIAL otherwise)",
    kind="float",
    metavar="R",
)

#: the options shared by every family evaluating by COCO's rules
OPTIONS = (
    CliOption(
        "--max-dets",
        "COCO detection caps per image, e.g. 1,10,300 (NOT OFFICIAL unless 1,10,100)",
        kind="str",
        metavar="N,N,N",
    ),
    CliOption(
        "--area-ranges",
        "COCO area ranges in px², e.g. all=0:1e10,small=0:1024 (NOT OFFICIAL unless COCO's)",
        kind="str",
        metavar="NAME=LO:HI,...",
    ),
    CliOption(
        "--iou-thresholds",
        "COCO IoU thresholds, e.g. 0.5,0.75 or 0.5:0.95:0.05 (NOT OFFICIAL unless .50:.05:.95)",
        kind="str",
        metavar="T,T|A:B:S",
    ),
    DILATION_OPTION,
)


def json_head(path: Path) -> bytes:
    """The first 4 KB of ``path`` without a BOM or leading blanks (empty if unreadable)."""
    return peek(path).lstrip(b"\xef\xbb\xbf \t\r\n")


class CocoDeclarations:
    """COCO on the command line."""

    name = "coco"
    title = "COCO"
    tasks = ("bbox", "segm", "keypoints", "boundary")
    protocols = ("coco",)
    options = (CliOption("--images", "COCO image folder", source=True), *OPTIONS)
    analyze_tasks = ("bbox", "segm", "boundary")
    priority = 10
    hint = "a COCO annotation .json"
    files = FILES
    #: ``vocviewer convert`` pairs: a COCO file laid out as pycocotools' folder
    conversions = (("coco", "coco"),)

    def sniff(self, path: Path, sources: dict[str, Path | None]) -> float:
        if path.suffix.lower() != ".json":
            return 0.0
        return CERTAIN if self.looks_like_dataset(path) else LIKELY

    def looks_like_dataset(self, path: Path) -> bool:
        """A JSON file whose first character is ``{`` (COCO results are a JSON list)."""
        if not (path.is_file() and path.suffix.lower() == ".json"):
            return False
        return json_head(path).startswith(b"{")


DECLARED = CocoDeclarations()
