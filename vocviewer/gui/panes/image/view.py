"""``ImageView``: the current image, large, with its ground truth and detections drawn over it.

Images are decoded in a worker (Pillow → ``QImage``); the GUI thread only turns the ``QImage`` into
a pixmap and draws. A missing or unreadable file gives a neutral placeholder of the annotated size
saying why, and a message (once per file). Fit-to-window on open, wheel zoom under the mouse, drag
to pan."""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

import numpy as np
from PySide6.QtCore import QEvent, QPoint, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QHelpEvent,
    QImage,
    QMouseEvent,
    QPainter,
    QPen,
    QPixmap,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QFrame,
    QGraphicsItem,
    QGraphicsPixmapItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QToolTip,
    QWidget,
)

from vocviewer.core.errors import FormatError
from vocviewer.gui.models.debounce import REFRESH_DELAY_MS, Debounced
from vocviewer.gui.models.state import AppState
from vocviewer.gui.models.tasks import Message, describe_os_error, error_message
from vocviewer.gui.models.worker import Jobs, Worker
from vocviewer.gui.panes.image.drawable import finite_rows, placeholder_size
from vocviewer.gui.panes.image.layers import Decoded, _decode_each, decode_view
from vocviewer.gui.panes.image.layers import decode_image as decode_image  # re-exported
from vocviewer.gui.panes.image.overlay_scene import overlay_options
from vocviewer.gui.panes.image.overlays import BoxItem, OverlayOptions
from vocviewer.gui.panes.image.shown_overlays import ShownOverlays
from vocviewer.gui.widgets.plot_theme import paint_with_window

BACKGROUND = QColor("#2b2d30")
PLACEHOLDER = QColor("#5f6368")
MIN_SCALE, MAX_SCALE = 0.02, 40.0


#: Decoded images kept for quick stepping (the current one and its neighbours, plus a few).
DECODED_CACHE_SIZE = 6


class ImageView(QGraphicsView):
    """The current image with overlays; follows ``AppState``.

    Signals
    -------
    image_shown(int)
        The image row whose pixels (or placeholder) and overlays are now on screen.
    overlays_drawn()
        The boxes and labels were rebuilt (after any state change that affects them).
    """

    image_shown = Signal(int)
    overlays_drawn = Signal()

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self._jobs = Jobs(self)
        self._decoded: OrderedDict[tuple[int, str | None], Decoded] = OrderedDict()
        self._scene = QGraphicsScene(self)
        # hundreds of items are replaced on every image: a BSP index costs more than it saves
        self._scene.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        paint_with_window(self._scene)  # repainted with the window (the PR plot's repaint)
        self._pixmap = QGraphicsPixmapItem()
        self._pixmap.setTransformationMode(Qt.TransformationMode.SmoothTransformation)
        self._scene.addItem(self._pixmap)
        self._backdrop: list[QGraphicsItem] = []  # placeholder or empty-state message
        self._shown = ShownOverlays(self._scene, self)  # boxes and tags of the image
        self._stale = False  # a redraw is due (debounced) and none happened since
        self._layers: dict[str, QGraphicsPixmapItem] = {}  # "masks", "segmentation"
        self.seg_mode: str | None = None  # VOC segmentation overlay: "class" / "object" / None
        self.seg_opacity = 0.6
        self.shown_image = -1
        self.compare_with = -1  # a second result set drawn beside the current one (-1: none)
        self.missing_file: Path | None = None
        self._reported: set[str] = set()  # messages already posted for this dataset
        self._fit = True
        self._zoom_pending = False
        self._press = None
        self.setScene(self._scene)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setBackgroundBrush(BACKGROUND)
        self.setRenderHints(
            QPainter.RenderHint.Antialiasing | QPainter.RenderHint.SmoothPixmapTransform
        )
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.FullViewportUpdate)
        self.setOptimizationFlags(
            QGraphicsView.OptimizationFlag.DontSavePainterState
            | QGraphicsView.OptimizationFlag.DontAdjustForAntialiasing
        )
        self.setMinimumSize(320, 240)
        self._relayout = QTimer(self)  # zoom changes re-place labels, at most every 80 ms
        self._relayout.setSingleShot(True)
        self._relayout.setInterval(80)
        self._show_message(
            "Open a dataset folder (File ▸ Open dataset folder…, Ctrl+O)\n"
            "or the built-in demo (File ▸ Open demo dataset)"
        )

        self._relayout.timeout.connect(self.redraw_overlays)
        state.dataset_loaded.connect(self._on_dataset_loaded)
        state.image_changed.connect(self._on_image_changed)
        state.display_changed.connect(self.redraw_overlays)
        state.threshold_changed.connect(self.redraw_overlays)
        state.class_changed.connect(self.redraw_overlays)
        state.image_filter_changed.connect(self.redraw_overlays)  # it draws what the filter keeps
        state.selection_changed.connect(self._on_selection_changed)
        state.object_selected.connect(self._on_selection_changed)
        self._overlays_later = Debounced(self._redraw_if_stale, REFRESH_DELAY_MS, self)
        self._arrived: set[int] = set()  # classes whose verdicts arrived, not yet recoloured
        self._recolour_later = Debounced(self._recolour_arrived, REFRESH_DELAY_MS, self)
        # a result set arriving redraws in a turn of its own (not with every pane's refresh)
        state.current_results_changed.connect(self._on_results_changed)
        state.evaluation.class_evaluated.connect(self._on_class_evaluated)
        state.evaluation.finished.connect(self._recolour_later.flush_soon)
        state.evaluation.finished.connect(self._overlays_later.flush_soon)

    # --- zoom ----------------------------------------------------------------------------------
    def fit_to_window(self) -> None:
        self._fit = True
        rect = self._scene.sceneRect()
        if rect.width() > 0 and rect.height() > 0:
            self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
            if self._shown.items:
                self._relayout.start()

    def zoom_one_to_one(self) -> None:
        self._fit = False
        self.resetTransform()
        self._relayout.start()

    def zoom_by(self, factor: float) -> None:
        scale = self.transform().m11()
        factor = float(np.clip(scale * factor, MIN_SCALE, MAX_SCALE)) / scale
        self._fit = False
        self.scale(factor, factor)
        self._relayout.start()

    def zoom_to_highlight(self) -> None:
        """Zoom to the highlighted detection (or object), with a margin; if its image is still
        being decoded, do it as soon as it is shown."""
        item = self.highlighted_item() or next(
            (i for i in self.overlay_items("gt") if getattr(i, "highlighted", False)), None
        )
        if item is None and not self._selection_drawable():
            self._zoom_pending = False  # nothing to zoom to: the note on the image says why
            self.fit_to_window()
            return
        if item is None or self.shown_image != self.state.current_image:
            self._zoom_pending = True
            return
        self._zoom_pending = False
        rect = item.sceneBoundingRect()
        m = max(rect.width(), rect.height()) * 0.35 + 10.0
        self._fit = False
        self.fitInView(rect.adjusted(-m, -m, m, m), Qt.AspectRatioMode.KeepAspectRatio)
        self._relayout.start()

    def _selection_drawable(self) -> bool:
        """False when the selected detection has a non-finite coordinate (never drawn)."""
        st, row = self.state, self.state.selected_detection_row()
        return row < 0 or bool(
            finite_rows(st.results[st.current_results].results.detections.box[row])[0]
        )

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._press = event.position()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        start, self._press = self._press, None
        if start is not None and (event.position() - start).manhattanLength() < 4:
            self.select_at(event.position().toPoint())

    def select_at(self, pos: object) -> None:
        """Select the box under viewport point ``pos`` whose outline is nearest (a click without
        drag)."""
        boxes = [i for i in self.items(pos) if isinstance(i, BoxItem)]  # type: ignore[call-overload]
        if not boxes:
            return
        at = self.mapToScene(pos)  # type: ignore[call-overload]

        def edge_distance(b: BoxItem) -> float:
            r = b.rect()
            return min(
                abs(at.x() - r.left()),
                abs(at.x() - r.right()),
                abs(at.y() - r.top()),
                abs(at.y() - r.bottom()),
            )

        box = min(boxes, key=edge_distance)
        if box.kind == "det":
            self.state.select_detection_row(box.row)
        else:
            self.state.select_object(box.row)

    def viewportEvent(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip:  # hover text of the box under the mouse
            assert isinstance(event, QHelpEvent)
            text = self.tooltip_at(event.pos())
            if text:
                QToolTip.showText(event.globalPos(), text, self.viewport())
            else:
                QToolTip.hideText()
            return True
        return super().viewportEvent(event)

    def tooltip_at(self, pos: QPoint) -> str:
        """Hover text at viewport point ``pos``: the topmost item that has one."""
        for item in self.items(pos):
            text = item.tooltip_text() if isinstance(item, BoxItem) else item.toolTip()
            if text:
                return str(text)
        return ""

    def scale_factor(self) -> float:
        """Screen pixels per image pixel."""
        return float(self.transform().m11())

    def wheelEvent(self, event: QWheelEvent) -> None:
        steps = event.angleDelta().y() / 120.0
        if steps:
            self.zoom_by(1.2**steps)
        event.accept()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._fit:
            self.fit_to_window()

    # --- image ---------------------------------------------------------------------------------
    def _on_dataset_loaded(self, _dataset: object) -> None:
        self._jobs.cancel_all()
        self._decoded.clear()
        self._reported.clear()
        self.shown_image = -1
        self._clear()
        self._show_message("No image in this set")

    def _on_image_changed(self, image: int) -> None:
        ds = self.state.dataset
        if ds is None or image < 0:
            self._jobs.cancel_all()
            self.shown_image = -1
            self._clear()
            self._show_message("No image in this set" if ds is not None else "")
            return
        cached = self._decoded.get((image, self.seg_mode))
        if cached is not None:
            self._show_image(image, cached)
        else:
            self._jobs.start(
                "decode",
                Worker(decode_view, ds.images.path[image], ds, image, self.seg_mode),
                on_returned=lambda img, i=image: self._keep_and_show(i, img),
                on_errored=lambda exc, i=image: self._show_image(i, None, exc),
            )
        self._prefetch(image)

    # --- decoded-image cache: the current image's neighbours are decoded ahead -----------------
    def _keep(self, image: int, seg_mode: str | None, decoded: Decoded) -> None:
        self._decoded[(image, seg_mode)] = decoded
        self._decoded.move_to_end((image, seg_mode))
        while len(self._decoded) > DECODED_CACHE_SIZE:
            self._decoded.popitem(last=False)

    def _keep_and_show(self, image: int, decoded: Decoded) -> None:
        self._keep(image, self.seg_mode, decoded)
        self._show_image(image, decoded)

    def _prefetch(self, image: int) -> None:
        """Decode the next and previous images of the list in a worker, into the cache."""
        st, ds = self.state, self.state.dataset
        pos = np.flatnonzero(st.visible_images == image)
        if ds is None or not len(pos):
            return
        near = [
            int(st.visible_images[j])
            for j in (pos[0] + 1, pos[0] - 1)
            if 0 <= j < len(st.visible_images)
        ]
        todo = [i for i in near if (i, self.seg_mode) not in self._decoded]
        if todo:
            mode = self.seg_mode
            self._jobs.start(
                "prefetch",
                Worker(_decode_each, ds, todo, mode),
                on_yielded=lambda item, m=mode: self._keep(item[0], m, item[1]),
            )

    def set_segmentation(self, mode: str | None) -> None:
        """Overlay the VOC ``SegmentationClass`` (``"class"``) or ``SegmentationObject``
        (``"object"``) PNG of the image, or nothing (``None``); the PNG is read in the worker."""
        if mode != self.seg_mode:
            self.seg_mode = mode
            self._on_image_changed(self.state.current_image)

    def set_segmentation_opacity(self, opacity: float) -> None:
        self.seg_opacity = float(opacity)
        if "segmentation" in self._layers:
            self._layers["segmentation"].setOpacity(self.seg_opacity)

    def layer(self, name: str) -> QGraphicsPixmapItem | None:
        """The pixel layer ``"masks"`` or ``"segmentation"`` on screen, if any."""
        return self._layers.get(name)

    def _show_image(
        self, image: int, decoded: Decoded | QImage | None, error: BaseException | None = None
    ) -> None:
        if image != self.state.current_image:
            return
        ds = self.state.dataset
        assert ds is not None
        self._clear()
        self.missing_file = None
        qimage = decoded.image if isinstance(decoded, Decoded) else decoded
        if isinstance(decoded, Decoded):
            for z, (name, layer) in enumerate(sorted(decoded.layers.items())):
                item = QGraphicsPixmapItem(QPixmap.fromImage(layer))
                item.setZValue(1.0 + z)
                item.setOpacity(self.seg_opacity if name == "segmentation" else 1.0)
                self._scene.addItem(item)
                self._layers[name] = item
        if isinstance(decoded, Decoded):
            self._report([Message("warning", p) for p in decoded.problems])
        if qimage is not None:
            self._pixmap.setPixmap(QPixmap.fromImage(qimage))
            rect = QRectF(0.0, 0.0, qimage.width(), qimage.height())
        else:
            rect = QRectF(0.0, 0.0, *placeholder_size(ds, image))
            self.missing_file = ds.images.path[image]
            why = self._unreadable(self.missing_file, error)
            self._show_placeholder(rect, f"{why}\n{self.missing_file}")
        self._scene.setSceneRect(rect)
        self.shown_image = image
        self.fit_to_window()
        self.redraw_overlays()
        if self._zoom_pending:
            self.zoom_to_highlight()
        self.image_shown.emit(image)

    def _unreadable(self, path: Path, error: BaseException | None) -> str:
        """What the placeholder says about an image that cannot be shown; the reason also goes
        to the message area (once per file)."""
        if isinstance(error, FileNotFoundError) or error is None:
            why, message = (
                "Image file not found",
                Message("warning", f"{path}: image file not found"),
            )
        elif isinstance(error, FormatError):
            why, message = f"Cannot read image: {error.message}", Message("warning", str(error))
        elif isinstance(error, OSError):
            why = f"Cannot read image: {error.strerror or error}"
            message = Message("warning", f"{path}: {describe_os_error(error)}")
        else:
            why, message = "Cannot show image (internal error)", error_message(error, str(path))
        self._report([message])
        return why

    def _report(self, messages: list[Message]) -> None:
        """Post ``messages`` not yet posted for this dataset (stepping back and forth over an
        unreadable file says it once)."""
        new = [m for m in messages if m.text not in self._reported]
        self._reported.update(m.text for m in new)
        self.state.post(new)

    def _clear(self) -> None:
        for item in self._backdrop + list(self._layers.values()):
            self._scene.removeItem(item)
        self._shown.clear()
        self._backdrop, self._layers = [], {}
        self._pixmap.setPixmap(QPixmap())

    def _show_placeholder(self, rect: QRectF, text: str) -> None:
        box = self._scene.addRect(rect, QPen(QColor("#80868b"), 0), QBrush(PLACEHOLDER))
        label = QGraphicsSimpleTextItem(text)
        label.setBrush(QColor("#e8eaed"))
        label.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        label.setPos(rect.left() + 12.0, rect.top() + 12.0)
        self._scene.addItem(label)
        self._backdrop = [box, label]

    def _show_message(self, text: str) -> None:
        label = QGraphicsSimpleTextItem(text)
        label.setBrush(QColor("#bdc1c6"))
        self._scene.addItem(label)
        self._backdrop = [label]
        self._scene.setSceneRect(label.boundingRect().adjusted(-40, -40, 40, 40))
        self._fit = False
        self.resetTransform()

    # --- overlays ------------------------------------------------------------------------------
    def _on_class_evaluated(self, index: int, evaluation: object) -> None:
        """A class's verdicts arrived: its boxes are recoloured in place (debounced) where that
        is all a rebuild would change (``ShownOverlays.recolour``), else rebuilt."""
        if index == self.state.current_results:
            self._arrived.add(int(getattr(evaluation, "class_index", -1)))
            self._recolour_later.request()

    def _recolour_arrived(self) -> None:
        classes, self._arrived = self._arrived, set()
        if not self._stale and not self._shown.recolour(
            self.state, self.overlay_options(), classes
        ):
            self._redraw_soon()

    def _redraw_soon(self, *_args: object) -> None:
        self._stale = True
        self._overlays_later.request()

    def _redraw_if_stale(self) -> None:
        if self._stale:
            self.redraw_overlays()

    def _on_results_changed(self, *_args: object) -> None:
        self._redraw_soon()

    def _on_selection_changed(self, *_args: object) -> None:
        if self._stale:  # the redraw due comes in a moment
            return
        if not self._shown.drawn_for(self.state, self.shown_image, self.overlay_options()):
            self.redraw_overlays()

    def overlays_pending(self) -> bool:
        """Whether a redraw, a recolour or tags are still to come (a screenshot waits)."""
        return self._stale or bool(self._arrived) or self._shown.placing()

    def overlay_options(self) -> OverlayOptions:
        return overlay_options(self.state, self.scale_factor())

    def redraw_overlays(self) -> None:
        """Rebuild the boxes and labels of the shown image from the state (a crowded image's
        tags go on screen over the next turns of the event loop: ``ShownOverlays``)."""
        self._shown.clear()
        self._stale = False
        st, image = self.state, self.shown_image
        if st.dataset is None or image < 0 or image != st.current_image:
            self.overlays_drawn.emit()
            return
        opts = self.overlay_options()
        self._report(self._shown.show(st, image, opts, self.compare_with))
        if "masks" in self._layers:
            self._layers["masks"].setVisible(opts.show_gt and st.show_masks)
        self.overlays_drawn.emit()

    def evidence_replaced(self, index: int) -> None:
        """Result set ``index`` was re-derived (another IoU threshold or area range): the drawn
        detections recoloured in place where that gives what a rebuild gives
        (``ShownOverlays.recolour``), else rebuilt; another set than those drawn: nothing."""
        st = self.state
        if self._stale or index not in (st.current_results, self.compare_with):
            return
        every = set(range(len(st.dataset.classes))) if st.dataset is not None else set()
        if index != st.current_results or not self._shown.recolour(
            st, self.overlay_options(), every
        ):
            self.redraw_overlays()

    def set_compare(self, other: int) -> None:
        """Draw result set ``other`` too (dashed, labels tagged "B"), or only the current one
        (-1)."""
        if other != self.compare_with:
            self.compare_with = other
            self.redraw_overlays()

    def overlay_items(self, kind: str | None = None) -> list[QGraphicsItem]:
        """Overlay items on screen, optionally only those of ``kind`` (``gt``/``det``/``label``)."""
        return [i for i in self._shown.items if kind is None or getattr(i, "kind", None) == kind]

    def highlighted_item(self) -> QGraphicsItem | None:
        """The highlighted detection's box, if it is on screen."""
        hits = [i for i in self.overlay_items("det") if getattr(i, "highlighted", False)]
        return hits[0] if hits else None

    def shutdown(self) -> None:
        self._jobs.cancel_all()
