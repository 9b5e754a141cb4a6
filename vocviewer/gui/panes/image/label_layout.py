"""Text tags over an image and where they go: no two tags are ever drawn over each other.

A ``LabelItem`` keeps a constant size on screen (``ItemIgnoresTransformations``). Each names the
box it belongs to (``anchor_to``: scene rectangle, preferred side, priority); ``place_labels``
then puts every tag of the image, highest priority first, at the first free spot among: its
preferred side of the box, the other side, inside the top / bottom edge, the right-aligned
variants — with the full text, then shorter ones (``person 0.90`` → ``person`` → ``pers…``) —
then stacked away from the box (with a thin leader line back to it); spots inside the image come
first. A tag that finds no free spot is left out (its box keeps its hover text). Scene coordinates = 0-based continuous image
pixels; ``pixel`` = scene units per screen pixel. The free-spot test is vectorised over all
candidate spots of a tag against the tags already placed nearby.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsPathItem,
    QGraphicsRectItem,
    QGraphicsSimpleTextItem,
)

from vocviewer.gui.widgets.verdict_style import STROKED_GLYPHS, glyph_pen, tag_glyph

#: Screen pixels kept free between two tags.
GAP_PX = 1.0
#: How many tag heights a tag may be stacked away from its box.
MAX_STACK = 6
#: Priorities of ``anchor_to`` (higher is placed first).
FIXED, SELECTED, MISSED, DETECTION, GROUND_TRUTH, ACTION, CROWD = 1e9, 1e6, 3e3, 2e3, 1e3, 50, 40


_IGNORES_TRANSFORMATIONS = QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations


class LabelItem(QGraphicsRectItem):
    """A small text tag on a coloured background, constant size on screen, with an optional
    verdict ``glyph`` (``verdict_style.glyph_path``) before the text; ``glyph_space`` keeps the
    glyph's room even without one (a detection's tag keeps its size when its verdict arrives).

    ``text`` is the full text; ``shown`` what is drawn (shorter when space was short). Its
    origin sits at a box corner; ``above`` puts the tag just above that point, else below.

    Qt paints it without calling Python (the window repaints hundreds of tags while workers hold
    the interpreter): the item is the background rectangle, the text, glyph and leader line are
    plain Qt child items made once the tag is placed (``realize``)."""

    kind = "label"

    _fonts: ClassVar[dict[bool, tuple[QFont, QFontMetricsF]]] = {}  # shared: bold → font

    @classmethod
    def font_for(cls, bold: bool) -> tuple[QFont, QFontMetricsF]:
        if bold not in cls._fonts:
            font = QFont()
            font.setPointSizeF(8.5)
            font.setBold(bold)
            cls._fonts[bold] = (font, QFontMetricsF(font))
        return cls._fonts[bold]

    def __init__(
        self,
        text: str,
        color: QColor,
        *,
        above: bool,
        bold: bool = False,
        glyph: str = "",
        glyph_space: bool = False,
    ) -> None:
        super().__init__()
        self.setFlag(_IGNORES_TRANSFORMATIONS)
        self.setPen(_NO_PEN)
        self.text = text
        self.glyph = glyph
        self._glyph_space = glyph_space or bool(glyph)
        self._font, self._fm = self.font_for(bold)
        self.above = above
        self.anchor: tuple[float, float, float, float] | None = None
        self.side = "below"
        self.priority = 0.0
        self.row = -1  # the detection row a detection's tag names (recoloured with it)
        self._leader: QPointF | None = None
        self._parts: _TagParts | None = None
        self.set_color(color)
        self.set_shown(text)

    def set_color(self, color: QColor, glyph: str | None = None) -> None:
        """Recolour the tag (and change its glyph; the tag keeps its size when it had room for
        one), text in dark or white ink by the colour's lightness."""
        self._color = QColor(color)
        lum = 0.299 * color.red() + 0.587 * color.green() + 0.114 * color.blue()
        self._ink = QColor("#111111") if lum > 150 else QColor("#ffffff")
        if glyph is not None:
            assert self._glyph_space or not glyph, "a tag without glyph room cannot take one"
            self.glyph = glyph
        self.setBrush(self._color)
        if self._parts is not None:
            self._parts.restyle(self)

    def set_shown(self, text: str) -> None:
        """Draw ``text`` (the full one or a shorter variant)."""
        self.shown = text
        fm = self._fm
        h = fm.height() + 2.0
        g = h - 2.0 if self._glyph_space else 0.0
        w = fm.horizontalAdvance(text) + 8.0 + g
        self._rect = QRectF(0.0, -h if self.above else 0.0, w, h)
        self._baseline = QPointF(4.0 + g, self._rect.top() + 1.0 + fm.ascent())
        self.setRect(self._rect)
        if self._parts is not None:
            self._parts.restyle(self)

    def tag_rect(self) -> QRectF:
        """The tag's rectangle in item coordinates (screen pixels from ``pos()``)."""
        return self._rect

    def size_for(self, text: str) -> tuple[float, float]:
        """Width and height (screen pixels) of the tag with ``text``."""
        g = self._rect.height() - 2.0 if self._glyph_space else 0.0
        return self._fm.horizontalAdvance(text) + 8.0 + g, self._rect.height()

    def anchor_to(self, box: Sequence[float], side: str, priority: float, pixel: float) -> None:
        """Belong to scene rectangle ``box`` (x1, y1, x2, y2), preferably on ``side``
        (``below``, ``above`` or ``inside`` its top edge); ``place_labels`` finds the spot. Until
        then the tag sits at that preferred spot."""
        x1, y1, x2, y2 = (float(v) for v in box)
        self.anchor, self.side, self.priority = (x1, y1, x2, y2), side, float(priority)
        h = self._rect.height()
        y = {"below": y2, "above": y1 - h * pixel}.get(side, y1)
        self.move_to(x1, y, pixel)

    def move_to(self, x: float, y: float, pixel: float, leader: QPointF | None = None) -> None:
        """Put the tag's top left at scene point ``(x, y)``; ``leader``: a scene point to draw a
        thin line to (the box corner a stacked tag belongs to)."""
        self.setPos(x - self._rect.x() * pixel, y - self._rect.y() * pixel)
        self._leader = None if leader is None else (leader - self.pos()) / pixel
        if self._parts is not None:
            self._parts.restyle(self)

    def realize(self) -> None:
        """Make the child items that draw the text, glyph and leader (once placed: most tags
        of a crowded image are never drawn)."""
        if self._parts is None:
            self._parts = _TagParts(self)

    def leader_line(self) -> QLineF | None:
        """The leader from the tag's nearest edge to its box corner (item coordinates)."""
        p, r = self._leader, self._rect
        if p is None:
            return None
        corner = QPointF(
            min(max(p.x(), r.left()), r.right()), r.bottom() if p.y() > r.bottom() else r.top()
        )
        return QLineF(corner, p)


_NO_PEN = QPen(Qt.PenStyle.NoPen)


class _TagParts:
    """The plain Qt children of a placed ``LabelItem``: text, glyph (if any), leader (if any)."""

    def __init__(self, tag: LabelItem) -> None:
        self.text = QGraphicsSimpleTextItem(tag)
        self.text.setFont(tag._font)
        self.glyph: QGraphicsPathItem | None = None
        self.leader: QGraphicsLineItem | None = None
        self.restyle(tag)

    def restyle(self, tag: LabelItem) -> None:
        r = tag._rect
        self.text.setText(tag.shown)
        self.text.setBrush(tag._ink)
        self.text.setPos(tag._baseline.x(), r.top() + 1.0)
        if tag.glyph:
            if self.glyph is None:
                self.glyph = QGraphicsPathItem(tag)
            s = r.height() - 6.0
            self.glyph.setPath(tag_glyph(tag.glyph, QRectF(r.left() + 3, r.top() + 3, s, s)))
            if tag.glyph in STROKED_GLYPHS:
                self.glyph.setPen(glyph_pen(tag._ink))
                self.glyph.setBrush(Qt.BrushStyle.NoBrush)
            else:
                self.glyph.setPen(_NO_PEN)
                self.glyph.setBrush(tag._ink)
        if self.glyph is not None:
            self.glyph.setVisible(bool(tag.glyph))
        line = tag.leader_line()
        if line is not None and self.leader is None:
            self.leader = QGraphicsLineItem(tag)
            self.leader.setFlag(QGraphicsItem.GraphicsItemFlag.ItemStacksBehindParent)
        if self.leader is not None:
            self.leader.setVisible(line is not None)
            if line is not None:
                self.leader.setLine(line)
                self.leader.setPen(QPen(tag._color, 1.0))


def shorter_texts(text: str) -> list[str]:
    """``text`` and shorter variants: without its last word, then its first word cut to four
    letters and an ellipsis (``person 0.90`` → ``person`` → ``pers…``)."""
    out = [text]
    head = text.rsplit(" ", 1)[0].rstrip(" ·") if " " in text.strip() else text
    if head and head != text:
        out.append(head)
    first = text.split(" ", 1)[0]
    if len(first) > 5:
        out.append(first[:4] + "…")
    return out


#: Spots tried around a box, best first, per preferred side: (right-aligned, y from the box's
#: bottom (else top), offset in tag heights). Beside the box, inside it, right-aligned, then
#: stacked ``1..MAX_STACK`` heights away (alternating away from and across the box).
_NEAR = {
    "below": [(0, 1, 0), (0, 0, -1), (0, 0, 0), (0, 1, -1), (1, 1, 0), (1, 0, -1)],
    "above": [(0, 0, -1), (0, 1, 0), (0, 0, 0), (0, 1, -1), (1, 0, -1), (1, 1, 0)],
    "inside": [(0, 0, 0), (0, 1, -1), (0, 0, -1), (0, 1, 0), (1, 0, 0), (1, 1, -1)],
}
_STACK_DOWN = [(0, b, (s if b else -1 - s)) for s in range(1, MAX_STACK + 1) for b in (1, 0)]
_STACK_UP = [(0, b, (s if b else -1 - s)) for s in range(1, MAX_STACK + 1) for b in (0, 1)]
N_NEAR = 6  # spots beside or inside the box; the rest are stacked away
SPOTS = {
    side: np.array(near + (_STACK_UP if side == "above" else _STACK_DOWN), dtype=np.float64)
    for side, near in _NEAR.items()
}
SPOT_LISTS = {side: table.tolist() for side, table in SPOTS.items()}


def _static_order(n_texts: int, n_spots: int) -> np.ndarray:
    """Flat (text, spot) indices, best first: beside the box with the full text, then shorter
    texts, then stacked away (full text first)."""
    k = np.tile(np.arange(n_spots), n_texts)
    text_rank = np.repeat(np.arange(n_texts), n_spots)
    return np.lexsort((k, text_rank, k >= N_NEAR))


_ORDER = {
    (side, n): _static_order(n, len(table)) for side, table in SPOTS.items() for n in (1, 2, 3)
}


def _spots(
    box: tuple[float, float, float, float], widths: np.ndarray, h: float, side: str
) -> np.ndarray:
    """Rectangles (V, K, 4) of the ``SPOTS`` of ``box`` for tags ``widths`` (V,) x ``h`` wide."""
    x1, y1, x2, y2 = box
    table = SPOTS[side if side in SPOTS else "inside"]
    w = widths[:, None]
    x = np.where(table[:, 0] > 0, x2 - w, x1)
    y = np.broadcast_to(np.where(table[:, 1] > 0, y2, y1) + table[:, 2] * h, x.shape)
    return np.stack((x, y, x + w, y + h), axis=-1)


class _Taken:
    """Placed tag rectangles (scene units, grown by the gap), as an array for the vectorised
    test and bucketed on a grid of ``cell`` units for the quick one."""

    def __init__(self, capacity: int, cell: float, gap: float) -> None:
        self.rects = np.empty((max(capacity, 1), 4), dtype=np.float64)
        self.n = 0
        self.cell, self.gap = cell, gap
        self.grid: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}

    def _cells(self, x1: float, y1: float, x2: float, y2: float) -> list[tuple[int, int]]:
        c = self.cell
        i1, j1 = math.floor(x1 / c), math.floor(y1 / c)
        i2, j2 = min(math.floor(x2 / c), i1 + 8), min(math.floor(y2 / c), j1 + 8)
        return [(i, j) for i in range(i1, i2 + 1) for j in range(j1, j2 + 1)]

    def free(self, x1: float, y1: float, x2: float, y2: float) -> bool:
        """Whether the rectangle keeps ``gap`` from every placed one (the quick test)."""
        g = self.gap
        for key in self._cells(x1 - g, y1 - g, x2 + g, y2 + g):
            for a, b, c, d in self.grid.get(key, ()):
                if a < x2 + g and x1 < c + g and b < y2 + g and y1 < d + g:
                    return False
        return True

    def add(self, rect: Sequence[float]) -> None:
        x1, y1, x2, y2 = (float(v) for v in rect)
        self.rects[self.n] = (x1, y1, x2, y2)
        self.n += 1
        for key in self._cells(x1, y1, x2, y2):
            self.grid.setdefault(key, []).append((x1, y1, x2, y2))

    def hits(self, spots: np.ndarray) -> np.ndarray:
        """The vectorised test: bool (K,) for ``spots`` (K, 4)."""
        return _hits(spots, self.rects[: self.n], self.gap)


def place_labels(
    labels: Sequence[LabelItem], pixel: float, bounds: tuple[float, float, float, float]
) -> list[LabelItem]:
    """Place ``labels`` (highest ``priority`` first; unanchored ones stay where they are and
    are placed first) so that no two tag rectangles overlap; spots inside ``bounds`` (the
    image, scene units) come before spots outside it. Returns the labels placed; the others
    could not be placed without an overlap and must not be drawn.

    The spots beside the box with the full text are tried one by one against a grid of placed
    tags (most tags of an uncluttered image stop there); otherwise every spot and text at once,
    vectorised. ``Placement`` does the same a slice at a time."""
    return Placement(labels, pixel, bounds).run()


class Placement:
    """``place_labels`` in slices: ``run(n)`` places the next ``n`` tags in priority order (all
    by default) and returns those it kept; ``done`` once every tag was tried. The tags kept are
    the same whatever the slices (a crowded image's thousand tags can be placed over a few
    turns of the event loop)."""

    def __init__(
        self, labels: Sequence[LabelItem], pixel: float, bounds: tuple[float, float, float, float]
    ) -> None:
        self.pixel = pixel if math.isfinite(pixel) and pixel > 0 else 1.0
        self.bounds = bounds
        self.taken = _Taken(len(labels), 80.0 * self.pixel, GAP_PX * self.pixel)
        order = sorted(
            range(len(labels)),
            key=lambda i: (labels[i].anchor is not None, -labels[i].priority, i),
        )
        self.labels = [labels[i] for i in order]  # highest priority first
        self._next = 0

    @property
    def done(self) -> bool:
        return self._next >= len(self.labels)

    def run(self, n: int | None = None) -> list[LabelItem]:
        """Try the next ``n`` tags (all if ``None``); the ones placed, made ready to draw."""
        stop = len(self.labels) if n is None else min(len(self.labels), self._next + n)
        kept = [label for label in self.labels[self._next : stop] if self._place(label)]
        self._next = stop
        for label in kept:
            label.realize()
        return kept

    def _place(self, label: LabelItem) -> bool:
        pixel, taken = self.pixel, self.taken
        if label.anchor is None:  # fixed: take its own spot (may not overlap the ones before)
            r = label.tag_rect()
            x, y = label.pos().x() + r.x() * pixel, label.pos().y() + r.y() * pixel
            spot = (x, y, x + r.width() * pixel, y + r.height() * pixel)
            if not taken.free(*spot):
                return False
            taken.add(spot)
            return True
        found = _quick_spot(label, pixel, self.bounds, taken) or _any_spot(
            label, pixel, self.bounds, taken
        )
        if found is None:
            return False
        text, (x, y, x2, y2) = found
        if text != label.shown:
            label.set_shown(text)
        ax1, ay1, _ax2, ay2 = label.anchor
        touching = y <= ay2 + taken.gap and y2 >= ay1 - taken.gap
        leader = None if touching else QPointF(ax1, ay2 if y > ay2 else ay1)
        label.move_to(x, y, pixel, leader)
        taken.add((x, y, x2, y2))
        return True


Spot = tuple[str, tuple[float, float, float, float]]


def _quick_spot(
    label: LabelItem, pixel: float, bounds: tuple[float, float, float, float], taken: _Taken
) -> Spot | None:
    """The first free spot beside the box, in the image, with the full text (or ``None``)."""
    assert label.anchor is not None
    x1, y1, x2, y2 = label.anchor
    bx1, by1, bx2, by2 = bounds
    r = label.tag_rect()
    w, h = r.width() * pixel, r.height() * pixel
    if w > bx2 - bx1:
        return None
    for right, from_bottom, k in SPOT_LISTS[label.side if label.side in SPOTS else "inside"][
        :N_NEAR
    ]:
        x = min(max(x2 - w if right else x1, bx1), bx2 - w)
        y = (y2 if from_bottom else y1) + k * h
        if y >= by1 and y + h <= by2 and taken.free(x, y, x + w, y + h):
            return label.shown, (x, y, x + w, y + h)
    return None


def _any_spot(
    label: LabelItem, pixel: float, bounds: tuple[float, float, float, float], taken: _Taken
) -> Spot | None:
    """The best free spot of every spot and text at once (vectorised), or ``None``."""
    assert label.anchor is not None
    bx1, by1, bx2, by2 = bounds
    texts = shorter_texts(label.text)
    widths = np.array([label.size_for(t)[0] for t in texts]) * pixel
    h = label.tag_rect().height() * pixel
    spots = _spots(label.anchor, widths, h, label.side)
    if widths[0] <= bx2 - bx1:  # slide into the image sideways rather than leave it
        spots[..., 0] = np.clip(spots[..., 0], bx1, bx2 - widths[:, None])
        spots[..., 2] = spots[..., 0] + widths[:, None]
    inside = (spots[..., 0] >= bx1) & (spots[..., 1] >= by1) & (spots[..., 2] <= bx2)
    inside &= spots[..., 3] <= by2
    # in the image first; beside the box (full text, then shorter) before stacked away
    static = _ORDER[label.side if label.side in SPOTS else "inside", len(texts)]
    order = static[np.argsort(~inside.ravel()[static], kind="stable")]
    flat = spots.reshape(-1, 4)[order]
    free = ~taken.hits(flat)
    if not free.any():
        return None
    j = int(np.argmax(free))
    x1, y1, x2, y2 = (float(v) for v in flat[j])
    return texts[int(order[j]) // spots.shape[1]], (x1, y1, x2, y2)


def _hits(spots: np.ndarray, taken: np.ndarray, gap: float) -> np.ndarray:
    """bool (K,): which of ``spots`` (K, 4) come within ``gap`` of a rectangle of ``taken``."""
    if not len(taken):
        return np.zeros(len(spots), dtype=bool)
    lo, hi = spots.min(axis=0), spots.max(axis=0)
    near = taken[
        (taken[:, 0] < hi[2] + gap)
        & (taken[:, 2] > lo[0] - gap)
        & (taken[:, 1] < hi[3] + gap)
        & (taken[:, 3] > lo[1] - gap)
    ]
    if not len(near):
        return np.zeros(len(spots), dtype=bool)
    s, t = spots[:, None, :], near[None, :, :]
    return np.asarray(
        (
            (s[..., 0] < t[..., 2] + gap)
            & (t[..., 0] < s[..., 2] + gap)
            & (s[..., 1] < t[..., 3] + gap)
            & (t[..., 1] < s[..., 3] + gap)
        ).any(axis=1)
    )
