"""Each evaluation's PR polyline (``result.pr_polyline``), worked out once and kept while the
evaluation lives: the window draws it (the All-classes PR plot, the class curve), and a
re-derive at another IoU threshold works out every class's at once in its worker
(``remember_polylines``: one pass of the compiled kernel ``_diagnose``, ~1 ms for 500,000
ranks, where 80 numpy calls take the GUI thread ~5 ms)."""

from __future__ import annotations

import weakref
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from vocviewer.evaluation.result import ClassEvaluation, pr_polyline
from vocviewer.kernel import load as load_kernel

FloatArray = npt.NDArray[np.float64]

#: each evaluation's polyline (held weakly: forgotten with it)
_POLYLINES: weakref.WeakKeyDictionary[ClassEvaluation, tuple[FloatArray, FloatArray]] = (
    weakref.WeakKeyDictionary()
)


def polyline_of(ev: ClassEvaluation) -> tuple[FloatArray, FloatArray]:
    """``pr_polyline(ev.recall, ev.precision)``, kept per evaluation."""
    line = _POLYLINES.get(ev)
    if line is None:
        line = _POLYLINES[ev] = pr_polyline(ev.recall, ev.precision)
    return line


def remember_polylines(evaluations: Iterable[ClassEvaluation]) -> None:
    """Work out and keep the polylines of ``evaluations`` not kept yet, all at once (the same
    points ``pr_polyline`` gives; ``polyline_of`` then looks them up)."""
    todo = [ev for ev in evaluations if ev not in _POLYLINES]
    k = load_kernel("_diagnose")
    if k is None:
        for ev in todo:
            polyline_of(ev)
        return
    recalls = [np.asarray(ev.recall, dtype=np.float64) for ev in todo]
    precisions = [np.asarray(ev.precision, dtype=np.float64) for ev in todo]
    for ev, line in zip(todo, k.polylines(recalls, precisions), strict=True):
        _POLYLINES[ev] = line


def keep_polylines(
    evaluations: Iterable[ClassEvaluation], lines: Iterable[tuple[FloatArray, FloatArray]]
) -> None:
    """Keep ``lines`` as the polylines of ``evaluations`` (worked out with their curves by the
    kernel's ``ranked``: ``pr_polyline``'s points; ``polyline_of`` then looks them up)."""
    for ev, line in zip(evaluations, lines, strict=True):
        _POLYLINES[ev] = line
