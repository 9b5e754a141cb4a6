"""PASCAL VOC in the window: the devkit's per-class evaluation as ``ClassView``.

Detection and classification results are evaluated on the chosen Main image set. The devkit's IoU
threshold is 0.5; another one can be chosen, and numbers computed with it are not official.
A result row the devkit rejects (an image outside the set) stops the official code: the window
says so and evaluates without such rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis import DiagnosisRules, missed_objects
from vocviewer.evaluation.result import ClassEvaluation, EvalResult
from vocviewer.families.official import NOT_OFFICIAL, not_official_reasons
from vocviewer.families.views import (
    IOU_CHOICES,
    ClassView,
    Notice,
    Summary,
    ViewChoice,
    ViewSettings,
    curve_view,
    diagnosed,
)
from vocviewer.families.voc.evaluate import iter_evaluate_voc_cls, iter_evaluate_voc_det
from vocviewer.families.voc.reader import read_voc_results
from vocviewer.families.voc.segmentation_evaluate import default_seg_protocol, evaluate_voc_seg
from vocviewer.families.voc.segmentation_reader import (
    SEG_RESULT_DIR,
    LabelPngLoader,
    SegResultFolder,
    find_segmentation_results,
)

RULES = DiagnosisRules()
#: the devkit's overlap threshold (VOCevaldet: ``ovmax >= VOCopts.minoverlap``): the only
#: official one
OFFICIAL_IOU = 0.5
SETTINGS = ViewSettings(
    "VOC", IOU_CHOICES, OFFICIAL_IOU, rules=RULES, image_sets=True, rederives=False
)


def _view(
    dataset: Dataset,
    results: ResultSet,
    ev: ClassEvaluation,
    iou: float,
    image_set: str,
    diagnose: bool,
) -> ClassView:
    if ev.task != "det":
        return curve_view(ev, np.zeros(0, np.int64), iou)
    images = dataset.images_in_set(image_set)  # (the evaluator said first if it is unknown)
    view = curve_view(ev, missed_objects(dataset, ev, images), iou)
    return diagnosed(dataset, results, view, RULES, diagnose)


def evaluate_voc_views(
    dataset: Dataset,
    results: ResultSet,
    choice: ViewChoice,
    *,
    tasks: Sequence[str] | None = None,
    ap_rule: str | None = None,
    keep_going: bool = True,
    diagnose: bool = True,
) -> Iterator[ClassView | Notice | Summary]:
    """Per class, detection then classification (those the results hold; only ``tasks`` if
    given), on ``choice.image_set``, by ``ap_rule`` (default: the dataset year's). A row the
    devkit rejects gives an error ``Notice``, then the classes left are evaluated without such
    rows (``keep_going`` False: the ``FormatError`` is raised, as the devkit stops). Last a
    ``Summary``: the mean AP of each task (the devkit prints none: the conventional mean,
    ``EvalResult.mean_ap``). ``diagnose`` False: false positives left undiagnosed."""
    image_set = choice.image_set
    if results.has_data(SegResultFolder):
        yield from evaluate_voc_seg_view(dataset, results.data(SegResultFolder), image_set)
        return
    if image_set is None:
        return
    held = (("det", len(results.detections)), ("cls", len(results.class_scores)))
    if tasks is None:
        tasks = [t for t, n in held if n or results.classes_with_files.get(t)]
    done_by_task: dict[str, list[ClassEvaluation]] = {}
    # the one rule (``families.official``): lost ground truth, a non-official IoU
    notes = [f"{NOT_OFFICIAL}: {r}" for r in not_official_reasons(dataset, SETTINGS, choice)]
    for task in tasks:
        kw: dict[str, Any] = {"image_set": image_set, "ap_rule": ap_rule}
        done_by_task[task] = evs = []
        if task == "det":
            fn: Callable[..., Iterator[ClassEvaluation]] = iter_evaluate_voc_det
            kw["iou_threshold"] = choice.iou
        else:
            fn = iter_evaluate_voc_cls
        try:
            for ev in fn(dataset, results, strict=True, **kw):
                evs.append(ev)
                yield _view(dataset, results, ev, choice.iou, image_set, diagnose)
        except FormatError as err:
            if not keep_going:
                raise
            # the official code stops here; the window says so at once and carries on
            yield Notice("error", f"{err}; evaluating without such rows (numbers not official)")
            notes.append(f"{task}: rows the devkit rejects were dropped: NOT OFFICIAL")
            rest = range(len(evs), len(dataset.classes))
            for ev in fn(dataset, results, classes=rest, strict=False, **kw):
                evs.append(ev)
                yield _view(dataset, results, ev, choice.iou, image_set, diagnose)
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
    retry keeping those of ``fallback_set``. A folder of segmentation result PNGs
    (``Segmentation/``, ``<comp>_<set>_cls/``) is a result set of its own: no detections,
    the ``SegResultFolder`` as its family data."""
    if len(paths) == 1 and holds_segmentation(paths[0]):
        folder = find_segmentation_results(paths[0], image_set)
        return ResultSet(folder.folder.name, (folder.folder,), family_data=(folder,))
    try:
        return read_voc_results(dataset, paths, image_set=image_set)
    except FormatError:
        if image_set is not None or fallback_set is None:
            raise
        return read_voc_results(dataset, paths, image_set=fallback_set)


def holds_segmentation(path: Path) -> bool:
    """A folder of segmentation results rather than of det / cls text files."""
    if not path.is_dir():
        return False
    if path.name == "Segmentation" or SEG_RESULT_DIR.match(path.name):
        return True
    if (path / "Segmentation").is_dir():  # a devkit results folder: Main/ wins if present
        return not (path / "Main").is_dir()
    return any(path.glob("*.png")) and not any(path.glob("*.txt"))


def evaluate_voc_seg_view(
    dataset: Dataset, folder: SegResultFolder, image_set: str | None
) -> Iterator[Notice | Summary]:
    """``VOCevalseg`` of a result folder on its image set (named by the folder, else the chosen
    Main set's name): the per-label IoU (or VOC2007's accuracy) as the summary, in percent."""
    name = folder.image_set or image_set or "val"
    key = f"Segmentation/{name}"
    if key not in dataset.image_sets or dataset.root is None:
        yield Notice("error", f"{folder.folder}: the dataset has no {key} image set to evaluate")
        return
    ids = [str(dataset.images.id[i]) for i in dataset.image_sets[key].tolist()]
    ev = evaluate_voc_seg(
        ids,
        LabelPngLoader(Path(dataset.root) / "SegmentationClass"),
        LabelPngLoader(folder.folder),
        image_set=name,
        protocol=default_seg_protocol(dataset.year),
        strict=False,  # the window shows what it can; the problems are listed
    )
    for problem in ev.problems[:10]:
        yield Notice("warning", str(problem))
    measure = "accuracy" if ev.protocol == "voc2007" else "IoU"
    stats = {f"mean {measure}": ev.mean_accuracy}  # official: NaN if a label has no pixels
    if measure == "IoU":
        stats["mean IoU (defined labels)"] = ev.mean_iou_defined()[0]  # NOT official
    stats["pixel accuracy"] = ev.pixel_accuracy
    stats |= {
        f"{measure} {label}": float(v) for label, v in zip(ev.labels, ev.accuracies, strict=True)
    }
    notes = (f"{len(ev.problems)} image(s) left out: NOT OFFICIAL",) if ev.problems else ()
    yield Summary(f"VOC segmentation {name} ({len(ids)} images)", stats, notes, percent=True)
