"""vocviewer: browse object-recognition benchmarks and evaluate results exactly as the official code.

Subpackages
-----------
kernel
    The compiled loops (C, each optional: the numpy path runs where one is not built).
core
    The shared model (``Dataset``, ``ResultSet``, boxes, RLE masks, palette, errors): numpy only.
formats
    Shared, family-free file I/O: bounded input, the guarded writer, images, JSON, sessions.
evaluation
    Family-free evaluation: matching, AP, per-detection evidence, the analyses and their
    renderings (``evaluation.render``); never prints.
families
    One folder per benchmark family (``voc``, ``coco``, ``lvis``, ``visdrone``, ``ilsvrc``), each a
    ``Benchmark`` in the registry: its readers, protocol, analyses, view, ``eval`` / ``analyze``
    text and JSON; ``families.api``: ``vocviewer.evaluate(dataset, results) -> Evaluation``.
cocoapi
    pycocotools' ``COCO`` / ``COCOeval`` / ``mask`` API on the fast evaluator (training code).
cli
    The ``vocviewer`` command line; the only module that writes to stdout/stderr.
demo
    Generates the embedded demo VOCdevkit used by ``vocviewer demo`` and the tests.
gui
    The Qt application (PySide6 + pyqtgraph): models, panes and the window.
cli_parser
    The ``vocviewer`` argument parser.
cli_env
    What the command's process sets before numpy loads (OpenBLAS at one thread).
cli_analyze
    ``vocviewer analyze``'s command line into plain values (the family, ``AnalyzeRequest``).
cli_outputs
    Where a command may write (never inside the dataset's folders nor over an input).
cli_streams
    Which stream a ``--json`` target names (``cli`` writes to it).
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"
__all__ = ["Evaluation", "__version__", "beyond_ap", "evaluate", "show"]


def __getattr__(name: str) -> Any:
    """``evaluate``, ``Evaluation`` and ``beyond_ap`` (``families.api``) and ``show`` (the window
    from Python, ``gui.window.show``), imported on first use so that ``import vocviewer`` stays
    cheap."""
    if name in ("evaluate", "Evaluation", "beyond_ap"):
        from vocviewer.families import api

        return getattr(api, name)
    if name == "show":  # the window, imported only when asked for (by name: Qt stays out)
        return importlib.import_module("vocviewer.gui.window.show").show
    raise AttributeError(f"module 'vocviewer' has no attribute {name!r}")
