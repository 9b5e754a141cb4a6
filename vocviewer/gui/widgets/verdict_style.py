"""The verdict palette in Qt: colours, pen styles, glyphs and names of what boxes and dots say.

``core.palette`` holds the data (Qt-free); this module applies it. The palette is one choice for
the whole application (View ▸ Palette), like a Qt style: ``apply_palette(key)`` recolours the
shared ``QColor`` objects of ``COLORS`` in place, so every holder of one (``VERDICT_STYLE``,
``FP_KIND_STYLE``, the confusion tints) follows, and ``palette_changed`` tells the panes to
redraw. Every verdict also has a line style and a glyph (``ROLE_STYLES``), so none relies on hue.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainterPath, QPen

from vocviewer.core.palette import DEFAULT_PALETTE, PALETTES, ROLE_STYLES, ROLES
from vocviewer.evaluation.analysis import FPKind
from vocviewer.evaluation.result import Verdict

if TYPE_CHECKING:
    from vocviewer.gui.models.evaluation import ResultEvaluations

#: role → its colour in the active palette (shared objects, recoloured in place)
COLORS: dict[str, QColor] = {role: QColor() for role in ROLES}
PEN_STYLES = {
    "solid": Qt.PenStyle.SolidLine,
    "dash": Qt.PenStyle.DashLine,
    "dot": Qt.PenStyle.DotLine,
    "dashdot": Qt.PenStyle.DashDotLine,
    "dashdotdot": Qt.PenStyle.DashDotDotLine,
}
GT_COLOR = COLORS["gt"]
MISSED_COLOR = COLORS["missed"]
UNEVALUATED_COLOR = COLORS["unevaluated"]
OTHERS_COLOR = COLORS["others"]
WRONG_CLASS_COLOR = COLORS["fp_wrong_class"]
#: verdict (-1: not evaluated) → role, when no false-positive kind is known
VERDICT_ROLE = {
    Verdict.TP: "tp",
    Verdict.FP: "fp_background",
    Verdict.DUPLICATE: "duplicate",
    Verdict.IGNORED: "ignored",
    -1: "unevaluated",
}
#: diagnosed false-positive kind → role (``SIMILAR`` and ``OTHER`` are both a wrong class)
KIND_ROLE = {
    FPKind.DUPLICATE: "duplicate",
    FPKind.LOCALIZATION: "fp_localization",
    FPKind.SIMILAR: "fp_wrong_class",
    FPKind.OTHER: "fp_wrong_class",
    FPKind.BACKGROUND: "fp_background",
}


def pen_style(role: str) -> Qt.PenStyle:
    return PEN_STYLES[ROLE_STYLES[role].line]


#: verdict → (colour, pen style, short name); an undiagnosed false positive is plain "FP"
VERDICT_STYLE: dict[int, tuple[QColor, Qt.PenStyle, str]] = {
    int(v): (
        COLORS[role],
        pen_style(role),
        "FP" if v == Verdict.FP else ROLE_STYLES[role].name,
    )
    for v, role in VERDICT_ROLE.items()
}
#: false-positive kind → (colour, name): how a diagnosed false positive is drawn
FP_KIND_STYLE: dict[int, tuple[QColor, str]] = {
    int(k): (COLORS[role], ROLE_STYLES[role].name) for k, role in KIND_ROLE.items()
}


class PaletteSignals(QObject):
    """``palette_changed(str)``: the active palette (or the verdict-words toggle) changed."""

    palette_changed = Signal(str)


_state = {"palette": DEFAULT_PALETTE, "words": False}
_signals: list[PaletteSignals] = []


def signals() -> PaletteSignals:
    """The process-wide notifier (made on first use, once a ``QApplication`` may exist)."""
    if not _signals:
        _signals.append(PaletteSignals())
    return _signals[0]


def active_palette() -> str:
    """Key of the palette in use (``core.palette.PALETTES``)."""
    return _state["palette"]  # type: ignore[return-value]


def apply_palette(key: str) -> None:
    """Recolour ``COLORS`` with palette ``key`` (``KeyError`` if unknown) and announce it."""
    rgb = PALETTES[key].rgb().tolist()
    for color, (r, g, b) in zip(COLORS.values(), rgb, strict=True):
        color.setRgb(r, g, b)
    changed = key != _state["palette"]
    _state["palette"] = key
    if changed:
        signals().palette_changed.emit(key)


def verdict_words() -> bool:
    """Whether every detection label names its verdict (the selected one always does)."""
    return bool(_state["words"])


def set_verdict_words(on: bool) -> None:
    if bool(on) != _state["words"]:
        _state["words"] = bool(on)
        signals().palette_changed.emit(active_palette())


def detection_role(verdict: int, kind: int = -1) -> str:
    """The role (``core.palette.ROLES``) of a detection with this ``Verdict`` and ``FPKind``
    (-1: not diagnosed)."""
    if verdict == Verdict.FP and kind in KIND_ROLE:
        return KIND_ROLE[FPKind(kind)]
    return VERDICT_ROLE.get(verdict, "unevaluated")  # type: ignore[call-overload, no-any-return]


def detection_style(verdict: int, kind: int = -1) -> tuple[QColor, Qt.PenStyle, str]:
    """Colour, pen style and name of a detection with this ``Verdict`` and ``FPKind`` (-1: not
    diagnosed): a diagnosed false positive's by its kind (``FP: background``, ``FP: wrong
    class``, ...), else its verdict's."""
    if verdict == Verdict.FP and kind in KIND_ROLE:
        role = KIND_ROLE[FPKind(kind)]
        return COLORS[role], pen_style(role), f"FP: {ROLE_STYLES[role].name}"
    return VERDICT_STYLE.get(verdict, VERDICT_STYLE[-1])


def colour_key() -> str:
    """Rich text naming the box colours and glyphs: ground truth, missed, TP, each kind of false
    positive, duplicates, ignored."""
    roles = ("gt", "missed", "tp", "fp_background", "fp_localization", "fp_wrong_class")
    roles += ("duplicate", "ignored")
    names = {"gt": "GT", "fp_background": "FP: background", "fp_localization": "poor loc."}
    return " ".join(  # each glyph on a dark chip, as on a photograph: pale colours stay visible
        f"<span style='background-color:#3c4043; color:{COLORS[r].name()}'>&nbsp;"
        f"{ROLE_STYLES[r].char}&nbsp;</span>&nbsp;{names.get(r, ROLE_STYLES[r].name)}&nbsp;"
        for r in roles
    )


def glyph_path(glyph: str, rect: QRectF) -> QPainterPath:
    """The outline of a pyqtgraph-style symbol (``o x t1 s d +``) filling ``rect``."""
    path = QPainterPath()
    c, r = rect.center(), min(rect.width(), rect.height()) / 2
    if glyph == "o":
        path.addEllipse(c, r, r)
    elif glyph == "s":
        path.addRect(QRectF(c.x() - r * 0.85, c.y() - r * 0.85, 1.7 * r, 1.7 * r))
    elif glyph == "d":
        path.moveTo(c.x(), c.y() - r)
        for dx, dy in ((r, 0.0), (0.0, r), (-r, 0.0)):
            path.lineTo(c.x() + dx, c.y() + dy)
        path.closeSubpath()
    elif glyph == "t1":
        path.moveTo(c.x(), c.y() - r)
        path.lineTo(c.x() + r, c.y() + r * 0.8)
        path.lineTo(c.x() - r, c.y() + r * 0.8)
        path.closeSubpath()
    elif glyph in ("x", "+"):
        k = 0.8 * r if glyph == "x" else r
        ends = ((-k, -k, k, k), (-k, k, k, -k)) if glyph == "x" else ((-k, 0, k, 0), (0, -k, 0, k))
        for x1, y1, x2, y2 in ends:
            path.moveTo(c + QPointF(x1, y1))
            path.lineTo(c + QPointF(x2, y2))
    return path


#: Glyphs drawn as strokes (``glyph_pen``); the others are filled.
STROKED_GLYPHS = frozenset({"x", "+"})


def glyph_pen(ink: QColor) -> QPen:
    """The pen of a stroked glyph."""
    return QPen(ink, 1.8, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap)


_PATHS: dict[tuple[str, float, float, float], QPainterPath] = {}


def tag_glyph(glyph: str, rect: QRectF) -> QPainterPath:
    """``glyph_path(glyph, rect)``, made once per glyph and size (a handful)."""
    key = (glyph, rect.x(), rect.y(), rect.width())
    if key not in _PATHS:
        _PATHS[key] = glyph_path(glyph, rect)
    return _PATHS[key]


apply_palette(DEFAULT_PALETTE)


# --- a detection row of a result set's evaluations ------------------------------------------
def row_style(evals: ResultEvaluations, row: int) -> tuple[QColor, Qt.PenStyle, str]:
    """``detection_style`` of a detection row."""
    return detection_style(int(evals.verdict_by_row[row]), int(evals.fp_kind_by_row[row]))


def row_role(evals: ResultEvaluations, row: int) -> str:
    """``detection_role`` of a detection row (``core.palette.ROLES``)."""
    return detection_role(int(evals.verdict_by_row[row]), int(evals.fp_kind_by_row[row]))


def verdict_text(evals: ResultEvaluations, row: int) -> str:
    """``TP``, ``FP: background``, ``duplicate``, ... for a detection row."""
    return row_style(evals, row)[2]
