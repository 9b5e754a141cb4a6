"""LVIS: the ``Benchmark`` of an LVIS v1 annotation JSON (federated: ``neg_category_ids``,
``not_exhaustive_category_ids``, frequency groups r / c / f), and ``vocviewer eval`` for bbox /
segm: the ``lvis`` package's ``LVISEval.print_results`` lines and a JSON payload; ``vocviewer
analyze`` and the window's Analysis tab under the federated rules (``lvis_analyze``).

It claims (``sniff``: sure) a JSON object showing LVIS's keys (``families.lvis.reader.looks_like_lvis``),
with a priority above COCO's, so an LVIS file is never evaluated by COCO's rules unless
``--protocol coco`` asks for them.
"""

from __future__ import annotations

from collections.abc import Mapping
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
    check_ground_truth,
    opened,
)
from vocviewer.families.coco.benchmark import CocoDocumentViews, boundary_header
from vocviewer.families.coco.chosen_params import (
    dilation_reasons,
    with_dilation_ratio,
)
from vocviewer.families.coco.params import CocoParams, reading_task
from vocviewer.families.coco.results_reader import BoxColumns, box_columns, one_results_file
from vocviewer.families.evidence import Evidence, collect
from vocviewer.families.lvis import view as lvis_view
from vocviewer.families.lvis.columns import LvisAnnotations
from vocviewer.families.lvis.declared import LvisDeclarations
from vocviewer.families.lvis.evaluate import lvis_params
from vocviewer.families.lvis.reader import read_lvis, read_lvis_results
from vocviewer.families.official import Reason
from vocviewer.families.views import ViewChoice, ViewSettings

if TYPE_CHECKING:
    from vocviewer.evaluation.render.analyze_report import AnalyzeOutput

#: ``LVISEval.print_results``' line template
TEMPLATE = " {:<18} {} @[ IoU={:<9} | area={:>6s} | maxDets={:>3d} catIds={:>3s}] = {:0.3f}"


def print_lines(summary: Mapping[str, float], params: CocoParams) -> list[str]:
    """The lines ``LVISEval.print_results()`` prints for ``summary`` (``LvisEvalResult.summary``),
    character for character (its labels are read off the result keys, as it does: ``APs`` →
    area ``s``, ``APr`` → catIds ``r``)."""
    p = params
    max_dets = p.max_dets[-1]
    lines = []
    for key, value in summary.items():
        title, kind = ("Average Precision", "(AP)") if "AP" in key else ("Average Recall", "(AR)")
        if len(key) > 2 and key[2].isdigit():
            iou = f"{float(key[2:]) / 100:0.2f}"
        else:
            iou = f"{p.iou_thresholds[0]:0.2f}:{p.iou_thresholds[-1]:0.2f}"
        group = key[2] if len(key) > 2 and key[2] in "rcf" else "all"
        area = key[2] if len(key) > 2 and key[2] in "sml" else "all"
        lines.append(TEMPLATE.format(title, kind, iou, area, max_dets, group, value))
    return lines


def lvis_payload(
    dataset: Dataset, evidence: Evidence, notes: tuple[str, ...], task: str
) -> dict[str, Any]:
    """JSON payload: ``LVISEval.results`` as ``summary`` (-1: undefined), per category its AP
    (IoU .50:.95, area all; null if undefined) and frequency group."""
    assert evidence.summary is not None  # ``evaluate_lvis_views`` ends with it
    frequency = dataset.data(LvisAnnotations).frequency.tolist()
    per_class = {
        v.raw.name: {"ap": nan_to_null(v.evaluation.ap), "frequency": str(frequency[v.class_index])}
        for v in evidence.classes
    }
    return {
        "protocol": "lvis",
        "task": task,
        "per_class": per_class,
        "summary": dict(evidence.summary.stats),
        "official": not notes,
        "notes": list(notes),
    }


def run_eval(request: EvalRequest) -> EvalOutput:
    """Evaluate ``request.results[0]`` against the LVIS annotation JSON ``request.path`` (``--task``).

    Box results are parsed (``box_columns``: the compiled scanner, without the GIL) in a second
    thread while the annotation file is read, as COCO's ``run_eval`` does."""
    task = request.task or "bbox"
    if task not in LvisBenchmark.tasks:
        raise FormatError(request.path, f"LVIS evaluates --task bbox or segm, not {task}")
    one_results_file(request.results, "LVIS")
    try:
        params = with_dilation_ratio(lvis_params(task), request.option("dilation_ratio"))
    except ValueError as e:
        raise FormatError(None, str(e)) from None
    ratio, read_as = params.dilation_ratio, reading_task(task)
    boxes: list[BoxColumns | None] = []
    parse = Thread(target=lambda: boxes.append(box_columns(request.results[0])))
    if read_as == "bbox":
        parse.start()
    try:
        dataset = opened(
            request, read_lvis(request.path, request.option("images"), masks=read_as == "segm")
        )
    finally:
        if parse.ident is not None:
            parse.join()
    keep_going = bool(request.keep_going)
    lost = check_ground_truth(dataset, keep_going, read_as)
    results = read_lvis_results(
        dataset,
        request.results[0],
        task=read_as,
        keep_going=keep_going,
        boxes=boxes.pop() if boxes else None,
    )
    warnings = [str(p) for p in (*dataset.problems, *results.problems, *results.warnings)]
    choice = ViewChoice()  # the summary and per-category AP average every IoU and area
    lost_reasons = (Reason("ground truth lost", lost),) if lost is not None else ()
    reasons = (*lost_reasons, *dilation_reasons(params))
    # the window's evaluation (no diagnosis of false positives: the printed layout needs none)
    stream = lvis_view.evaluate_lvis_views(
        dataset, results, choice, task=task, diagnose=False, dilation_ratio=ratio
    )
    evidence = collect(stream, choice, reasons)  # the printed layout and JSON read it alone
    summary = evidence.summary
    assert summary is not None  # ``evaluate_lvis_views`` ends with it
    extra = [f"NOT OFFICIAL: {r.text}" for r in dilation_reasons(params)]
    if lost is not None:
        extra.append(f"NOT OFFICIAL: {lost}")
    warnings += extra
    notes = (*summary.notes, *extra)
    text = boundary_header(params) if task == "boundary" else ""
    text += "\n".join(print_lines(summary.stats, params)) + "\n"
    text += "".join(f"NOTE: {n}\n" for n in notes)
    payload = lvis_payload(dataset, evidence, notes, task)
    if task == "boundary":
        payload["dilation_ratio"] = ratio
    return EvalOutput(text, payload, warnings)


class LvisBenchmark(LvisDeclarations, CocoDocumentViews):
    """LVIS v1: an annotation JSON (``--images``: its image folder); tasks bbox, segm, boundary
    (Boundary AP, ``--dilation-ratio``)."""

    view_title = "LVIS"
    views = FamilyViews(
        lvis_view.evaluate_lvis_views,
        lvis_view.rederive_lvis_views,
        "vocviewer.families.lvis.analyze:LvisViewAnalyser",
    )
    reconcile = "vocviewer.families.lvis.reconcile:reconcile_lvis"  # LVIS -> COCO -> VOC
    #: where a folder written as LVIS keeps its images (``{name}``: the split; ``vocviewer subset``)
    images_folder = "{name}"

    def convert(self, request: ConvertRequest) -> list[str]:
        """The LVIS file ``path`` (and results) as ``out/annotations/instances_<split>.json``
        and ``out/results/<stem>.json``, every field kept (``write_coco``)."""
        from vocviewer.families.coco.write_coco import write_coco

        r = request
        return write_coco(r.path, r.out, list(r.results), r.option("image_set"), r.option("images"))

    def read_dataset(
        self, path: Path, sources: dict[str, Path | None], task: str | None = None
    ) -> Dataset:
        return read_lvis(path, sources.get("images"), masks=task != "bbox")

    def reads_results_of(self, dataset: Dataset) -> bool:
        return dataset.has_data(LvisAnnotations)

    def read_results_file(self, dataset: Dataset, path: Path, **kw: Any) -> ResultSet:
        return read_lvis_results(dataset, path, **kw)

    def evaluate(self, request: EvalRequest) -> EvalOutput:
        return run_eval(request)

    def analyze(self, request: AnalyzeRequest) -> AnalyzeOutput:
        from vocviewer.families.lvis.analyze import run_lvis_analyze

        return run_lvis_analyze(request)

    def view_settings(self, dataset: Dataset) -> ViewSettings:
        return lvis_view.SETTINGS

    def prepare_view(self, dataset: Dataset, path: Path) -> Dataset:
        return lvis_view.prepare_lvis_view(dataset, path)
