"""TIDE's error breakdown on VisDrone-DET, from ``evalDET.m``'s own verdicts (``visdrone.py``).

The toolkit decides who is a true positive at IoU 0.5 under its 500-detection cap (the first 500
surviving rows of each image's file, all categories counted): its matches are kept as they are.
Then, with TIDE's definitions (``tide``; ``t_f = 0.5``, ``t_b = 0.1``) and the toolkit's overlap
(``compOas``: no ``+1``):

- positives: the evaluated ground truth — classes 1..10, outside every ignored region, score 1.
  Ignore-flagged objects (score 0) and ignored regions (category 0) play the part of COCO's
  crowd: a detection the toolkit ignored (it hit an ignore-flagged object) is left out of AP yet
  still typed; a detection inside an ignored region was dropped before the cap and is not
  evaluated, nor are "others" (category 11) and rows beyond the cap;
- every other detection is typed against the positives of its image (any class): Loc (its class,
  ``0.1 <= IoU <= 0.5``), Cls (another class, ``IoU >= 0.5``), Dupe (a used object of its class),
  Bkg (``IoU <= 0.1`` with everything), else Both; Miss, the fixes and the special FalsePos /
  FalseNeg as TIDE's.

The AP is TIDE's 101-point AP over the positives above, so ``TideResult.ap`` is not VisDrone's
AP50 (whose recall also counts the ignore-flagged objects and whose AP is ``VOCap``); the dAP are
comparable with COCO's.
"""

from __future__ import annotations

import numpy as np

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
from vocviewer.families.visdrone.columns import (
    VISDRONE_EVAL_CLASSES,
    VisDroneDetections,
    VisDroneGroundTruth,
)
from vocviewer.families.visdrone.evaluate import VISDRONE_MAX_DETS, VisDroneResult
from vocviewer.families.visdrone.matching import overlaps

__all__ = ["visdrone_evidence", "visdrone_positives", "visdrone_tide"]


def visdrone_positives(dataset: Dataset, evaluation: VisDroneResult) -> np.ndarray:
    """bool (G,): the evaluated ground truth (classes 1..10, kept by the region filter, score 1)."""
    gt: VisDroneGroundTruth = dataset.data(VisDroneGroundTruth)
    cls = (gt.category >= VISDRONE_EVAL_CLASSES[0]) & (gt.category <= VISDRONE_EVAL_CLASSES[-1])
    return np.asarray(evaluation.gt_kept & cls & (gt.score != 0), dtype=bool)


def visdrone_evidence(
    dataset: Dataset,
    results: ResultSet,
    evaluation: VisDroneResult,
    *,
    background_threshold: float = 0.1,
) -> TideEvidence:
    """TIDE evidence from ``evaluate_visdrone(dataset, results)`` at IoU 0.5 (module docstring)."""
    gt: VisDroneGroundTruth = dataset.data(VisDroneGroundTruth)
    rx: VisDroneDetections = results.data(VisDroneDetections)
    v = evaluation.verdict[:, 0]
    verdicts = (v != -2, v == 1, v == -1, evaluation.matched_gt[:, 0])

    def iou(d: IntArray, g: IntArray) -> FloatArray:  # compOas: no +1
        ok, ov = overlaps(rx.ltwh[d], gt.ltwh[g], np.zeros(len(d), dtype=bool))
        return np.where(ok, ov, 0.0)

    counted = visdrone_positives(dataset, evaluation)
    det, obj, n_img = results.detections, dataset.objects, len(dataset.images)
    bg = background_threshold
    return verdict_evidence(det, obj, n_img, verdicts, counted, iou, background_threshold=bg)


def visdrone_tide(
    dataset: Dataset,
    results: ResultSet,
    evaluation: VisDroneResult,
    *,
    background_threshold: float = 0.1,
) -> TideResult:
    """TIDE's breakdown of a VisDrone evaluation (module docstring)."""
    bg = background_threshold
    ev = visdrone_evidence(dataset, results, evaluation, background_threshold=bg)
    return tide(ev, dataset.classes, background_threshold=bg, max_dets=VISDRONE_MAX_DETS[-1])
