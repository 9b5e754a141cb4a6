"""Open Images: the ``Benchmark`` of an annotation folder, and
``vocviewer eval FOLDER --results predictions.csv [--protocol openimages]``, printed as the
challenge's ``oid_challenge_evaluation.py`` writes its metrics (``name,value`` lines: the mAP,
then each class by its MID in class-description order)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vocviewer.core.arrays import nan_to_null
from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.families.base import (
    EvalOutput,
    EvalRequest,
    FamilyViews,
    ViewDefaults,
    opened,
    problems_error,
    refuse_json_results,
)
from vocviewer.families.evidence import collect
from vocviewer.families.official import NOT_OFFICIAL, not_official_reasons
from vocviewer.families.openimages import view as oi_view
from vocviewer.families.openimages.columns import OpenImagesGroundTruth
from vocviewer.families.openimages.declared import OpenImagesDeclarations
from vocviewer.families.openimages.evaluate import OpenImagesResult
from vocviewer.families.openimages.reader import read_openimages
from vocviewer.families.openimages.results_reader import read_openimages_results
from vocviewer.families.views import ViewChoice, ViewSettings

if TYPE_CHECKING:
    pass

#: the metric names' prefix (``OpenImagesChallengeEvaluator`` for boxes) and IoU
PREFIX, IOU = "OpenImagesDetectionChallenge_", 0.5


def format_openimages(dataset: Dataset, result: OpenImagesResult, official: bool) -> str:
    """The challenge's metrics lines (``str`` of each value, ``nan`` for a class without
    positives), ``NOT OFFICIAL`` first where the numbers are not."""
    gt: OpenImagesGroundTruth = dataset.data(OpenImagesGroundTruth)
    lines = [] if official else [f"# {NOT_OFFICIAL}: see the warnings"]
    lines.append(f"{PREFIX}Precision/mAP@{IOU}IOU,{result.mean_ap!r}")
    for mid, ap in zip(gt.mids, result.ap.tolist(), strict=True):
        lines.append(f"{PREFIX}PerformanceByCategory/AP@{IOU}IOU/{mid},{float(ap)!r}")
    return "\n".join(lines) + "\n"


def openimages_payload(
    dataset: Dataset, result: OpenImagesResult, official: bool, notes: list[str]
) -> dict[str, Any]:
    """JSON payload: per class (by display name) its MID, AP (``null``: no positives),
    positives and counted detections; the mAP."""
    gt: OpenImagesGroundTruth = dataset.data(OpenImagesGroundTruth)
    per_class = {
        name: {
            "mid": mid,
            "ap": nan_to_null(float(result.ap[k])),
            "npos": int(result.npos[k]),
            "ndet": len(result.ranked[k]),
        }
        for k, (name, mid) in enumerate(zip(dataset.classes, gt.mids, strict=True))
    }
    return {
        "protocol": "openimages",
        "task": "det",
        "per_class": per_class,
        "summary": {"mAP": nan_to_null(result.mean_ap)},
        "official": official,
        "notes": notes,
    }


def read_summary(path: Path, dataset: Dataset, results: ResultSet) -> str:
    """The one line of what was read: images, boxes (group-of), verified labels, classes,
    predictions, and the coordinate convention."""
    gt: OpenImagesGroundTruth = dataset.data(OpenImagesGroundTruth)
    return (
        f"{path}: Open Images, {len(dataset.images)} images, {len(gt.box)} boxes "
        f"({int(gt.group_of.sum())} group-of), {len(gt.label_image)} image labels, "
        f"{len(dataset.classes)} classes; {len(results.detections)} predictions; coordinates "
        "normalised to [0, 1] (XMin, XMax, YMin, YMax as fractions of the image's size)"
    )


def run_eval(request: EvalRequest) -> EvalOutput:
    """Evaluate the predictions ``request.results`` on the folder ``request.path``; what was
    read is the first warning."""
    refuse_json_results(request.results, "Open Images", "a predictions CSV")
    dataset = opened(request, read_openimages(request.path))
    results = read_openimages_results(dataset, request.results)
    if results.problems and not request.keep_going:
        raise problems_error(results.problems)
    choice = ViewChoice()
    evidence = collect(oi_view.evaluate_openimages_views(dataset, results, choice, False), choice)
    result = evidence.one_raw()
    assert isinstance(result, OpenImagesResult)  # every class has a view
    reasons = not_official_reasons(dataset, oi_view.SETTINGS, choice, results)
    notes = [f"{NOT_OFFICIAL}: {r}" for r in reasons] + [n.text for n in evidence.notices]
    text = format_openimages(dataset, result, not reasons)
    payload = openimages_payload(dataset, result, not reasons, notes)
    summary = read_summary(request.path, dataset, results)
    return EvalOutput(text, payload, [summary, *(str(p) for p in results.problems), *notes])


class OpenImagesBenchmark(OpenImagesDeclarations, ViewDefaults):
    """Open Images (V6/V7) detection, the challenge protocol: an annotation folder and a
    predictions CSV."""

    views = FamilyViews(oi_view.evaluate_openimages_views)

    def read_dataset(
        self, path: Path, sources: dict[str, Path | None], task: str | None = None
    ) -> Dataset:
        return read_openimages(path)

    def reads_results_of(self, dataset: Dataset) -> bool:
        return dataset.has_data(OpenImagesGroundTruth)

    def read_results(self, dataset: Dataset, paths: list[Path], **kw: Any) -> ResultSet:
        refuse_json_results(paths, dataset, "a predictions CSV")
        return read_openimages_results(dataset, paths, **kw)

    def evaluate(self, request: EvalRequest) -> EvalOutput:
        return run_eval(request)

    def view_settings(self, dataset: Dataset) -> ViewSettings:
        return oi_view.SETTINGS

    def prepare_view(self, dataset: Dataset, path: Path) -> Dataset:
        return oi_view.view_dataset(dataset)

    def read_view_results(
        self,
        dataset: Dataset,
        paths: list[Path],
        image_set: str | None,
        fallback_set: str | None,
        offload: Callable[..., Any],
    ) -> ResultSet:
        return oi_view.view_results(dataset, self.read_results(dataset, paths))
