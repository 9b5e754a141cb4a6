"""``vocviewer eval`` for VOC detection and classification.

Input problems and the numbers: a results file with problems (bad lines, unknown ids, unreadable
files) stops ``eval`` unless ``--keep-going``, which marks the numbers NOT OFFICIAL. So does
ground truth that lost objects (``formats.voc_annotations.lost_ground_truth``: a missing or
non-finite box coordinate, a missing ``<bndbox>``, an unreadable or malformed annotation file),
for the tasks that use objects (det, layout, action): the numbers would count fewer positives than
the annotations hold. Harmless problems (an object of an unknown class, ids without an annotation
file) stay warnings. Result lines with NaN/inf are kept and evaluated as the official code does,
with one warning per file; the numbers stay official.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from vocviewer.commands import EvalOutput, check_ground_truth, opened, problems_error, voc_tasks
from vocviewer.core.errors import FormatError
from vocviewer.evaluation.report import ap_table, result_to_json
from vocviewer.evaluation.voc import PROTOCOL_AP_RULES, evaluate_voc_cls, evaluate_voc_det
from vocviewer.formats.detect import open_dataset, open_results

_RESULT_NAME = re.compile(r"^(comp\d+)_(det|cls)_(.+)_([^_]+)\.txt$")


def infer_image_set(paths: Sequence[Path], task: str) -> str | None:
    """The image set named by result file names (``compN_det_<set>_<class>.txt``), if unique."""
    names: list[str] = []
    for p in paths:
        names += [f.name for f in p.rglob("*.txt")] if p.is_dir() else [p.name]
    sets = {m.group(3) for n in names if (m := _RESULT_NAME.match(n)) and m.group(2) == task}
    return sets.pop() if len(sets) == 1 else None


def run_eval(args: argparse.Namespace) -> EvalOutput:
    """Evaluate ``args.results`` on the VOCdevkit ``args.path`` (``--task det|cls|seg|layout|
    action``)."""
    if args.task in ("seg", "layout", "action"):
        run = {"seg": voc_tasks.run_seg, "layout": voc_tasks.run_layout}.get(
            args.task, voc_tasks.run_action
        )
        return run(args)
    if args.task not in ("det", "cls"):
        raise FormatError(
            args.path, f"--task {args.task} is not a VOC task (det, cls, seg, layout, action)"
        )
    image_set = args.image_set or infer_image_set(args.results, args.task)
    if image_set is None:
        raise FormatError(
            args.results[0],
            "cannot tell the image set from the result file names; pass --image-set",
        )
    dataset = opened(args, open_dataset(args.path))
    lost = check_ground_truth(dataset, args.keep_going) if args.task == "det" else None
    warnings = [str(p) for p in dataset.problems]
    results = open_results(dataset, args.results, image_set=image_set)
    if results.problems and not args.keep_going:
        raise problems_error(results.problems)
    warnings += [str(p) for p in (*results.problems, *results.warnings)]
    evaluate = evaluate_voc_det if args.task == "det" else evaluate_voc_cls
    rule = PROTOCOL_AP_RULES.get(args.protocol) if args.protocol else None
    try:
        result = evaluate(
            dataset, results, image_set=image_set, ap_rule=rule, strict=not args.keep_going
        )
    except KeyError as e:  # unknown image set
        raise FormatError(args.path, str(e.args[0])) from None
    if lost is not None:
        result = replace(result, notes=(*result.notes, lost))
    return EvalOutput(ap_table(result), result_to_json(result), warnings)
