"""How a precision/recall figure draws each curve and where its legend goes (shared by the SVG
writer ``figure_svg`` and the window's PNG / PDF figures; no Qt, nothing heavy to import)."""

from __future__ import annotations

from typing import NamedTuple

#: Where the legend goes: the plot's upper right, or its lower left (where PR curves rarely go).
LEGEND_CORNERS = ("upper right", "lower left")


class CurveStyle(NamedTuple):
    """How one curve is drawn: ``color`` ``#rrggbb``, line ``width`` (px), whether the legend
    names it (curves it does not name are drawn first, under the named ones) and its
    ``opacity``."""

    color: str
    width: float = 2.2
    legend: bool = True
    opacity: float = 1.0
