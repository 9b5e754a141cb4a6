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
from dataclasses import dataclass, field
from typing import Any

from vocviewer.core.dataset import Dataset


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
