"""COCO files read straight into columns, their dictionaries decoded only when code reads them.

``COCO(file)`` and ``loadRes(file)`` hand the file's bytes to the compiled scanner
(``vocviewer.kernel._json``): when it takes the file, the object keeps the bytes and the columns
(a ``Lazy``) instead of pycocotools' per-annotation dicts, and a box evaluation reads the
columns (``ground_truth`` / ``results`` here build the very ``Dataset`` / ``ResultSet`` that
``columns.py`` builds from the dicts). The first read of ``dataset``, ``anns``, ``imgToAnns`` or
``catToImgs`` (or any lookup that needs them) decodes the dicts from the kept bytes, exactly as
``json.load`` + pycocotools' ``loadRes`` completion would have made them, and from then on the
object is an ordinary dict-based ``COCO`` (evaluations read the dicts, edits included).

Only what a box evaluation can read from columns without a difference is taken: a ground-truth
file the scanner reads whole (every annotation with ``image_id``, ``category_id``, ``bbox``,
``id``, ``area``; ids integers; ``iscrowd`` 0 / 1), a results file whose entries all have a
four-number ``bbox`` (pycocotools' box branch: ``area = w * h``, ``id = i + 1``, ``iscrowd = 0``).
Anything else takes pycocotools' path, so its outcome and its messages stay pycocotools'.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer import kernel
from vocviewer.cocoapi.columns import (
    AnnotationColumns,
    Frame,
    build_ground_truth,
    build_results,
    rows_of,
)
from vocviewer.core import rle_columns as rc
from vocviewer.core.arrays import sealed
from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.families.coco.columns import CocoAnnotations, RleTable
from vocviewer.families.coco.polygon_sets import polygon_columns_to_rle, polygon_sets_to_rle

FloatArray = npt.NDArray[np.float64]

#: a results entry's ``"score": <integer>`` (json.load makes an int of it, not a float)
_INT_SCORE = re.compile(rb'"score"[ \t\r\n]*:[ \t\r\n]*-?[0-9]+[ \t\r\n]*[,}]')


@dataclass(frozen=True, eq=False)
class Lazy:
    """A file not yet decoded into dicts: ``data`` the JSON text of its annotations (ground
    truth: the ``annotations`` value; results: the whole file), ``cols`` the scanner's columns
    (``_json.c``: ``GT_COLUMNS``, or of ``RESULT_COLUMNS`` those a box evaluation reads),
    ``results`` which of the two; ``masks`` the results' masks when every entry has a
    compressed RLE ``segmentation`` (else None: a mask evaluation reads the dicts)."""

    data: Any  # bytes or msgspec.Raw (a slice of the file's bytes)
    cols: dict[str, Any]
    results: bool
    masks: RleTable | None = None

    def decode(self) -> list[dict[str, Any]]:
        """The annotation dicts, as ``json.load`` makes them (``load_json_file``'s decoder)."""
        import msgspec

        out: list[dict[str, Any]] = msgspec.json.decode(self.data)
        return out

    def int_scores(self) -> bool:
        """Whether some result's score is written as an integer (``json.load``: an ``int``)."""
        return self.results and _INT_SCORE.search(self.data) is not None


def read_ground_truth(data: bytes) -> tuple[dict[str, Any], Lazy] | None:
    """``(dataset without its annotations, Lazy)`` of a ground-truth file's bytes: the
    ``dataset`` dict has every top-level key in file order, ``annotations`` mapped to None until
    decoded; None when the scanner does not take the file (pycocotools' path then)."""
    module = kernel.load("_json")
    if module is None:
        return None
    try:
        import msgspec

        top = msgspec.json.decode(data, type=dict[str, msgspec.Raw])
        if "annotations" not in top:
            return None
        cols = module.annotations(data)
        if cols is None or np.any(cols["kp_len"] % 3):
            return None
        dataset = {
            k: None if k == "annotations" else msgspec.json.decode(v) for k, v in top.items()
        }
    except (ImportError, ValueError):  # msgspec.DecodeError is a ValueError
        return None
    if type(dataset.get("images")) is not list or type(dataset.get("categories")) is not list:
        return None
    return dataset, Lazy(top["annotations"], cols, results=False)


def read_results(data: bytes) -> Lazy | None:
    """The ``Lazy`` of a results file's bytes when every entry has a box (pycocotools' box
    completion applies), else None. Compressed RLE masks are decoded in the same scan (a file
    with masks is read to evaluate them); a file with other masks is scanned again without."""
    module = kernel.load("_json")
    if module is None:
        return None
    cols = module.results(data, True)
    decoded = cols is not None  # (else segmentations were only checked to be JSON)
    if cols is None:
        cols = module.results(data, False)
    if cols is None or not cols["has_bbox"].all():
        return None
    masks = None
    if decoded and cols["has_segm"].all():
        offsets = np.concatenate(([0], np.cumsum(cols["rle_len"])))
        masks = RleTable(cols["rle"], offsets, cols["segm_h"], cols["segm_w"])
    names = ["image_id", "category_id", "score", "bbox"]
    if cols["has_keypoints"].any() and not np.any(cols["kp_len"] % 3):
        names += ["kp_len", "keypoints"]  # (a keypoint evaluation reads them)
    # read-only from here on: the model takes the scanner's buffers over instead of copying
    return Lazy(data, {k: sealed(cols[k]) for k in names}, results=True, masks=masks)


def _keypoints(c: dict[str, Any], keep: npt.NDArray[np.int64]) -> FloatArray:
    """The kept annotations' keypoints ``(N, P, 3)``, zero-padded as ``columns._keypoints``."""
    lens = c["kp_len"] // 3
    kept = lens[keep]
    p = int(kept.max(initial=0))
    if p and (lens == p).all():  # every entry has p points (the usual file)
        every: FloatArray = c["keypoints"].reshape(-1, p, 3)  # (read-only: the scanner's)
        if np.array_equal(keep, np.arange(len(every))):
            return every  # every entry kept, in order: no copy
        out: FloatArray = np.take(every, keep, axis=0)
        return out
    out = np.zeros((len(keep), p, 3))
    if p:
        first = (np.cumsum(lens) - lens)[keep]
        ends = np.cumsum(kept)
        pos = np.arange(int(ends[-1])) - np.repeat(ends - kept, kept)
        rows = np.repeat(np.arange(len(keep)), kept)
        out[rows, pos] = c["keypoints"].reshape(-1, 3)[np.repeat(first, kept) + pos]
    return out


def _masks(c: dict[str, Any], keep: npt.NDArray[np.int64], h: Any, w: Any) -> RleTable:
    """``columns._masks`` of the kept annotations from the scanner's columns: polygons (none:
    an empty list) rasterised at the image size ``h``, ``w`` and merged, RLEs (their runs
    decoded by the scanner) at their own size. The polygons of every object in one call
    (``polygon_columns_to_rle``: threads across objects on the compiled kernel)."""
    if np.any(c["part_len"] % 2):  # a polygon with an odd coordinate count: object by object
        return _masks_of_sets(c, keep, h, w)
    hh, ww = np.array(h, dtype=np.int64), np.array(w, dtype=np.int64)
    is_rle = c["segm_kind"][keep] == 2
    on_image, rle = np.flatnonzero(~is_rle), np.flatnonzero(is_rle)
    counts, offsets = polygon_columns_to_rle(
        c["xy"], c["part_len"] // 2, c["nparts"], keep[on_image], hh[on_image], ww[on_image]
    )
    src = keep[rle]
    hh[rle], ww[rle] = c["rle_h"][src], c["rle_w"][src]
    # one pool: the rasterised polygons, then the file's RLEs (by annotation row)
    pool = np.concatenate((counts, c["rle"])).astype(np.int64, copy=False)
    rle_off = np.cumsum(c["rle_len"]) + offsets[-1]
    pool_off = np.concatenate((offsets, rle_off)).astype(np.int64, copy=False)
    take = np.empty(len(keep), dtype=np.int64)
    take[on_image] = np.arange(len(on_image))
    take[rle] = len(on_image) + src
    return RleTable(*rc.take(pool, pool_off, take), hh, ww)


def _masks_of_sets(c: dict[str, Any], keep: npt.NDArray[np.int64], h: Any, w: Any) -> RleTable:
    """``_masks`` object by object (``polygon_sets_to_rle``: an odd coordinate count's last
    number dropped, as ``frPyObjects``)."""
    kind = c["segm_kind"]
    xy, part_end = c["xy"], np.cumsum(c["part_len"]).tolist()
    starts = [0, *part_end[:-1]] if part_end else []
    polys = [xy[a:b] for a, b in zip(starts, part_end, strict=True)]
    first_part = np.cumsum(c["nparts"]) - c["nparts"]  # (0 parts unless polygons)
    rle_end = np.cumsum(c["rle_len"])
    rle_first = rle_end - c["rle_len"]
    hh, ww = np.array(h, dtype=np.int64), np.array(w, dtype=np.int64)
    out: list[npt.NDArray[np.int64]] = [np.zeros(0, dtype=np.int64)] * len(keep)
    is_rle = kind[keep] == 2
    on_image = np.flatnonzero(~is_rle)
    sets = []
    for i in keep[on_image].tolist():
        f = int(first_part[i])
        sets.append(polys[f : f + int(c["nparts"][i])])
    for j, counts in zip(
        on_image.tolist(), polygon_sets_to_rle(sets, hh[on_image], ww[on_image]), strict=True
    ):
        out[j] = counts
    for j in np.flatnonzero(is_rle).tolist():
        i = int(keep[j])
        out[j] = c["rle"][rle_first[i] : rle_end[i]]
        hh[j], ww[j] = c["rle_h"][i], c["rle_w"][i]
    return RleTable.from_list(out, hh, ww)


def ground_truth(coco: Any, lazy: Lazy, *, masks: bool = False) -> Dataset:
    """``columns.ground_truth(coco, masks=masks)`` from the columns of ``lazy`` (``coco``'s
    ``imgs`` and ``cats`` as they are now)."""
    c = lazy.cols
    frame = Frame.of(coco)
    keep, row, label = frame.evaluable(c["ann_image_id"], c["ann_category_id"])
    n = len(keep)
    cols = AnnotationColumns(
        ann_id=c["ann_id"][keep],
        bbox=np.take(c["bbox"].reshape(-1, 4), keep, axis=0),
        area=c["area"][keep],
        iscrowd=c["iscrowd"][keep].astype(bool),
        keypoints=_keypoints(c, keep),
        num_keypoints=c["num_keypoints"][keep],
        has_keypoints=c["has_keypoints"][keep].astype(bool),
        lacking={
            "segmentation": c["segm_kind"][keep] == 0,
            "num_keypoints": c["has_num_keypoints"][keep] == 0,
            "bbox": np.zeros(n, dtype=bool),
            "keypoints": c["has_keypoints"][keep] == 0,
            "iscrowd": c["has_iscrowd"][keep] == 0,
        },
        masks=_masks(c, keep, frame.height[row], frame.width[row]) if masks else None,
    )
    return build_ground_truth(frame, row, label, cols)


def readable(lazy: Lazy, kind: str) -> bool:
    """Whether an ``iouType`` ``kind`` evaluation can read ``lazy``'s columns (results: the
    masks or keypoints it needs were scanned)."""
    if not lazy.results or kind == "bbox":
        return True
    return lazy.masks is not None if kind == "segm" else "keypoints" in lazy.cols


def results(lazy: Lazy, gt: Dataset, kind: str) -> ResultSet:
    """``columns.results(coco, gt, kind=kind)`` from the columns of ``lazy`` (``readable``):
    ids ``1..N`` in file order, ``area = w * h`` (pycocotools' box completion), entries on an
    unknown image or category left out."""
    table = lazy.masks if kind == "segm" else None
    g: CocoAnnotations = gt.data(CocoAnnotations)
    c = lazy.cols
    row = rows_of(g.image_id, c["image_id"])
    label = rows_of(g.category_id, c["category_id"])
    xywh, score = c["bbox"].reshape(-1, 4), c["score"]
    ids = np.arange(1, len(row) + 1)
    known = (row >= 0) & (label >= 0)
    keep = np.flatnonzero(known)
    kps = _keypoints(c, keep) if kind == "keypoints" else np.zeros((len(keep), 0, 3))
    if len(keep) < len(known):
        row, label, xywh, score, ids = row[keep], label[keep], xywh[keep], score[keep], ids[keep]
        if table is not None:
            counts, offsets = rc.take(table.counts, table.offsets, keep)
            table = RleTable(counts, offsets, table.height[keep], table.width[keep])
    area = xywh[:, 2] * xywh[:, 3]
    row, label, ids, area, kps = map(sealed, (row, label, ids, area, kps))  # (made here)
    return build_results(gt, kind, row, label, ids, score, xywh, area, kps, table)


def on_known_images(lazy: Lazy, known: list[Any]) -> bool:
    """Whether every result's image id is one of ``known`` (``loadRes``' check)."""
    ids = lazy.cols["image_id"]
    if all(type(k) is int and -(2**63) <= k < 2**63 for k in known):
        return bool((rows_of(np.array(known, dtype=np.int64), ids) >= 0).all())
    mine = set(ids.tolist())
    return mine == (mine & set(known))
