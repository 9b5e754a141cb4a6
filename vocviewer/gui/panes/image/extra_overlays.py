"""Overlay items beyond boxes: COCO keypoints and crowd tags, VisDrone ignored regions, VOC person
layout parts and action labels. Scene coordinates = 0-based continuous image pixels.

Every item has a ``kind``: ``"keypoints"``, ``"crowd"``, ``"region"``, ``"part"`` or ``"action"``.
Like boxes, only finite coordinates are drawn, clamped around the image (``drawable``). Keypoints
take pale category tints (``core.palette.category_tint``), never a verdict colour; crowd and
action tags are placed with the labels, never over one (``label_layout``).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsRectItem,
    QStyleOptionGraphicsItem,
    QWidget,
)

from vocviewer.core.dataset import VOC_PARTS, Dataset
from vocviewer.core.palette import category_tint
from vocviewer.families.views import view_extras
from vocviewer.gui.panes.image import label_layout
from vocviewer.gui.panes.image.drawable import clamp, drawable_boxes, finite_rows, image_size
from vocviewer.gui.panes.image.label_layout import LabelItem
from vocviewer.gui.panes.image.overlays import Z_LABEL, BoxItem, OverlayOptions

Z_REGION, Z_KEYPOINTS, Z_PART = 5.0, 25.0, 12.0
REGION_COLOR = QColor("#eceff1")
PART_COLORS = {"head": QColor("#ff4081"), "hand": QColor("#ffab40"), "foot": QColor("#69f0ae")}
ACTION_COLOR = QColor("#eeeeee")  # neutral: no verdict colour
CROWD_COLOR = QColor("#e0e0e0")


class KeypointsItem(QGraphicsItem):
    """One instance's keypoints and skeleton: visible (v=2) points filled, labelled-but-hidden
    (v=1) hollow, v=0 not drawn; bones join points that are both labelled. Points with a
    non-finite coordinate count as not labelled.

    ``points`` float64 (P, 3) ``x, y, v`` (finite ``x, y``: clamp them first); ``skeleton`` int64
    (E, 2) 1-based; ``radius`` in scene units."""

    kind = "keypoints"

    def __init__(
        self, points: np.ndarray, skeleton: np.ndarray, color: QColor, radius: float
    ) -> None:
        super().__init__()
        self.points = np.asarray(points, dtype=np.float64).reshape(-1, 3).copy()
        self.points[~finite_rows(self.points), 2] = 0.0
        self.skeleton = np.asarray(skeleton, dtype=np.int64).reshape(-1, 2)
        self.color = color
        self.radius = radius
        on = self.points[:, 2] > 0
        xy = self.points[on, :2]
        r = radius * 2.0
        self._rect = (
            QRectF(
                xy[:, 0].min() - r,
                xy[:, 1].min() - r,
                np.ptp(xy[:, 0]) + 2 * r,
                np.ptp(xy[:, 1]) + 2 * r,
            )
            if len(xy)
            else QRectF()
        )

    def visible_count(self) -> int:
        return int(np.count_nonzero(self.points[:, 2] == 2))

    def boundingRect(self) -> QRectF:
        return self._rect

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        pts, v = self.points, self.points[:, 2]
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        halo = QPen(QColor(0, 0, 0, 160), 4.0)
        halo.setCosmetic(True)
        bone = QPen(self.color, 2.0)
        bone.setCosmetic(True)
        lines = [
            (QPointF(*pts[a - 1, :2]), QPointF(*pts[b - 1, :2]))
            for a, b in self.skeleton.tolist()
            if 0 < a <= len(pts) and 0 < b <= len(pts) and v[a - 1] > 0 and v[b - 1] > 0
        ]
        for pen in (halo, bone):
            painter.setPen(pen)
            for p, q in lines:
                painter.drawLine(p, q)
        outline = QPen(QColor("#ffffff"), 1.2)
        outline.setCosmetic(True)
        hollow = QPen(self.color, 2.0)
        hollow.setCosmetic(True)
        r = self.radius
        for x, y, vis in pts.tolist():
            if vis == 2:
                painter.setPen(outline)
                painter.setBrush(self.color)
            elif vis == 1:
                painter.setPen(hollow)
                painter.setBrush(Qt.BrushStyle.NoBrush)
            else:
                continue
            painter.drawEllipse(QPointF(x, y), r, r)


def keypoint_items(dataset: Dataset, image: int, opts: OverlayOptions) -> list[QGraphicsItem]:
    """Keypoints with the category's skeleton for the image's objects (COCO)."""
    view = view_extras(dataset)
    if view.keypoints is None or view.keypoints.shape[1] == 0:
        return []
    sl = dataset.objects_of(image)
    items: list[QGraphicsItem] = []
    for row in range(sl.start, sl.stop):
        pts = np.array(view.keypoints[row], dtype=np.float64)
        pts[~finite_rows(pts), 2] = 0.0
        if not np.any(pts[:, 2] > 0):
            continue
        pts[:, :2] = clamp(np.nan_to_num(pts[:, :2]), *image_size(dataset, image))
        k = int(dataset.objects.label[row])
        tint = QColor(*category_tint(k, 0.15))  # near white: never a verdict colour
        item = KeypointsItem(pts, view.skeleton[k], tint, 3.2 * opts.pixel)
        item.setZValue(Z_KEYPOINTS)
        items.append(item)
    return items


def crowd_items(dataset: Dataset, image: int, opts: OverlayOptions) -> list[QGraphicsItem]:
    """A "crowd" tag at the top left of each crowd region (``ViewExtras.crowd``)."""
    crowd = view_extras(dataset).crowd
    if crowd is None:
        return []
    sl = dataset.objects_of(image)
    box = dataset.objects.box
    items: list[QGraphicsItem] = []
    for row in range(sl.start, sl.stop):
        if crowd[row] and finite_rows(box[row, :2])[0]:
            x, y = (float(v) for v in clamp(box[row, :2], *image_size(dataset, image)))
            name = dataset.classes[int(dataset.objects.label[row])]
            tag = LabelItem(f"crowd · {name}", CROWD_COLOR, above=False, bold=True)
            tag.kind = "crowd"  # type: ignore[misc]
            tag.anchor_to((x, y, x, y), "inside", label_layout.CROWD, opts.pixel)
            tag.setZValue(Z_LABEL + 5.0)
            items.append(tag)
    return items


def region_items(dataset: Dataset, image: int) -> list[QGraphicsItem]:
    """Ignored regions (``ViewExtras.regions``, e.g. VisDrone's category 0), shaded and
    hatched."""
    regions = view_extras(dataset).regions
    if regions is None:
        return []
    sl = dataset.objects_of(image)
    rows = np.arange(sl.start, sl.stop)
    rows = rows[regions[rows]]
    ok, boxes = drawable_boxes(dataset, image, dataset.objects.box[rows])
    items: list[QGraphicsItem] = []
    for x1, y1, x2, y2 in boxes[ok].tolist():
        for brush in (
            QBrush(QColor(20, 20, 20, 120)),
            QBrush(REGION_COLOR, Qt.BrushStyle.BDiagPattern),
        ):
            item = QGraphicsRectItem(QRectF(x1, y1, x2 - x1, y2 - y1).normalized())
            pen = QPen(REGION_COLOR, 1.0, Qt.PenStyle.DashLine)
            pen.setCosmetic(True)
            item.setPen(pen)
            item.setBrush(brush)
            item.kind = "region"  # type: ignore[attr-defined]
            item.setZValue(Z_REGION)
            item.setToolTip("ignored region: detections here are not counted")
            items.append(item)
    return items


def layout_items(dataset: Dataset, image: int, opts: OverlayOptions) -> list[QGraphicsItem]:
    """VOC person layout parts (head / hand / foot boxes) and action labels of persons."""
    sl = dataset.objects_of(image)
    items: list[QGraphicsItem] = []
    parts = dataset.parts
    if len(parts):
        on = (parts.object_index >= sl.start) & (parts.object_index < sl.stop)
        ok, boxes = drawable_boxes(dataset, image, parts.box[on])
        for p, b in zip(parts.part[on][ok].tolist(), boxes[ok], strict=True):
            name = VOC_PARTS[p] if 0 <= p < len(VOC_PARTS) else "part"
            rect = QRectF(float(b[0]), float(b[1]), float(b[2] - b[0]), float(b[3] - b[1]))
            rect = rect.normalized()
            box = BoxItem(rect, PART_COLORS.get(name, ACTION_COLOR), kind="part", row=-1, width=1.5)
            box.setZValue(Z_PART)
            box.setToolTip(name)
            items.append(box)
    acts = dataset.objects.actions
    if acts.shape[1] and opts.show_labels:
        ok, boxes = drawable_boxes(dataset, image, dataset.objects.box[sl])
        for row, b, drawn in zip(range(sl.start, sl.stop), boxes, ok.tolist(), strict=True):
            names = [dataset.actions[a] for a in np.flatnonzero(acts[row])]
            if names and drawn:
                tag = LabelItem(", ".join(names), ACTION_COLOR, above=False)
                tag.kind = "action"  # type: ignore[misc]
                tag.anchor_to(b, "inside", label_layout.ACTION, opts.pixel)
                tag.setZValue(Z_LABEL - 1.0)
                items.append(tag)
    return items


def extra_items(dataset: Dataset, image: int, opts: OverlayOptions) -> list[QGraphicsItem]:
    """Everything above that applies to the dataset but the regions (ground-truth drawing toggle
    on; regions are drawn with detections too: they explain the ignored ones)."""
    return (
        (keypoint_items(dataset, image, opts) if opts.show_keypoints else [])
        + crowd_items(dataset, image, opts)
        + (layout_items(dataset, image, opts) if opts.show_parts else [])
    )
