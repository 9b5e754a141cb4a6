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
from vocviewer.evaluation.matching import group_offsets, same_image_pairs
from vocviewer.evaluation.result import EvalResult, Verdict
from vocviewer.evaluation.tide import TideEvidence, TideResult, assemble_evidence, error_kinds, tide

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
    counted = in_set[obj.image_index] & ~obj.difficult
    reg = np.flatnonzero(counted)
    reg_of = np.full(len(obj.label), -1, dtype=np.int64)
    reg_of[reg] = np.arange(len(reg))

    evals = [e for e in evaluation if e.task == "det"]
    rows = np.concatenate([e.order for e in evals]) if evals else np.zeros(0, np.int64)
    verdict = np.concatenate([e.verdict for e in evals]) if evals else np.zeros(0, np.int8)
    best = np.concatenate([e.best_gt for e in evals]) if evals else np.zeros(0, np.int64)
    order = np.lexsort((rows, -det.score[rows], det.image_index[rows]))
    proc, verdict, best = rows[order], verdict[order], best[order]
    p_img, p_lab = det.image_index[proc], det.label[proc]

    tp = verdict == Verdict.TP
    match = np.where(tp, reg_of[np.maximum(best, 0)], -1)
    used = np.zeros(len(reg), dtype=bool)
    used[match[tp]] = True
    r_off = group_offsets(obj.image_index[reg], len(dataset.images))
    pair_det, pair_gt = same_image_pairs(p_img, r_off)
    considered, ov = overlap_pairs(det.box[proc][pair_det], obj.box[reg][pair_gt], plus_one=True)
    iou = np.where(considered, ov, 0.0)  # TIDE's IoU of disjoint boxes is 0
    same = p_lab[pair_det] == obj.label[reg][pair_gt]
    kind, target = error_kinds(
        iou, same, used, pair_gt, r_off, p_img, tp, pos_threshold, background_threshold
    )
    ignored = verdict == Verdict.IGNORED
    return assemble_evidence(det, obj, proc, match, kind, target, ignored, reg, counted)


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
    ev = voc_evidence(
        dataset,
        results,
        evaluation,
        image_set=image_set,
        pos_threshold=pos_threshold,
        background_threshold=background_threshold,
    )
    return tide(
        ev,
        dataset.classes,
        pos_threshold=pos_threshold,
        background_threshold=background_threshold,
        max_dets=0,
    )
