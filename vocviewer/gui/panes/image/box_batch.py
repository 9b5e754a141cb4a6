"""One graphics item that paints many box outlines: the window's images can carry a thousand.

``BoxItem`` (``overlays``) is each box's model on screen — its rectangle, pen, row, hover text,
what a click selects — and can paint itself (the exported image does). In the window,
``batch_boxes`` hands their painting to one ``BoxBatch`` per stacking level: the boxes are
flagged as having no contents, and the batch draws them in one call into Python. A repaint
then costs one such call per level instead of one per box (each of which waits for the
interpreter lock while a worker evaluates), and recolouring boxes in place is ``restyle``.
A crowded image's boxes are grouped by pen (``EXACT_MAX``): a handful of drawing calls. Scene coordinates as ``overlays``.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsRectItem, QStyleOptionGraphicsItem, QWidget

_NO_CONTENTS = QGraphicsItem.GraphicsItemFlag.ItemHasNoContents
_ANTIALIASING = QPainter.RenderHint.Antialiasing
_NO_CACHE = QGraphicsItem.CacheMode.NoCache
_DEVICE_CACHE = QGraphicsItem.CacheMode.DeviceCoordinateCache


def halo_pen(pen: QPen, highlighted: bool) -> QPen:
    """The thin halo drawn under a box outline of ``pen`` so it reads on light and dark images:
    dark (as transparent as the outline), white and wider for the highlighted box."""
    dark = QColor(0, 0, 0, 150 * pen.color().alpha() // 255)
    halo = QPen(QColor(255, 255, 255, 230) if highlighted else dark)
    halo.setWidthF(pen.widthF() + (3.0 if highlighted else 2.0))
    halo.setCosmetic(True)
    return halo


#: Up to this many boxes a batch paints them one by one, exactly as the boxes would; above it
#: (a crowded image) it groups them by pen.
EXACT_MAX = 300


class BoxBatch(QGraphicsRectItem):
    """Paints the outlines of ``boxes`` (``BoxItem``, all at one z value). Up to ``EXACT_MAX``
    boxes: in their order, each its halo and then its outline, exactly as the boxes themselves
    would (a later box's halo cuts through an earlier one's outline). Above: every halo, then
    every outline, one ``QPainter.drawRects`` per pen (thin before thick, the highlighted one
    last), all one pixel wide with the halo a pixel either side (Qt's fast path) — on a crowded
    image the per-box order and width are not worth 40 ms a repaint. Its own rectangle
    is the boxes' bounds (plus a margin for the screen-wide pens); it draws none of its own."""

    kind = "boxes"

    def __init__(self, boxes: Sequence[QGraphicsRectItem], z: float) -> None:
        super().__init__()
        self.setPen(QPen(Qt.PenStyle.NoPen))
        self.boxes = list(boxes)
        for box in self.boxes:
            box.setFlag(_NO_CONTENTS)
        self.setZValue(z)
        self._strokes: list[tuple[QPen, list[QRectF]]] = []
        self.restyle()

    def restyle(self) -> None:
        """Re-read every box's pen and rectangle (after boxes were recoloured) and repaint."""
        exact = len(self.boxes) <= EXACT_MAX
        halos: dict[tuple[int, float, bool], tuple[QPen, list[QRectF]]] = {}
        lines: dict[tuple[int, int, float, bool], tuple[QPen, list[QRectF]]] = {}
        strokes: list[tuple[QPen, list[QRectF]]] = []
        bounds = QRectF()
        for box in self.boxes:
            pen, rect = box.pen(), box.rect()
            hl = bool(getattr(box, "highlighted", False))
            key = (pen.color().rgba(), pen.widthF(), hl)
            line_key = (pen.color().rgba(), int(pen.style().value), pen.widthF(), hl)
            if key not in halos:
                halos[key] = (halo_pen(pen, hl) if exact else _opaque(halo_pen(pen, hl)), [])
            if line_key not in lines:
                lines[line_key] = (QPen(pen) if exact else _thin(pen), [])
            if exact:
                strokes += [(halos[key][0], [rect]), (lines[line_key][0], [rect])]
            else:
                halos[key][1].append(rect)
                lines[line_key][1].append(rect)
            bounds = bounds.united(rect)
        if not exact:
            strokes = [halos[k] for k in sorted(halos, key=lambda k: (k[2], k[1]))]
            strokes += [lines[k] for k in sorted(lines, key=lambda k: (k[3], k[2]))]
        # the same pens and rectangles (another area range, most of an IoU change's boxes):
        # no repaint (the image view repaints the whole image for any change, ~4 ms)
        same = len(strokes) == len(self._strokes) and all(
            p == q and r == s for (p, r), (q, s) in zip(strokes, self._strokes, strict=True)
        )
        self._strokes = strokes
        # a crowded image's outlines are kept as pixels: repaints for other reasons (tags
        # arriving, hover) blit them instead of drawing a thousand rectangles again
        self.setCacheMode(_NO_CACHE if exact else _DEVICE_CACHE)
        m = 2.0 + 0.01 * max(bounds.width(), bounds.height())
        self.setRect(bounds.adjusted(-m, -m, m, m))
        if not same:
            self.update()

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        # axis-aligned outlines need no antialiasing, which costs ~4x per rectangle
        painter.setRenderHint(_ANTIALIASING, False)
        painter.setBrush(Qt.BrushStyle.NoBrush)  # the view does not save painter state
        set_pen, draw = painter.setPen, painter.drawRects
        for pen, rects in self._strokes:
            set_pen(pen)
            draw(rects)
        painter.setRenderHint(_ANTIALIASING, True)


def _thin(pen: QPen) -> QPen:
    """``pen`` one pixel wide: a crowded image's outlines (Qt draws one-pixel patterned lines
    on a fast path, wider ones ~5x slower)."""
    thin = QPen(pen)
    thin.setWidthF(1.0)
    return thin


def _opaque(halo: QPen) -> QPen:
    """``halo`` opaque: a crowded image's halos (Qt blends translucent lines ~7x slower). The
    dark halo becomes the grey it gives over a mid-grey image."""
    out = QPen(halo)
    c = halo.color()
    a = c.alphaF()
    out.setColor(QColor(*(round(v * a + 128 * (1 - a)) for v in (c.red(), c.green(), c.blue()))))
    return out


def batch_boxes(items: Sequence[QGraphicsItem], box_type: type) -> list[QGraphicsItem]:
    """``items`` plus a ``BoxBatch`` per z value painting their boxes of ``box_type``."""
    levels: dict[float, list[QGraphicsRectItem]] = {}
    for item in items:
        if isinstance(item, box_type):
            levels.setdefault(item.zValue(), []).append(item)  # type: ignore[arg-type]
    return [*items, *(BoxBatch(boxes, z) for z, boxes in levels.items())]
