"""YOLO: the ``Benchmark`` of an Ultralytics dataset YAML or bare ``images/`` + ``labels/``
folder, and ``vocviewer eval``: what was read (one line), pycocotools' printed summary of the
same data as a COCO document (bbox / segm / keypoints; the numbers are COCO's by construction),
then the Ultralytics validator's box metrics as a second, labelled column with the rules that
move one number from the other on this data.

It claims (``sniff``: sure) a YAML with a ``names`` key and a folder holding ``images/`` and
``labels/``; its datasets are COCO datasets too (they carry ``CocoAnnotations``), so its priority is above
COCO's and LVIS's: its own results reader answers for them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vocviewer.core.arrays import nan_to_null
from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.families.base import (
    AnalyzeRequest,
    ConvertRequest,
    EvalOutput,
    EvalRequest,
    ViewDefaults,
    check_ground_truth,
    opened,
)
from vocviewer.families.coco import view as coco_view
from vocviewer.families.coco.benchmark import CocoDocumentViews, boundary_header
from vocviewer.families.coco.chosen_params import (
    chosen_params,
    param_notes,
    param_reasons,
    with_param_notes,
)
from vocviewer.families.coco.columns import CocoResults
from vocviewer.families.coco.evaluate import collect_coco, summary_lines
from vocviewer.families.coco.params import reading_task
from vocviewer.families.evidence import collect
from vocviewer.families.official import Reason
from vocviewer.families.views import ClassView, Notice, Summary, ViewChoice
from vocviewer.families.yolo import conventions as conv
from vocviewer.families.yolo.declared import TITLE, YoloDeclarations
from vocviewer.families.yolo.reader import YoloInfo, read_yolo
from vocviewer.families.yolo.results import read_yolo_results

if TYPE_CHECKING:
    from vocviewer.evaluation.render.analyze_report import AnalyzeOutput


def run_eval(request: EvalRequest) -> EvalOutput:
    """Evaluate the predictions ``request.results`` against the YOLO split ``request.path``."""
    split = request.option("split")
    masks = reading_task(request.task or "") == "segm"
    dataset = opened(request, read_yolo(request.path, split, masks=masks))
    info: YoloInfo = dataset.data(YoloInfo)
    task = request.task or info.task
    read_as = reading_task(task)
    if task not in YoloBenchmark.tasks:
        raise FormatError(
            request.path, f"YOLO evaluates --task bbox, segm or keypoints, not {task}"
        )
    if read_as == "segm" and info.kind != "segment":
        raise FormatError(
            request.path, f"--task {task} needs polygon labels; these are {info.kind}"
        )
    if task == "keypoints" and info.kind != "pose":
        raise FormatError(request.path, "--task keypoints needs pose labels ('kpt_shape')")
    keep_going = bool(request.keep_going)
    lost = check_ground_truth(dataset, keep_going, read_as)
    results = read_yolo_results(dataset, list(request.results), task=read_as, keep_going=keep_going)
    warnings = [*info.warnings]
    warnings += [str(p) for p in (*dataset.problems, *results.problems, *results.warnings)]
    if task == "keypoints":
        coco_view.check_keypoint_counts(dataset, results, request.path, request.results[0])
    params = chosen_params(task, request.options)
    choice = ViewChoice()
    lost_reasons = (Reason("ground truth lost", lost),) if lost is not None else ()
    reasons = (*lost_reasons, *param_reasons(params))
    stream = coco_view.evaluate_coco_views(
        dataset, results, choice, title=TITLE, task=task, diagnose=False, params=params
    )
    evidence = collect(stream, choice, reasons)
    result = with_param_notes(collect_coco(evidence.raws(), params, results))
    warnings += list(param_notes(params))
    if lost is not None:
        result = replace(result, notes=(*result.notes, f"NOT OFFICIAL: {lost}"))
        warnings.append(f"NOT OFFICIAL: {lost}")
    stats = result.stats()
    lines = [f"read: {info.summary}", f"COCO protocol ({task}, pycocotools' rules):"]
    if task == "boundary":
        lines[-1] = boundary_header(params).rstrip("\n")
    lines += summary_lines(result)
    lines += [f"NOTE: {n}" for n in result.notes]
    payload: dict[str, Any] = {
        "protocol": "coco",
        "family": "yolo",
        "task": task,
        "read": info.summary,
        "per_class": {c.name: {"ap": nan_to_null(c.ap)} for c in result.categories},
        "summary": stats,
        "official": not result.notes,
    }
    if task == "boundary":
        payload["dilation_ratio"] = params.dilation_ratio
    if task in ("bbox", "keypoints"):
        c = conv.compare(dataset, results, stats["AP"], stats["AP50"], task)
        lines += ["", *conv.summary_lines(c)]
        payload["ultralytics"] = c.payload()
    else:  # its mask IoU is taken at the network's mask resolution, which the files do not hold
        lines += ["", "Ultralytics validator convention: computed for --task bbox and keypoints"]
    return EvalOutput("\n".join(lines) + "\n", payload, warnings)


def _ultralytics_notice(dataset: Dataset, results: ResultSet, summary: Summary, task: str) -> str:
    stats = dict(summary.stats)
    c = conv.compare(dataset, results, stats["AP"], stats["AP50"], task)
    u = c.ultralytics.summary()
    return (
        f"{results.name}: Ultralytics validator convention (not COCO's protocol): "
        + ", ".join(f"{k} {v:.4f}" for k, v in u.items())
        + f"; COCO AP {stats['AP']:.4f} (vocviewer eval says which rules move one to the other)"
    )


class YoloBenchmark(YoloDeclarations, CocoDocumentViews):
    """YOLO (Ultralytics): a dataset YAML or ``images/`` + ``labels/`` folder (``--split``);
    tasks bbox (the CLI's default: every label kind has boxes), segm (polygon labels),
    keypoints (pose labels), boundary (Boundary AP of polygon labels); the window evaluates what the labels and predictions hold."""

    view_title = TITLE
    reconcile = "vocviewer.families.yolo.reconcile:reconcile_yolo"  # vocviewer reconcile (``families.reconciling``)

    def read_dataset(
        self, path: Path, sources: dict[str, Path | None], task: str | None = None
    ) -> Dataset:
        split = sources.get("split")
        return read_yolo(path, None if split is None else str(split), masks=task != "bbox")

    def reads_results_of(self, dataset: Dataset) -> bool:
        return dataset.has_data(YoloInfo)

    def read_results(self, dataset: Dataset, paths: list[Path], **kw: Any) -> ResultSet:
        return read_yolo_results(dataset, paths, **kw)

    def evaluate(self, request: EvalRequest) -> EvalOutput:
        return run_eval(request)

    #: where a folder written as YOLO keeps its images (``convert.coco_to_yolo``'s split)
    images_folder = "images/val"

    def convert(self, request: ConvertRequest) -> list[str]:
        """Write ``path`` (a ``source`` family's ground truth) and ``results`` as ``to``."""
        from vocviewer.families.yolo import convert as cv

        r, results = request, list(request.results)
        if (r.source, r.to) == ("coco", "yolo"):
            return cv.coco_to_yolo(
                r.path, r.option("images"), r.out, results, r.task or "bbox", "val"
            )
        if r.to == "voc":
            split, image_set = r.option("split"), r.option("image_set")
            return cv.yolo_to_voc(r.path, split, r.out, results, r.task, image_set)
        return cv.yolo_to_coco(r.path, r.option("split"), r.out, results, r.task)

    def analyze(self, request: AnalyzeRequest) -> AnalyzeOutput:
        """COCO's analysis of the split read as its COCO document."""
        from vocviewer.families.coco.analyze import analyze_coco

        split = request.option("split")

        def read(path: Path, images: Path | None, masks: bool) -> Dataset:
            return read_yolo(path, split, masks=masks)

        def read_results(dataset: Dataset, path: Path, task: str) -> ResultSet:
            return read_yolo_results(dataset, [path], task=task)

        return analyze_coco(request, read, read_results)

    read_view_results = ViewDefaults.read_view_results  # its own reader (not COCO's JSON one)

    def evaluate_views(
        self, dataset: Dataset, results: ResultSet, choice: ViewChoice, diagnose: bool = True
    ) -> Iterator[ClassView | Summary | Notice]:
        """COCO's evaluation (pose labels with keypoint predictions: by OKS); for boxes and
        keypoints, a message with the Ultralytics column after it."""
        info: YoloInfo = dataset.data(YoloInfo)
        kind = coco_view.iou_type(results)
        if info.kind == "pose" and results.data(CocoResults).keypoints.shape[1]:
            kind = "keypoints"  # Ultralytics' pose results carry boxes too (loadRes: bbox kind)
        for item in coco_view.evaluate_coco_views(
            dataset, results, choice, title=TITLE, task=kind, diagnose=diagnose
        ):
            yield item
            if isinstance(item, Summary) and kind in ("bbox", "keypoints"):
                yield Notice("info", _ultralytics_notice(dataset, results, item, kind))
