"""COCO results JSON (bbox / segm / keypoints) → ``ResultSet``, with ``loadRes``' rules.

The kind of file is chosen by its **first** entry, as ``COCO.loadRes`` does: ``bbox`` (non-empty)
→ boxes, area ``w*h``; else ``segmentation`` → masks, area = mask pixels, bbox given or the mask's
extent; else ``keypoints`` → area and bbox from the keypoints' extent. Detection ids are entry
index + 1. Bad entries raise ``FormatError`` naming the entry (``element="[i]"``); with
``keep_going`` they are skipped and listed in ``ResultSet.problems``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core import masks as mk
from vocviewer.core.coco import CocoAnnotations, CocoResults, RleTable
from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import Detections, ResultSet
from vocviewer.formats.coco import (
    finite,
    load_json,
    polygon_parts,
    polygon_sets_to_rle,
    segmentation_to_rle,
)

__all__ = ["BoxColumns", "box_columns", "read_coco_results"]


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
        anns = load_json(Path(path))
    except (FormatError, OSError):
        return None
    if not isinstance(anns, list) or not anns or _kind(anns[0]) != "bbox":
        return None
    cols = _bulk_columns(anns)
    return None if cols is None else BoxColumns(cols[0], cols[1], cols[2], cols[3])


def read_coco_results(
    dataset: Dataset,
    path: str | Path,
    *,
    task: str = "bbox",
    keep_going: bool = False,
    boxes: BoxColumns | None = None,
) -> ResultSet:
    """Read a COCO results file for ``dataset`` (read by ``formats.coco.read_coco``).

    ``task`` says what evaluation needs: masks are built only for ``"segm"`` (box results then
    get their box polygon, rasterised, as ``loadRes`` + ``annToRLE`` do). ``boxes``: the file
    already parsed by ``box_columns`` (used for box evaluation when all its ids are known; the
    file is read again otherwise, so that problems are named)."""
    path = Path(path)
    gt: CocoAnnotations = dataset.extras["coco"]
    if boxes is not None and task != "segm":
        fast = _checked_boxes(boxes.image_id, boxes.category_id, boxes.score, boxes.xywh, gt)
        if fast is not None:
            ids, img, label, score, xywh, area = fast
            return _result_set(path, "bbox", gt, ids, img, label, score, xywh, area, [], None, [])
    anns = load_json(path)
    if not isinstance(anns, list):
        raise FormatError(path, "results must be a JSON array of objects")
    kind = _kind(anns[0]) if anns else task if task != "segm" else "segm"
    if kind in ("caption", "?"):
        raise FormatError(path, "first entry has no 'bbox', 'segmentation' or 'keypoints'"
                          + (" (caption results are not evaluated)" if kind == "caption" else ""),
                          element="[0]")  # fmt: skip
    if kind == "bbox" and task != "segm":
        fast = _fast_boxes(anns, gt)
        if fast is not None:
            ids, img, label, score, xywh, area = fast
            return _result_set(path, kind, gt, ids, img, label, score, xywh, area, [], None, [])
    row_of = {int(v): i for i, v in enumerate(gt.image_id.tolist())}
    cat_of = {int(v): i for i, v in enumerate(gt.category_id.tolist())}
    problems: list[FormatError] = []
    keep: list[int] = []
    cols: dict[str, list[Any]] = {
        k: [] for k in ("img", "cat", "score", "bbox", "area", "kp", "rle")
    }
    for i, a in enumerate(anns):
        try:
            vals = _entry(a, kind, task, row_of, cat_of, dataset)
        except ValueError as e:
            err = FormatError(path, str(e), element=f"[{i}]")
            if not keep_going:
                raise err from None
            problems.append(err)
            continue
        keep.append(i)
        for k, v in zip(cols, vals, strict=True):
            cols[k].append(v)
    n = len(keep)
    _rasterise(cols, kind)
    rles = None
    if task == "segm":
        hh = np.array([r[1] for r in cols["rle"]], dtype=np.int64)
        ww = np.array([r[2] for r in cols["rle"]], dtype=np.int64)
        rles = RleTable.from_list([r[0] for r in cols["rle"]], hh, ww)
    return _result_set(
        path, kind, gt,
        np.array(keep, dtype=np.int64) + 1,
        np.array(cols["img"], dtype=np.int64),
        np.array(cols["cat"], dtype=np.int64),
        np.array(cols["score"], dtype=np.float64),
        np.array(cols["bbox"], dtype=np.float64).reshape(n, 4),
        np.array(cols["area"], dtype=np.float64),
        cols["kp"], rles, problems,
    )  # fmt: skip


def _result_set(
    path: Path,
    kind: str,
    gt: CocoAnnotations,
    ids: npt.NDArray[np.int64],
    img: npt.NDArray[np.int64],
    label: npt.NDArray[np.int64],
    score: npt.NDArray[np.float64],
    xywh: npt.NDArray[np.float64],
    area: npt.NDArray[np.float64],
    kp_lists: list[list[list[float]]],
    rles: RleTable | None,
    problems: list[FormatError],
) -> ResultSet:
    n = len(ids)
    npts = max((len(k) for k in kp_lists), default=0)
    kps = np.zeros((n, npts, 3))
    for j, kp in enumerate(kp_lists):
        if kp:
            kps[j, : len(kp)] = kp
    extras = CocoResults(
        kind=kind, det_id=ids, image_id=gt.image_id[img], category_id=gt.category_id[label],
        bbox=xywh, area=area, keypoints=kps, masks=rles,
    )  # fmt: skip
    dets = Detections(
        img, label, score, np.column_stack((xywh[:, :2], xywh[:, :2] + xywh[:, 2:])),
        np.zeros(n, dtype=np.int64), ids,
    )  # fmt: skip
    return ResultSet(path.stem, (path,), detections=dets, problems=tuple(problems),
                     extras={"coco": extras})  # fmt: skip


class _Polygons:
    """A result's list ``segmentation`` (as ``polygon_parts``), rasterised later in one batch."""

    def __init__(self, parts: list[npt.NDArray[np.float64]], h: int, w: int) -> None:
        self.parts, self.h, self.w = parts, h, w


def _rasterise(cols: dict[str, list[Any]], kind: str) -> None:
    """Replace the ``_Polygons`` of ``cols["rle"]`` by ``(counts, h, w)``, all polygons in one
    batch; for segm results also fill the area and the missing bboxes they left ``None``."""
    rows = [j for j, r in enumerate(cols["rle"]) if isinstance(r, _Polygons)]
    if not rows:
        return
    pend: list[_Polygons] = [cols["rle"][j] for j in rows]
    counts = polygon_sets_to_rle([p.parts for p in pend], [p.h for p in pend],
                                 [p.w for p in pend])  # fmt: skip
    for j, p, c in zip(rows, pend, counts, strict=True):
        cols["rle"][j] = (c, p.h, p.w)
        if kind == "segm":
            cols["area"][j] = mk.area(c)
            if cols["bbox"][j] is None:
                cols["bbox"][j] = mk.to_bbox(c, p.h).tolist()


def _lookup(keys: npt.NDArray[np.int64], values: npt.NDArray[Any]) -> npt.NDArray[np.int64] | None:
    """Row of each value in ``keys`` (any order), or ``None`` if one is missing."""
    order = np.argsort(keys, kind="stable")
    pos = np.searchsorted(keys[order], values)
    pos = np.minimum(pos, len(keys) - 1)
    rows = order[pos]
    if len(keys) == 0 or not np.array_equal(keys[rows], values):
        return None
    return rows.astype(np.int64)


def _bulk_columns(anns: list[Any]) -> tuple[npt.NDArray[Any], ...] | None:
    """``(image_id, category_id, score, xywh)`` of box results, or ``None`` when any entry
    needs a closer look (the per-entry path then names it)."""
    n = len(anns)
    try:
        img_ids = np.array([a["image_id"] for a in anns])
        cat_ids = np.array([a["category_id"] for a in anns])
        score = np.array([a["score"] for a in anns], dtype=np.float64)
        xywh = np.array([a["bbox"] for a in anns], dtype=np.float64)
    except (TypeError, KeyError, ValueError):
        return None
    if not (img_ids.dtype.kind == cat_ids.dtype.kind == "i" and xywh.shape == (n, 4)):
        return None
    if any(type(a["score"]) is bool or type(a["image_id"]) is bool for a in anns):
        return None
    return img_ids.astype(np.int64), cat_ids.astype(np.int64), score, xywh


def _checked_boxes(
    img_ids: npt.NDArray[np.int64],
    cat_ids: npt.NDArray[np.int64],
    score: npt.NDArray[np.float64],
    xywh: npt.NDArray[np.float64],
    gt: CocoAnnotations,
) -> tuple[npt.NDArray[Any], ...] | None:
    """``(ids, img, label, score, xywh, area)`` if every value is finite and every id known."""
    if not (np.isfinite(score).all() and np.isfinite(xywh).all()):
        return None
    img = _lookup(gt.image_id.astype(np.int64), img_ids)
    label = _lookup(gt.category_id.astype(np.int64), cat_ids)
    if img is None or label is None:
        return None
    ids = np.arange(1, len(score) + 1, dtype=np.int64)
    return ids, img, label, score, xywh, xywh[:, 2] * xywh[:, 3]


def _fast_boxes(anns: list[Any], gt: CocoAnnotations) -> tuple[npt.NDArray[Any], ...] | None:
    """Box results validated in bulk: ``(ids, img, label, score, xywh, area)``, or ``None``."""
    cols = _bulk_columns(anns)
    return None if cols is None else _checked_boxes(cols[0], cols[1], cols[2], cols[3], gt)


def _entry(
    a: Any, kind: str, task: str, row_of: dict[int, int], cat_of: dict[int, int], ds: Dataset
) -> tuple[Any, ...]:
    """Validated columns of one entry; ``ValueError`` says what is wrong."""
    if not isinstance(a, dict):
        raise ValueError("entry is not an object")
    for f in ("image_id", "category_id", "score"):
        if f not in a:
            raise ValueError(f"missing '{f}'")
    img = row_of.get(a["image_id"]) if isinstance(a["image_id"], int) else None
    if img is None:
        raise ValueError(f"image_id {a['image_id']!r} is not an image of the annotation file")
    cat = cat_of.get(a["category_id"]) if isinstance(a["category_id"], int) else None
    if cat is None:
        raise ValueError(f"unknown category_id {a['category_id']!r}")
    if not finite(a["score"]):
        raise ValueError(f"score must be a finite number, got {a['score']!r}")
    h, w = int(ds.images.height[img]), int(ds.images.width[img])
    kp: list[list[float]] = []
    rle: tuple[mk.Counts, int, int] | _Polygons | None = None
    if kind == "bbox":
        bb = a.get("bbox")
        if not (isinstance(bb, list) and len(bb) == 4 and all(finite(v) for v in bb)):
            raise ValueError("'bbox' must be 4 finite numbers [x, y, w, h]")
        area = bb[2] * bb[3]
        if task == "segm":
            x1, y1, x2, y2 = bb[0], bb[1], bb[0] + bb[2], bb[1] + bb[3]
            segm = a.get("segmentation", [[x1, y1, x1, y2, x2, y2, x2, y1]])
            rle = _rle(segm, h, w)
    elif kind == "segm":
        rle = _rle(a.get("segmentation"), h, w)
        bb = a.get("bbox")
        area = None  # polygons: filled in by _rasterise
        if not isinstance(rle, _Polygons):
            area = mk.area(rle[0])
            if bb is None:
                bb = mk.to_bbox(rle[0], rle[1]).tolist()
        if bb is not None and not (
            isinstance(bb, list) and len(bb) == 4 and all(finite(v) for v in bb)
        ):
            raise ValueError("'bbox' must be 4 finite numbers [x, y, w, h]")
    else:
        s = a.get("keypoints")
        if not (isinstance(s, list) and s and len(s) % 3 == 0 and all(finite(v) for v in s)):
            raise ValueError("'keypoints' must be a non-empty list of x, y, v triples")
        arr = np.asarray(s)
        x, y = arr[0::3], arr[1::3]
        x0, x1, y0, y1 = x.min(), x.max(), y.min(), y.max()
        area = (x1 - x0) * (y1 - y0)
        bb = [x0, y0, x1 - x0, y1 - y0]
        kp = np.asarray(s, dtype=np.float64).reshape(-1, 3).tolist()
    return img, cat, a["score"], bb, area, kp, rle


def _rle(segm: Any, h: int, w: int) -> tuple[mk.Counts, int, int] | _Polygons:
    """RLE counts and size of a result's ``segmentation``; polygons are validated and left to
    ``_rasterise``."""
    try:
        if isinstance(segm, list):
            return _Polygons(polygon_parts(segm), h, w)
        counts = segmentation_to_rle(segm, h, w)
    except (ValueError, TypeError, AttributeError):
        raise ValueError("'segmentation' must be an RLE {size, counts} or polygons") from None
    if isinstance(segm, dict):
        size = segm.get("size")
        if not (isinstance(size, list) and len(size) == 2):
            raise ValueError("an RLE 'segmentation' needs 'size': [h, w]")
        h, w = int(size[0]), int(size[1])
    if int(counts.sum()) != h * w:
        raise ValueError(f"RLE runs sum to {int(counts.sum())}, not {h}*{w} pixels")
    return counts, h, w
