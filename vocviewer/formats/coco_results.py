"""COCO results JSON (bbox / segm / keypoints) → ``ResultSet``, with ``loadRes``' rules.

The kind of file is chosen by its **first** entry, as ``COCO.loadRes`` does: ``bbox`` (non-empty)
→ boxes, area ``w*h``; else ``segmentation`` → masks, area = mask pixels, bbox given or the mask's
extent; else ``keypoints`` → area and bbox from the keypoints' extent. Detection ids are entry
index + 1. Bad entries raise ``FormatError`` naming the entry (``element="[i]"``); with
``keep_going`` they are skipped and listed in ``ResultSet.problems``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from vocviewer.core import masks as mk
from vocviewer.core.coco import CocoAnnotations, CocoResults, RleTable
from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import Detections, ResultSet
from vocviewer.formats.coco import finite, load_json, segmentation_to_rle

__all__ = ["read_coco_results"]


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


def read_coco_results(
    dataset: Dataset, path: str | Path, *, task: str = "bbox", keep_going: bool = False
) -> ResultSet:
    """Read a COCO results file for ``dataset`` (read by ``formats.coco.read_coco``).

    ``task`` says what evaluation needs: masks are built only for ``"segm"`` (box results then
    get their box polygon, rasterised, as ``loadRes`` + ``annToRLE`` do)."""
    path = Path(path)
    gt: CocoAnnotations = dataset.extras["coco"]
    anns = load_json(path)
    if not isinstance(anns, list):
        raise FormatError(path, "results must be a JSON array of objects")
    kind = _kind(anns[0]) if anns else task if task != "segm" else "segm"
    if kind in ("caption", "?"):
        raise FormatError(path, "first entry has no 'bbox', 'segmentation' or 'keypoints'"
                          + (" (caption results are not evaluated)" if kind == "caption" else ""),
                          element="[0]")  # fmt: skip
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
    xywh = np.array(cols["bbox"], dtype=np.float64).reshape(n, 4)
    npts = max((len(k) for k in cols["kp"]), default=0)
    kps = np.zeros((n, npts, 3))
    for j, kp in enumerate(cols["kp"]):
        if kp:
            kps[j, : len(kp)] = kp
    rles = None
    if task == "segm":
        hh = np.array([r[1] for r in cols["rle"]], dtype=np.int64)
        ww = np.array([r[2] for r in cols["rle"]], dtype=np.int64)
        rles = RleTable.from_list([r[0] for r in cols["rle"]], hh, ww)
    ids = np.array(keep, dtype=np.int64) + 1
    label = np.array(cols["cat"], dtype=np.int64)
    extras = CocoResults(
        kind=kind, det_id=ids, image_id=gt.image_id[np.array(cols["img"], dtype=np.int64)],
        category_id=gt.category_id[label], bbox=xywh,
        area=np.array(cols["area"], dtype=np.float64), keypoints=kps, masks=rles,
    )  # fmt: skip
    dets = Detections(
        np.array(cols["img"], dtype=np.int64), label, np.array(cols["score"], dtype=np.float64),
        np.column_stack((xywh[:, :2], xywh[:, :2] + xywh[:, 2:])),
        np.zeros(n, dtype=np.int64), ids,
    )  # fmt: skip
    return ResultSet(path.stem, (path,), detections=dets, problems=tuple(problems),
                     extras={"coco": extras})  # fmt: skip


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
    rle: tuple[mk.Counts, int, int] | None = None
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
        area = mk.area(rle[0])
        bb = a.get("bbox")
        if bb is None:
            bb = mk.to_bbox(rle[0], rle[1]).tolist()
        elif not (isinstance(bb, list) and len(bb) == 4 and all(finite(v) for v in bb)):
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


def _rle(segm: Any, h: int, w: int) -> tuple[mk.Counts, int, int]:
    """RLE counts and size of a result's ``segmentation``."""
    try:
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
