"""``vocviewer eval`` for COCO bbox / segm / keypoints: pycocotools' printed summary and JSON."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from vocviewer.commands import EvalOutput, opened
from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.coco import CocoParams, evaluate_coco, summary_lines
from vocviewer.evaluation.coco_similarity import KEYPOINT_SIGMAS
from vocviewer.formats.coco import read_coco
from vocviewer.formats.coco_results import read_coco_results


def _num(v: float) -> float | None:
    return None if math.isnan(v) else v


def _check_keypoints(dataset: Dataset, results: ResultSet, ann: Path, res: Path) -> None:
    """OKS compares COCO's 17 person keypoints: refuse other counts with a message (pycocotools
    fails with a numpy broadcasting error)."""
    k = len(KEYPOINT_SIGMAS)
    for path, n, p in (
        (ann, len(dataset.objects), dataset.extras["coco"].keypoints.shape[1]),
        (res, len(results.detections), results.extras["coco"].keypoints.shape[1]),
    ):
        if n and p != k:
            what = f"this file has {p} per entry" if p else "this file has none"
            raise FormatError(path, f"keypoint evaluation compares COCO's {k} keypoints; {what}")


def run_eval(args: argparse.Namespace) -> EvalOutput:
    """Evaluate ``args.results[0]`` against the annotation JSON ``args.path`` (``--task``)."""
    task = args.task or "bbox"
    images = getattr(args, "images", None)
    dataset = opened(args, read_coco(args.path, images, masks=task == "segm"))
    keep_going = bool(getattr(args, "keep_going", False))
    results = read_coco_results(dataset, args.results[0], task=task, keep_going=keep_going)
    warnings = [str(p) for p in (*dataset.problems, *results.problems, *results.warnings)]
    if task == "keypoints":
        _check_keypoints(dataset, results, args.path, args.results[0])
    result = evaluate_coco(dataset, results, CocoParams.for_task(task))
    text = "\n".join(summary_lines(result)) + "\n"
    if result.notes:
        text += "".join(f"NOTE: {n}\n" for n in result.notes)
    payload = {
        "protocol": "coco",
        "task": task,
        "per_class": {c.name: {"ap": _num(c.ap)} for c in result.categories},
        "summary": result.stats(),
        "official": not result.notes,
    }
    return EvalOutput(text, payload, warnings)
