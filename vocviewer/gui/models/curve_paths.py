"""Each evaluation's PR polyline as the All-classes plot draws it: the ``QPainterPath`` that
pyqtgraph's curve would build of its points (``arrayToQPath``, every point connected), built
where the polyline is worked out (a re-derive's worker: 80 of them took the GUI thread ~5 ms
at each IoU change) and kept while the evaluation lives."""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Iterator
from typing import TypeVar

import pyqtgraph as pg
from PySide6.QtGui import QPainterPath

from vocviewer.evaluation.polylines import polyline_of, remember_polylines
from vocviewer.evaluation.result import ClassEvaluation

T = TypeVar("T")
#: each evaluation's path (held weakly: forgotten with it)
_PATHS: weakref.WeakKeyDictionary[ClassEvaluation, QPainterPath] = weakref.WeakKeyDictionary()


def remember_paths(evaluations: Iterable[ClassEvaluation]) -> None:
    """Build and keep the paths of ``evaluations``' polylines (``polyline_of``) not kept yet."""
    for ev in evaluations:
        if ev not in _PATHS:
            x, y = polyline_of(ev)
            _PATHS[ev] = pg.functions.arrayToQPath(x, y, connect="all", finiteCheck=False)


def path_of(ev: ClassEvaluation) -> QPainterPath | None:
    """The path ``remember_paths`` kept for ``ev`` (``None``: none)."""
    return _PATHS.get(ev)


def with_paths(items: Iterable[T]) -> Iterator[T]:
    """``items`` (an evaluation's views, notices, summary) passed on, each detection class's PR
    polyline and path worked out and kept first, in the thread that iterates (the first
    evaluation's worker: the PR plot's first drawing of 80 classes took ~10 ms more of the GUI
    thread, at the end of the open, without them)."""
    for item in items:
        ev = getattr(item, "evaluation", None)
        if isinstance(ev, ClassEvaluation) and ev.task == "det":
            remember_polylines([ev])
            remember_paths([ev])
        yield item
