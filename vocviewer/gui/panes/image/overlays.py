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
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsRectItem, QStyleOptionGraphicsItem, QWidget

from vocviewer.core.dataset import Dataset
from vocviewer.evaluation.analysis import fmt_iou, object_name
from vocviewer.evaluation.drawn import detection_threshold, is_drawn
from vocviewer.evaluation.result import Verdict
from vocviewer.families.views import detection_note, view_extras
from vocviewer.gui.models.display_settings import mode_kinds
from vocviewer.gui.models.evaluation import ResultEvaluations
from vocviewer.gui.models.tasks import LoadedResults
from vocviewer.gui.panes.image import label_layout
from vocviewer.gui.panes.image.box_batch import halo_pen
from vocviewer.gui.panes.image.drawable import drawable_boxes, finite_rows
from vocviewer.gui.panes.image.label_layout import LabelItem
from vocviewer.gui.widgets.verdict_style import (
    GT_COLOR,
    MISSED_COLOR,
    OTHERS_COLOR,
    ROLE_STYLES,
    row_role,
    row_style,
    verdict_text,
)

Z_GT, Z_DET, Z_HIGHLIGHT, Z_LABEL = 10.0, 20.0, 30.0, 100.0


@dataclass(frozen=True)
class OverlayOptions:
    """What to draw. ``mode`` is ``AppState.drawn_mode`` (``all``/``tp``/``fp``/``missed``, or
    the walk's ``kind:N[,M]``: false positives of those ``FPKind`` values);
    ``class_index`` -1 = all classes; ``highlight_row`` is a detection row (-1: none), drawn
    whatever the filters, and ``highlight_gt`` an object row; ``missed`` bool (O,) flags the
    objects missed at the drawn threshold (drawn in ``MISSED_COLOR``); ``pixel`` is the size of a screen
    pixel in scene units (labels keep a constant screen size and avoid each other);
    ``threshold`` the drawn threshold, one or a tuple per class (``drawn.threshold_key``: options
    are compared); ``verdict_words`` names the verdict in every detection label (the selected one
    always); ``kept`` bool (D,): the detections the view's filter keeps (``None``: all)."""

    show_gt: bool = True
    show_detections: bool = True
    show_labels: bool = True
    show_scores: bool = True
    show_keypoints: bool = True
    show_parts: bool = True
    mode: str = "all"
    missed: np.ndarray | None = None
    threshold: float | tuple[float, ...] = 0.0
    class_index: int = -1
    highlight_row: int = -1
    highlight_gt: int = -1
    pixel: float = 1.0
    verdict_words: bool = False
    kept: np.ndarray | None = None


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
        self.set_look(color, style, width)

    def set_look(self, color: QColor, style: Qt.PenStyle, width: float) -> None:
        """Recolour the outline (as the constructor's ``color``, ``style``, ``width``)."""
        pen = QPen(color, width, style)
        pen.setCosmetic(True)
        self.setPen(pen)

    def tooltip_text(self) -> str:
        """The hover text: ``describe()`` if set, else the item's plain tool tip."""
        return self.describe() if self.describe is not None else self.toolTip()

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        """Halo, then outline (when not painted by a ``box_batch.BoxBatch``)."""
        # axis-aligned outlines need no antialiasing, which costs ~4x per rectangle
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.setBrush(Qt.BrushStyle.NoBrush)  # the view does not save painter state
        painter.setPen(halo_pen(self.pen(), self.highlighted))
        painter.drawRect(self.rect())
        painter.setPen(self.pen())
        painter.drawRect(self.rect())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)


def _rect(b: np.ndarray) -> QRectF:
    """The box ``x1, y1, x2, y2`` (finite) as a rectangle, reversed corners swapped."""
    return QRectF(float(b[0]), float(b[1]), float(b[2] - b[0]), float(b[3] - b[1])).normalized()


def gt_label(dataset: Dataset, row: int) -> str:
    """``dog`` plus tags: ``D`` difficult, ``T`` truncated, ``O`` occluded, ``G`` group-of."""
    obj = dataset.objects
    flags = [("D", obj.difficult), ("T", obj.truncated), ("O", obj.occluded)]
    group = view_extras(dataset).group_of
    if group is not None:
        flags.append(("G", group))
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
    group = view_extras(dataset).group_of
    if group is not None and group[row]:
        flags.append("group-of (one box around several instances)")
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
        lines[-1] += detection_note(evals.views.get(k), row)
    else:
        lines.append("not evaluated")
    lines.append(loaded.results.where(int(det.file_index[row]), int(det.line[row])))
    return "\n".join(lines)


def detection_look(
    evals: ResultEvaluations, row: int, highlighted: bool
) -> tuple[QColor, Qt.PenStyle, float, str, str]:
    """How a detection row is drawn: colour, pen style, pen width (screen pixels), its tag's
    glyph and its verdict's name (``detection_style`` and ``ROLE_STYLES``)."""
    color, style, name = row_style(evals, row)
    role = ROLE_STYLES[row_role(evals, row)]
    return color, style, 4.0 if highlighted else 2.0 * role.width, role.glyph, name


def ground_truth_items(dataset: Dataset, image: int, opts: OverlayOptions) -> list[QGraphicsItem]:
    """Boxes (difficult ones dashed) and labels of the image's objects; objects of other classes
    than a selected one are drawn faded. Labels are anchored, not yet placed (``place_labels``)."""
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
    for row, b, miss in zip(rows.tolist(), boxes, missed.tolist(), strict=True):
        faded = opts.class_index >= 0 and int(dataset.objects.label[row]) != opts.class_index
        base = MISSED_COLOR if miss else GT_COLOR
        if int(dataset.objects.label[row]) in extras.unevaluated:
            base = OTHERS_COLOR  # a class the protocol never evaluates: never "missed" either
        color = QColor(base)
        if faded:
            color.setAlpha(110)
        dashed = bool(dataset.objects.difficult[row]) or base is OTHERS_COLOR
        dashed |= extras.group_of is not None and bool(extras.group_of[row])
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
            text = gt_label(dataset, row) + (" · missed" if base is MISSED_COLOR else "")
            label = LabelItem(text, base, above=False)
            priority = label_layout.MISSED if miss else label_layout.GROUND_TRUTH
            label.anchor_to(b, "above", label_layout.SELECTED if hl else priority, opts.pixel)
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
    keep = is_drawn(det.score[rows], detection_threshold(opts.threshold, det.label[rows]))
    if not opts.show_detections:  # only the highlighted one, if any
        keep[:] = False
    if opts.class_index >= 0:
        keep &= det.label[rows] == opts.class_index
    if opts.mode == "tp":
        keep &= evals.verdict_by_row[rows] == Verdict.TP
    elif opts.mode == "fp" or opts.mode.startswith("kind:"):
        keep &= evals.verdict_by_row[rows] >= Verdict.FP
        if kinds := mode_kinds(opts.mode):  # one kind of false positive (the walk's)
            keep &= np.isin(evals.fp_kind_by_row[rows], kinds)
    elif opts.mode == "missed":
        keep[:] = False
    if opts.kept is not None and len(opts.kept) == len(det):
        keep &= opts.kept[rows]
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
    tag: str = "",
    dashed: bool = False,
) -> list[QGraphicsItem]:
    """Detection boxes coloured by verdict, each verdict in its own line style, with ``class
    score`` labels led by the verdict's glyph; the highlighted one is thicker and its label names
    its rank and verdict (every label does with ``opts.verdict_words``). ``tag`` prefixes every
    label (``"B "`` when two result sets are drawn) and ``dashed`` draws every box dashed (the
    second set). Labels are anchored, not yet placed (``place_labels``)."""
    det = loaded.results.detections
    rows = detection_rows(loaded, evals, image, opts)
    _, boxes = drawable_boxes(dataset, image, det.box[rows])
    items: list[QGraphicsItem] = []
    labels: list[LabelItem] = []
    for row, b in zip(rows.tolist(), boxes, strict=True):
        color, style, width, glyph, name = detection_look(evals, row, row == opts.highlight_row)
        hl = row == opts.highlight_row
        box = BoxItem(
            _rect(b),
            color,
            kind="det",
            row=row,
            width=width,
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
            elif opts.verdict_words:
                text = f"{text} · {name}"
            label = LabelItem(text, color, above=False, bold=hl, glyph=glyph, glyph_space=True)
            label.row = row
            label.setZValue(Z_LABEL + (10.0 if hl else 0.0))
            score = float(det.score[row]) if math.isfinite(det.score[row]) else 0.0
            priority = label_layout.SELECTED if hl else label_layout.DETECTION + score
            label.anchor_to(b, "below", priority, opts.pixel)
            labels.append(label)
    return items + labels
