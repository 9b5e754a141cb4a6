"""COCO results JSON (bbox / segm / keypoints) → ``ResultSet``, with ``loadRes``' rules.

The kind of file is chosen by its **first** entry, as ``COCO.loadRes`` does: ``bbox`` (non-empty)
→ boxes, area ``w*h``; else ``segmentation`` → masks, area = mask pixels, bbox given or the mask's
extent; else ``keypoints`` → area and bbox from the keypoints' extent. Detection ids are entry
index + 1. Bad entries raise ``FormatError`` naming the JSON path (``element="[3].score"``); with
``keep_going`` they are skipped and listed in ``ResultSet.problems``. Plain box files and
compressed-RLE segm files are read in bulk (``coco_results_bulk``), with the same outcome; for
box evaluation a plain box file is first tried with msgspec (``coco_results_fast``), and read
with ``json`` as above when msgspec refuses it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer import kernel
from vocviewer.core.arrays import sealed
from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import Derived, ResultSet
from vocviewer.families.coco import results_bulk as bulk
from vocviewer.families.coco import results_entries as entries
from vocviewer.families.coco import results_fast as fast
from vocviewer.families.coco import results_kernel as rk
from vocviewer.families.coco import schema
from vocviewer.families.coco.columns import CocoAnnotations
from vocviewer.families.coco.lazy_masks import LazyRleTable
from vocviewer.formats.json_input import json_text, parse_json, read_json_bytes, show

__all__ = ["BoxColumns", "box_columns", "read_coco_result_list", "read_coco_results"]


def _kind(first: Any) -> str:
    if not isinstance(first, dict):
        return "?"
    if "caption" in first:
        return "caption"
    if "bbox" in first and first["bbox"] != []:
        return "bbox"
    if "segmentation" in first:
        return "segm"
    if "keypoints" in first:
        return "keypoints"
    return "?"


@dataclass(frozen=True, eq=False)
class BoxColumns:
    """A box results file as columns, in file order: ``image_id``, ``category_id`` int64 (N,),
    ``score`` float64 (N,), ``xywh`` float64 (N, 4). Built where parsing may hold the
    interpreter for seconds (``box_columns``), e.g. in another process."""

    image_id: npt.NDArray[np.int64]
    category_id: npt.NDArray[np.int64]
    score: npt.NDArray[np.float64]
    xywh: npt.NDArray[np.float64]


def box_columns(path: str | Path) -> BoxColumns | None:
    """Parse a results file into ``BoxColumns`` if every entry is a well-formed box result;
    ``None`` otherwise (and for unreadable files: ``read_coco_results`` then reports them)."""
    try:
        cols = _plain_boxes(Path(path))
        if cols is not None:
            return BoxColumns(*cols)
        anns, literals = _load(Path(path))
    except (FormatError, OSError):
        return None
    if not isinstance(anns, list) or not anns or _kind(anns[0]) != "bbox":
        return None
    cols = bulk.box_columns(anns, literals)
    return None if cols is None else BoxColumns(*cols)


def _plain_boxes(path: Path) -> bulk.Columns | None:
    """The columns of a plain box results file: scanned in place by the compiled kernel, else
    parsed by msgspec (``results_fast``); ``None`` when neither takes it."""
    cols = rk.file_box_columns(path)
    if cols is None:
        cols = fast.box_columns(read_json_bytes(path), compiled=False)
    return cols


def one_results_file(paths: Sequence[Path], title: str = "COCO") -> Path:
    """The one JSON file a COCO-style result set is (``FormatError`` naming the extra one)."""
    if len(paths) != 1:
        raise FormatError(paths[-1], f"{title} results are one JSON file")
    return Path(paths[0])


def _bytes_of(path: Path, mapped: bool = False) -> rk.Buffer:
    """The results file's bytes: a buffer the kernel may write where it can be read so, or
    (``mapped``) the file mapped read-only."""
    buf = None
    if kernel.enabled():
        buf = (mapped and rk.file_mapped(path)) or rk.file_bytes(path)
    return read_json_bytes(path) if buf is None else buf


def read_coco_results(
    dataset: Dataset,
    path: str | Path,
    *,
    task: str = "bbox",
    keep_going: bool = False,
    boxes: BoxColumns | None = None,
    scanned: dict[str, Any] | None = None,
    mapped: bool = False,
) -> ResultSet:
    """Read a COCO results file for ``dataset`` (read by ``families.coco.reader.read_coco``).

    ``task`` says what evaluation needs: masks are built only for ``"segm"`` (box results then
    get their box polygon, rasterised, as ``loadRes`` + ``annToRLE`` do); ``"keypoints"`` keeps
    the keypoints of box results (``loadRes``' bbox branch: area ``w*h``). ``boxes``: the file
    already parsed by ``box_columns`` (used for box evaluation when all its ids are known; the
    file is read again otherwise, so that problems are named). ``scanned``: the file's
    ``results_kernel.file_result_columns`` (used for segm / keypoints evaluation). ``mapped``
    (a short-lived reader: the CLI): a segm file's masks are read where the file, mapped into
    memory, holds them (``results_kernel.file_mapped``) for as long as they are kept.

    Entries are checked field by field (``FormatError`` names the JSON path, e.g.
    ``[3].score``); with ``keep_going`` bad entries are skipped and listed in ``problems``.
    Rows with a NaN / infinite score or coordinate are kept and evaluated as pycocotools does;
    one warning per file names the first (``CocoResults.warnings``, also in ``problems``)."""
    path = Path(path)
    gt: CocoAnnotations = dataset.data(CocoAnnotations)
    schema.refuse_foreign_results(path, "COCO")
    if boxes is not None and task == "bbox":
        checked = _checked_boxes(
            path, boxes.image_id, boxes.category_id, boxes.score, boxes.xywh, gt
        )
        if checked is not None:
            return checked
    if boxes is None and task == "bbox":
        quick = fast.box_result(path, _plain_boxes(path), gt)
        if quick is not None:
            return quick
    if task == "segm" and isinstance(gt.masks, LazyRleTable):
        gt.masks.prefetch()  # the ground truth's polygons rasterised while this file is read
    data = None if scanned is not None or task == "bbox" else _bytes_of(path, mapped)
    if task != "bbox" and (
        plain := rk.plain_columns(data, task, *_lookups(dataset), scanned=scanned)
    ):
        kind, c = plain
        ids = np.arange(1, len(c.score) + 1, dtype=np.int64)
        kp, rles = getattr(c, "keypoints", []), getattr(c, "masks", None)
        return entries.result_set(
            path, kind, gt, ids, c.image, c.label, c.score, c.xywh, c.area, kp, rles, [], []
        )
    anns, literals = _load(path)
    return read_coco_result_list(dataset, path, anns, literals, task=task, keep_going=keep_going)


def read_coco_result_list(
    dataset: Dataset, path: Path, anns: Any, literals: bool = False, **kw: Any
) -> ResultSet:
    """``read_coco_results`` (``task``, ``keep_going``) of the parsed list ``anns`` (``literals``:
    its text held true / false / null), for a family whose results convert to COCO's (YOLO's)."""
    task: str = kw.get("task", "bbox")
    keep_going: bool = kw.get("keep_going", False)
    gt: CocoAnnotations = dataset.data(CocoAnnotations)
    if not isinstance(anns, list):
        raise FormatError(path, f"results must be a JSON array of objects, got {show(anns)}")
    kind = _kind(anns[0]) if anns else task if task != "segm" else "segm"
    if kind in ("caption", "?"):
        raise FormatError(
            path,
            "first entry has no 'bbox', 'segmentation' or 'keypoints'"
            + (" (caption results are not evaluated)" if kind == "caption" else ""),
            element="[0]",
        )
    if kind == "keypoints" and task == "segm":
        raise FormatError(
            path,
            "keypoint results (no 'bbox' or 'segmentation') cannot be evaluated as segm",
            element="[0]",
        )
    if kind == "bbox" and task == "bbox":
        cols = bulk.box_columns(anns, literals)
        rows = None if cols is None else _box_rows(cols[0], cols[1], gt)
        if cols is not None and rows is not None:
            anns.clear()  # the parsed entries are not held while the result set is built
            return _box_result(path, *rows, cols[2], cols[3], gt)
    if task == "segm":
        s = bulk.segm_columns(anns, literals, *_lookups(dataset), box_kind=kind == "bbox")
        if s is not None:
            ids = np.arange(1, len(anns) + 1, dtype=np.int64)
            anns.clear()  # the parsed entries are not held while the result set is built
            return entries.result_set(
                path, kind, gt, ids, s.image, s.label, s.score, s.xywh, s.area, [], s.masks, [], []
            )
    if kind == "keypoints" or (kind == "bbox" and task == "keypoints"):
        k = bulk.keypoint_columns(
            anns, literals, gt.image_id, gt.category_id, box_kind=kind == "bbox"
        )
        if k is not None:
            ids = np.arange(1, len(anns) + 1, dtype=np.int64)
            anns.clear()  # the parsed entries are not held while the result set is built
            kcols = (k.image, k.label, k.score, k.xywh, k.area, k.keypoints)
            return entries.result_set(path, kind, gt, ids, *kcols, None, [], [])
    if not anns:
        return _no_results(path, kind, task, keep_going, dataset)
    return entries.read_entries(path, anns, kind, task, keep_going, dataset)


def _lookups(dataset: Dataset) -> tuple[npt.NDArray[np.int64], ...]:
    """What the bulk readers check rows against: image ids, category ids, image heights and
    widths (int64)."""
    gt, ims = dataset.data(CocoAnnotations), dataset.images
    return (gt.image_id, gt.category_id, ims.height.astype(np.int64), ims.width.astype(np.int64))


def _no_results(path: Path, kind: str, task: str, keep_going: bool, dataset: Dataset) -> ResultSet:
    """An empty results list: pycocotools' ``loadRes`` and lvis' ``LVISResults`` fail on it
    (``IndexError`` on its first entry), so it is refused; with ``keep_going`` it is evaluated
    as no detections and its problem makes the numbers not official."""
    err = FormatError(
        path,
        "an empty results list: the official loader fails on it (pycocotools' loadRes reads "
        "its first entry); --keep-going evaluates it as no detections, NOT OFFICIAL",
        element="[]",
    )
    if not keep_going:
        raise err
    return dataclasses.replace(
        entries.read_entries(path, [], kind, task, True, dataset), problems=(err,)
    )


def _load(path: Path) -> tuple[Any, bool]:
    """The parsed file and whether its text holds ``true``, ``false`` or ``null`` anywhere (then
    only the per-entry path can tell which fields they are in)."""
    text = json_text(path, read_json_bytes(path))  # the bytes are not held while parsing
    return parse_json(path, text), any(w in text for w in ("true", "false", "null"))


def _checked_boxes(
    path: Path,
    img_ids: npt.NDArray[np.int64],
    cat_ids: npt.NDArray[np.int64],
    score: npt.NDArray[np.float64],
    xywh: npt.NDArray[np.float64],
    gt: CocoAnnotations,
) -> ResultSet | None:
    """The box ``ResultSet`` if every id is known (else ``None``: the per-entry path names
    it); rows with NaN / infinite values are kept, with one warning."""
    rows = _box_rows(img_ids, cat_ids, gt)
    return None if rows is None else _box_result(path, *rows, score, xywh, gt)


def _box_rows(
    img_ids: npt.NDArray[np.int64], cat_ids: npt.NDArray[np.int64], gt: CocoAnnotations
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None:
    """Image and category rows of box results, or ``None`` if an id is unknown."""
    img = bulk.lookup(gt.image_id, img_ids)
    label = bulk.lookup(gt.category_id, cat_ids)
    return None if img is None or label is None else (img, label)


def _box_result(
    path: Path,
    img: npt.NDArray[np.int64],
    label: npt.NDArray[np.int64],
    score: npt.NDArray[np.float64],
    xywh: npt.NDArray[np.float64],
    gt: CocoAnnotations,
) -> ResultSet:
    """The box ``ResultSet``: rows with NaN / infinite values kept, with one warning."""
    n = len(score)
    warnings = bulk.nonfinite_warnings(path, score, xywh)
    ids = np.arange(1, n + 1, dtype=np.int64)
    area: Any = Derived(
        bulk.sealed_box_area, *sealed(xywh)[:, 2:].T, rowwise=True
    )  # (made when read)
    return entries.result_set(
        path,
        "bbox",
        gt,
        ids,
        img,
        label,
        score,
        xywh,
        area,
        [],
        None,
        warnings,
        warnings,
    )
