"""COCO: the ``Benchmark`` of a COCO annotation JSON, and ``vocviewer eval`` for bbox / segm /
keypoints (pycocotools' printed summary and JSON) and boundary (Boundary AP: boundary-iou-api's,
under a ``Boundary AP`` header line). LVIS files, COCO-shaped too, are claimed by the
LVIS benchmark (higher priority)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from threading import Thread
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
    FamilyViews,
    ViewDefaults,
    check_ground_truth,
    opened,
)
from vocviewer.families.coco import view as coco_view
from vocviewer.families.coco.chosen_params import (
    chosen_params,
    param_notes,
    param_reasons,
    with_param_notes,
)
from vocviewer.families.coco.columns import CocoAnnotations
from vocviewer.families.coco.declared import CocoDeclarations
from vocviewer.families.coco.evaluate import collect_coco, summary_lines
from vocviewer.families.coco.lazy_masks import LazyRleTable
from vocviewer.families.coco.params import CocoParams, reading_task
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_kernel import file_located_masks, file_result_columns
from vocviewer.families.coco.results_reader import (
    BoxColumns,
    box_columns,
    one_results_file,
    read_coco_results,
)
from vocviewer.families.evidence import collect
from vocviewer.families.official import Reason
from vocviewer.families.views import (
    ViewChoice,
    ViewSettings,
)

if TYPE_CHECKING:
    from vocviewer.evaluation.render.analyze_report import AnalyzeOutput


def run_eval(request: EvalRequest) -> EvalOutput:
    """Evaluate ``request.results[0]`` against the annotation JSON ``request.path`` (``--task``).

    A results file is parsed (``box_columns``, ``file_result_columns``, segm:
    ``file_located_masks``: the compiled scanner, without the GIL) in a second thread while
    the annotation file is read (segm: then its polygons rasterised meanwhile)."""
    task = request.task or "bbox"
    images = request.option("images")
    masks = reading_task(task) == "segm"
    boxes: list[BoxColumns | None] = []
    scanned: list[dict[str, Any] | None] = []
    failed: list[BaseException] = []

    def parse_results() -> None:
        try:
            if task == "keypoints":
                scanned.append(file_result_columns(request.results[0]))
            elif masks:
                scanned.append(file_located_masks(request.results[0]))
            else:
                boxes.append(box_columns(request.results[0]))
        except BaseException as e:  # (MemoryError): raised again in the caller's thread
            failed.append(e)

    parse = Thread(target=parse_results)
    if len(request.results) == 1:
        parse.start()
    try:
        dataset = opened(request, read_coco(request.path, images, masks=masks))
        if masks and isinstance(gt_masks := dataset.data(CocoAnnotations).masks, LazyRleTable):
            gt_masks.prefetch()  # rasterised while the results file is scanned
    finally:
        if parse.ident is not None:
            parse.join()
    if failed:
        raise failed[0]
    # (popped, not named here: the parsed id columns go once the result set is read)
    return evaluate_coco_dataset(
        request, dataset, boxes.pop() if boxes else None, scanned.pop() if scanned else None
    )


def boundary_header(params: CocoParams) -> str:
    """The line above a Boundary AP summary (its printed lines are COCOeval's, as the official
    API prints them)."""
    return (
        f"Boundary AP (boundary-iou-api): IoU = min(mask IoU, boundary IoU), "
        f"dilation ratio {params.dilation_ratio:g} of the image diagonal\n"
    )


def evaluate_coco_dataset(
    request: EvalRequest,
    dataset: Dataset,
    boxes: BoxColumns | None = None,
    scanned: dict[str, Any] | None = None,
) -> EvalOutput:
    """``vocviewer eval`` of ``request.results[0]`` on ``dataset`` (read by ``read_coco`` or
    another family's conversion to COCO's model), by pycocotools' rules (``boxes``: the results
    file already parsed by ``box_columns``; ``scanned``: by ``file_result_columns``)."""
    task = request.task or "bbox"
    keep_going = bool(request.keep_going)
    lost = check_ground_truth(dataset, keep_going, reading_task(task))
    results = read_coco_results(
        dataset,
        request.results[0],
        task=reading_task(task),
        keep_going=keep_going,
        boxes=boxes,
        scanned=scanned,
        mapped=True,  # (the process ends with the evaluation: the masks read in the file)
    )
    del boxes, scanned  # (the result set holds the columns it keeps)
    warnings = [str(p) for p in (*dataset.problems, *results.problems, *results.warnings)]
    if dataset.data(CocoAnnotations).federated:  # only when --protocol coco asked for it
        warnings.append(
            f"{request.path}: an LVIS file evaluated by COCO's rules (--protocol coco): "
            "these are not LVIS's numbers"
        )
    if task == "keypoints":
        coco_view.check_keypoint_counts(dataset, results, request.path, request.results[0])
    params = chosen_params(task, request.options)
    choice = ViewChoice()  # the summary and per-class AP average every IoU and area
    lost_reasons = (Reason("ground truth lost", lost),) if lost is not None else ()
    reasons = (*lost_reasons, *param_reasons(params))
    # the printed layout needs no diagnosis of false positives
    stream = coco_view.evaluate_coco_views(
        dataset, results, choice, task=task, diagnose=False, params=params
    )
    try:
        evidence = collect(stream, choice, reasons)
    except OSError as e:  # (the masks are read in the mapped file: it was cut short meanwhile)
        raise FormatError(request.results[0], str(e)) from e
    result = with_param_notes(collect_coco(evidence.raws(), params, results))
    warnings += [n for n in result.notes if n in param_notes(params)]
    if lost is not None:
        result = replace(result, notes=(*result.notes, f"NOT OFFICIAL: {lost}"))
        warnings.append(f"NOT OFFICIAL: {lost}")
    text = boundary_header(params) if task == "boundary" else ""
    text += "\n".join(summary_lines(result)) + "\n"
    if result.notes:
        text += "".join(f"NOTE: {n}\n" for n in result.notes)
    payload = {
        "protocol": "coco",
        "task": task,
        "per_class": {c.name: {"ap": nan_to_null(c.ap)} for c in result.categories},
        "summary": result.stats(),
        "official": not result.notes,
    }
    if task == "boundary":
        payload["dilation_ratio"] = params.dilation_ratio
    return EvalOutput(text, payload, warnings)


class CocoDocumentViews(ViewDefaults):
    """What a family whose ground truth is a COCO document does in the window (COCO, and
    CVAT / LabelMe, YOLO, LVIS read as one): one results JSON read by ``read_results_file``
    (the window: box results parsed in its helper process), COCO's view settings titled
    ``view_title``, the companion files attached, COCO's views and analyses."""

    view_title = "COCO"
    views = FamilyViews(
        coco_view.evaluate_coco_views,
        coco_view.rederive_coco_views,
        "vocviewer.families.coco.analyze:CocoViewAnalyser",
    )

    def read_results_file(self, dataset: Dataset, path: Path, **kw: Any) -> ResultSet:
        """One results JSON ``path`` (``kw``: the reader's)."""
        return read_coco_results(dataset, path, **kw)

    def read_results(self, dataset: Dataset, paths: list[Path], **kw: Any) -> ResultSet:
        """One results JSON (``kw``: the reader's; by default read with its masks where it has
        them, ``coco_view.results_reading_task``)."""
        path = one_results_file(paths, self.view_title)
        kw.setdefault("task", coco_view.results_reading_task(path))
        return self.read_results_file(dataset, path, **kw)

    def view_settings(self, dataset: Dataset) -> ViewSettings:
        return coco_view.coco_view_settings(dataset, self.view_title)

    def prepare_view(self, dataset: Dataset, path: Path) -> Dataset:
        return coco_view.attach_companions(dataset, path)

    def parse_results_ahead(self, paths: list[Path]) -> Callable[..., Any] | None:
        return coco_view.parse_coco_results_ahead(paths)

    def read_view_results(
        self,
        dataset: Dataset,
        paths: list[Path],
        image_set: str | None,
        fallback_set: str | None,
        offload: Callable[..., Any],
    ) -> ResultSet:
        reader = self.read_results_file
        return coco_view.read_coco_view_results(dataset, paths, offload, reader, self.view_title)


class CocoBenchmark(CocoDeclarations, CocoDocumentViews):
    """COCO: an annotation JSON (``--images``: its image folder); tasks bbox, segm, keypoints,
    boundary (Boundary AP)."""

    reconcile = "vocviewer.families.coco.reconcile:reconcile_coco"  # vocviewer reconcile (``families.reconciling``)
    #: where a folder written as COCO keeps its images (``{name}``: the split; ``vocviewer subset``)
    images_folder = "{name}"

    def convert(self, request: ConvertRequest) -> list[str]:
        """The COCO file ``path`` (and results) as ``out/annotations/instances_<split>.json``
        (``--image-set`` or the name's last ``_`` part) and ``out/results/<stem>.json``."""
        from vocviewer.families.coco.write_coco import write_coco

        r = request
        return write_coco(r.path, r.out, list(r.results), r.option("image_set"), r.option("images"))

    def read_dataset(
        self, path: Path, sources: dict[str, Path | None], task: str | None = None
    ) -> Dataset:
        return read_coco(path, sources.get("images"), masks=task != "bbox")

    def reads_results_of(self, dataset: Dataset) -> bool:
        return dataset.has_data(CocoAnnotations)

    def evaluate(self, request: EvalRequest) -> EvalOutput:
        return run_eval(request)

    def analyze(self, request: AnalyzeRequest) -> AnalyzeOutput:
        from vocviewer.families.coco.analyze import analyze_coco  # analyses: imported when asked

        return analyze_coco(request)
