"""VisDrone-DET in the window: the toolkit's evidence as ``ClassView`` at a chosen IoU threshold.

Categories 1..10 are evaluated; 0 (ignored regions) and 11 (others) are not: their views have no
results and no missed objects (the toolkit never counts them). The summary is in percent, its
headline the toolkit's AP (mean over the ten categories and the ten thresholds).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis import VISDRONE_GROUPS, DiagnosisRules
from vocviewer.families.views import (
    IOU_CHOICES,
    TOOLKIT_VERDICT,
    ClassView,
    Summary,
    ViewChoice,
    ViewExtras,
    ViewSettings,
    box_pair_iou,
    curve_view,
    diagnosed,
    missed_rows,
    ranked_evaluation,
    threshold_index,
    with_view_extras,
)
from vocviewer.families.visdrone.columns import VisDroneGroundTruth
from vocviewer.families.visdrone.evaluate import evaluate_visdrone

RULES = DiagnosisRules(
    VISDRONE_GROUPS,
    "It lies in an ignored region or on an object the toolkit ignores: not counted.",
)
SETTINGS = ViewSettings(
    "VisDrone-DET", IOU_CHOICES, None, ap_name="AP[.5:.95]", percent=True, rules=RULES
)


def visdrone_view_extras(dataset: Dataset) -> Dataset:
    """Ignored regions (category 0) are shaded, not objects; 'others' (11) are never evaluated."""
    regions = np.asarray(dataset.data(VisDroneGroundTruth).category == 0)
    return with_view_extras(dataset, ViewExtras(regions=regions, unevaluated=frozenset({11})))


def toolkit_ranking(results: ResultSet, verdict: Any, k: int) -> npt.NDArray[np.int64]:
    """Detection rows of category ``k`` the toolkit evaluated (``verdict`` int (D,) at one
    threshold: -2 not evaluated), in its rank order: score descending, then image, then row."""
    det = results.detections
    rows = np.flatnonzero((det.label == k) & (verdict != -2))
    return rows[np.lexsort((rows, det.image_index[rows], -det.score[rows]))].astype(np.int64)


def visdrone_views(
    dataset: Dataset, results: ResultSet, raw: Any, choice: ViewChoice, diagnose: bool = True
) -> list[ClassView]:
    """Per category (0..11) evidence of a ``VisDroneResult`` at the threshold nearest
    ``choice.iou`` (``diagnose`` False: false positives left undiagnosed)."""
    t = threshold_index(IOU_CHOICES, choice.iou)
    det, gt = results.detections, dataset.data(VisDroneGroundTruth)
    exclude = ~raw.gt_kept | (gt.score == 0)
    out, pair_iou = [], box_pair_iou(dataset, results)
    for k in range(len(dataset.classes)):
        evaluated = 1 <= k <= 10
        v_all = raw.verdict[:, t]
        rows = toolkit_ranking(results, v_all, k) if evaluated else np.zeros(0, np.int64)
        ev = ranked_evaluation(
            dataset,
            k,
            rows,
            det.image_index[rows],
            det.score[rows],
            TOOLKIT_VERDICT[v_all[rows] + 1],
            raw.matched_gt[rows, t],
            int(raw.npos[k - 1]) if evaluated else 0,
            float(np.mean(raw.ap[k - 1])) / 100 if evaluated else math.nan,
            pair_iou,
        )
        if not evaluated:
            ev = dataclasses.replace(ev, has_results=False)
        missed = missed_rows(dataset, ev, exclude) if evaluated else np.zeros(0, np.int64)
        ap_at = float(raw.ap[k - 1, t]) / 100 if evaluated else math.nan
        view = curve_view(ev, missed, IOU_CHOICES[t], raw, ap_at)
        if evaluated and not raw.images_with_class[k - 1]:  # weight 0 in the toolkit's means
            view = dataclasses.replace(view, left_out="no ground truth")
        out.append(diagnosed(dataset, results, view, RULES, diagnose))
    return out


def evaluate_visdrone_views(
    dataset: Dataset, results: ResultSet, choice: ViewChoice, diagnose: bool = True
) -> Iterator[ClassView | Summary]:
    """The toolkit's evaluation (all at once), then per category, then the summary (percent)."""
    raw = evaluate_visdrone(dataset, results)
    yield from visdrone_views(dataset, results, raw, choice, diagnose)
    yield Summary("VisDrone-DET", raw.summary, raw.notes, percent=True, headline="AP")


def rederive_visdrone_views(
    dataset: Dataset, results: ResultSet, raws: Mapping[int, Any], choice: ViewChoice
) -> list[ClassView]:
    return visdrone_views(dataset, results, next(iter(raws.values())), choice)
