"""Open Images in the window: the challenge's evidence as ``ClassView``s.

The IoU threshold is fixed (0.5). Each class lists its counted detections in the official rank
order and, as ignored ranks, the detections the challenge sets aside: those absorbed by a
group-of box whose one true positive another detection carries, and those of a class not
verified on their image ("not evaluated"); ``OpenImagesResult.describe`` says which, for the
inspector. A group-of box's true positive is the absorbed detection with the top score.
Boxes are normalised: ``view_dataset`` / ``view_results`` scale the drawn boxes to each image's
size (read from its header) or to a ``CANVAS`` where the image is not on disk; the evaluation
reads the normalised numbers kept in the extras.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import numpy as np

from vocviewer.core.dataset import Dataset, ImageTable, ObjectTable
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis import DiagnosisRules
from vocviewer.evaluation.result import Verdict
from vocviewer.families.openimages.columns import OpenImagesGroundTruth, OpenImagesPredictions
from vocviewer.families.openimages.evaluate import (
    COUNTED,
    GROUPED,
    OpenImagesResult,
    Why,
    evaluate_openimages,
)
from vocviewer.families.views import (
    ClassView,
    Notice,
    Summary,
    ViewChoice,
    ViewExtras,
    ViewSettings,
    curve_view,
    diagnosed,
    ranked_evaluation,
    with_view_extras,
)
from vocviewer.formats.image_file import declared_size

#: the blank canvas (pixels, width x height) an image without a file is drawn on
CANVAS = (1024, 768)

RULES = DiagnosisRules({}, "The Open Images challenge sets it aside:")
SETTINGS = ViewSettings("Open Images", rules=RULES)


def openimages_views(
    dataset: Dataset, results: ResultSet, raw: OpenImagesResult, diagnose: bool = True
) -> list[ClassView]:
    """Per class, the ranked evidence of ``raw`` (``diagnose`` False: false positives left
    undiagnosed)."""
    det = results.detections
    counted = np.isin(raw.why, np.array(COUNTED, dtype=np.int8))
    verdict_of = np.full(len(det), Verdict.IGNORED, dtype=np.int8)
    verdict_of[(raw.why == Why.TP) | (raw.why == Why.GROUP_TP)] = Verdict.TP
    verdict_of[raw.why == Why.FP] = Verdict.FP
    group = np.isin(raw.why, np.array(GROUPED, dtype=np.int8))
    iou_of = np.where(group, np.nan, raw.overlap)  # an IoA is no IoU: ``describe`` gives it
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
        # ``ndet``: the ranked (counted) entries, as the JSON's; the ranks also list those set aside
        ev = dataclasses.replace(ev, best_iou=iou_of[order], ndet=len(raw.ranked[k]))
        # the class's own objects (each object is drawn missed or not by its own class; its
        # ancestors' recall still counts it: ``npos``)
        mine = np.flatnonzero(dataset.objects.label == k)
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
    pred = results.data(OpenImagesPredictions)
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


def _scale(boxes: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Normalised xyxy ``boxes`` (N, 4) in pixels of per-row ``size`` (N, 2: width, height)."""
    scaled: np.ndarray = np.asarray(boxes, dtype=np.float64) * np.concatenate((size, size), axis=1)
    return scaled


def view_dataset(dataset: Dataset) -> Dataset:
    """``dataset`` as the window draws it: each image's size from its file's header (the
    ``CANVAS`` where there is none or it cannot be read), object boxes in those pixels, group-of
    boxes flagged for drawing."""
    size = np.empty((len(dataset.images), 2), dtype=np.int32)
    for i, path in enumerate(dataset.images.path):
        try:
            size[i] = declared_size(path) if path.is_file() else CANVAS
        except (FormatError, OSError):
            size[i] = CANVAS
    im = dataset.images
    images = ImageTable(im.id, im.path, size[:, 0], size[:, 1], im.segmented, im.fields)
    ob = dataset.objects
    box = _scale(ob.box, size[ob.image_index].astype(np.float64))
    objects = ObjectTable(
        ob.image_index,
        ob.label,
        box,
        ob.difficult,
        ob.truncated,
        ob.occluded,
        ob.pose,
        ob.order_in_image,
        ob.actions,
    )
    drawn = dataclasses.replace(dataset, images=images, objects=objects)
    gt: OpenImagesGroundTruth = dataset.data(OpenImagesGroundTruth)
    return with_view_extras(drawn, ViewExtras(group_of=gt.group_of))


def view_results(dataset: Dataset, results: ResultSet) -> ResultSet:
    """``results`` with detection boxes in the pixels of ``dataset``'s images (as
    ``view_dataset`` sized them; unchanged where the sizes are unknown)."""
    size = np.column_stack((dataset.images.width, dataset.images.height)).astype(np.float64)
    det = results.detections
    if not len(det) or not np.all(size > 0):
        return results
    scaled = dataclasses.replace(det, box=_scale(det.box, size[det.image_index]))
    return dataclasses.replace(results, detections=scaled)
