"""TIDE's error breakdown on PASCAL VOC detection, from ``VOCevaldet``'s own verdicts.

VOC decides who is a true positive (``families.voc.evaluate``: its ``ovmax >= 0.5`` with inclusive
``+1`` pixel sizes, difficult objects included as candidates, no fallback); TIDE's rules
(``evaluation.tide``) then type every other detection with the same overlap convention: the
non-difficult objects of the set are the positives, a detection VOC ignored (it hit a difficult
object) plays the part of a detection in a COCO crowd, and Loc / Cls / Dupe / Bkg / Both, the
BestGTMatch fix and Miss follow TIDE's definitions with ``t_f = 0.5``, ``t_b = 0.1``. Every ranked
detection is evaluated (VOC has no per-image cap); processing order is image, then descending
score (results-file order on ties). The AP is TIDE's 101-point AP, so the dAP are comparable
with COCO's; ``TideResult.ap`` is therefore not VOC's AP.
"""

from __future__ import annotations

import numpy as np

from vocviewer.core.boxes import overlap_pairs
from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.result import EvalResult, Verdict
from vocviewer.evaluation.tide import (
    FloatArray,
    IntArray,
    TideEvidence,
    TideResult,
    tide,
    verdict_evidence,
)

__all__ = ["voc_evidence", "voc_tide"]


def voc_evidence(
    dataset: Dataset,
    results: ResultSet,
    evaluation: EvalResult,
    *,
    image_set: str,
    pos_threshold: float = 0.5,
    background_threshold: float = 0.1,
) -> TideEvidence:
    """TIDE evidence from ``evaluate_voc_det(dataset, results, image_set=...)``'s result."""
    det, obj = results.detections, dataset.objects
    key = image_set if "/" in image_set else f"Main/{image_set}"
    in_set = np.zeros(len(dataset.images), dtype=bool)
    in_set[dataset.image_sets[key]] = True
    verdict = np.full(len(det.label), -1, dtype=np.int8)
    matched = np.full(len(det.label), -1, dtype=np.int64)
    for e in evaluation:
        if e.task == "det":
            verdict[e.order], matched[e.order] = e.verdict, e.best_gt
    tp, ignored = verdict == Verdict.TP, verdict == Verdict.IGNORED

    def iou(d: IntArray, g: IntArray) -> FloatArray:  # TIDE's IoU of disjoint boxes is 0
        considered, ov = overlap_pairs(det.box[d], obj.box[g], plus_one=True)
        return np.where(considered, ov, 0.0)

    return verdict_evidence(
        det,
        obj,
        len(dataset.images),
        (verdict >= 0, tp, ignored, matched),
        in_set[obj.image_index] & ~obj.difficult,
        iou,
        pos_threshold=pos_threshold,
        background_threshold=background_threshold,
    )


def voc_tide(
    dataset: Dataset,
    results: ResultSet,
    evaluation: EvalResult,
    *,
    image_set: str,
    pos_threshold: float = 0.5,
    background_threshold: float = 0.1,
) -> TideResult:
    """TIDE's breakdown of a VOC detection evaluation (see the module docstring)."""
    thresholds = {"pos_threshold": pos_threshold, "background_threshold": background_threshold}
    ev = voc_evidence(dataset, results, evaluation, image_set=image_set, **thresholds)
    return tide(ev, dataset.classes, max_dets=0, **thresholds)
