"""Open a dataset or results by sniffing what a path holds: a PASCAL VOC folder, a VisDrone
split (``annotations/`` + ``images/``) or a COCO annotation JSON. ILSVRC needs its devkit and is
opened by ``formats.ilsvrc.read_ilsvrc_det`` directly."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.formats.coco import read_coco
from vocviewer.formats.coco_results import read_coco_results
from vocviewer.formats.ilsvrc import read_ilsvrc_det, read_ilsvrc_det_results
from vocviewer.formats.input import check_regular
from vocviewer.formats.visdrone import looks_like_visdrone, read_visdrone, read_visdrone_results
from vocviewer.formats.voc import looks_like_voc, read_voc, read_voc_results

_VOC_HINT = (
    "expected a PASCAL VOC folder (a year folder with Annotations/ and ImageSets/, or a "
    "VOCdevkit folder holding one), a VisDrone split (annotations/ and images/) or a COCO "
    "annotation .json"
)


def open_dataset(
    path: str | Path, *, images: str | Path | None = None, devkit: str | Path | None = None
) -> Dataset:
    """Read the dataset at ``path``, whatever its format (PASCAL VOC, VisDrone, COCO JSON, or an
    ILSVRC annotation folder when ``devkit`` is given). ``images`` is COCO's image folder, by
    default guessed beside the annotation folder.

    Raises
    ------
    FormatError
        ``path`` does not exist or is not a format vocviewer reads; the message says what was
        expected.
    """
    p = Path(path)
    if not p.exists() and not p.is_symlink():
        raise FormatError(p, "does not exist")
    if not p.is_dir():
        check_regular(p)  # a FIFO, a device, a link loop: a message naming it
    if devkit is not None:
        return read_ilsvrc_det(p, devkit)
    if looks_like_voc(p):
        return read_voc(p)
    if looks_like_visdrone(p):
        return read_visdrone(p)
    if p.is_file() and p.suffix.lower() == ".json":
        return read_coco(p, images)
    raise FormatError(p, f"not a dataset vocviewer can read; {_VOC_HINT}")


def looks_like_dataset(path: str | Path) -> bool:
    """Whether ``path`` looks like something ``open_dataset`` reads rather than results: a VOC or
    VisDrone folder, or a JSON file whose first character is ``{`` (a COCO annotation file; COCO
    results are a JSON list). Cheap: reads at most a few KB."""
    p = Path(path)
    if p.is_dir():
        return looks_like_voc(p) or looks_like_visdrone(p)
    if p.is_file() and p.suffix.lower() == ".json":
        try:
            with p.open("rb") as f:
                head = f.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
        except OSError:
            return False
        return head.startswith(b"{")
    return False


def open_results(dataset: Dataset, paths: Sequence[str | Path], **kw: Any) -> ResultSet:
    """Read result files or folders for ``dataset``: VOC ``comp*_det_*`` / ``comp*_cls_*``, a
    VisDrone results folder, or a COCO results JSON.

    Keyword arguments go to the format's reader (``read_voc_results``: ``image_set``, ``name``;
    ``read_coco_results``: ``task``, ``keep_going``).
    """
    given = [paths] if isinstance(paths, str | Path) else list(paths)
    if "coco" in dataset.extras:
        if len(given) != 1:
            raise FormatError(given[-1], "COCO results are one JSON file")
        return read_coco_results(dataset, given[0], **kw)
    json_files = [Path(p) for p in given if Path(p).suffix.lower() == ".json"]
    if json_files:
        raise FormatError(
            json_files[0], f"JSON (COCO) results need a COCO dataset, not {dataset.name}"
        )
    if "ilsvrc" in dataset.extras:
        if len(given) != 1:
            raise FormatError(given[-1], "ILSVRC results are one submission file")
        return read_ilsvrc_det_results(dataset, given[0])
    if "visdrone" in dataset.extras:
        return read_visdrone_results(dataset, given)
    return read_voc_results(dataset, given, **kw)
