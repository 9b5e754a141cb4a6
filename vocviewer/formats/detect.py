"""Open a dataset or results by sniffing what a path holds: a PASCAL VOC folder or a VisDrone
split (``annotations/`` + ``images/``). ILSVRC needs its devkit and is opened by
``formats.ilsvrc.read_ilsvrc_det`` directly."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.formats.visdrone import looks_like_visdrone, read_visdrone, read_visdrone_results
from vocviewer.formats.voc import looks_like_voc, read_voc, read_voc_results

_VOC_HINT = (
    "expected a PASCAL VOC folder (a year folder with Annotations/ and ImageSets/, or a "
    "VOCdevkit folder holding one) or a VisDrone split (annotations/ and images/)"
)


def open_dataset(path: str | Path) -> Dataset:
    """Read the dataset at ``path``, whatever its format (PASCAL VOC, VisDrone).

    Raises
    ------
    FormatError
        ``path`` does not exist or is not a format vocviewer reads; the message says what was
        expected.
    """
    p = Path(path)
    if not p.exists():
        raise FormatError(p, "does not exist")
    if looks_like_voc(p):
        return read_voc(p)
    if looks_like_visdrone(p):
        return read_visdrone(p)
    if p.is_file() and p.suffix.lower() == ".json":
        raise FormatError(p, f"COCO-style JSON annotations are not supported yet; {_VOC_HINT}")
    raise FormatError(p, f"not a dataset vocviewer can read; {_VOC_HINT}")


def open_results(dataset: Dataset, paths: Sequence[str | Path], **kw: Any) -> ResultSet:
    """Read result files or folders for ``dataset`` (VOC ``comp*_det_*`` / ``comp*_cls_*``).

    Keyword arguments go to the format's reader (``read_voc_results``: ``image_set``, ``name``).
    """
    given = [paths] if isinstance(paths, str | Path) else list(paths)
    json_files = [Path(p) for p in given if Path(p).suffix.lower() == ".json"]
    if json_files:
        raise FormatError(json_files[0], "JSON results (COCO style) are not supported yet")
    if "visdrone" in dataset.extras:
        return read_visdrone_results(dataset, given)
    return read_voc_results(dataset, given, **kw)
