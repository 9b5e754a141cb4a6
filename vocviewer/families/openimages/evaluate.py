"""The Open Images detection challenge evaluation (PROTOCOLS.md §13), with its evidence.

As ``oid_challenge_evaluation.py`` evaluates (``OpenImagesChallengeEvaluator``,
``PerImageEvaluation``, ``metrics``): on each annotated image only the classes verified there
(an image label of either confidence, or a box; both expanded up the hierarchy, absent labels
down) are evaluated, other detections are ignored. Per image and class the valid detections
(``XMin < XMax``, ``YMin < YMax``, score above -10, the first 10,000 by score) are taken by score
— numpy's own ``argsort`` of the scores, reversed, as the official code ranks — each matching
the ordinary box of highest IoU (the first on ties; a TP if IoU >= 0.5 and that box is free, no
fallback); every detection that is not a TP then goes to the group-of box of highest IoA
(intersection over the detection's area): at >= 0.5 it is absorbed, and each group-of box that
absorbed a detection scoring above 0 adds one TP at the highest such score. Per class, positives
are the ordinary boxes plus the group-of boxes; the per-image entries, concatenated in image
order, are ranked by the same ``argsort`` call, and AP is the VOC all-points area. A class
without positives has AP NaN and is left out of the mean (``nanmean``). Coordinates are the
normalised numbers as written, no ``+1``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from enum import IntEnum
from types import ModuleType

import numpy as np
import numpy.typing as npt

from vocviewer import kernel
from vocviewer.core.dataset import Dataset
from vocviewer.core.results import Detections, ResultSet
from vocviewer.families.openimages.columns import OpenImagesGroundTruth, OpenImagesPredictions

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
#: IoU of a match and IoA of a group-of absorption (``matching_iou_threshold``)
THRESHOLD = 0.5
#: detections kept per image and class (``nms_max_output_boxes``) and the score filter
MAX_PER_IMAGE_CLASS, SCORE_FLOOR = 10_000, -10.0


class Why(IntEnum):
    """What the evaluation did with one detection."""

    TP = 0  #: matched a free ordinary box (IoU >= 0.5)
    FP = 1  #: matched nothing (or its best box was taken)
    GROUP_TP = 2  #: absorbed by a group-of box, and carries that box's one TP (its top score)
    ABSORBED = 3  #: absorbed by a group-of box that another detection carries: ignored
    ABSORBED_LOW = 4  #: absorbed by a group-of box whose best score is <= 0: no TP, ignored
    NOT_VERIFIED = 5  #: its class is not verified on its image (no image label, no box)
    NOT_ANNOTATED = 6  #: its image has no annotation at all
    INVALID_BOX = 7  #: XMin >= XMax or YMin >= YMax: dropped
    LOW_SCORE = 8  #: score <= -10: dropped by the official score filter
    OVER_CAP = 9  #: beyond the first 10,000 of its image and class: dropped


#: counted in the class's ranking (a TP or an FP)
COUNTED = (Why.TP, Why.FP, Why.GROUP_TP)
#: inside a group-of box (``overlap`` is then an IoA)
GROUPED = (Why.GROUP_TP, Why.ABSORBED, Why.ABSORBED_LOW)


#: what each ``Why`` means, in the inspector's words
WHY_TEXT = {
    Why.TP: "True positive: the first detection on a free ordinary box (IoU >= 0.5).",
    Why.FP: "False positive: no free ordinary box at IoU >= 0.5, not inside a group-of box.",
    Why.GROUP_TP: (
        "Inside a group-of box (intersection over its own area >= 0.5) and the top score "
        "there: it carries that group's one true positive."
    ),
    Why.ABSORBED: (
        "Absorbed by a group-of box (intersection over its own area >= 0.5): a group counts "
        "one true positive, carried by a higher score; ignored."
    ),
    Why.ABSORBED_LOW: (
        "Absorbed by a group-of box whose best score is <= 0: the challenge adds no true "
        "positive for it; ignored."
    ),
    Why.NOT_VERIFIED: (
        "Not evaluated: its class is not verified on this image (no image-level label of "
        "either confidence and no box, after hierarchy expansion)."
    ),
    Why.NOT_ANNOTATED: "Not evaluated: the image has no annotation.",
    Why.INVALID_BOX: "Not evaluated: XMin >= XMax or YMin >= YMax (dropped by the challenge).",
    Why.LOW_SCORE: "Not evaluated: score <= -10 (dropped by the challenge's score filter).",
    Why.OVER_CAP: "Not evaluated: beyond the first 10,000 of its image and class.",
}


@dataclass(frozen=True, eq=False)
class OpenImagesResult:
    """The challenge's numbers and the evidence behind them.

    ap : float64 (K,)       per class (NaN: no positives); ``mean_ap`` their ``nanmean``
    npos : int64 (K,)       ordinary plus group-of boxes (expanded)
    why : int8 (D,)         ``Why`` per detection row
    matched : int64 (D,)    the object row matched / absorbing / best-overlapping (-1: none)
    overlap : float64 (D,)  IoU with ``matched`` (IoA for an absorbing group-of box)
    ranked : per class, the counted detection rows in the official rank order
    tied : class indices whose tied scores mix a TP and an FP (their AP depends on the order
           numpy's unstable sort gives the ties)
    """

    ap: FloatArray
    npos: IntArray
    mean_ap: float
    why: npt.NDArray[np.int8]
    matched: IntArray
    overlap: FloatArray
    ranked: tuple[IntArray, ...]
    tied: tuple[int, ...]

    def describe(self, row: int) -> str:
        """What the challenge did with detection ``row``, in words (the window's inspector)."""
        why = Why(int(self.why[row]))
        text = WHY_TEXT[why]
        if why in GROUPED:
            text += f" Its intersection over its own area: {self.overlap[row]:.3f}."
        return text


def pairwise(a: FloatArray, b: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Intersection (M, N) of ``YMin, XMin, YMax, XMax`` boxes ``a`` (M, 4) and ``b`` (N, 4),
    and both areas, in the official expression order (heights times widths, no ``+1``)."""
    ih = np.maximum(0.0, np.minimum(a[:, 2:3], b[:, 2]) - np.maximum(a[:, 0:1], b[:, 0]))
    iw = np.maximum(0.0, np.minimum(a[:, 3:4], b[:, 3]) - np.maximum(a[:, 1:2], b[:, 1]))
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return ih * iw, area_a, area_b


def average_precision(labels: FloatArray, scores: FloatArray, npos: int) -> float:
    """VOC all-points AP of entries (1.0 TP, 0.0 FP) ranked as the official code ranks them
    (``argsort`` ascending, reversed); 0 without entries."""
    if not len(labels):
        return 0.0
    tp = labels[np.argsort(scores)[::-1]]
    ctp, cfp = np.cumsum(tp), np.cumsum((tp <= 0).astype(np.float64))
    precision = np.concatenate(([0.0], ctp / (ctp + cfp), [0.0]))
    recall = np.concatenate(([0.0], ctp / float(npos), [1.0]))
    precision = np.maximum.accumulate(precision[::-1])[::-1]
    steps = np.flatnonzero(recall[1:] != recall[:-1]) + 1
    return float(np.sum((recall[steps] - recall[steps - 1]) * precision[steps]))


@dataclass
class _Acc:
    """Per-detection arrays being filled, and each class's per-image entries."""

    why: npt.NDArray[np.int8]
    matched: IntArray
    overlap: FloatArray
    entries: list[list[tuple[IntArray, FloatArray, FloatArray]]]  # (rows, scores, labels)


def _match_image_class(
    acc: _Acc,
    k: int,
    rows: IntArray,
    scores: FloatArray,
    det: FloatArray,
    gt_rows: IntArray,
    gt: OpenImagesGroundTruth,
) -> None:
    """One image and class: ``rows`` (file order) with ``scores`` and boxes ``det`` against the
    object rows ``gt_rows`` (file order)."""
    keep = scores > SCORE_FLOOR
    acc.why[rows[~keep]] = Why.LOW_SCORE
    rows, scores, det = rows[keep], scores[keep], det[keep]
    if not len(rows):
        return
    order = np.argsort(scores)[::-1]  # the official sort_by_field
    acc.why[rows[order[MAX_PER_IMAGE_CLASS:]]] = Why.OVER_CAP
    order = order[:MAX_PER_IMAGE_CLASS]
    rows, scores, det = rows[order], scores[order], det[order]
    n = len(rows)
    tp = np.zeros(n, dtype=bool)
    absorbed = np.full(n, -1, dtype=np.int64)
    group = gt.group_of[gt_rows]
    plain_rows, group_rows = gt_rows[~group], gt_rows[group]
    acc.why[rows] = Why.FP
    if len(plain_rows):
        inter, a_det, a_gt = pairwise(det, gt.box[plain_rows])
        iou = inter / (a_det[:, None] + a_gt[None, :] - inter)
        best = np.argmax(iou, axis=1)
        taken = np.zeros(len(plain_rows), dtype=bool)
        for i in range(n):
            j = best[i]
            if iou[i, j] >= THRESHOLD and not taken[j]:
                tp[i] = taken[j] = True
            if iou[i, j] > 0 or tp[i]:
                acc.matched[rows[i]], acc.overlap[rows[i]] = plain_rows[j], iou[i, j]
        acc.why[rows[tp]] = Why.TP
    group_scores = np.zeros(len(group_rows))
    carrier = np.full(len(group_rows), -1, dtype=np.int64)
    if len(group_rows):
        inter, a_det, _ = pairwise(det, gt.box[group_rows])
        ioa = inter / a_det[:, None]
        best = np.argmax(ioa, axis=1)
        for i in np.flatnonzero(~tp).tolist():
            j = best[i]
            if ioa[i, j] >= THRESHOLD:
                absorbed[i] = j
                acc.why[rows[i]] = Why.ABSORBED_LOW if scores[i] <= 0 else Why.ABSORBED
                acc.matched[rows[i]], acc.overlap[rows[i]] = group_rows[j], ioa[i, j]
                if scores[i] > group_scores[j]:
                    group_scores[j], carrier[j] = scores[i], i
    counted = carrier[carrier >= 0]  # in group-of box order, as the official appends them
    acc.why[rows[counted]] = Why.GROUP_TP
    plain = absorbed < 0
    acc.entries[k].append(
        (
            np.concatenate((rows[plain], rows[counted])),
            np.concatenate((scores[plain], scores[counted])),
            np.concatenate((tp[plain].astype(np.float64), np.ones(len(counted)))),
        )
    )


def _visiting_order(group: IntArray, scores: FloatArray) -> IntArray:
    """Positions of the detections (by group, file order within) in the official order of
    each group: ``np.argsort(scores)[::-1]`` (its order of tied scores is numpy's own, so the
    groups with ties are sorted by that sort, one ``argsort`` along the rows of a matrix per
    group size; the others by descending score)."""
    order = np.lexsort((-scores, group))
    same = (group[order][1:] == group[order][:-1]) & (scores[order][1:] == scores[order][:-1])
    lo = np.unique(np.searchsorted(group, group[order][1:][same]))
    size = np.searchsorted(group, group[lo], side="right") - lo
    for n in np.unique(size).tolist():
        at = lo[size == n][:, None] + np.arange(n)  # (groups, n) positions, file order
        sorted_at = np.take_along_axis(at, np.argsort(scores[at], axis=1)[:, ::-1], axis=1)
        order[at] = sorted_at
    return order


def _match_on_kernel(
    kern: ModuleType,
    acc: _Acc,
    rows: IntArray,
    key: IntArray,
    det: Detections,
    box: FloatArray,
    gt_key: IntArray,
    gt_sorted: IntArray,
    gt: OpenImagesGroundTruth,
) -> None:
    """``_match_image_class`` for every group (``rows`` by ``key``: image, class) at once, on
    the compiled kernel (``vocviewer/kernel/_greedy.c``): the same evidence and entries."""
    scores = det.score[rows]
    keep = scores > SCORE_FLOOR
    acc.why[rows[~keep]] = Why.LOW_SCORE
    rows, key, scores = rows[keep], key[keep], scores[keep]
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else np.zeros(0, int)
    group = np.cumsum(np.r_[False, key[1:] != key[:-1]]) if len(key) else np.zeros(0, int)
    visit = rows[_visiting_order(group, scores)]
    g_key = key[first]
    lo = np.searchsorted(gt_key, g_key, side="left")
    lengths = np.searchsorted(gt_key, g_key, side="right") - lo
    gt_off = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    gt_rows = gt_sorted[np.repeat(lo - gt_off[:-1], lengths) + np.arange(gt_off[-1])]
    codes = np.array(
        [Why.TP, Why.FP, Why.GROUP_TP, Why.ABSORBED, Why.ABSORBED_LOW, Why.OVER_CAP], np.int8
    )
    why, matched, overlap, e_row, e_tp, n = kern.openimages_match(
        visit,
        np.append(first, len(rows)).astype(np.int64),
        gt_off,
        gt_rows,
        np.ascontiguousarray(gt.group_of).view(np.uint8),
        gt.box,
        box,
        det.score,
        codes,
        MAX_PER_IMAGE_CLASS,
    )
    acc.why[visit] = why
    acc.matched[visit] = matched
    acc.overlap[visit] = overlap
    e_row, e_tp = e_row[:n], e_tp[:n]
    e_label = det.label[e_row]
    by_class = np.argsort(e_label, kind="stable")
    cut = np.searchsorted(e_label[by_class], np.arange(len(acc.entries) + 1))
    for k in np.flatnonzero(np.diff(cut)).tolist():
        part = by_class[cut[k] : cut[k + 1]]
        acc.entries[k].append((e_row[part], det.score[e_row[part]], e_tp[part]))


def _tied(labels: FloatArray, scores: FloatArray) -> bool:
    """Whether some score is shared by a TP and an FP."""
    values, inverse = np.unique(scores, return_inverse=True)
    tp = np.bincount(inverse, weights=labels, minlength=len(values))
    n = np.bincount(inverse, minlength=len(values))
    return bool(np.any((tp > 0) & (tp < n)))


def evaluate_openimages(dataset: Dataset, results: ResultSet) -> OpenImagesResult:
    """The challenge evaluation of ``results`` on ``dataset`` (both read by this family)."""
    gt: OpenImagesGroundTruth = dataset.data(OpenImagesGroundTruth)
    pred: OpenImagesPredictions = results.data(OpenImagesPredictions)
    det = results.detections
    k_count, d = len(dataset.classes), len(det)
    acc = _Acc(
        why=np.full(d, Why.NOT_VERIFIED, dtype=np.int8),
        matched=np.full(d, -1, dtype=np.int64),
        overlap=np.full(d, np.nan),
        entries=[[] for _ in range(k_count)],
    )
    annotated = np.zeros(len(dataset.images), dtype=bool)
    annotated[gt.verified_image] = True
    acc.why[~annotated[det.image_index]] = Why.NOT_ANNOTATED
    width = np.int64(max(k_count, 1))
    verified = np.isin(
        det.image_index * width + det.label, gt.verified_image * width + gt.verified_label
    )
    box = pred.box
    valid = (box[:, 0] < box[:, 2]) & (box[:, 1] < box[:, 3])
    acc.why[verified & ~valid] = Why.INVALID_BOX
    rows = np.flatnonzero(verified & valid)
    rows = rows[np.lexsort((rows, det.label[rows], det.image_index[rows]))]
    key = det.image_index[rows] * width + det.label[rows]
    cuts = np.flatnonzero(np.diff(key)) + 1
    obj_image = dataset.objects.image_index[gt.counts_row]
    gt_key = obj_image * width + gt.counts_label
    gt_order = np.lexsort((gt.counts_row, gt_key))
    gt_key, gt_sorted = gt_key[gt_order], gt.counts_row[gt_order]
    if (kern := kernel.load("_greedy")) is not None:
        _match_on_kernel(kern, acc, rows, key, det, box, gt_key, gt_sorted, gt)
    for group in np.split(rows, cuts) if len(rows) and kern is None else []:
        i, k = int(det.image_index[group[0]]), int(det.label[group[0]])
        lo, hi = np.searchsorted(gt_key, [i * width + k, i * width + k + 1])
        _match_image_class(acc, k, group, det.score[group], box[group], gt_sorted[lo:hi], gt)
    npos = np.bincount(gt.counts_label, minlength=k_count).astype(np.int64)
    ap = np.full(k_count, np.nan)
    ranked: list[IntArray] = []
    tied: list[int] = []
    for k in range(k_count):
        parts = acc.entries[k]
        r = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int64)
        s = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0)
        lab = np.concatenate([p[2] for p in parts]) if parts else np.zeros(0)
        ranked.append(r[np.argsort(s)[::-1]])
        if npos[k] > 0:
            ap[k] = average_precision(lab, s, int(npos[k]))
            if _tied(lab, s):
                tied.append(k)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # every class without positives
        mean_ap = float(np.nanmean(ap)) if k_count else math.nan
    return OpenImagesResult(
        ap, npos, mean_ap, acc.why, acc.matched, acc.overlap, tuple(ranked), tuple(tied)
    )
