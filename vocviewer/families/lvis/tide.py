"""TIDE's error breakdown on LVIS, from ``LVISEval``'s own verdicts at IoU 0.5 (``lvis.py``).

LVIS decides who is a true positive (``evaluate_lvis``: COCO's greedy matching per image and
category at IoU 0.5, area "all", under LVIS's cap of 300 detections per image): its matches are
kept as they are. Then TIDE's definitions (``tide``; ``t_f = 0.5``, ``t_b = 0.1``) type the rest,
under LVIS's federated rules:

- a detection LVIS does not evaluate is not an error and not a data point: its category is
  neither on its image (an annotation) nor in the image's ``neg_category_ids``, its area is not
  in (0, inf), or it is not among its image's 300 highest scores (``LvisSelection.status``);
- a detection LVIS evaluates but ignores — unmatched while its category is in the image's
  ``not_exhaustive_category_ids``, or matched to an annotation flagged ``ignore`` — is left out
  of AP and given **no** error type (kind ``NOT_EVALUATED``, ``ignored`` set): it cannot be Bkg,
  nor be the Cls / Loc error that fixes an object. (``tidecv`` keeps its ignored detections as
  typed errors, which would count these as Bkg, Cls, ...);
- positives: the annotations LVIS counts (area in (0, inf) and within area "all", no ``ignore``
  flag); every other evaluated detection is typed against the positives of its image, any
  category: Loc, Cls, Dupe, Bkg, Both; Miss, the oracle fixes and FalsePos / FalseNeg as TIDE's.
  A detection of a category verified absent (``neg_category_ids``) on an object of another
  category is a Cls error; one on nothing annotated is Bkg.

IoU: pycocotools' ``bbIou`` (boxes) or ``rleIou`` (masks), as ``LVISEval``. The AP is TIDE's
101-point AP (categories with a data point but no positive count with AP 0, as in ``tidecv``),
so ``TideResult.ap`` is close to, not equal to, ``LVISEval``'s AP50.

Parity: on a file where every category is exhaustively annotated and every image lists every
absent category as negative, the federated rules change nothing and this equals ``tidecv``'s
``datasets.LVIS`` / ``LVISResult`` run (which emulates LVIS with ignore regions).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.result import Verdict
from vocviewer.evaluation.tide import FloatArray, TideEvidence, TideResult, tide, verdict_evidence
from vocviewer.families.coco.columns import CocoAnnotations, CocoResults
from vocviewer.families.coco.tide import pair_iou
from vocviewer.families.lvis.columns import MAX_DETS_PER_IMAGE
from vocviewer.families.lvis.evaluate import EVALUATED, LvisEvalResult, LvisSelection, select

__all__ = ["lvis_positives", "lvis_tide", "lvis_tide_evidence", "lvis_verdicts"]

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]


def lvis_positives(dataset: Dataset, sel: LvisSelection, evaluation: LvisEvalResult) -> BoolArray:
    """bool (G,): the annotations ``LVISEval`` counts as positives in area "all" (its ``npig``)."""
    gt: CocoAnnotations = dataset.data(CocoAnnotations)
    lo, hi = evaluation.params.area_ranges[0]
    with np.errstate(invalid="ignore"):
        in_range = (gt.area >= lo) & (gt.area <= hi)
    return np.asarray(sel.object_evaluated & ~sel.object_ignored & in_range, dtype=bool)


def lvis_verdicts(
    results: ResultSet, evaluation: LvisEvalResult, threshold: int = 0
) -> tuple[npt.NDArray[np.int8], IntArray]:
    """Per ``ResultSet.detections`` row: ``Verdict`` and matched object row (-1: none) at IoU
    threshold index ``threshold`` (0: IoU 0.5), area "all"."""
    n = len(results.detections.label)
    verdict = np.full(n, Verdict.IGNORED, dtype=np.int8)
    matched = np.full(n, -1, dtype=np.int64)
    for c in evaluation.categories:
        verdict[c.det_rows] = c.verdict[threshold]
        matched[c.det_rows] = c.matched_gt[threshold]
    return verdict, matched


def lvis_tide_evidence(
    dataset: Dataset,
    results: ResultSet,
    evaluation: LvisEvalResult,
    *,
    background_threshold: float = 0.1,
) -> TideEvidence:
    """TIDE evidence from ``evaluate_lvis(dataset, results, task)`` (module docstring)."""
    gt: CocoAnnotations = dataset.data(CocoAnnotations)
    dt: CocoResults = results.data(CocoResults)
    sel = select(dataset, results)
    v, matched = lvis_verdicts(results, evaluation)
    verdicts = (sel.status == EVALUATED, v == Verdict.TP, v == Verdict.IGNORED, matched)

    def iou(d: IntArray, g: IntArray) -> FloatArray:
        no_crowd = np.zeros(len(d), dtype=bool)
        return pair_iou(gt, dt, d, g, no_crowd, evaluation.params.iou_type)

    return verdict_evidence(
        results.detections,
        dataset.objects,
        len(dataset.images),
        verdicts,
        lvis_positives(dataset, sel, evaluation),
        iou,
        background_threshold=background_threshold,
        untyped_ignored=True,  # LVIS ignores it: no error type, never the fix of an object
    )


def lvis_tide(
    dataset: Dataset,
    results: ResultSet,
    evaluation: LvisEvalResult,
    *,
    background_threshold: float = 0.1,
) -> TideResult:
    """TIDE's breakdown of an LVIS evaluation (module docstring)."""
    bg = background_threshold
    ev = lvis_tide_evidence(dataset, results, evaluation, background_threshold=bg)
    return tide(ev, dataset.classes, background_threshold=bg, max_dets=MAX_DETS_PER_IMAGE)
