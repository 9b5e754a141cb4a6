"""PASCAL VOC in the window: the devkit's per-class evaluation as ``ClassView``.

Detection and classification results are evaluated on the chosen Main image set. The devkit's IoU
threshold is 0.5; another one can be chosen, and numbers computed with it are not official.
A result row the devkit rejects (an image outside the set) stops the official code: the window
says so and evaluates without such rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from vocviewer.benchmarks.views import (
    IOU_CHOICES,
    ClassView,
    Notice,
    Summary,
    ViewChoice,
    ViewSettings,
    curve_view,
    diagnosed,
)
from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis import DiagnosisRules, missed_objects
from vocviewer.evaluation.result import ClassEvaluation, EvalResult
from vocviewer.evaluation.voc import iter_evaluate_voc_cls, iter_evaluate_voc_det
from vocviewer.formats.voc import read_voc_results

RULES = DiagnosisRules()
SETTINGS = ViewSettings("VOC", IOU_CHOICES, 0.5, rules=RULES, image_sets=True)


def _view(
    dataset: Dataset, results: ResultSet, ev: ClassEvaluation, iou: float, images: Any
) -> ClassView:
    if ev.task != "det":
        return curve_view(ev, np.zeros(0, np.int64), iou)
    view = curve_view(ev, missed_objects(dataset, ev, images), iou)
    return diagnosed(dataset, results, view, RULES)


def evaluate_voc_views(
    dataset: Dataset, results: ResultSet, choice: ViewChoice
) -> Iterator[ClassView | Notice | Summary]:
    """Per class, detection then classification (those the results hold), on
    ``choice.image_set``; a row the devkit rejects gives an error ``Notice``, then the classes
    left are evaluated without such rows. Last a ``Summary``: the mean AP of each task (the
    devkit prints none: the conventional mean, ``EvalResult.mean_ap``)."""
    image_set = choice.image_set
    if image_set is None:
        return
    images = dataset.images_in_set(image_set)
    tasks = [
        task
        for task, n in (("det", len(results.detections)), ("cls", len(results.class_scores)))
        if n or results.classes_with_files.get(task)
    ]
    done_by_task: dict[str, list[ClassEvaluation]] = {}
    notes: list[str] = [] if SETTINGS.official(choice) else [f"IoU {choice.iou:.2f}: NOT OFFICIAL"]
    for task in tasks:
        kw: dict[str, Any] = {"image_set": image_set}
        done_by_task[task] = evs = []
        if task == "det":
            fn: Callable[..., Iterator[ClassEvaluation]] = iter_evaluate_voc_det
            kw["iou_threshold"] = choice.iou
        else:
            fn = iter_evaluate_voc_cls
        try:
            for ev in fn(dataset, results, strict=True, **kw):
                evs.append(ev)
                yield _view(dataset, results, ev, choice.iou, images)
        except FormatError as err:
            # the official code stops here; the window says so at once and carries on
            yield Notice("error", f"{err}; evaluating without such rows (numbers not official)")
            notes.append(f"{task}: rows the devkit rejects were dropped: NOT OFFICIAL")
            rest = range(len(evs), len(dataset.classes))
            for ev in fn(dataset, results, classes=rest, strict=False, **kw):
                evs.append(ev)
                yield _view(dataset, results, ev, choice.iou, images)
    names = {"det": "mAP", "cls": "cls mAP"}
    stats = {
        names[t]: EvalResult("", t, image_set, "", choice.iou, tuple(evs)).mean_ap()
        for t, evs in done_by_task.items()
    }
    if stats:
        title = f"VOC{dataset.year or ''} {image_set}".strip()
        yield Summary(title, stats, tuple(notes), headline="mAP" if "det" in stats else None)


def read_voc_view_results(
    dataset: Dataset, paths: list[Path], image_set: str | None, fallback_set: str | None
) -> ResultSet:
    """Result files (only those of ``image_set`` if given); if they turn out to mix image sets,
    retry keeping those of ``fallback_set``."""
    try:
        return read_voc_results(dataset, paths, image_set=image_set)
    except FormatError:
        if image_set is not None or fallback_set is None:
            raise
        return read_voc_results(dataset, paths, image_set=fallback_set)
