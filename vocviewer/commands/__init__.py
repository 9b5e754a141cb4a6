"""Headless commands behind ``vocviewer eval``: one module per benchmark family.

Each module has ``run_eval(args) -> EvalOutput``: it reads the inputs (``formats``), evaluates
(``evaluation``) and renders (``evaluation.report`` or its own pure formatter), returning text
and a JSON payload. Nothing here prints; ``cli.py`` does. Bad input raises ``FormatError``.

Modules
-------
voc      VOC detection / classification (``--task det|cls``), later seg / layout / action
coco     COCO bbox / segm / keypoints (``--protocol coco`` or an annotation ``.json``)
ilsvrc   ILSVRC DET / CLS-LOC (``--protocol ilsvrc``)
visdrone VisDrone-DET (``--protocol visdrone``)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class EvalOutput:
    """What ``vocviewer eval`` shows: ``text`` for stdout, ``payload`` for ``--json``,
    ``warnings`` for stderr (non-fatal input problems, "not official" notes)."""

    text: str
    payload: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
