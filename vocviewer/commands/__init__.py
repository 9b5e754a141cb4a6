"""Headless commands behind ``vocviewer eval``: one module per benchmark family.

Each module has ``run_eval(args) -> EvalOutput``: it reads the inputs (``formats``), evaluates
(``evaluation``) and renders (``evaluation.report`` or its own pure formatter), returning text
and a JSON payload. Nothing here prints; ``cli.py`` does. Bad input raises ``FormatError``.
Each passes the ground truth it read through ``opened(args, dataset)`` before reading results, so
the CLI can refuse an output inside the dataset's folders before anything is evaluated.

Modules
-------
voc      VOC detection / classification (``--task det|cls``); voc_tasks: seg / layout / action
coco     COCO bbox / segm / keypoints (``--protocol coco`` or an annotation ``.json``)
ilsvrc   ILSVRC DET / CLS-LOC (``--protocol ilsvrc``)
visdrone VisDrone-DET (``--protocol visdrone``)
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.formats.voc_annotations import lost_ground_truth


@dataclass(frozen=True)
class EvalOutput:
    """What ``vocviewer eval`` shows: ``text`` for stdout, ``payload`` for ``--json``,
    ``warnings`` for stderr (non-fatal input problems, "not official" notes)."""

    text: str
    payload: dict[str, Any]
    warnings: list[str] = field(default_factory=list)


def opened(args: argparse.Namespace, dataset: Dataset) -> Dataset:
    """``dataset``, after telling the CLI it was read (``args.on_dataset(dataset)``, if set)."""
    hook = getattr(args, "on_dataset", None)
    if hook is not None:
        hook(dataset)
    return dataset


def problems_error(
    problems: Sequence[FormatError], shown: int = 10, where: str = "the results"
) -> FormatError:
    """One error for a list of input problems: the first, then up to ``shown`` more listed."""
    first, rest = problems[0], problems[1:]
    lines = [first.message] + [f"  {p}" for p in rest[:shown]]
    if len(rest) > shown:
        lines.append(f"  ... and {len(rest) - shown} more")
    lines.append(f"{len(problems)} problem(s) in {where}; fix them or pass --keep-going")
    return FormatError(first.path, "\n".join(lines), line=first.line, element=first.element)


def check_ground_truth(dataset: Dataset, keep_going: bool) -> str | None:
    """Refuse (``FormatError``) a dataset whose annotations lost ground truth, unless
    ``keep_going``; then return the "not official" note to attach to the numbers."""
    lost = lost_ground_truth(dataset.problems)
    if not lost:
        return None
    if not keep_going:
        raise problems_error(lost, where="the ground truth (objects left out)")
    return (
        f"{len(lost)} ground-truth problem(s) left objects out (first: {lost[0]}); "
        "the official code cannot read these annotations"
    )
