"""``vocviewer reconcile``: a family's ``reconcile`` hook (``"module:function"``, imported on
first use, called with an ``EvalRequest``) gives the ``evaluation.reconcile.Reconciliation`` of
one result set: its number under every protocol that reads it and the rules between them."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from vocviewer.core.errors import FormatError
from vocviewer.evaluation.reconcile import Reconciliation
from vocviewer.families.base import Benchmark, EvalRequest


def reconcile_with(benchmark: Benchmark, request: EvalRequest) -> Reconciliation:
    """``benchmark``'s reconciliation of ``request`` (``FormatError`` if it has none)."""
    spec: str | None = getattr(benchmark, "reconcile", None)
    if spec is None:
        raise FormatError(
            request.path,
            f"reconcile: {benchmark.title} results are read by one protocol only here "
            "(reconcile reads COCO, YOLO and VOC detection results)",
        )
    module, _, name = spec.partition(":")
    run: Callable[[EvalRequest], Reconciliation] = getattr(importlib.import_module(module), name)
    return run(request)
