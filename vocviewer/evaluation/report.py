"""Text and JSON renderings of evaluation results (pure functions returning strings or dicts).

The CLI prints these; nothing here writes anywhere.
"""

from __future__ import annotations

import math
from typing import Any

from vocviewer.evaluation.result import EvalResult

_TASK_NAMES = {"det": "detection", "cls": "classification"}
_RULE_NAMES = {"allpoints": "all points (VOC2010+)", "11point": "11-point interpolated (VOC2007)"}


def _fmt(x: float) -> str:
    return "NaN" if math.isnan(x) else f"{x:.4f}"


def ap_table(result: EvalResult) -> str:
    """Per-class AP table and the mean, as ``vocviewer eval`` prints it.

    Classes without a results file are listed as ``-`` and left out of the mean, as are NaN APs
    (a class with detections but no positives); the footer says which.
    """
    head = (
        f"VOC {_TASK_NAMES.get(result.task, result.task)}, image set {result.image_set!r}, "
        f"AP: {_RULE_NAMES.get(result.ap_rule, result.ap_rule)}"
    )
    if result.task == "det":
        head += f", overlap >= {result.iou_threshold:g}"
    count = "ndet" if result.task == "det" else "nscored"
    width = max([len("class"), *(len(c.class_name) for c in result.classes)])
    lines = [head, "", f"{'class':<{width}}  {'AP':>8}  {'npos':>6}  {count:>7}"]
    for c in result.classes:
        ap = _fmt(c.ap) if c.has_results else "-"
        ndet = str(c.ndet) if c.has_results else "-"
        lines.append(f"{c.class_name:<{width}}  {ap:>8}  {c.npos:>6}  {ndet:>7}")
    excluded = result.mean_ap_excluded()
    used = sum(c.has_results for c in result.classes) - len(excluded["nan_ap"])
    lines.append("-" * (width + 29))
    lines.append(f"{'mAP':<{width}}  {_fmt(result.mean_ap()):>8}  mean of {used} classes")
    if excluded["nan_ap"]:
        lines.append(f"excluded, AP NaN (no positives): {', '.join(excluded['nan_ap'])}")
    if excluded["no_results"]:
        lines.append(f"excluded, no results file: {', '.join(excluded['no_results'])}")
    for note in result.notes:
        lines.append(f"NOT OFFICIAL: {note}")
    return "\n".join(lines) + "\n"


def result_to_json(result: EvalResult) -> dict[str, Any]:
    """The stable JSON schema of ``vocviewer eval --json``.

    ``{"protocol", "task", "image_set", "ap_rule", "official", "notes",
    "per_class": {CLASS: {"ap", "npos", "ndet"}}, "summary": {"mAP", "classes_in_mean",
    "excluded_nan_ap", "not_submitted"}}``. Only classes with a results file appear in
    ``per_class``; NaN is written as JSON ``NaN``.
    """
    excluded = result.mean_ap_excluded()
    return {
        "protocol": result.protocol,
        "task": result.task,
        "image_set": result.image_set,
        "ap_rule": result.ap_rule,
        "official": result.official,
        "notes": list(result.notes),
        "per_class": {
            c.class_name: {"ap": c.ap, "npos": c.npos, "ndet": c.ndet}
            for c in result.classes
            if c.has_results
        },
        "summary": {
            "mAP": result.mean_ap(),
            "classes_in_mean": sum(c.has_results for c in result.classes) - len(excluded["nan_ap"]),
            "excluded_nan_ap": excluded["nan_ap"],
            "not_submitted": excluded["no_results"],
        },
    }
