"""Text and JSON renderings of VOC segmentation, person-layout and action results (pure).

JSON schemas (NaN written as JSON ``NaN``):

segmentation
    ``{"protocol", "task": "seg", "image_set", "official", "problems", "images",
    "per_class": {LABEL: {"iou", "accuracy"}}, "summary": {"mIoU", "mIoU_defined_labels",
    "labels_without_pixels", "mean_accuracy", "pixel_accuracy"}, "confusion": [[...]]}``;
    ``confusion`` holds raw pixel counts, rows = ground truth, ``"background"`` is label 0.
layout
    ``{"protocol", "task": "layout", "image_set", "official", "notes", "warnings",
    "per_class": {"head"|"hand"|"foot": {"ap", "npos", "ndet"}}, "summary": {"mAP"}}``.
action
    ``{"protocol", "task": "action", "image_set", "official", "notes",
    "per_class": {ACTION: {"ap", "npos", "ndet"}}, "summary": {"mAP", "actions_in_mean",
    "excluded"}}``; the mAP leaves out 'other'.
"""

from __future__ import annotations

import math
from typing import Any

from vocviewer.evaluation.report import per_class_json
from vocviewer.evaluation.result import EvalResult
from vocviewer.families.voc.action_evaluate import action_mean_ap
from vocviewer.families.voc.layout_evaluate import LayoutEvaluation
from vocviewer.families.voc.segmentation_evaluate import SegEvaluation


def _fmt(x: float, digits: int = 4) -> str:
    return "NaN" if math.isnan(x) else f"{x:.{digits}f}"


def seg_table(ev: SegEvaluation) -> str:
    """Per-label accuracies and their mean, as ``vocviewer eval --task seg`` prints them."""
    iou = ev.protocol != "voc2007"
    what = "IoU %" if iou else "accuracy %"
    width = max(len("mean (defined)"), *(len(n) for n in ev.labels))
    lines = [
        f"VOC segmentation, image set {ev.image_set!r}, {len(ev.image_ids)} images, "
        f"{'intersection/union (VOC2008+)' if iou else 'per-class pixel accuracy (VOC2007)'}",
        "",
        f"{'label':<{width}}  {what:>10}",
    ]
    for name, value in zip(ev.labels, ev.accuracies.tolist(), strict=True):
        lines.append(f"{name:<{width}}  {_fmt(value, 2):>10}")
    lines.append("-" * (width + 12))
    if iou:
        lines.append(
            f"{'mean':<{width}}  {_fmt(ev.mean_iou, 2):>10}  official: mean of 21, NaN propagates"
        )
        defined, left_out = ev.mean_iou_defined()
        if left_out:
            lines.append(
                f"{'mean (defined)':<{width}}  {_fmt(defined, 2):>10}  NOT official: without "
                f"{', '.join(left_out)} (no pixels in ground truth or results)"
            )
    else:
        lines.append(f"{'mean':<{width}}  {_fmt(ev.mean_accuracy, 2):>10}")
        lines.append(f"{'pixel accuracy':<{width}}  {_fmt(ev.pixel_accuracy, 2):>10}")
    for p in ev.problems:
        lines.append(f"NOT OFFICIAL: {p}")
    return "\n".join(lines) + "\n"


def seg_to_json(ev: SegEvaluation) -> dict[str, Any]:
    """The ``--json`` payload of a segmentation evaluation (schema in the module docstring)."""
    defined, left_out = ev.mean_iou_defined()
    iou, acc = ev.iou.tolist(), ev.class_accuracy.tolist()
    return {
        "protocol": ev.protocol,
        "task": "seg",
        "image_set": ev.image_set,
        "official": ev.official,
        "problems": [str(p) for p in ev.problems],
        "images": len(ev.image_ids),
        "per_class": {
            name: {"iou": iou[k], "accuracy": acc[k]} for k, name in enumerate(ev.labels)
        },
        "summary": {
            "mIoU": ev.mean_iou,
            "mIoU_defined_labels": defined,
            "labels_without_pixels": left_out,
            "mean_accuracy": ev.mean_accuracy,
            "pixel_accuracy": ev.pixel_accuracy,
        },
        "confusion": ev.confusion.tolist(),
    }


def _ap_lines(result: EvalResult, title: str) -> list[str]:
    width = max(len("class"), *(len(c.class_name) for c in result.classes))
    count = "nparts" if result.task == "layout" else "nscored"
    lines = [title, "", f"{'class':<{width}}  {'AP':>8}  {'npos':>6}  {count:>7}"]
    for c in result.classes:
        ap = _fmt(c.ap) if c.has_results else "-"
        ndet = str(c.ndet) if c.has_results else "-"
        lines.append(f"{c.class_name:<{width}}  {ap:>8}  {c.npos:>6}  {ndet:>7}")
    lines.append("-" * (width + 29))
    return lines


def layout_table(ev: LayoutEvaluation) -> str:
    """Per-part-type AP table, as ``vocviewer eval --task layout`` prints it."""
    r = ev.result
    lines = _ap_lines(
        r,
        f"VOC person layout, image set {r.image_set!r}, AP: all points, "
        f"overlap >= {r.iou_threshold:g}",
    )
    used = sum(not math.isnan(c.ap) for c in r.classes)
    lines.append(f"{'mAP':<6}  {_fmt(ev.mean_ap()):>8}  mean of {used} part types (NaN left out)")
    lines += [f"warning: {w}" for w in ev.warnings[:20]]
    if len(ev.warnings) > 20:
        lines.append(f"... and {len(ev.warnings) - 20} more warnings")
    lines += [f"NOT OFFICIAL: {n}" for n in r.notes]
    return "\n".join(lines) + "\n"


def layout_to_json(ev: LayoutEvaluation) -> dict[str, Any]:
    """The ``--json`` payload of a layout evaluation (schema in the module docstring)."""
    r = ev.result
    return {
        "protocol": r.protocol,
        "task": "layout",
        "image_set": r.image_set,
        "official": r.official,
        "notes": list(r.notes),
        "warnings": list(ev.warnings),
        "per_class": {c.class_name: {"ap": c.ap, "npos": c.npos, "ndet": c.ndet} for c in r},
        "summary": {"mAP": ev.mean_ap()},
    }


def action_table(result: EvalResult) -> str:
    """Per-action AP table and the action mAP (without 'other'), for ``--task action``."""
    lines = _ap_lines(result, f"VOC action, image set {result.image_set!r}, AP: all points")
    mean, used, left_out = action_mean_ap(result)
    lines.append(f"mAP  {_fmt(mean)}  mean of {len(used)} actions; 'other' is never averaged")
    if left_out:
        lines.append(f"left out: {', '.join(left_out)}")
    lines += [f"NOT OFFICIAL: {n}" for n in result.notes]
    return "\n".join(lines) + "\n"


def action_to_json(result: EvalResult) -> dict[str, Any]:
    """The ``--json`` payload of an action evaluation (schema in the module docstring)."""
    mean, used, left_out = action_mean_ap(result)
    return {
        "protocol": result.protocol,
        "task": "action",
        "image_set": result.image_set,
        "official": result.official,
        "notes": list(result.notes),
        "per_class": per_class_json(result),
        "summary": {"mAP": mean, "actions_in_mean": used, "excluded": left_out},
    }
