"""TIDE's error breakdown on COCO boxes and masks, as ``tidecv``'s ``TIDE().evaluate(gt, preds,
mode=TIDE.BOX)`` (or ``mode=TIDE.MASK``) on ``datasets.COCO`` / ``datasets.COCOResult``
(definitions: ``tide``).

IoU is pycocotools' ``bbIou`` on the JSON ``x, y, w, h`` for box results and its ``rleIou`` on the
RLE masks for segm results (``coco_similarity``); crowd annotations are the ignore regions.
"""

from __future__ import annotations

import numpy as np

from vocviewer.core.boxes import box_iou_pairs
from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.matching import greedy_with_fallback, group_offsets, same_image_pairs
from vocviewer.evaluation.tide import (
    BoolArray,
    FloatArray,
    IntArray,
    TideEvidence,
    TideResult,
    assemble_evidence,
    error_kinds,
    tide,
)
from vocviewer.families.coco.columns import CocoAnnotations, CocoResults
from vocviewer.families.coco.similarity import mask_iou_pairs

__all__ = ["coco_evidence", "coco_tide"]


def coco_tide(
    dataset: Dataset,
    results: ResultSet,
    *,
    pos_threshold: float = 0.5,
    background_threshold: float = 0.1,
    max_dets: int = 100,
) -> TideResult:
    """TIDE on a COCO dataset (``families.coco.reader.read_coco``) and box results
    (``families.coco.results_reader.read_coco_results``), as ``tidecv``'s ``TIDE.evaluate`` in box mode
    on ``datasets.COCO`` / ``datasets.COCOResult``."""
    ev = coco_evidence(
        dataset,
        results,
        pos_threshold=pos_threshold,
        background_threshold=background_threshold,
        max_dets=max_dets,
    )
    return tide(
        ev,
        dataset.classes,
        pos_threshold=pos_threshold,
        background_threshold=background_threshold,
        max_dets=max_dets,
    )


def coco_evidence(
    dataset: Dataset,
    results: ResultSet,
    *,
    pos_threshold: float = 0.5,
    background_threshold: float = 0.1,
    max_dets: int = 100,
) -> TideEvidence:
    """TIDE's verdicts for COCO boxes (IoU: pycocotools' ``bbIou`` on the JSON ``x, y, w, h``)."""
    gt: CocoAnnotations = dataset.data(CocoAnnotations)
    dt: CocoResults = results.data(CocoResults)
    if dt.kind not in ("bbox", "segm"):
        raise ValueError(f"TIDE needs box or mask results, not {dt.kind!r}")
    dets = results.detections
    n_img, n_det = len(dataset.images), len(dets)
    # processing order: image (dataset order), descending score, file order on ties
    order = np.lexsort((-dets.score, dets.image_index))
    img_sorted = dets.image_index[order]
    rank = np.arange(n_det) - np.searchsorted(img_sorted, img_sorted, side="left")
    proc = order[rank < max_dets]
    p_img, p_lab = dets.image_index[proc], dets.label[proc]
    n_proc = len(proc)

    obj = dataset.objects
    reg = np.flatnonzero(~gt.iscrowd)  # image-sorted, annotation order within an image
    r_lab = obj.label[reg]
    r_off = group_offsets(obj.image_index[reg], n_img)
    pair_det, pair_gt = same_image_pairs(p_img, r_off)
    iou = pair_iou(gt, dt, proc[pair_det], reg[pair_gt], np.zeros(len(pair_det), dtype=bool))
    same = p_lab[pair_det] == r_lab[pair_gt]

    # greedy matching: each detection takes its best unused same-class GT with IoU >= t_f
    cand = np.flatnonzero(same & (iou >= pos_threshold))
    pref = np.empty(len(cand), dtype=np.int64)
    pref[np.lexsort((pair_gt[cand], -iou[cand], pair_det[cand]))] = np.arange(len(cand))
    match = greedy_with_fallback(
        pair_det[cand], pair_gt[cand], pref, np.arange(n_proc), n_proc, len(reg)
    )
    matched = match >= 0
    used = np.zeros(len(reg), dtype=bool)
    used[match[matched]] = True
    ignored = _in_crowd(dataset, gt, dt, proc, p_img, p_lab, ~matched, pos_threshold)
    kind, target = error_kinds(
        iou,
        same,
        used,
        pair_gt,
        r_off,
        p_img,
        matched,
        pos_threshold,
        background_threshold,
    )

    return assemble_evidence(dets, obj, proc, match, kind, target, ignored, reg, ~gt.iscrowd)


def pair_iou(
    gt: CocoAnnotations,
    dt: CocoResults,
    det_row: IntArray,
    gt_row: IntArray,
    crowd: BoolArray,
    iou_type: str | None = None,
) -> FloatArray:
    """IoU of aligned (detection row, object row) pairs as pycocotools (and LVISEval) measure
    them for ``iou_type`` (default: the results' kind): boxes, or RLE masks (box results as
    their box masks)."""
    if (iou_type or dt.kind) == "bbox":
        with np.errstate(invalid="ignore"):  # ±inf coordinates: NaN overlaps, as pycocotools
            return box_iou_pairs(dt.bbox[det_row], gt.bbox[gt_row], crowd)
    if dt.masks is None or gt.masks is None:
        raise ValueError("TIDE on masks needs the annotations read with masks")
    d_box, g_box = dt.masks.mask_boxes(), gt.masks.mask_boxes()
    return mask_iou_pairs(dt.masks, gt.masks, det_row, gt_row, crowd, d_box, g_box)


def _in_crowd(
    dataset: Dataset,
    gt: CocoAnnotations,
    dt: CocoResults,
    proc: IntArray,
    p_img: IntArray,
    p_lab: IntArray,
    unmatched: BoolArray,
    pos_threshold: float,
) -> BoolArray:
    """Unmatched detections with crowd IoU ``> t_f`` with a crowd GT of their class."""
    crowd = np.flatnonzero(gt.iscrowd)
    c_off = group_offsets(dataset.objects.image_index[crowd], len(dataset.images))
    rows = np.flatnonzero(unmatched)
    pd, pc = same_image_pairs(p_img[rows], c_off)
    ciou = pair_iou(gt, dt, proc[rows][pd], crowd[pc], np.ones(len(pd), dtype=bool))
    hit = (ciou > pos_threshold) & (p_lab[rows][pd] == dataset.objects.label[crowd][pc])
    out = np.zeros(len(p_img), dtype=bool)
    out[rows[pd[hit]]] = True
    return out
