"""Each evaluation's PR polyline as the All-classes plot draws it: the ``QPainterPath`` that
pyqtgraph's curve would build of its points (``arrayToQPath``, every point connected), built
where the polyline is worked out (a re-derive's worker: 80 of them took the GUI thread ~5 ms
at each IoU change) and kept while the evaluation lives."""

from __future__ import annotations

import weakref
from collections.abc import Iterable

import pyqtgraph as pg
from PySide6.QtGui import QPainterPath

from vocviewer.evaluation.polylines import polyline_of
from vocviewer.evaluation.result import ClassEvaluation

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
