"""ILSVRC: the ``Benchmark`` of an annotation folder with its devkit (DET, CLS-LOC), and
``vocviewer eval GT --results PRED --task det|clsloc --devkit DEVKIT [--protocol ilsvrc]``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from vocviewer.core.arrays import nan_to_null
from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
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
from vocviewer.families.ilsvrc import view as ilsvrc_view
from vocviewer.families.ilsvrc.clsloc_evaluate import evaluate_ilsvrc_clsloc, format_clsloc
from vocviewer.families.ilsvrc.clsloc_reader import read_ilsvrc_clsloc, read_ilsvrc_clsloc_results
from vocviewer.families.ilsvrc.columns import IlsvrcClslocInfo, IlsvrcDetInfo, UnlistedImages
from vocviewer.families.ilsvrc.declared import IlsvrcDeclarations
from vocviewer.families.ilsvrc.evaluate import IlsvrcDetResult
from vocviewer.families.ilsvrc.reader import read_ilsvrc_det, read_ilsvrc_det_results
from vocviewer.families.views import ViewChoice, ViewSettings

if TYPE_CHECKING:
    from vocviewer.evaluation.render.analyze_report import AnalyzeOutput


def format_det(result: IlsvrcDetResult, pred: str) -> str:
    """The devkit demo's printout (``demo_eval_det.m``): per-category AP, mean and median."""
    lines = ["DETECTION TASK", f"pred_file: {pred}", "-------------", "Category        AP"]
    lines += [f"{name:<15} {ap:.3f}" for name, ap in zip(result.names, result.ap, strict=True)]
    lines += [
        " - - - - - - - -",
        f"Mean AP:         {result.mean_ap:.3f}",
        f"Median AP:       {result.median_ap:.3f}",
        f"(not official) mean AP over labels with a defined AP: {result.mean_ap_defined:.3f}",
    ]
    if result.notes:
        lines.append("NOT OFFICIAL: " + "; ".join(result.notes))
    return "\n".join(lines) + "\n"


def det_payload(result: IlsvrcDetResult) -> dict[str, Any]:
    per_class = {
        name: {"ap": nan_to_null(float(ap)), "npos": int(n), "ndet": int(d)}
        for name, ap, n, d in zip(result.names, result.ap, result.npos, result.ndet, strict=True)
    }
    return {
        "protocol": "ilsvrc",
        "task": "det",
        "per_class": per_class,
        "summary": {
            "mAP": nan_to_null(result.mean_ap),
            "medianAP": nan_to_null(result.median_ap),
            "mAP_defined_only": nan_to_null(result.mean_ap_defined),
        },
        "official": not result.notes,
        "notes": list(result.notes),
    }


def run_clsloc(request: EvalRequest) -> EvalOutput:
    """Evaluate an ILSVRC CLS-LOC submission (``--task clsloc``): GT folder of XML (or a labels
    file: classification only), ``--devkit`` for the mapping, labels file and blacklist."""
    if request.option("devkit") is None:
        raise FormatError(request.path, "ILSVRC needs --devkit DIR (the devkit root holding data/)")
    if len(request.results) != 1:
        raise FormatError(request.results[0], "ILSVRC CLS-LOC takes exactly one submission file")
    dataset = opened(request, read_ilsvrc_clsloc(request.path, request.option("devkit")))
    results = read_ilsvrc_clsloc_results(dataset, request.results[0])
    if results.problems and not request.keep_going:
        raise problems_error(results.problems)
    warnings = [str(p) for p in (*dataset.problems, *results.problems, *results.warnings)]
    result = evaluate_ilsvrc_clsloc(dataset, results)
    info = dataset.data(IlsvrcClslocInfo)
    text = format_clsloc(result, info, str(request.results[0]), str(request.path))
    payload = {
        "protocol": "ilsvrc",
        "task": "clsloc",
        "summary": {
            "guesses": [1, 2, 3, 4, 5],
            "cls_error": [nan_to_null(float(v)) for v in result.cls_error],
            "loc_error": [nan_to_null(float(v)) for v in result.loc_error],
        },
        "n_images": result.n_images,
        "n_blacklisted": result.n_blacklist,
        "official": not result.notes,
        "notes": list(result.notes),
    }
    return EvalOutput(text, payload, warnings)


def run_eval(request: EvalRequest) -> EvalOutput:
    """Evaluate an ILSVRC DET (``--task det``) or CLS-LOC (``--task clsloc``) submission."""
    if request.task == "clsloc":
        return run_clsloc(request)
    if request.task != "det":
        raise FormatError(
            request.path, f"ILSVRC task {request.task!r} is not supported (det, clsloc)"
        )
    if request.option("devkit") is None:
        raise FormatError(request.path, "ILSVRC needs --devkit DIR (the devkit root holding data/)")
    if len(request.results) != 1:
        raise FormatError(request.results[0], "ILSVRC DET takes exactly one submission file")
    dataset = opened(request, read_ilsvrc_det(request.path, request.option("devkit")))
    warnings = [str(p) for p in dataset.problems]
    results = read_ilsvrc_det_results(dataset, request.results[0])
    if results.problems and not request.keep_going:
        raise problems_error(results.problems)
    warnings += [str(p) for p in (*results.problems, *results.warnings)]
    unlisted = UnlistedImages.of(results)
    if unlisted:
        warnings.append(
            f"{sum(unlisted.values())} prediction(s) on {len(unlisted)} image id(s) not in the "
            "eval list were dropped (the official code crashes on them): NOT OFFICIAL"
        )
    # the window's evaluation (no diagnosis of false positives: the printed layout needs none);
    # every label's view holds the devkit's one ``IlsvrcDetResult``
    choice = ViewChoice()
    stream = ilsvrc_view.evaluate_ilsvrc_views(dataset, results, choice, diagnose=False)
    result = collect(stream, choice).one_raw()
    assert isinstance(result, IlsvrcDetResult)  # the reader refuses a devkit without synsets
    return EvalOutput(format_det(result, str(request.results[0])), det_payload(result), warnings)


class IlsvrcBenchmark(IlsvrcDeclarations, ViewDefaults):
    """ILSVRC DET / CLS-LOC: an annotation folder (CLS-LOC: or a labels file) and ``--devkit``."""

    views = FamilyViews(
        ilsvrc_view.evaluate_ilsvrc_views,
        ilsvrc_view.rederive_ilsvrc_views,
        "vocviewer.families.ilsvrc.analyze:IlsvrcViewAnalyser",
    )

    def read_dataset(
        self, path: Path, sources: dict[str, Path | None], task: str | None = None
    ) -> Dataset:
        devkit = sources.get("devkit")
        if devkit is None:
            raise FormatError(path, "ILSVRC needs --devkit DIR (the devkit root holding data/)")
        if task == "clsloc":
            return read_ilsvrc_clsloc(path, devkit)
        return read_ilsvrc_det(path, devkit)

    def reads_results_of(self, dataset: Dataset) -> bool:
        return dataset.has_data(IlsvrcDetInfo) or dataset.has_data(IlsvrcClslocInfo)

    def read_results(self, dataset: Dataset, paths: list[Path], **kw: Any) -> ResultSet:
        refuse_json_results(paths, dataset)
        if len(paths) != 1:
            raise FormatError(paths[-1], "ILSVRC results are one submission file")
        if dataset.has_data(IlsvrcClslocInfo):
            return read_ilsvrc_clsloc_results(dataset, paths[0])
        return read_ilsvrc_det_results(dataset, paths[0])

    def evaluate(self, request: EvalRequest) -> EvalOutput:
        return run_eval(request)

    def analyze(self, request: AnalyzeRequest) -> AnalyzeOutput:
        from vocviewer.families.ilsvrc.analyze import analyze_ilsvrc

        return analyze_ilsvrc(request)

    def view_settings(self, dataset: Dataset) -> ViewSettings:
        return ilsvrc_view.SETTINGS
