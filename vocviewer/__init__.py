"""vocviewer: browse object-recognition benchmarks and evaluate results exactly as the official code.

Subpackages
-----------
core
    The shared model (``Dataset``, ``ResultSet``, boxes, RLE masks, palette, errors): numpy only.
formats
    The only code that reads or writes files: PASCAL VOC, COCO, ILSVRC DET / CLS-LOC, VisDrone-DET.
evaluation
    Pure numpy protocols (VOC, COCO, ILSVRC, VisDrone) with per-detection evidence; never prints.
benchmarks
    One module per benchmark family (VOC, COCO, VisDrone, ILSVRC), each a ``Benchmark`` in the
    registry: sniffing, reading, tasks, CLI options, ``eval`` / ``analyze`` text and JSON;
    ``families.api``: ``vocviewer.evaluate(dataset, results) -> Evaluation`` for all of them.
cocoapi
    pycocotools' ``COCO`` / ``COCOeval`` / ``mask`` API on the fast evaluator (training code).
cli
    The ``vocviewer`` command line; the only module that writes to stdout/stderr.
demo
    Generates the embedded demo VOCdevkit used by ``vocviewer demo`` and the tests.
gui
    The Qt application (PySide6 + pyqtgraph): models, panes and the window.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["Evaluation", "__version__", "evaluate"]


def __getattr__(name: str) -> Any:
    """``evaluate`` and ``Evaluation`` (``families.api``), imported on first use so that
    ``import vocviewer`` stays cheap."""
    if name in ("evaluate", "Evaluation"):
        from vocviewer.families import api

        return getattr(api, name)
    raise AttributeError(f"module 'vocviewer' has no attribute {name!r}")
