"""ILSVRC DET in the window: the devkit's evidence as ``ClassView`` (per-object IoU thresholds,
so there is nothing to choose; blacklisted detections are ignored ranks; labels above the largest
ground-truth label are not evaluated)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis import DiagnosisRules
from vocviewer.families.ilsvrc.columns import IlsvrcDetInfo
from vocviewer.families.ilsvrc.evaluate import evaluate_ilsvrc_det
from vocviewer.families.views import (
    TOOLKIT_VERDICT,
    ClassView,
    Summary,
    ViewChoice,
    ViewSettings,
    box_pair_iou,
    curve_view,
    diagnosed,
    missed_rows,
    ranked_evaluation,
)

RULES = DiagnosisRules({}, "The devkit's blacklist excludes this class on this image: not counted.")
SETTINGS = ViewSettings("ILSVRC DET", rules=RULES)


def ilsvrc_views(
    dataset: Dataset, results: ResultSet, raw: Any, diagnose: bool = True
) -> list[ClassView]:
    """Per label, the ranked evidence of an ``IlsvrcDetResult`` (``diagnose`` False: false
    positives left undiagnosed)."""
    det = results.detections
    image_id = dataset.data(IlsvrcDetInfo).image_id[det.image_index]
    out, pair_iou = [], box_pair_iou(dataset, results)
    for k in range(len(dataset.classes)):
        evaluated = k < len(raw.ap)
        rows = np.flatnonzero((det.label == k) & (raw.verdict >= -1))
        rows = rows[np.lexsort((rows, image_id[rows], -det.score[rows]))]  # the devkit's order
        ev = ranked_evaluation(
            dataset,
            k,
            rows,
            det.image_index[rows],
            det.score[rows],
            TOOLKIT_VERDICT[raw.verdict[rows] + 1],
            raw.matched_gt[rows],
            int(raw.npos[k]) if evaluated else 0,
            float(raw.ap[k]) if evaluated else math.nan,
            pair_iou,
        )
        if not evaluated:
            ev = dataclasses.replace(ev, has_results=False)
        missed = missed_rows(dataset, ev) if evaluated else np.zeros(0, np.int64)
        view = curve_view(ev, missed, 0.5, raw)
        out.append(diagnosed(dataset, results, view, RULES, diagnose))
    return out


def evaluate_ilsvrc_views(
    dataset: Dataset, results: ResultSet, choice: ViewChoice, diagnose: bool = True
) -> Iterator[ClassView | Summary]:
    """The devkit's DET evaluation, then per label, then mean and median AP."""
    raw = evaluate_ilsvrc_det(dataset, results)
    yield from ilsvrc_views(dataset, results, raw, diagnose)
    stats = {"mAP": raw.mean_ap, "medianAP": raw.median_ap}
    yield Summary("ILSVRC DET", stats, raw.notes, headline="mAP")


def rederive_ilsvrc_views(
    dataset: Dataset, results: ResultSet, raws: Mapping[int, Any], choice: ViewChoice
) -> list[ClassView]:
    return ilsvrc_views(dataset, results, next(iter(raws.values())))
