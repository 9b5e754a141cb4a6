"""Text tags over an image and where they go: no two tags are ever drawn over each other.

A ``LabelItem`` keeps a constant size on screen (``ItemIgnoresTransformations``). Each names the
box it belongs to (``anchor_to``: scene rectangle, preferred side, priority); ``place_labels``
then puts every tag of the image, highest priority first, at the first free spot among: its
preferred side of the box, the other side, inside the top / bottom edge, the right-aligned
variants, then stacked away from the box (with a thin leader line back to it); if none is free,
shorter texts are tried (``person 0.90`` → ``person`` → ``pers…``); a tag that still finds no
room is left out (its box keeps its hover text). Scene coordinates = 0-based continuous image
pixels; ``pixel`` = scene units per screen pixel. The free-spot test is vectorised over all
candidate spots of a tag against the tags already placed nearby.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from vocviewer.gui.panes.verdict_style import paint_glyph

#: Screen pixels kept free between two tags.
GAP_PX = 1.0
#: How many tag heights a tag may be stacked away from its box.
MAX_STACK = 6
#: Priorities of ``anchor_to`` (higher is placed first).
FIXED, SELECTED, MISSED, DETECTION, GROUND_TRUTH, ACTION, CROWD = 1e9, 1e6, 3e3, 2e3, 1e3, 50, 40


class LabelItem(QGraphicsItem):
    """A small text tag on a coloured background, constant size on screen, with an optional
    verdict ``glyph`` (``verdict_style.glyph_path``) before the text.

    ``text`` is the full text; ``shown`` what is drawn (shorter when space was short). Its
    origin sits at a box corner; ``above`` puts the tag just above that point, else below."""

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
        self, text: str, color: QColor, *, above: bool, bold: bool = False, glyph: str = ""
    ) -> None:
        super().__init__()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.text = text
        self.glyph = glyph
        self._color = QColor(color)
        self._font, self._fm = self.font_for(bold)
        self.above = above
        self.anchor: tuple[float, float, float, float] | None = None
        self.side = "below"
        self.priority = 0.0
        self._leader: QPointF | None = None
        lum = 0.299 * color.red() + 0.587 * color.green() + 0.114 * color.blue()
        self._ink = QColor("#111111") if lum > 150 else QColor("#ffffff")
        self.set_shown(text)

    def set_shown(self, text: str) -> None:
        """Draw ``text`` (the full one or a shorter variant)."""
        self.prepareGeometryChange()
        self.shown = text
        fm = self._fm
        h = fm.height() + 2.0
        g = h - 2.0 if self.glyph else 0.0
        w = fm.horizontalAdvance(text) + 8.0 + g
        self._rect = QRectF(0.0, -h if self.above else 0.0, w, h)
        self._baseline = QPointF(4.0 + g, self._rect.top() + 1.0 + fm.ascent())
        self._bounds = self._rect

    def tag_rect(self) -> QRectF:
        """The tag's rectangle in item coordinates (screen pixels from ``pos()``)."""
        return self._rect

    def size_for(self, text: str) -> tuple[float, float]:
        """Width and height (screen pixels) of the tag with ``text``."""
        g = self._rect.height() - 2.0 if self.glyph else 0.0
        return self._fm.horizontalAdvance(text) + 8.0 + g, self._rect.height()

    def anchor_to(self, box: Sequence[float], side: str, priority: float, pixel: float) -> None:
        """Belong to scene rectangle ``box`` (x1, y1, x2, y2), preferably on ``side``
        (``below``, ``above`` or ``inside`` its top edge); ``place_labels`` finds the spot. Until
        then the tag sits at that preferred spot."""
        x1, y1, x2, y2 = (float(v) for v in box)
        self.anchor, self.side, self.priority = (x1, y1, x2, y2), side, float(priority)
        _w, h = self.size_for(self.shown)
        y = {"below": y2, "above": y1 - h * pixel}.get(side, y1)
        self.move_to(x1, y, pixel)

    def move_to(self, x: float, y: float, pixel: float, leader: QPointF | None = None) -> None:
        """Put the tag's top left at scene point ``(x, y)``; ``leader``: a scene point to draw a
        thin line to (the box corner a stacked tag belongs to)."""
        self.prepareGeometryChange()
        self.setPos(x - self._rect.x() * pixel, y - self._rect.y() * pixel)
        self._leader = None
        self._bounds = self._rect
        if leader is not None:
            p = (leader - self.pos()) / pixel
            self._leader = p
            self._bounds = self._rect.united(QRectF(p, p).adjusted(-1, -1, 1, 1))

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        r = self._rect
        if self._leader is not None:
            corner = QPointF(
                min(max(self._leader.x(), r.left()), r.right()),
                r.bottom() if self._leader.y() > r.bottom() else r.top(),
            )
            painter.setPen(QPen(self._color, 1.0))
            painter.drawLine(corner, self._leader)
        painter.fillRect(r, self._color)
        if self.glyph:
            s = r.height() - 6.0
            paint_glyph(painter, self.glyph, QRectF(r.left() + 3, r.top() + 3, s, s), self._ink)
        painter.setFont(self._font)
        painter.setPen(self._ink)
        painter.drawText(self._baseline, self.shown)


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


def _candidates(
    box: tuple[float, float, float, float], w: float, h: float, side: str
) -> np.ndarray:
    """Top-left corners (K, 2) of the spots tried for a ``w x h`` tag of ``box``, best first:
    beside the box, inside it, right-aligned, then stacked ``1..MAX_STACK`` heights away."""
    x1, y1, x2, y2 = box
    below, above = (x1, y2), (x1, y1 - h)
    inside_top, inside_bottom = (x1, y1), (x1, y2 - h)
    right = x2 - w
    near = {
        "below": [below, above, inside_top, inside_bottom, (right, y2), (right, y1 - h)],
        "above": [above, below, inside_top, inside_bottom, (right, y1 - h), (right, y2)],
        "inside": [inside_top, inside_bottom, above, below, (right, y1), (right, y2 - h)],
    }[side if side in ("below", "above") else "inside"]
    down = side != "above"
    stacked = []
    for s in range(1, MAX_STACK + 1):
        first, second = (y2 + s * h, y1 - h - s * h) if down else (y1 - h - s * h, y2 + s * h)
        stacked += [(x1, first), (x1, second)]
    return np.array(near + stacked, dtype=np.float64)


def place_labels(
    labels: Sequence[LabelItem], pixel: float, bounds: tuple[float, float, float, float]
) -> list[LabelItem]:
    """Place ``labels`` (highest ``priority`` first; unanchored ones stay where they are and
    are placed first) so that no two tag rectangles overlap; spots inside ``bounds`` (the
    image, scene units) come before spots outside it. Returns the labels placed; the others
    could not be placed without an overlap and must not be drawn."""
    pixel = pixel if math.isfinite(pixel) and pixel > 0 else 1.0
    gap = GAP_PX * pixel
    taken = np.empty((max(len(labels), 1), 4), dtype=np.float64)
    n = 0
    kept: list[LabelItem] = []
    bx1, by1, bx2, by2 = bounds
    order = sorted(
        range(len(labels)),
        key=lambda i: (labels[i].anchor is not None, -labels[i].priority, i),
    )
    for i in order:
        label = labels[i]
        if label.anchor is None:  # fixed: take its own spot (may not overlap the ones before)
            r = label.tag_rect()
            x, y = label.pos().x() + r.x() * pixel, label.pos().y() + r.y() * pixel
            spot = np.array([[x, y, x + r.width() * pixel, y + r.height() * pixel]])
            if n and _hits(spot, taken[:n], gap)[0]:
                continue
            taken[n], n = spot[0], n + 1
            kept.append(label)
            continue
        for text in shorter_texts(label.text):
            w, h = (v * pixel for v in label.size_for(text))
            xy = _candidates(label.anchor, w, h, label.side)
            if w <= bx2 - bx1:  # slide into the image sideways rather than leave it
                xy[:, 0] = np.clip(xy[:, 0], bx1, bx2 - w)
            spots = np.column_stack((xy, xy[:, 0] + w, xy[:, 1] + h))
            inside = (spots[:, :2] >= (bx1, by1)).all(axis=1) & (spots[:, 2:] <= (bx2, by2)).all(
                axis=1
            )
            spots = spots[np.argsort(~inside, kind="stable")]
            free = ~_hits(spots, taken[:n], gap)
            if free.any():
                j = int(np.argmax(free))
                x, y = float(spots[j, 0]), float(spots[j, 1])
                if text != label.shown:
                    label.set_shown(text)
                ax1, ay1, _ax2, ay2 = label.anchor
                touching = y <= ay2 + gap and y + h >= ay1 - gap
                leader = None if touching else QPointF(ax1, ay2 if y > ay2 else ay1)
                label.move_to(x, y, pixel, leader)
                taken[n], n = spots[j], n + 1
                kept.append(label)
                break
    return kept


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
