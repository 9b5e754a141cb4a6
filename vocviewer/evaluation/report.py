"""Text and JSON renderings of evaluation results (pure functions returning strings or dicts).

The CLI prints these; nothing here writes anywhere.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping
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


def per_class_json(result: EvalResult) -> dict[str, dict[str, Any]]:
    """``{CLASS: {"ap", "npos", "ndet"}}`` for the classes that have a results file."""
    return {
        c.class_name: {"ap": c.ap, "npos": c.npos, "ndet": c.ndet}
        for c in result.classes
        if c.has_results
    }


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
        "per_class": per_class_json(result),
        "summary": {
            "mAP": result.mean_ap(),
            "classes_in_mean": sum(c.has_results for c in result.classes) - len(excluded["nan_ap"]),
            "excluded_nan_ap": excluded["nan_ap"],
            "not_submitted": excluded["no_results"],
        },
    }


# --- AP tables over one or more result sets (export) ------------------------------------------
TABLE_FORMATS = ("csv", "md", "tex", "json")


def _table(results: Mapping[str, EvalResult]) -> tuple[list[str], list[list[float]], list[float]]:
    """Classes (union, in first-seen order), per-class AP per result set (NaN where a class has
    no results or no evaluation) and each set's ``mean_ap``."""
    classes: list[str] = []
    for res in results.values():
        classes += [c.class_name for c in res.classes if c.class_name not in classes]
    aps = []
    for name in classes:
        row = []
        for res in results.values():
            ev = next((c for c in res.classes if c.class_name == name), None)
            row.append(ev.ap if ev is not None and ev.has_results else math.nan)
        aps.append(row)
    return classes, aps, [res.mean_ap() for res in results.values()]


def ap_table_csv(results: Mapping[str, EvalResult]) -> str:
    """``class,<set>,...`` rows with full-precision APs (empty = NaN), then a ``mean`` row."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    classes, aps, means = _table(results)
    writer.writerow(["class", *results])
    for name, row in zip([*classes, "mean"], [*aps, means], strict=True):
        writer.writerow([name, *("" if math.isnan(x) else repr(float(x)) for x in row)])
    return buf.getvalue()


def ap_table_markdown(results: Mapping[str, EvalResult], digits: int = 3) -> str:
    """A GitHub-flavoured Markdown table (AP rounded to ``digits``; ``—`` for NaN)."""
    classes, aps, means = _table(results)

    def cell(x: float) -> str:
        return "—" if math.isnan(x) else f"{x:.{digits}f}"

    lines = ["| class | " + " | ".join(results) + " |", "|---|" + "---:|" * len(results)]
    for name, row in zip(classes, aps, strict=True):
        lines.append(f"| {name} | " + " | ".join(cell(x) for x in row) + " |")
    lines.append("| **mean** | " + " | ".join(f"**{cell(x)}**" for x in means) + " |")
    return "\n".join(lines) + "\n"


_TEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\^{}",
    "—": "--",
}


def tex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped (and an em dash as ``--``)."""
    return "".join(_TEX.get(ch, ch) for ch in text)


def ap_table_latex(results: Mapping[str, EvalResult], digits: int = 1) -> str:
    """A ``tabular`` (booktabs) with AP in percent, one column per result set, mean row last."""
    classes, aps, means = _table(results)

    def cell(x: float) -> str:
        return "--" if math.isnan(x) else f"{100 * x:.{digits}f}"

    cols = "l" + "r" * len(results)
    lines = [f"\\begin{{tabular}}{{{cols}}}", "\\toprule"]
    lines.append("class & " + " & ".join(tex_escape(n) for n in results) + " \\\\")
    lines.append("\\midrule")
    for name, row in zip(classes, aps, strict=True):
        lines.append(f"{tex_escape(name)} & " + " & ".join(cell(x) for x in row) + " \\\\")
    lines.append("\\midrule")
    lines.append("mean & " + " & ".join(cell(x) for x in means) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


def ap_table_json(results: Mapping[str, EvalResult]) -> str:
    """``{"result_sets": {NAME: result_to_json(...)}}`` as indented JSON (NaN written as null)."""

    def clean(x: Any) -> Any:
        if isinstance(x, float) and math.isnan(x):
            return None
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        if isinstance(x, list):
            return [clean(v) for v in x]
        return x

    payload = {"result_sets": {n: clean(result_to_json(r)) for n, r in results.items()}}
    return json.dumps(payload, indent=2, allow_nan=False) + "\n"


def render_ap_table(results: Mapping[str, EvalResult], fmt: str) -> str:
    """The AP table in ``fmt``: one of ``TABLE_FORMATS`` (``csv``, ``md``, ``tex``, ``json``)."""
    renderers = {
        "csv": ap_table_csv,
        "md": ap_table_markdown,
        "tex": ap_table_latex,
        "json": ap_table_json,
    }
    if fmt not in renderers:
        raise ValueError(f"unknown table format {fmt!r}; expected one of {TABLE_FORMATS}")
    return renderers[fmt](results)
