"""VisDrone-DET evaluation, exactly as the toolkit's ``evalDET.m`` (PROTOCOLS.md §6).

Rules, in order:

1. Images in name order (``Dataset.images`` order). Per image, ignored regions (category 0) drop
   GT rows and detection rows that lie ≥ 50 % inside them (``visdrone_regions``); dropped
   detections vanish before the cap. GT score 0 → ignore-flagged, 1 → evaluated.
2. For class c in 1..10, threshold ``thr`` in ``VISDRONE_IOU_THRESHOLDS`` (MATLAB's
   ``0.5:0.05:0.95``, bit for bit) and cap N in 1, 10, 100, 500: the detections are the first N
   surviving rows of each image's result file **in file order, all categories counted**, then
   those of class c. GT of class c includes ignore-flagged rows; category 11 is never evaluated.
3. Per image matching (``visdrone_match``): TP / FP / ignored.
4. Per class: per-image lists concatenated in image order, stably sorted by descending score;
   ``rec = cumsum(tp) / max(1, #GT of c incl. ignore-flagged)``, ``prec = tp / max(1, tp+fp)``;
   ``AR[c,thr,N] = 100 * max(rec)`` (0 without detections); ``AP[c,thr] = 100 * VOCap`` of the
   N = 500 curve.
5. Summary means over the ``evalClass`` list (class c once per image whose filtered GT holds c),
   summed column-major (thresholds outer) then divided: AP (all thr), AP50 (thr 1), AP75 (thr 6),
   AR1/AR10/AR100/AR500 (all thr at that cap). No GT at all → NaN.

Per-class AP (not printed by the toolkit) is the mean of ``AP[c, :]`` over the 10 thresholds.
Documented choices where the toolkit has no outcome: an empty or missing result file means no
detections (missing files make the numbers not official and are listed in ``notes``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.ap import voc_ap_all_points
from vocviewer.families.visdrone.columns import (
    VISDRONE_CATEGORIES,
    VISDRONE_EVAL_CLASSES,
    VisDroneDetections,
    VisDroneGroundTruth,
)
from vocviewer.families.visdrone.matching import match_all
from vocviewer.families.visdrone.regions import keep_outside_many

#: MATLAB's ``0.5:0.05:0.95`` bit for bit (PROTOCOLS.md §0.1); hard-coded on purpose.
VISDRONE_IOU_THRESHOLDS: tuple[float, ...] = (
    0.5,
    0.55,
    0.6,
    0.65,
    0.7,
    0.75,
    0.7999999999999999,
    0.85,
    0.8999999999999999,
    0.95,
)
#: Per-image detection caps (``calcAccuracy.m:21``).
VISDRONE_MAX_DETS: tuple[int, ...] = (1, 10, 100, 500)
SUMMARY_KEYS: tuple[str, ...] = ("AP", "AP50", "AP75", "AR1", "AR10", "AR100", "AR500")

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class VisDroneResult:
    """Everything the toolkit computes, plus evidence.

    ap : float64 (10, 10)          percent, [class 1..10, threshold]
    ar : float64 (10, 10, 4)       percent, [class, threshold, cap]
    npos : int64 (10,)             GT rows per class after the region filter (ignore-flagged incl.)
    images_with_class : int64 (10,)  entries of the evalClass list per class (the weights)
    ndet : int64 (10,)             detections per class under cap 500
    summary                        AP, AP50, AP75, AR1, AR10, AR100, AR500 (percent)
    gt_kept : bool (N,)            objects rows surviving the region filter (category 0: False)
    det_kept : bool (D,)           detection rows surviving the region filter
    verdict : int8 (D, 10)         at cap 500 per threshold: 1 TP, 0 FP, -1 ignored,
                                   -2 not evaluated (dropped, beyond the cap, category 0 or 11)
    matched_gt : int64 (D, 10)     ``Dataset.objects`` row taken/absorbing, else -1
    notes                          why the numbers may differ from official ones
    """

    ap: FloatArray
    ar: FloatArray
    npos: IntArray
    images_with_class: IntArray
    ndet: IntArray
    summary: dict[str, float]
    gt_kept: npt.NDArray[np.bool_]
    det_kept: npt.NDArray[np.bool_]
    verdict: npt.NDArray[np.int8]
    matched_gt: IntArray
    notes: tuple[str, ...] = ()

    @property
    def official(self) -> bool:
        """True when nothing was skipped or assumed relative to the official code."""
        return not self.notes

    def class_ap(self) -> dict[str, float]:
        """Per-class AP (percent, mean over the 10 thresholds), keyed by category name."""
        return {
            VISDRONE_CATEGORIES[c]: float(np.cumsum(self.ap[k])[-1] / self.ap.shape[1])
            for k, c in enumerate(VISDRONE_EVAL_CLASSES)
        }


def _mean2(values: FloatArray, weights: IntArray) -> float:
    """``mean2(M(evalClass, ...))``: rows repeated by ``weights``, summed column-major."""
    rows = np.repeat(values.reshape(len(weights), -1), weights, axis=0)
    if rows.size == 0:
        return math.nan
    flat = rows.T.ravel()
    return float(np.cumsum(flat)[-1] / flat.size)


def _filter_regions(
    ds: Dataset, gt: VisDroneGroundTruth, det_image: IntArray, det_ltwh: FloatArray
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_], list[str]]:
    gt_kept = gt.category != 0
    det_kept = np.ones(len(det_image), dtype=bool)
    notes: list[str] = []
    obj_image = ds.objects.image_index
    region_images = np.unique(obj_image[gt.category == 0])
    if not len(region_images):
        return gt_kept, det_kept, notes
    h, w = gt.image_height[region_images], gt.image_width[region_images]
    for i in region_images[(h <= 0) | (w <= 0)].tolist():
        notes.append(f"image {ds.images.id[i]}: size unknown, ignored regions not applied")
    images = region_images[(h > 0) & (w > 0)]
    chosen = np.zeros(len(ds.images), dtype=bool)
    chosen[images] = True
    # rows of the chosen images, by image (objects are stored by image, detections sorted here)
    regions = np.flatnonzero(chosen[obj_image] & (gt.category == 0))
    rows = np.flatnonzero(chosen[obj_image] & (gt.category != 0))
    d_order = np.argsort(det_image, kind="stable")
    drows = d_order[chosen[det_image[d_order]]]

    def offsets(image_of_rows: IntArray) -> IntArray:
        """Where each chosen image's rows start, and the end (int64 (J + 1,))."""
        cut = np.searchsorted(image_of_rows, images, side="left")
        return np.append(cut, len(image_of_rows)).astype(np.int64)

    size = (gt.image_height[images].astype(np.int64), gt.image_width[images].astype(np.int64))
    reg, reg_off = gt.ltwh[regions], offsets(obj_image[regions])
    gt_kept[rows] = keep_outside_many(reg, reg_off, gt.ltwh[rows], offsets(obj_image[rows]), *size)
    det_kept[drows] = keep_outside_many(
        reg, reg_off, det_ltwh[drows], offsets(det_image[drows]), *size
    )
    return gt_kept, det_kept, notes


def evaluate_visdrone(dataset: Dataset, results: ResultSet) -> VisDroneResult:
    """Evaluate ``results`` (``read_visdrone_results``) on ``dataset`` (``read_visdrone``)."""
    gt: VisDroneGroundTruth = dataset.data(VisDroneGroundTruth)
    rx: VisDroneDetections = results.data(VisDroneDetections)
    dets = results.detections
    det_image = dets.image_index
    gt_kept, det_kept, notes = _filter_regions(dataset, gt, det_image, rx.ltwh)
    if rx.missing:
        notes.append(
            f"{len(rx.missing)} result file(s) missing, evaluated as no detections: "
            + ", ".join(rx.missing[:5])
            + (" ..." if len(rx.missing) > 5 else "")
        )
    if results.problems:
        notes.append(f"{len(results.problems)} result row(s) skipped as unreadable")
    if dataset.problems:
        notes.append(f"{len(dataset.problems)} annotation problem(s)")
    # position among each image's surviving rows, in file order (rows are stored in file order)
    kept_idx = np.flatnonzero(det_kept)
    ki = det_image[kept_idx]
    o = np.lexsort((kept_idx, ki))
    run_start = np.searchsorted(ki[o], ki[o], side="left")
    pos = np.full(len(dets), np.iinfo(np.int64).max, dtype=np.int64)
    pos[kept_idx[o]] = np.arange(len(o)) - run_start
    # evaluated detections: classes 1..10, surviving, within the largest cap
    cat = rx.category
    n_cls = len(VISDRONE_EVAL_CLASSES)
    ev_det = np.flatnonzero((cat >= 1) & (cat <= n_cls) & (pos < VISDRONE_MAX_DETS[-1]))
    ev_gt = np.flatnonzero(gt_kept & (gt.category >= 1) & (gt.category <= n_cls))
    n_img = len(dataset.images)
    d_group = det_image[ev_det] * n_cls + (cat[ev_det] - 1)
    g_group = dataset.objects.image_index[ev_gt] * n_cls + (gt.category[ev_gt] - 1)
    d_score = dets.score[ev_det]
    g_ignore = gt.score[ev_gt] == 0
    # each group visited by descending score, ties in file order
    ev_pos = pos[ev_det]
    verdicts, taken_all = match_all(
        d_group,
        rx.ltwh[ev_det],
        d_score,
        ev_pos,
        g_group,
        gt.ltwh[ev_gt],
        g_ignore,
        np.asarray(VISDRONE_IOU_THRESHOLDS),
        np.asarray(VISDRONE_MAX_DETS, dtype=np.int64),
    )
    # global ranking per class: score desc, then image, then file row
    rank = np.lexsort((ev_det, det_image[ev_det], -d_score))
    d_cls = cat[ev_det] - 1
    npos = np.bincount(gt.category[ev_gt] - 1, minlength=n_cls).astype(np.int64)
    img_has = np.zeros((n_cls, n_img), dtype=bool)
    img_has[gt.category[ev_gt] - 1, dataset.objects.image_index[ev_gt]] = True
    weights = img_has.sum(axis=1).astype(np.int64)
    n_thr, n_cap = len(VISDRONE_IOU_THRESHOLDS), len(VISDRONE_MAX_DETS)
    ap = np.zeros((n_cls, n_thr))
    ar = np.zeros((n_cls, n_thr, n_cap))
    verdict_all = np.full((len(dets), n_thr), -2, dtype=np.int8)
    matched_all = np.full((len(dets), n_thr), -1, dtype=np.int64)
    ranked_cls = [rank[d_cls[rank] == k] for k in range(n_cls)]
    for t in range(n_thr):
        for y, cap in enumerate(VISDRONE_MAX_DETS):
            active = ev_pos < cap
            verdict = verdicts[t, y]
            for k in range(n_cls):
                r = ranked_cls[k]
                v = verdict[r[active[r]]]
                if not len(v):
                    continue
                tp = np.cumsum(v == 1).astype(np.float64)
                rec = tp / max(1, int(npos[k]))
                ar[k, t, y] = float(np.max(rec)) * 100
                if y == n_cap - 1:
                    fp = np.cumsum(v == 0).astype(np.float64)
                    prec = tp / np.maximum(1.0, fp + tp)
                    ap[k, t] = voc_ap_all_points(rec, prec) * 100
        verdict_all[ev_det, t] = verdict
        if len(ev_gt):
            taken = taken_all[t]
            matched_all[ev_det, t] = np.where(taken >= 0, ev_gt[np.maximum(taken, 0)], -1)
    summary = {
        "AP": _mean2(ap, weights),
        "AP50": _mean2(ap[:, :1], weights),
        "AP75": _mean2(ap[:, 5:6], weights),
    }
    for y, cap in enumerate(VISDRONE_MAX_DETS):
        summary[f"AR{cap}"] = _mean2(ar[:, :, y], weights)
    ndet = np.bincount(d_cls, minlength=n_cls).astype(np.int64)
    return VisDroneResult(
        ap=ap,
        ar=ar,
        npos=npos,
        images_with_class=weights,
        ndet=ndet,
        summary=summary,
        gt_kept=gt_kept,
        det_kept=det_kept,
        verdict=verdict_all,
        matched_gt=matched_all,
        notes=tuple(notes),
    )
