"""YOLO's declarations

What the command line and the registry know of YOLO before its readers and evaluators are
imported (``registry.families``): its name, tasks, protocols, options, file hints and a cheap
``sniff``. ``benchmark.YoloBenchmark`` inherits them (one source of truth)."""

from __future__ import annotations

from pathlib import Path

from vocviewer.families.base import CERTAIN, LIKELY, CliOption
from vocviewer.families.coco.declared import OPTIONS as PARAM_OPTIONS
from vocviewer.families.yolo import FILES

TITLE = "YOLO"
YAML_SUFFIXES = (".yaml", ".yml")


def is_yaml(path: Path) -> bool:
    return path.suffix.lower() in YAML_SUFFIXES


def looks_like_yolo(path: Path) -> bool:
    """A YAML with a ``names`` key (in its first 64 KB), or a folder with ``images/`` and
    ``labels/``. Cheap."""
    if path.is_dir():
        return (path / "images").is_dir() and (path / "labels").is_dir()
    if not (path.is_file() and is_yaml(path)):
        return False
    try:
        with path.open("rb") as f:
            head = f.read(65536)
    except OSError:
        return False
    return any(line.startswith(b"names:") for line in head.splitlines())


class YoloDeclarations:
    """YOLO on the command line."""

    name = "yolo"
    title = TITLE
    tasks = ("bbox", "segm", "keypoints", "boundary")
    protocols = ("yolo",)
    options = (
        CliOption(
            "--split", "YOLO split: val (default), test or train", kind="str", metavar="NAME"
        ),
        *PARAM_OPTIONS,
    )
    analyze_tasks: tuple[str, ...] = ("bbox", "segm", "boundary")
    priority = 20  # above COCO's and LVIS's: its datasets are COCO datasets too
    hint = "a YOLO dataset .yaml (or a folder with images/ and labels/)"
    files = FILES
    #: ``vocviewer convert`` pairs (source family, target format)
    conversions = (("coco", "yolo"), ("yolo", "coco"), ("yolo", "voc"))

    def sniff(self, path: Path, sources: dict[str, Path | None]) -> float:
        """Sure of a YAML with ``names`` or an ``images/`` + ``labels/`` folder; any other
        YAML might be a broken dataset YAML (its reader says what is wrong)."""
        if looks_like_yolo(path):
            return CERTAIN
        return LIKELY if path.is_file() and is_yaml(path) else 0.0

    def looks_like_dataset(self, path: Path) -> bool:
        return looks_like_yolo(path)


DECLARED = YoloDeclarations()
