"""Open Images in the window: the challenge's evidence as ``ClassView``s.

The IoU threshold is fixed (0.5). Each class lists its counted detections in the official rank
order and, as ignored ranks, the detections the challenge sets aside: those absorbed by a
group-of box whose one true positive another detection carries, and those of a class not
verified on their image ("not evaluated"); ``why_text`` says which, for the inspector.
A group-of box's true positive is the absorbed detection with the top score.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import numpy as np

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis import DiagnosisRules
from vocviewer.evaluation.result import Verdict
from vocviewer.families.openimages.columns import OpenImagesGroundTruth
from vocviewer.families.openimages.evaluate import (
    COUNTED,
    OpenImagesResult,
    Why,
    evaluate_openimages,
)
from vocviewer.families.views import (
    ClassView,
    Notice,
    Summary,
    ViewChoice,
    ViewSettings,
    curve_view,
    diagnosed,
    ranked_evaluation,
)

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
RULES = DiagnosisRules(
    {},
    "Open Images sets it aside: absorbed by a group-of box (intersection over its own area "
    ">= 0.5) whose one true positive a higher score carries, or of a class not verified on "
    "this image (no image-level label, no box, after hierarchy expansion).",
)
SETTINGS = ViewSettings("Open Images", rules=RULES)


def why_text(result: OpenImagesResult, row: int) -> str:
    """What the challenge did with detection ``row``, in words."""
    return WHY_TEXT[Why(int(result.why[row]))]


def openimages_views(
    dataset: Dataset, results: ResultSet, raw: OpenImagesResult, diagnose: bool = True
) -> list[ClassView]:
    """Per class, the ranked evidence of ``raw`` (``diagnose`` False: false positives left
    undiagnosed)."""
    gt: OpenImagesGroundTruth = dataset.extras["openimages"]
    det = results.detections
    counted = np.isin(raw.why, np.array(COUNTED, dtype=np.int8))
    verdict_of = np.full(len(det), Verdict.IGNORED, dtype=np.int8)
    verdict_of[(raw.why == Why.TP) | (raw.why == Why.GROUP_TP)] = Verdict.TP
    verdict_of[raw.why == Why.FP] = Verdict.FP
    out = []
    for k in range(len(dataset.classes)):
        aside = np.flatnonzero((det.label == k) & ~counted)
        seq = np.concatenate((raw.ranked[k], aside))
        order = seq[np.argsort(-det.score[seq], kind="stable")]
        npos = int(raw.npos[k])
        ev = ranked_evaluation(
            dataset,
            k,
            order,
            det.image_index[order],
            det.score[order],
            verdict_of[order],
            raw.matched[order],
            npos,
            float(raw.ap[k]),
        )
        ev = dataclasses.replace(ev, best_iou=raw.overlap[order])
        mine = gt.counts_row[gt.counts_label == k]
        found = raw.matched[order[verdict_of[order] == Verdict.TP]]
        missed = mine[~np.isin(mine, found)].astype(np.int64)
        view = curve_view(ev, missed, 0.5, raw)
        out.append(diagnosed(dataset, results, view, RULES, diagnose))
    return out


def evaluate_openimages_views(
    dataset: Dataset, results: ResultSet, choice: ViewChoice, diagnose: bool = True
) -> Iterator[ClassView | Summary | Notice]:
    """The challenge evaluation, then per class, notices, and the mAP."""
    raw = evaluate_openimages(dataset, results)
    yield from openimages_views(dataset, results, raw, diagnose)
    for note in notices(dataset, results, raw):
        yield Notice("warning", note)
    yield Summary("Open Images", {"mAP": raw.mean_ap}, headline="mAP")


def notices(dataset: Dataset, results: ResultSet, raw: OpenImagesResult) -> list[str]:
    """What the numbers do not show: rows on images the annotations lack (ignored, as the
    challenge ignores them), classes whose AP depends on how ties are sorted."""
    out = []
    pred = results.extras["openimages"]
    if pred.unknown_images:
        out.append(
            f"{pred.unknown_images} prediction(s) on images the annotations do not hold "
            f"(e.g. {', '.join(pred.unknown_sample)}): ignored, as the challenge ignores them"
        )
    if raw.tied:
        names = ", ".join(dataset.classes[k] for k in raw.tied[:10])
        more = f" and {len(raw.tied) - 10} more" if len(raw.tied) > 10 else ""
        out.append(
            f"tied scores mix true and false positives in {names}{more}: the challenge ranks "
            "ties by numpy's unstable sort, so those APs depend on the numpy build (reproduced "
            "here by the same call)"
        )
    return out
