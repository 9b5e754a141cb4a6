"""VisDrone-DET: the ``Benchmark`` of a split folder (``annotations/`` + ``images/``), and
``vocviewer eval SPLIT --results DIR [--protocol visdrone]``."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vocviewer.core.arrays import nan_to_null
from vocviewer.core.dataset import Dataset
from vocviewer.core.result_sets import set_names
from vocviewer.core.results import ResultSet
from vocviewer.families.base import (
    AnalyzeRequest,
    EvalOutput,
    EvalRequest,
    FamilyViews,
    ViewDefaults,
    opened,
    problems_error,
    refuse_json_results,
)
from vocviewer.families.evidence import collect
from vocviewer.families.views import ViewChoice, ViewSettings
from vocviewer.families.visdrone import view as visdrone_view
from vocviewer.families.visdrone.columns import VisDroneDetections, VisDroneGroundTruth
from vocviewer.families.visdrone.declared import VisDroneDeclarations
from vocviewer.families.visdrone.evaluate import SUMMARY_KEYS, VisDroneResult
from vocviewer.families.visdrone.reader import (
    read_visdrone,
    read_visdrone_results,
)
from vocviewer.families.visdrone.regions import matlab_round

if TYPE_CHECKING:
    from vocviewer.evaluation.render.analyze_report import AnalyzeOutput


def matlab_2dp(v: float) -> str:
    """``num2str(roundn(v, -2))`` as ``evalDET.m`` prints: halves away from zero, no trailing
    zeros (``12.5``, ``0``, ``NaN``)."""
    if math.isnan(v):
        return "NaN"
    r = float(matlab_round(v * 100) / 100)
    text = f"{r:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def format_visdrone(result: VisDroneResult) -> str:
    """The toolkit's printed summary (``evalDET.m``, 2 decimals) and a per-class AP table."""
    s = result.summary
    lines = [
        "Evaluation Completed. The peformance of the detector is presented as follows."
        if result.official
        else "Evaluation completed (NOT OFFICIAL: see the warnings).",
    ]
    lines += [
        f"Average Precision  (AP) @[ IoU=0.50:0.95 | maxDets=500 ] = {matlab_2dp(s['AP'])}%.",
        f"Average Precision  (AP) @[ IoU=0.50      | maxDets=500 ] = {matlab_2dp(s['AP50'])}%.",
        f"Average Precision  (AP) @[ IoU=0.75      | maxDets=500 ] = {matlab_2dp(s['AP75'])}%.",
        f"Average Recall     (AR) @[ IoU=0.50:0.95 | maxDets=  1 ] = {matlab_2dp(s['AR1'])}%.",
        f"Average Recall     (AR) @[ IoU=0.50:0.95 | maxDets= 10 ] = {matlab_2dp(s['AR10'])}%.",
        f"Average Recall     (AR) @[ IoU=0.50:0.95 | maxDets=100 ] = {matlab_2dp(s['AR100'])}%.",
        f"Average Recall     (AR) @[ IoU=0.50:0.95 | maxDets=500 ] = {matlab_2dp(s['AR500'])}%.",
        "",
        f"{'class':<18}{'AP':>8}{'AP50':>8}{'AP75':>8}{'#gt':>8}{'#img':>7}{'#det':>8}",
    ]
    for k, (name, ap) in enumerate(result.class_ap().items()):
        note = "" if result.images_with_class[k] else "  (no GT: not in the averages)"
        lines.append(
            f"{name:<18}{ap:>8.2f}{result.ap[k, 0]:>8.2f}{result.ap[k, 5]:>8.2f}"
            f"{int(result.npos[k]):>8}{int(result.images_with_class[k]):>7}"
            f"{int(result.ndet[k]):>8}{note}"
        )
    lines.append("(per-class AP is the mean over IoU 0.50:0.95; the toolkit prints none)")
    return "\n".join(lines) + "\n"


def visdrone_payload(result: VisDroneResult) -> dict[str, Any]:
    """JSON payload: percentages; NaN as null."""
    per_class: dict[str, Any] = {}
    for k, (name, ap) in enumerate(result.class_ap().items()):
        per_class[name] = {
            "ap": nan_to_null(ap),
            "ap50": float(result.ap[k, 0]),
            "ap75": float(result.ap[k, 5]),
            "npos": int(result.npos[k]),
            "images": int(result.images_with_class[k]),
            "ndet": int(result.ndet[k]),
        }
    return {
        "protocol": "visdrone",
        "task": "det",
        "per_class": per_class,
        "summary": {k: nan_to_null(result.summary[k]) for k in SUMMARY_KEYS},
        "official": result.official,
        "notes": list(result.notes),
    }


def run_eval(request: EvalRequest) -> EvalOutput:
    """Evaluate the VisDrone result folder ``request.results`` on the split ``request.path``."""
    dataset = opened(request, read_visdrone(request.path))
    warnings = [str(p) for p in dataset.problems]
    results = read_visdrone_results(dataset, request.results)
    if results.problems and not request.keep_going:
        raise problems_error(results.problems)
    warnings += [str(p) for p in (*results.problems, *results.warnings)]
    rx: VisDroneDetections = results.data(VisDroneDetections)
    if rx.missing:
        shown = ", ".join(rx.missing[:10]) + (" ..." if len(rx.missing) > 10 else "")
        warnings.append(
            f"{len(rx.missing)} result file(s) missing ({shown}); evaluated as no detections "
            "(the official toolkit fails on them): the numbers are NOT OFFICIAL"
        )
    if rx.extra:
        warnings.append(
            f"{len(rx.extra)} result file(s) without an annotation were not read: "
            + ", ".join(rx.extra[:10])
        )
    # the window's evaluation (no diagnosis of false positives: the printed layout needs none);
    # every category's view holds the toolkit's one ``VisDroneResult``
    choice = ViewChoice()
    stream = visdrone_view.evaluate_visdrone_views(dataset, results, choice, diagnose=False)
    result = collect(stream, choice).one_raw()
    assert isinstance(result, VisDroneResult)  # categories 0..11 always have a view
    warnings += [n for n in result.notes if "missing" not in n]
    return EvalOutput(format_visdrone(result), visdrone_payload(result), warnings)


class VisDroneBenchmark(VisDroneDeclarations, ViewDefaults):
    """VisDrone-DET: a split folder and a folder of per-image result txts."""

    views = FamilyViews(
        visdrone_view.evaluate_visdrone_views,
        visdrone_view.rederive_visdrone_views,
        "vocviewer.families.visdrone.analyze:VisDroneViewAnalyser",
    )

    def read_dataset(
        self, path: Path, sources: dict[str, Path | None], task: str | None = None
    ) -> Dataset:
        return read_visdrone(path)

    def reads_results_of(self, dataset: Dataset) -> bool:
        return dataset.has_data(VisDroneGroundTruth)

    def result_sets(
        self, paths: Sequence[Path], task: str | None = None
    ) -> list[tuple[str, list[Path]]]:
        """Each folder is one set; per-image ``.txt`` files given one by one (``res/*.txt`` as a
        shell expands it) are one set together, named by their folder, where the first stands."""
        given = [Path(p) for p in paths]
        files = [p for p in given if not p.is_dir()]
        sets: list[list[Path]] = []
        for p in given:
            if p.is_dir():
                sets.append([p])
            elif p is files[0]:
                sets.append(files)
        bases = [s[0] if s[0].is_dir() else s[0].parent for s in sets]
        return list(zip(set_names(bases), sets, strict=True))

    def read_results(self, dataset: Dataset, paths: list[Path], **kw: Any) -> ResultSet:
        refuse_json_results(paths, dataset)
        return read_visdrone_results(dataset, paths)

    def evaluate(self, request: EvalRequest) -> EvalOutput:
        return run_eval(request)

    def analyze(self, request: AnalyzeRequest) -> AnalyzeOutput:
        from vocviewer.families.visdrone.analyze import analyze_visdrone

        return analyze_visdrone(request)

    def view_settings(self, dataset: Dataset) -> ViewSettings:
        return visdrone_view.SETTINGS

    def prepare_view(self, dataset: Dataset, path: Path) -> Dataset:
        return visdrone_view.visdrone_view_extras(dataset)
