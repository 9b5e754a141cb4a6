"""TIDE's error breakdown on ILSVRC DET, from ``eval_detection.m``'s own verdicts (``ilsvrc.py``).

The devkit decides who is a true positive (its per-object threshold ``thr = min(0.5, wh / ((w +
10)(h + 10)))`` with ``+1`` pixel sizes, the largest IoU among the undetected objects of the label,
falling back to the next object); its matches are kept as they are. TIDE's typing
(``tide``; ``t_f = 0.5``, ``t_b = 0.1``) then measures every overlap *relative to the object's own
threshold*: ``s = IoU · 0.5 / thr`` (``s = IoU`` for the objects of 0.5), so that ``s >= t_f``
exactly when the devkit would accept the pair, and for a small object the localisation band
``0.1 <= s <= 0.5`` shrinks in proportion. Positives: the objects outside blacklisted (image,
label) pairs; a detection the devkit skipped (a blacklisted pair) plays the part of one in a COCO
crowd (left out of AP, yet typed); detections of labels above the largest ground-truth label are
not evaluated. Every other detection is processed (no per-image cap), image by image in
eval-list order, by descending score. The AP is TIDE's 101-point AP, not the devkit's ``VOCap``.
"""

from __future__ import annotations

import numpy as np

from vocviewer.core.boxes import overlap_pairs
from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.matching import group_offsets, same_image_pairs
from vocviewer.evaluation.tide import TideEvidence, TideResult, assemble_evidence, error_kinds, tide
from vocviewer.families.ilsvrc.columns import IlsvrcDetInfo
from vocviewer.families.ilsvrc.evaluate import IlsvrcDetResult, _blacklisted, object_thresholds

__all__ = ["ilsvrc_evidence", "ilsvrc_positives", "ilsvrc_tide"]


def ilsvrc_positives(dataset: Dataset) -> np.ndarray:
    """bool (G,): objects outside the blacklisted (image, label) pairs (the devkit's ``npos``)."""
    info: IlsvrcDetInfo = dataset.extras["ilsvrc"]
    obj = dataset.objects
    black = _blacklisted(
        info.blacklist_image_id, info.blacklist_label, info.image_id[obj.image_index], obj.label
    )
    return np.asarray(~black, dtype=bool)


def ilsvrc_evidence(
    dataset: Dataset,
    results: ResultSet,
    evaluation: IlsvrcDetResult,
    *,
    background_threshold: float = 0.1,
) -> TideEvidence:
    """TIDE evidence from ``evaluate_ilsvrc_det(dataset, results)`` (module docstring)."""
    det, obj = results.detections, dataset.objects
    rows = np.flatnonzero(evaluation.verdict != -2)
    proc = rows[np.lexsort((rows, -det.score[rows], det.image_index[rows]))]
    v = evaluation.verdict[proc]
    counted = ilsvrc_positives(dataset)
    reg = np.flatnonzero(counted)
    reg_of = np.full(len(obj.label), -1, dtype=np.int64)
    reg_of[reg] = np.arange(len(reg))
    tp = v == 1
    match = np.where(tp, reg_of[np.maximum(evaluation.matched_gt[proc], 0)], -1)
    used = np.zeros(len(reg), dtype=bool)
    used[match[tp]] = True
    p_img = det.image_index[proc]
    r_off = group_offsets(obj.image_index[reg], len(dataset.images))
    pair_det, pair_gt = same_image_pairs(p_img, r_off)
    considered, ov = overlap_pairs(det.box[proc][pair_det], obj.box[reg][pair_gt], plus_one=True)
    thr = object_thresholds(obj.box[reg])[pair_gt]
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = np.where(considered, ov * (0.5 / thr), 0.0)
    same = det.label[proc][pair_det] == obj.label[reg][pair_gt]
    kind, target = error_kinds(
        scaled, same, used, pair_gt, r_off, p_img, tp, 0.5, background_threshold
    )
    return assemble_evidence(det, obj, proc, match, kind, target, v == -1, reg, counted)


def ilsvrc_tide(
    dataset: Dataset,
    results: ResultSet,
    evaluation: IlsvrcDetResult,
    *,
    background_threshold: float = 0.1,
) -> TideResult:
    """TIDE's breakdown of an ILSVRC DET evaluation (module docstring)."""
    ev = ilsvrc_evidence(dataset, results, evaluation, background_threshold=background_threshold)
    return tide(
        ev,
        dataset.classes,
        pos_threshold=0.5,
        background_threshold=background_threshold,
        max_dets=0,
    )
