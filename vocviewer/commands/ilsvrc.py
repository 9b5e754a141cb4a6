"""``vocviewer eval GT --results PRED --protocol ilsvrc --task det|clsloc --devkit DEVKIT``."""

from __future__ import annotations

import argparse
import math
from typing import Any

from vocviewer.commands import EvalOutput, opened, problems_error
from vocviewer.core.errors import FormatError
from vocviewer.evaluation.ilsvrc import IlsvrcDetResult, evaluate_ilsvrc_det
from vocviewer.evaluation.ilsvrc_clsloc import evaluate_ilsvrc_clsloc, format_clsloc
from vocviewer.formats.ilsvrc import read_ilsvrc_det, read_ilsvrc_det_results
from vocviewer.formats.ilsvrc_clsloc import read_ilsvrc_clsloc, read_ilsvrc_clsloc_results


def _num(v: float) -> float | None:
    return None if math.isnan(v) else v


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
        name: {"ap": _num(float(ap)), "npos": int(n), "ndet": int(d)}
        for name, ap, n, d in zip(result.names, result.ap, result.npos, result.ndet, strict=True)
    }
    return {
        "protocol": "ilsvrc",
        "task": "det",
        "per_class": per_class,
        "summary": {
            "mAP": _num(result.mean_ap),
            "medianAP": _num(result.median_ap),
            "mAP_defined_only": _num(result.mean_ap_defined),
        },
        "official": not result.notes,
        "notes": list(result.notes),
    }


def run_clsloc(args: argparse.Namespace) -> EvalOutput:
    """Evaluate an ILSVRC CLS-LOC submission (``--task clsloc``): GT folder of XML (or a labels
    file: classification only), ``--devkit`` for the mapping, labels file and blacklist."""
    if args.devkit is None:
        raise FormatError(args.path, "ILSVRC needs --devkit DIR (the devkit root holding data/)")
    if len(args.results) != 1:
        raise FormatError(args.results[0], "ILSVRC CLS-LOC takes exactly one submission file")
    dataset = opened(args, read_ilsvrc_clsloc(args.path, args.devkit))
    results = read_ilsvrc_clsloc_results(dataset, args.results[0])
    if results.problems and not args.keep_going:
        raise problems_error(results.problems)
    warnings = [str(p) for p in (*dataset.problems, *results.problems, *results.warnings)]
    result = evaluate_ilsvrc_clsloc(dataset, results)
    info = dataset.extras["ilsvrc_clsloc"]
    text = format_clsloc(result, info, str(args.results[0]), str(args.path))
    payload = {
        "protocol": "ilsvrc",
        "task": "clsloc",
        "summary": {
            "guesses": [1, 2, 3, 4, 5],
            "cls_error": [_num(float(v)) for v in result.cls_error],
            "loc_error": [_num(float(v)) for v in result.loc_error],
        },
        "n_images": result.n_images,
        "n_blacklisted": result.n_blacklist,
        "official": not result.notes,
        "notes": list(result.notes),
    }
    return EvalOutput(text, payload, warnings)


def run_eval(args: argparse.Namespace) -> EvalOutput:
    """Evaluate an ILSVRC DET (``--task det``) or CLS-LOC (``--task clsloc``) submission."""
    if args.task == "clsloc":
        return run_clsloc(args)
    if args.task != "det":
        raise FormatError(args.path, f"ILSVRC task {args.task!r} is not supported (det, clsloc)")
    if args.devkit is None:
        raise FormatError(args.path, "ILSVRC needs --devkit DIR (the devkit root holding data/)")
    if len(args.results) != 1:
        raise FormatError(args.results[0], "ILSVRC DET takes exactly one submission file")
    dataset = opened(args, read_ilsvrc_det(args.path, args.devkit))
    warnings = [str(p) for p in dataset.problems]
    results = read_ilsvrc_det_results(dataset, args.results[0])
    if results.problems and not args.keep_going:
        raise problems_error(results.problems)
    warnings += [str(p) for p in (*results.problems, *results.warnings)]
    unlisted = results.extras.get("ilsvrc_unlisted", {})
    if unlisted:
        warnings.append(
            f"{sum(unlisted.values())} prediction(s) on {len(unlisted)} image id(s) not in the "
            "eval list were dropped (the official code crashes on them): NOT OFFICIAL"
        )
    result = evaluate_ilsvrc_det(dataset, results)
    return EvalOutput(format_det(result, str(args.results[0])), det_payload(result), warnings)
