"""Graphics items drawn over an image: ground-truth boxes, detections and their labels.

Items are built from the model (``Dataset``, ``LoadedResults``, ``ResultEvaluations``) in scene
coordinates = 0-based continuous image pixels (``core.boxes.to_continuous``). Colours come from the
evaluation's verdicts and the false-positive diagnosis (DESIGN rule 5): nothing here decides TP or
FP.

Every item has a ``kind``: ``"gt"``, ``"det"`` or ``"label"`` (tests count items by kind).
Only boxes with finite coordinates are drawn, clamped around the image (``drawable``): one bad
row never stops the others.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import ClassVar

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsRectItem, QStyleOptionGraphicsItem, QWidget

from vocviewer.benchmarks.views import view_extras
from vocviewer.core.dataset import Dataset
from vocviewer.evaluation.analysis import FPKind, fmt_iou, object_name
from vocviewer.evaluation.result import Verdict
from vocviewer.gui.models.evaluation import ResultEvaluations
from vocviewer.gui.models.tasks import LoadedResults
from vocviewer.gui.panes.drawable import drawable_boxes, finite_rows

GT_COLOR = QColor("#26c6da")
MISSED_COLOR = QColor("#ffd600")
UNEVALUATED_COLOR = QColor("#ce93d8")
OTHERS_COLOR = QColor("#b0bec5")
#: verdict → (colour, pen style, short name)
VERDICT_STYLE: dict[int, tuple[QColor, Qt.PenStyle, str]] = {
    Verdict.TP: (QColor("#43a047"), Qt.PenStyle.SolidLine, "TP"),
    Verdict.FP: (QColor("#e53935"), Qt.PenStyle.SolidLine, "FP"),
    Verdict.DUPLICATE: (QColor("#fb8c00"), Qt.PenStyle.DashDotLine, "duplicate"),
    Verdict.IGNORED: (QColor("#9e9e9e"), Qt.PenStyle.DotLine, "ignored"),
    -1: (UNEVALUATED_COLOR, Qt.PenStyle.DashLine, "not evaluated"),
}
WRONG_CLASS_COLOR = QColor("#2962ff")
#: false-positive kind → (colour, name): how a diagnosed false positive is drawn
FP_KIND_STYLE: dict[int, tuple[QColor, str]] = {
    FPKind.DUPLICATE: (VERDICT_STYLE[Verdict.DUPLICATE][0], "duplicate"),
    FPKind.LOCALIZATION: (QColor("#aa00ff"), "poor localisation"),
    FPKind.SIMILAR: (WRONG_CLASS_COLOR, "similar class"),
    FPKind.OTHER: (WRONG_CLASS_COLOR, "other class"),
    FPKind.BACKGROUND: (VERDICT_STYLE[Verdict.FP][0], "background"),
}
Z_GT, Z_DET, Z_HIGHLIGHT, Z_LABEL = 10.0, 20.0, 30.0, 100.0


def detection_style(verdict: int, kind: int = -1) -> tuple[QColor, Qt.PenStyle, str]:
    """Colour, pen style and name of a detection with this ``Verdict`` and ``FPKind`` (-1: not
    diagnosed): its verdict's, and a diagnosed false positive's by its kind (``FP: background``;
    duplicates dash-dotted as the protocols that have a duplicate verdict draw theirs)."""
    if verdict == Verdict.FP and kind in FP_KIND_STYLE:
        color, name = FP_KIND_STYLE[kind]
        dup = kind == FPKind.DUPLICATE
        return (
            color,
            VERDICT_STYLE[Verdict.DUPLICATE][1] if dup else Qt.PenStyle.SolidLine,
            f"FP: {name}",
        )
    return VERDICT_STYLE.get(verdict, VERDICT_STYLE[-1])


@dataclass(frozen=True)
class OverlayOptions:
    """What to draw. ``mode`` is ``AppState.view_mode`` (``all``/``tp``/``fp``/``missed``);
    ``class_index`` -1 = all classes; ``highlight_row`` is a detection row (-1: none), drawn
    whatever the filters, and ``highlight_gt`` an object row; ``missed`` bool (O,) flags the
    objects missed at the drawn threshold (drawn in ``MISSED_COLOR``); ``pixel`` is the size of a screen
    pixel in scene units (labels keep a constant screen size and avoid each other)."""

    show_gt: bool = True
    show_detections: bool = True
    show_labels: bool = True
    show_scores: bool = True
    show_keypoints: bool = True
    show_parts: bool = True
    mode: str = "all"
    missed: np.ndarray | None = None
    threshold: float = 0.0
    class_index: int = -1
    highlight_row: int = -1
    highlight_gt: int = -1
    pixel: float = 1.0


class BoxItem(QGraphicsRectItem):
    """A box outline with a thin dark halo so it reads on light and dark images.

    Its hover text comes from ``describe`` when the view asks (``tooltip_text``): building a
    hundred descriptions per image for the one the mouse may rest on would cost milliseconds."""

    def __init__(
        self,
        rect: QRectF,
        color: QColor,
        *,
        kind: str,
        row: int,
        style: Qt.PenStyle = Qt.PenStyle.SolidLine,
        width: float = 2.0,
        highlighted: bool = False,
    ) -> None:
        super().__init__(rect)
        self.kind = kind
        self.row = row
        self.highlighted = highlighted
        self.describe: Callable[[], str] | None = None  # hover text, built only when asked
        pen = QPen(color, width, style)
        pen.setCosmetic(True)
        self.setPen(pen)

    def tooltip_text(self) -> str:
        """The hover text: ``describe()`` if set, else the item's plain tool tip."""
        return self.describe() if self.describe is not None else self.toolTip()

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        pen = self.pen()
        dark = QColor(0, 0, 0, 150 * pen.color().alpha() // 255)
        halo = QPen(QColor(255, 255, 255, 230) if self.highlighted else dark)
        halo.setWidthF(pen.widthF() + (3.0 if self.highlighted else 2.0))
        halo.setCosmetic(True)
        # axis-aligned outlines need no antialiasing, which costs ~4x per rectangle
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.setBrush(Qt.BrushStyle.NoBrush)  # the view does not save painter state
        painter.setPen(halo)
        painter.drawRect(self.rect())
        painter.setPen(pen)
        painter.drawRect(self.rect())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)


class LabelSpace:
    """Scene rectangles taken by labels, bucketed on a grid of ``cell`` scene units so that a new
    label is checked against its neighbours only (hundreds of labels stay linear)."""

    def __init__(self, cell: float) -> None:
        self.cell = max(float(cell), 1e-6)
        self._cells: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}

    def _keys(self, x1: float, y1: float, x2: float, y2: float) -> Iterator[tuple[int, int]]:
        c = self.cell
        if not all(math.isfinite(v / c) for v in (x1, y1, x2, y2)):
            return  # nothing to avoid or to take (never happens for drawable boxes)
        i1, j1 = math.floor(x1 / c), math.floor(y1 / c)
        i2, j2 = min(math.floor(x2 / c), i1 + 64), min(math.floor(y2 / c), j1 + 64)
        for i in range(i1, i2 + 1):
            for j in range(j1, j2 + 1):
                yield i, j

    def hits(self, x1: float, y1: float, x2: float, y2: float) -> bool:
        """Whether the rectangle overlaps (with positive area) a taken one."""
        for key in self._keys(x1, y1, x2, y2):
            for a, b, c, d in self._cells.get(key, ()):
                if a < x2 and x1 < c and b < y2 and y1 < d:
                    return True
        return False

    def add(self, x1: float, y1: float, x2: float, y2: float) -> None:
        for key in self._keys(x1, y1, x2, y2):
            self._cells.setdefault(key, []).append((x1, y1, x2, y2))


class LabelItem(QGraphicsItem):
    """A small text tag on a coloured background, constant size on screen.

    Its origin sits at a box corner; ``above`` puts the tag just above that point, else below."""

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

    def __init__(self, text: str, color: QColor, *, above: bool, bold: bool = False) -> None:
        super().__init__()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.text = text
        self._color = color
        self._font, fm = self.font_for(bold)
        w, h = fm.horizontalAdvance(text) + 8.0, fm.height() + 2.0
        self.above = above
        self._rect = QRectF(0.0, -h if above else 0.0, w, h)
        self._baseline = QPointF(4.0, self._rect.top() + 1.0 + fm.ascent())
        lum = 0.299 * color.red() + 0.587 * color.green() + 0.114 * color.blue()
        self._ink = QColor("#111111") if lum > 150 else QColor("#ffffff")

    def boundingRect(self) -> QRectF:
        return self._rect

    def place(self, x: float, y: float, pixel: float, taken: LabelSpace) -> None:
        """Put the tag at scene point ``(x, y)``, moved away (up if ``above``, else down) from
        the tags in ``taken`` (at ``pixel`` scene units per screen pixel)."""
        r = self._rect
        w, h = r.width() * pixel, r.height() * pixel
        step = h * (-1.0 if self.above else 1.0)
        for _ in range(8):
            x1, y1 = x + r.x() * pixel, y + r.y() * pixel
            if not taken.hits(x1, y1, x1 + w, y1 + h):
                break
            y += step
        taken.add(x1, y1, x1 + w, y1 + h)
        self.setPos(x, y)

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        painter.fillRect(self._rect, self._color)
        painter.setFont(self._font)
        painter.setPen(self._ink)
        painter.drawText(self._baseline, self.text)


def label_space(opts: OverlayOptions) -> LabelSpace:
    """An empty ``LabelSpace`` with cells of about 80 screen pixels at the view's scale."""
    return LabelSpace(80.0 * opts.pixel)


def _rect(b: np.ndarray) -> QRectF:
    """The box ``x1, y1, x2, y2`` (finite) as a rectangle, reversed corners swapped."""
    return QRectF(float(b[0]), float(b[1]), float(b[2] - b[0]), float(b[3] - b[1])).normalized()


def gt_label(dataset: Dataset, row: int) -> str:
    """``dog`` plus tags: ``D`` difficult, ``T`` truncated, ``O`` occluded."""
    obj = dataset.objects
    flags = [("D", obj.difficult), ("T", obj.truncated), ("O", obj.occluded)]
    tags = "".join(t for t, col in flags if col[row])
    name = dataset.classes[int(obj.label[row])]
    return f"{name} · {tags}" if tags else name


def gt_tooltip(dataset: Dataset, row: int, missed: bool = False) -> str:
    """Hover text of an object: class, index in the image, flags."""
    obj = dataset.objects
    flags = [
        n
        for n, col in (
            ("difficult", obj.difficult),
            ("truncated", obj.truncated),
            ("occluded", obj.occluded),
        )
        if col[row]
    ]
    if missed:
        flags.append("missed (no true positive)")
    text = f"ground truth: {object_name(dataset, row)}"
    return text + (f"\n{', '.join(flags)}" if flags else "")


def detection_tooltip(
    dataset: Dataset, loaded: LoadedResults, evals: ResultEvaluations, row: int
) -> str:
    """Hover text of a detection: class, score, rank, verdict / FP kind, IoU, its file line."""
    det = loaded.results.detections
    k, rank = int(det.label[row]), int(evals.rank_by_row[row])
    lines = [f"{dataset.classes[k]}  score {det.score[row]:.4g}"]
    ev = evals.det.get(k)
    if rank >= 0 and ev is not None:
        lines.append(f"rank {rank + 1} of {len(ev)} · {verdict_text(evals, row)}")
        gt = int(ev.best_gt[rank])
        if gt >= 0:
            lines.append(f"IoU {fmt_iou(float(ev.best_iou[rank]))} with {object_name(dataset, gt)}")
    else:
        lines.append("not evaluated")
    lines.append(loaded.results.where(int(det.file_index[row]), int(det.line[row])))
    return "\n".join(lines)


def row_style(evals: ResultEvaluations, row: int) -> tuple[QColor, Qt.PenStyle, str]:
    """``detection_style`` of a detection row."""
    return detection_style(int(evals.verdict_by_row[row]), int(evals.fp_kind_by_row[row]))


def verdict_text(evals: ResultEvaluations, row: int) -> str:
    """``TP``, ``FP: background``, ``duplicate``, ... for a detection row."""
    return row_style(evals, row)[2]


def ground_truth_items(
    dataset: Dataset, image: int, opts: OverlayOptions, taken: LabelSpace | None = None
) -> list[QGraphicsItem]:
    """Boxes (difficult ones dashed) and labels of the image's objects; objects of other classes
    than a selected one are drawn faded."""
    rows = np.arange(len(dataset.objects))[dataset.objects_of(image)]
    extras = view_extras(dataset)
    if extras.regions is not None:  # ignored regions are shaded by ``extra_overlays``
        rows = rows[~extras.regions[rows]]
    missed = np.zeros(len(rows), dtype=bool)
    if opts.missed is not None and len(opts.missed) == len(dataset.objects):
        missed = opts.missed[rows]
    if opts.mode == "missed":
        keep = missed | (rows == opts.highlight_gt)
        if opts.class_index >= 0:
            keep &= dataset.objects.label[rows] == opts.class_index
        rows, missed = rows[keep], missed[keep]
    ok, boxes = drawable_boxes(dataset, image, dataset.objects.box[rows])
    rows, boxes, missed = rows[ok], boxes[ok], missed[ok]
    items: list[QGraphicsItem] = []
    taken = label_space(opts) if taken is None else taken
    for row, b, miss in zip(rows.tolist(), boxes, missed.tolist(), strict=True):
        faded = opts.class_index >= 0 and int(dataset.objects.label[row]) != opts.class_index
        base = MISSED_COLOR if miss else GT_COLOR
        if int(dataset.objects.label[row]) in extras.unevaluated:
            base = OTHERS_COLOR  # a class the protocol never evaluates: never "missed" either
        color = QColor(base)
        if faded:
            color.setAlpha(110)
        dashed = bool(dataset.objects.difficult[row]) or base is OTHERS_COLOR
        hl = row == opts.highlight_gt
        box = BoxItem(
            _rect(b),
            color,
            kind="gt",
            row=row,
            style=Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine,
            width=3.5 if hl or (miss and opts.mode == "missed") else (1.5 if faded else 2.0),
            highlighted=hl,
        )
        box.setZValue(Z_GT - (5.0 if faded else 0.0))
        box.describe = partial(gt_tooltip, dataset, row, miss)
        items.append(box)
        if opts.show_labels and not faded:
            above = b[1] >= 18.0 * opts.pixel
            text = gt_label(dataset, row) + (" · missed" if base is MISSED_COLOR else "")
            label = LabelItem(text, base, above=above)
            label.place(float(b[0]), float(b[1]), opts.pixel, taken)
            label.setZValue(Z_LABEL)
            items.append(label)
    return items


def detection_rows(
    loaded: LoadedResults, evals: ResultEvaluations, image: int, opts: OverlayOptions
) -> np.ndarray:
    """Detection rows of the image to draw, lowest score first (the highlighted one last); rows
    with a non-finite coordinate are never drawn."""
    det = loaded.results.detections
    rows = loaded.detections_of(image)
    rows = rows[finite_rows(det.box[rows])]
    keep = det.score[rows] >= opts.threshold
    if not opts.show_detections:  # only the highlighted one, if any
        keep[:] = False
    if opts.class_index >= 0:
        keep &= det.label[rows] == opts.class_index
    if opts.mode == "tp":
        keep &= evals.verdict_by_row[rows] == Verdict.TP
    elif opts.mode == "fp":
        keep &= evals.verdict_by_row[rows] >= Verdict.FP
    elif opts.mode == "missed":
        keep[:] = False
    keep &= rows != opts.highlight_row
    rows = rows[keep]
    rows = rows[np.argsort(det.score[rows], kind="stable")]
    hl = opts.highlight_row
    if hl >= 0 and np.any(loaded.detections_of(image) == hl) and finite_rows(det.box[hl])[0]:
        rows = np.append(rows, hl)
    return rows


def detection_items(
    dataset: Dataset,
    loaded: LoadedResults,
    evals: ResultEvaluations,
    image: int,
    opts: OverlayOptions,
    taken: LabelSpace | None = None,
    tag: str = "",
    dashed: bool = False,
) -> list[QGraphicsItem]:
    """Detection boxes coloured by verdict, with ``class score`` labels; the highlighted one is
    thicker and its label names its rank and verdict. ``tag`` prefixes every label (``"B "``
    when two result sets are drawn) and ``dashed`` draws every box dashed (the second set)."""
    det = loaded.results.detections
    rows = detection_rows(loaded, evals, image, opts)
    _, boxes = drawable_boxes(dataset, image, det.box[rows])
    bottom = float(dataset.images.height[image]) or float("inf")
    items: list[QGraphicsItem] = []
    taken = label_space(opts) if taken is None else taken
    labels: list[tuple[LabelItem, float, float]] = []
    for row, b in zip(rows.tolist(), boxes, strict=True):
        color, style, name = row_style(evals, row)
        hl = row == opts.highlight_row
        box = BoxItem(
            _rect(b),
            color,
            kind="det",
            row=row,
            width=4.0 if hl else 2.0,
            highlighted=hl,
            style=Qt.PenStyle.DashLine if dashed else style,
        )
        box.setZValue(Z_HIGHLIGHT if hl else Z_DET)
        box.describe = partial(detection_tooltip, dataset, loaded, evals, row)
        items.append(box)
        if opts.show_labels or hl:
            text = f"{tag}{dataset.classes[int(det.label[row])]}"
            text += f" {det.score[row]:.2f}" if opts.show_scores or hl else ""
            if hl:
                text = f"#{int(evals.rank_by_row[row]) + 1}  {text}  {name}"
            below = b[3] + 18.0 * opts.pixel <= bottom
            label = LabelItem(text, color, above=not below, bold=hl)
            label.setZValue(Z_LABEL + (10.0 if hl else 0.0))
            labels.append((label, float(b[0]), float(b[3])))
    for label, x, y in reversed(labels):  # highlighted and high scores first get their spot
        label.place(x, y, opts.pixel, taken)
    return items + [label for label, _, _ in labels]
