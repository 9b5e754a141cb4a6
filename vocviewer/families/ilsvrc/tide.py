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
from vocviewer.evaluation.tide import (
    FloatArray,
    IntArray,
    TideEvidence,
    TideResult,
    tide,
    verdict_evidence,
)
from vocviewer.families.ilsvrc.columns import IlsvrcDetInfo
from vocviewer.families.ilsvrc.evaluate import IlsvrcDetResult, _blacklisted, object_thresholds

__all__ = ["ilsvrc_evidence", "ilsvrc_positives", "ilsvrc_tide"]


def ilsvrc_positives(dataset: Dataset) -> np.ndarray:
    """bool (G,): objects outside the blacklisted (image, label) pairs (the devkit's ``npos``)."""
    info: IlsvrcDetInfo = dataset.data(IlsvrcDetInfo)
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
    v = evaluation.verdict
    verdicts = (v != -2, v == 1, v == -1, evaluation.matched_gt)

    def scaled(d: IntArray, g: IntArray) -> FloatArray:  # IoU relative to the object's own
        considered, ov = overlap_pairs(det.box[d], obj.box[g], plus_one=True)
        thr = object_thresholds(obj.box[g])
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(considered, ov * (0.5 / thr), 0.0)

    counted, n_img = ilsvrc_positives(dataset), len(dataset.images)
    bg = background_threshold
    return verdict_evidence(det, obj, n_img, verdicts, counted, scaled, background_threshold=bg)


def ilsvrc_tide(
    dataset: Dataset,
    results: ResultSet,
    evaluation: IlsvrcDetResult,
    *,
    background_threshold: float = 0.1,
) -> TideResult:
    """TIDE's breakdown of an ILSVRC DET evaluation (module docstring)."""
    ev = ilsvrc_evidence(dataset, results, evaluation, background_threshold=background_threshold)
    return tide(ev, dataset.classes, background_threshold=background_threshold, max_dets=0)
