"""PASCAL VOC: the ``Benchmark`` of a VOCdevkit (det, cls; seg, layout, action in ``voc_tasks``),
and ``vocviewer eval`` for VOC detection and classification.

Input problems and the numbers: a results file with problems (bad lines, unknown ids, unreadable
files) stops ``eval`` unless ``--keep-going``, which marks the numbers NOT OFFICIAL. So does
ground truth that lost objects (``families.voc.annotations.lost_ground_truth``: a missing or
non-finite box coordinate, a missing ``<bndbox>``, an unreadable or malformed annotation file),
for the tasks that use objects (det, layout, action): the numbers would count fewer positives than
the annotations hold. Harmless problems (an object of an unknown class, ids without an annotation
file) stay warnings. Result lines with NaN/inf are kept and evaluated as the official code does,
with one warning per file; the numbers stay official.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.report import ap_table, result_to_json
from vocviewer.evaluation.result import EvalResult
from vocviewer.families.base import (
    AnalyzeRequest,
    ConvertRequest,
    EvalOutput,
    EvalRequest,
    FamilyViews,
    ViewDefaults,
    check_ground_truth,
    opened,
    problems_error,
    refuse_json_results,
)
from vocviewer.families.evidence import collect
from vocviewer.families.official import not_official_reasons
from vocviewer.families.views import (
    ViewChoice,
    ViewSettings,
)
from vocviewer.families.voc import tasks as voc_tasks
from vocviewer.families.voc import view as voc_view
from vocviewer.families.voc.declared import VocDeclarations
from vocviewer.families.voc.evaluate import PROTOCOL_AP_RULES, default_ap_rule, skipped_notes
from vocviewer.families.voc.reader import read_voc, read_voc_results
from vocviewer.families.voc.results_reader import parse_result_name
from vocviewer.families.voc.tasks import infer_image_set, open_voc, voc_expects

if TYPE_CHECKING:
    from vocviewer.evaluation.render.analyze_report import AnalyzeOutput


OFFICIAL_IOU = voc_view.OFFICIAL_IOU


def run_eval(request: EvalRequest) -> EvalOutput:
    """Evaluate ``request.results`` on the VOCdevkit ``request.path`` (``--task det|cls|seg|layout|
    action``)."""
    if request.task in ("seg", "layout", "action"):
        run = {"seg": voc_tasks.run_seg, "layout": voc_tasks.run_layout}.get(
            request.task, voc_tasks.run_action
        )
        return run(request)
    if request.task not in ("det", "cls"):
        raise FormatError(
            request.path, f"--task {request.task} is not a VOC task (det, cls, seg, layout, action)"
        )
    given_iou = request.option("iou")
    iou = OFFICIAL_IOU if given_iou is None else float(given_iou)
    if not 0.0 < iou <= 1.0 or (iou != OFFICIAL_IOU and request.task != "det"):
        why = "an IoU in (0, 1]" if request.task == "det" else "only for --task det"
        raise FormatError(None, f"--iou {iou:g}: expected {why}")
    refuse_json_results(request.results, "VOC", voc_expects(request.task))
    image_set = request.option("image_set") or infer_image_set(request.results, request.task)
    if image_set is None:
        raise FormatError(
            request.results[0],
            "cannot tell the image set from the result file names; pass --image-set",
        )
    dataset = opened(request, open_voc(request.path))
    return evaluate_voc_dataset(request, dataset, image_set, iou)


def evaluate_voc_dataset(
    request: EvalRequest, dataset: Dataset, image_set: str, iou: float = OFFICIAL_IOU
) -> EvalOutput:
    """``vocviewer eval`` (det or cls) of ``request.results`` on ``dataset`` (read by
    ``open_voc`` or another family's conversion to VOC's model), on ``image_set`` at ``iou``."""
    if request.task == "det":  # lost ground truth refused unless --keep-going
        check_ground_truth(dataset, request.keep_going)
    warnings = [str(p) for p in dataset.problems]
    results = read_voc_results(dataset, request.results, image_set=image_set)
    if results.problems and not request.keep_going:
        raise problems_error(results.problems)
    warnings += [str(p) for p in (*results.problems, *results.warnings)]
    rule = PROTOCOL_AP_RULES.get(request.protocol) if request.protocol else None
    rule = rule or default_ap_rule(dataset.year)
    choice = ViewChoice(iou, image_set=image_set)
    # the window's rule (lost ground truth, IoU); result rows skipped are in ``skipped_notes``
    gt = dataset if request.task == "det" else None
    reasons = not_official_reasons(gt, voc_view.SETTINGS, choice)
    stream = voc_view.evaluate_voc_views(
        dataset,
        results,
        choice,
        tasks=(request.task,),
        ap_rule=rule,
        keep_going=request.keep_going,
        diagnose=False,  # the printed layout needs no diagnosis of false positives
    )
    try:
        evidence = collect(stream, choice, reasons)
    except KeyError as e:  # unknown image set
        raise FormatError(request.path, str(e.args[0])) from None
    result = EvalResult(
        protocol="voc2007" if rule == "11point" else "voc2012",
        task=request.task,
        image_set=image_set,
        ap_rule=rule,
        iou_threshold=iou if request.task == "det" else float("nan"),
        classes=evidence.evaluations(request.task),
        notes=(
            *skipped_notes(dataset, results, image_set, request.task),
            *(r.text for r in evidence.reasons),
        ),
    )
    return EvalOutput(ap_table(result), result_to_json(result), warnings)


class VocBenchmark(VocDeclarations, ViewDefaults):
    """PASCAL VOC: a VOCdevkit root or year folder; ``--protocol voc2007`` (11-point AP) or
    ``voc2012`` (all points; default from the dataset year)."""

    reconcile = "vocviewer.families.voc.reconcile:reconcile_voc"  # vocviewer reconcile (``families.reconciling``)
    views = FamilyViews(
        voc_view.evaluate_voc_views,
        None,
        "vocviewer.families.voc.analyze:VocViewAnalyser",
    )
    #: where a folder written as VOC keeps its images (``vocviewer subset``)
    images_folder = "JPEGImages"

    def convert(self, request: ConvertRequest) -> list[str]:
        """A COCO annotation JSON ``path`` (and COCO results JSONs) as a VOC folder in ``out``
        (``write_voc``); the image set is ``--image-set`` or the file name's last ``_`` part."""
        from vocviewer.families.voc.write_voc import coco_json_to_voc

        r = request
        return coco_json_to_voc(
            r.path, r.out, list(r.results), r.option("image_set"), r.option("images")
        )

    def read_dataset(
        self, path: Path, sources: dict[str, Path | None], task: str | None = None
    ) -> Dataset:
        return read_voc(path)

    def reads_results_of(self, dataset: Dataset) -> bool:
        return not dataset.family_data  # the other families keep their own records

    def read_results(self, dataset: Dataset, paths: list[Path], **kw: Any) -> ResultSet:
        refuse_json_results(paths, dataset, voc_expects())
        return read_voc_results(dataset, paths, **kw)

    def result_sets(
        self, paths: Sequence[Path], task: str | None = None
    ) -> list[tuple[str, list[Path]]]:
        return voc_tasks.voc_result_sets(paths, task)

    def evaluate(self, request: EvalRequest) -> EvalOutput:
        return run_eval(request)

    def analyze(self, request: AnalyzeRequest) -> AnalyzeOutput:
        from vocviewer.families.voc.analyze import analyze_voc

        return analyze_voc(request)

    def image_set_named(self, dataset: Dataset, results: ResultSet) -> str | None:
        sets = set(dataset.main_sets())
        for f in results.files:
            entry = parse_result_name(Path(f))
            if entry is not None and entry.image_set in sets:
                return entry.image_set
        return None

    def view_settings(self, dataset: Dataset) -> ViewSettings:
        return replace(voc_view.SETTINGS, ap_rule=default_ap_rule(dataset.year))

    def read_view_results(
        self,
        dataset: Dataset,
        paths: list[Path],
        image_set: str | None,
        fallback_set: str | None,
        offload: Callable[..., Any],
    ) -> ResultSet:
        refuse_json_results(paths, dataset, voc_expects())
        return voc_view.read_voc_view_results(dataset, paths, image_set, fallback_set)
