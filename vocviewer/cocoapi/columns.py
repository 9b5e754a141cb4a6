"""A ``COCO`` object's dictionaries → vocviewer's columns (``Dataset`` / ``ResultSet`` with
``CocoAnnotations``), read the way ``COCOeval`` reads them.

Ground truth: the images of ``coco.imgs``, the categories of ``coco.cats`` (ascending id), and
every annotation of ``dataset["annotations"]`` on a known image with a known category (others
are never evaluated with ``useCats`` on), in list order within an image. ``iscrowd`` is the
truth value of the field (missing: 0), ``area`` and ``bbox`` (``x, y, w, h``) as given; masks are
``annToRLE``'s (polygons rasterised at the image size and merged, RLEs at their own size).
Results: the same, plus ``score`` and the ``id`` ``loadRes`` gave; entries on an unknown image
or category are left out. Nothing is validated beyond what ``COCOeval`` itself needs.
"""

from __future__ import annotations

import itertools
import operator
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

import numpy as np
import numpy.typing as npt

import vocviewer.cocoapi.mask as mask_utils
from vocviewer.core.arrays import sealed
from vocviewer.core.dataset import Dataset, ImageTable, ObjectTable
from vocviewer.core.paths import PathColumn
from vocviewer.core.results import Derived, Detections, ResultSet
from vocviewer.families.coco.columns import CocoAnnotations, CocoResults, RleTable
from vocviewer.families.coco.polygon_sets import polygon_sets_to_rle

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


def _ids(values: list[Any]) -> IntArray:
    try:
        return np.array(values, dtype=np.int64).reshape(len(values))
    except (TypeError, ValueError):
        raise TypeError(_NOT_INT.format(next(v for v in values if type(v) is not int))) from None


_NOT_INT = "vocviewer.cocoapi needs integer ids (COCO's are), not {!r}"


def _column(anns: list[dict[str, Any]], key: str, dtype: type[np.generic]) -> npt.NDArray[Any]:
    """``anns[i][key]`` for every entry, as a ``dtype`` array (KeyError if one lacks it)."""
    try:
        return np.fromiter(map(itemgetter(key), anns), dtype=dtype, count=len(anns))
    except (TypeError, ValueError):
        if dtype is not np.int64:
            raise
        bad = next(a[key] for a in anns if not isinstance(a[key], int | np.integer))
        raise TypeError(_NOT_INT.format(bad)) from None


def rows_of(keys: IntArray, values: IntArray) -> IntArray:
    """Row of each value in ``keys`` (unique), -1 where absent."""
    if len(keys) == 0:
        return np.full(len(values), -1, dtype=np.int64)
    top = int(keys.max())
    if keys.min() >= 0 and top < 4 * (len(keys) + len(values)) + 65536:  # a lookup table
        table = np.full(top + 2, -1, dtype=np.int64)  # (the last entry: every value out of range)
        table[keys[::-1]] = np.arange(len(keys) - 1, -1, -1)  # (the first of equal keys wins)
        return table[np.where((values >= 0) & (values <= top), values, top + 1)]
    order = np.argsort(keys, kind="stable")
    pos = np.minimum(np.searchsorted(keys[order], values), len(keys) - 1)
    rows = order[pos]
    return np.where(keys[rows] == values, rows, -1).astype(np.int64)


def _sealed_corners(xywh: FloatArray) -> FloatArray:
    """``_corners(xywh)``, ``sealed`` (a result set's box column, made when first read)."""
    return sealed(_corners(xywh))


def _corners(xywh: FloatArray) -> FloatArray:
    """``x, y, w, h`` (N, 4) → ``x1, y1, x2, y2`` (``x2 = x + w`` in float64). (Added on the flat
    copy's every fourth value: a 1-D stride is several times faster than a 2-D slice's.)"""
    box = np.array(xywh, dtype=np.float64, order="C").reshape(-1, 4)
    flat = box.reshape(-1)
    with np.errstate(invalid="ignore", over="ignore"):
        flat[2::4] += flat[0::4]
        flat[3::4] += flat[1::4]
    return box


def _boxes(anns: list[dict[str, Any]]) -> FloatArray:
    """``x, y, w, h`` float64 (N, 4); a missing box is zeros (only segm evaluation gets here)."""
    try:
        boxes = list(map(itemgetter("bbox"), anns))
        if all(len(b) == 4 for b in boxes):
            flat = itertools.chain.from_iterable(boxes)
            return np.fromiter(flat, dtype=np.float64, count=4 * len(anns)).reshape(-1, 4)
    except KeyError:
        pass
    zero = [0.0, 0.0, 0.0, 0.0]
    rows = [list(a.get("bbox", zero)) + zero for a in anns]
    return np.array([r[:4] for r in rows], dtype=np.float64).reshape(len(anns), 4)


def _keypoints(anns: list[dict[str, Any]]) -> FloatArray:
    kps = [np.asarray(a.get("keypoints", ()), dtype=np.float64).reshape(-1, 3) for a in anns]
    out = np.zeros((len(anns), max((len(k) for k in kps), default=0), 3))
    for i, k in enumerate(kps):
        out[i, : len(k)] = k
    return out


def _masks(anns: list[dict[str, Any]], h: IntArray, w: IntArray, decoded: Any = None) -> RleTable:
    """``annToRLE`` of every entry (``h``, ``w``: its image's size), as columns. ``decoded``:
    ``(strings, (counts, offsets))`` decoded before (``loadRes``), used if the entries still
    hold those very strings."""
    segs = [a.get("segmentation", []) for a in anns]
    if segs and all(isinstance(s, dict) and isinstance(s["counts"], str | bytes) for s in segs):
        strings = [s["counts"] for s in segs]
        if decoded is not None and len(decoded[0]) == len(strings):
            same = all(map(operator.is_, strings, decoded[0]))
        else:
            same = False
        counts, offsets = decoded[1] if same else mask_utils.columns_of(segs)
        size = np.array([s["size"] for s in segs], dtype=np.int64).reshape(-1, 2)
        return RleTable(counts, offsets, size[:, 0], size[:, 1])
    hh, ww = h.copy(), w.copy()
    rles: list[IntArray] = [np.zeros(0, dtype=np.int64)] * len(anns)
    poly = [i for i, s in enumerate(segs) if isinstance(s, list)]
    sets = [[np.asarray(p, dtype=np.float64) for p in segs[i]] for i in poly]
    for i, c in zip(poly, polygon_sets_to_rle(sets, h[poly], w[poly]), strict=True):
        rles[i] = c
    for i, s in enumerate(segs):
        if isinstance(s, dict):
            rles[i] = mask_utils.counts_of(s)
            hh[i], ww[i] = (int(v) for v in s["size"])
    return RleTable.from_list(rles, hh, ww)


@dataclass(frozen=True, eq=False)
class Frame:
    """What a ground truth's annotations are placed in: its images (``coco.imgs`` order) and
    categories (ascending id), their ids and the images' sizes (0: not given)."""

    imgs: list[dict[str, Any]]
    cats: list[dict[str, Any]]
    img_id: IntArray
    cat_id: IntArray
    width: IntArray
    height: IntArray

    @classmethod
    def of(cls, coco: Any) -> Frame:
        """The frame of ``coco``'s ``imgs`` and ``cats`` (as they are now)."""
        imgs = list(coco.imgs.values())
        cats = sorted(coco.cats.values(), key=lambda c: c["id"])
        img_id = _ids([i["id"] for i in imgs])
        cat_id = _ids([c["id"] for c in cats])
        width = np.array([i.get("width", 0) for i in imgs], dtype=np.int64)
        height = np.array([i.get("height", 0) for i in imgs], dtype=np.int64)
        return cls(imgs, cats, img_id, cat_id, width, height)

    def evaluable(self, image_id: IntArray, category_id: IntArray) -> tuple[IntArray, ...]:
        """``(keep, row, label)``: the annotations on a known image with a known category,
        sorted by image (stable), and their image row and category label."""
        row = rows_of(self.img_id, image_id)
        label = rows_of(self.cat_id, category_id)
        keep = np.flatnonzero((row >= 0) & (label >= 0))
        keep = keep[np.argsort(row[keep], kind="stable")]
        return keep, row[keep], label[keep]


@dataclass(frozen=True, eq=False)
class AnnotationColumns:
    """The evaluable annotations' fields ``COCOeval`` reads (``N`` rows, as ``Frame.evaluable``
    orders them): ``ann_id``; ``bbox`` float64 (N, 4) ``x, y, w, h`` (zeros where missing);
    ``area``; ``iscrowd`` its truth value (missing: False); ``keypoints`` float64 (N, P, 3);
    ``num_keypoints`` (missing: 0); ``has_keypoints``; ``lacking`` per ``_READ_FIELDS`` name the
    rows without that field; ``masks`` ``annToRLE``'s masks or None (not asked for)."""

    ann_id: IntArray
    bbox: FloatArray
    area: FloatArray
    iscrowd: npt.NDArray[np.bool_]
    keypoints: FloatArray
    num_keypoints: IntArray
    has_keypoints: npt.NDArray[np.bool_]
    lacking: dict[str, npt.NDArray[np.bool_]]
    masks: RleTable | None


def ground_truth(coco: Any, *, masks: bool) -> Dataset:
    """The evaluable ground truth of ``coco`` (a ``COCO``) as a ``Dataset``."""
    frame = Frame.of(coco)
    anns = coco.dataset.get("annotations", [])
    image_of = _column(anns, "image_id", np.int64)
    keep, row, label = frame.evaluable(image_of, _column(anns, "category_id", np.int64))
    anns = [anns[i] for i in keep.tolist()]
    n = len(anns)
    xywh = _boxes(anns)
    kps = _keypoints(anns)
    ann_id = _column(anns, "id", np.int64)
    cols = AnnotationColumns(
        ann_id=ann_id,
        bbox=xywh,
        area=_column(anns, "area", np.float64),
        iscrowd=np.array([bool(a.get("iscrowd", 0)) for a in anns], dtype=bool).reshape(n),
        keypoints=kps,
        num_keypoints=_ids([a.get("num_keypoints", 0) for a in anns]),
        has_keypoints=np.array(["keypoints" in a for a in anns], dtype=bool).reshape(n),
        lacking={k: np.array([k not in a for a in anns], bool).reshape(n) for k in _READ_FIELDS},
        masks=_masks(anns, frame.height[row], frame.width[row]) if masks else None,
    )
    return build_ground_truth(frame, row, label, cols)


def build_ground_truth(
    frame: Frame, row: IntArray, label: IntArray, cols: AnnotationColumns
) -> Dataset:
    """The ``Dataset`` of annotations ``cols`` on image rows ``row`` (sorted) with category
    labels ``label`` in ``frame``."""
    imgs, cats, img_id, cat_id = frame.imgs, frame.cats, frame.img_id, frame.cat_id
    n = len(row)
    extras = CocoAnnotations(
        image_id=img_id,
        captions=((),) * len(imgs),
        category_id=cat_id,
        supercategory=tuple(str(c.get("supercategory", "")) for c in cats),
        keypoint_names=tuple(tuple(c.get("keypoints", ())) for c in cats),
        skeleton=tuple(np.array(c.get("skeleton", []), np.int64).reshape(-1, 2) for c in cats),
        ann_id=cols.ann_id,
        category_id_of=cat_id[label],
        bbox=cols.bbox,
        area=cols.area,
        iscrowd=cols.iscrowd,
        keypoints=cols.keypoints,
        num_keypoints=cols.num_keypoints,
        has_keypoints=cols.has_keypoints,
        masks=cols.masks,
    )
    box = _corners(cols.bbox)
    zeros = np.zeros(n, dtype=bool)
    order_in_image = np.arange(n) - np.searchsorted(row, row, side="left")
    objects = ObjectTable(
        row,
        label,
        box,
        zeros,
        zeros,
        zeros,
        np.zeros(n, np.int8),
        order_in_image,
        np.zeros((n, 0), bool),
    )
    images = ImageTable(
        np.array([str(i) for i in img_id.tolist()], dtype=np.str_),
        PathColumn([str(i.get("file_name", "")) for i in imgs]),  # (Paths made when read)
        frame.width.astype(np.int32),
        frame.height.astype(np.int32),
        np.zeros(len(imgs), dtype=bool),
    )
    return Dataset(
        name="COCO",
        root=None,
        classes=tuple(str(c.get("name", c["id"])) for c in cats),
        box_convention="continuous",
        images=images,
        objects=objects,
        family_data=(extras, LackingFields(cols.lacking)),
    )


@dataclass(frozen=True)
class LackingFields:
    """Per ground-truth field ``COCOeval`` reads, the annotation rows that lack it."""

    rows: dict[str, npt.NDArray[np.bool_]]


#: Ground-truth fields ``COCOeval`` reads that ``ground_truth`` defaults (``lacking``: per row,
#: whether the annotation lacks it), so ``check_read_fields`` can fail where pycocotools does.
_READ_FIELDS = ("segmentation", "num_keypoints", "bbox", "keypoints", "iscrowd")


def check_read_fields(gt: Dataset, dt: ResultSet, p: Any) -> None:
    """``KeyError`` (as pycocotools raises it in ``evaluate()``) when a ground-truth annotation
    ``COCOeval`` reads under ``p`` lacks a field it reads: in ``_prepare``, ``segmentation``
    (segm) and ``num_keypoints`` (keypoints) of every selected annotation; then ``bbox``
    (bbox), ``iscrowd`` (bbox, segm: ``computeIoU``), for keypoints ``keypoints`` and ``bbox``
    where a detection shares the image (and category: ``computeOks``), and ``iscrowd``
    (``evaluateImg``)."""
    lacking = gt.data(LackingFields).rows
    kind = p.iouType
    order = {"segm": ("segmentation", "iscrowd"), "bbox": ("bbox", "iscrowd")}
    keys = order.get(kind, ("num_keypoints", "keypoints", "bbox", "iscrowd"))
    if not any(lacking[key].any() for key in keys):
        return
    g: CocoAnnotations = gt.data(CocoAnnotations)
    image_of = g.image_id[gt.objects.image_index]
    sel = np.isin(image_of, p.imgIds) if len(p.imgIds) else np.ones(len(image_of), bool)
    if p.useCats and len(p.catIds):
        sel &= np.isin(g.category_id_of, p.catIds)
    for key in keys:
        hit = lacking[key] & sel
        if key in ("keypoints", "bbox") and kind == "keypoints":  # only beside a detection
            d = dt.detections
            pairs = d.image_index * (len(gt.classes) + 1) + (d.label if p.useCats else 0)
            mine = gt.objects.image_index * (len(gt.classes) + 1)
            hit &= np.isin(mine + (gt.objects.label if p.useCats else 0), pairs)
        if hit.any():
            raise KeyError(key)


def results(coco: Any, gt: Dataset, *, kind: str) -> ResultSet:
    """The results of ``coco`` (from ``loadRes``) on ``gt`` as a ``ResultSet``; ``kind`` is the
    ``iouType`` (masks are built for ``"segm"`` only)."""
    g: CocoAnnotations = gt.data(CocoAnnotations)
    anns = coco.dataset.get("annotations", [])
    row = rows_of(g.image_id, _column(anns, "image_id", np.int64))
    label = rows_of(g.category_id, _column(anns, "category_id", np.int64))
    keep = np.flatnonzero((row >= 0) & (label >= 0))
    if len(keep) < len(anns):
        anns = [anns[i] for i in keep.tolist()]
        row, label = row[keep], label[keep]
    n = len(anns)
    ids = _column(anns, "id", np.int64)
    score = _column(anns, "score", np.float64)
    xywh = _boxes(anns)
    h, w = gt.images.height.astype(np.int64)[row], gt.images.width.astype(np.int64)[row]
    area = _column(anns, "area", np.float64)
    kps = _keypoints(anns) if kind == "keypoints" else np.zeros((n, 0, 3))
    decoded = getattr(coco, "decoded_rles", None)
    masks = _masks(anns, h, w, decoded) if kind == "segm" else None
    row, label, ids, score, xywh, area = map(sealed, (row, label, ids, score, xywh, area))
    return build_results(gt, kind, row, label, ids, score, xywh, area, kps, masks)


def build_results(
    gt: Dataset,
    kind: str,
    row: IntArray,
    label: IntArray,
    ids: IntArray,
    score: FloatArray,
    xywh: FloatArray,
    area: FloatArray,
    keypoints: FloatArray,
    masks: RleTable | None,
) -> ResultSet:
    """The ``ResultSet`` of detections on image rows ``row`` with category labels ``label`` of
    ``gt``: ids, scores, boxes ``x, y, w, h`` (N, 4), areas, keypoints (N, P, 3), masks. (Arrays
    the caller ``sealed`` are kept, others copied.)"""
    g: CocoAnnotations = gt.data(CocoAnnotations)
    extras = CocoResults(
        kind=kind,
        det_id=ids,
        image_id=sealed(g.image_id[row]),
        category_id=sealed(g.category_id[label]),
        bbox=xywh,
        area=area,
        keypoints=keypoints,
        masks=masks,
    )
    box: Any = Derived(_sealed_corners, xywh, rowwise=True)  # (made when read: not to evaluate)
    z = sealed(np.zeros(len(row), dtype=np.int64))
    return ResultSet(
        "results",
        (),
        detections=Detections(row, label, score, box, z, ids),
        family_data=(extras,),
    )
