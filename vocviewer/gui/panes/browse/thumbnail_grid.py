"""``ThumbnailGrid``: the browser's (filtered, sorted) image list as a grid of thumbnails, each with
its boxes in the image view's colours and its error counts; ``image_area.ImageArea`` puts it in
place of the image view (View ▸ Thumbnail grid, Ctrl+G).

The grid is a ``QListView`` in icon mode over the browser's ``ImageListModel`` (ids held by Qt,
uniform cells): laying out 20,000 cells never calls into Python, and a repaint paints the
visible cells only. Pixels come from a ``ThumbnailLoader`` (decoded in a worker, bytes-bounded
cache); the boxes are worked out per image from ``AppState`` when a cell is first painted and
kept until a setting that changes them changes. Selecting a cell makes its image current;
a click or Enter opens it in the image view (``open_requested``); PgDn / PgUp move one page.
The picture size is one of ``cells.THUMB_SIZES`` (``set_thumb_size``); a tagged image (``marked``)
carries an amber flag.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QPointF,
    QRectF,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import (
    QColor,
    QHelpEvent,
    QKeyEvent,
    QPainter,
    QPen,
    QResizeEvent,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QListView,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolTip,
    QWidget,
)

from vocviewer.gui.models.debounce import REFRESH_DELAY_MS, Debounced
from vocviewer.gui.models.image_filter import ErrorCounts
from vocviewer.gui.models.state import AppState
from vocviewer.gui.models.thumbnails import DEFAULT_CACHE_BYTES, ThumbnailLoader, Unreadable
from vocviewer.gui.panes.browse.cells import (
    DEFAULT_THUMB,
    begin_cell,
    claims_page_keys,
    grid_view,
    move_page,
    paint_tag_marker,
    thumb_height,
    visible_rows,
)
from vocviewer.gui.panes.browse.image_browser import ERROR_INK, ImageListModel
from vocviewer.gui.panes.image.drawable import drawable_boxes, image_size
from vocviewer.gui.panes.image.overlay_scene import overlay_options
from vocviewer.gui.panes.image.overlays import OverlayOptions, detection_rows
from vocviewer.gui.widgets.pane_keys import ACTIVATE_ROW, PAGE_KEYS
from vocviewer.gui.widgets.verdict_style import GT_COLOR, MISSED_COLOR, row_style

Index = QModelIndex | QPersistentModelIndex
#: Logical pixels of the picture area of a cell (the default size), and the margin around it.
THUMB_W, THUMB_H, PAD = DEFAULT_THUMB, thumb_height(DEFAULT_THUMB), 6
#: Cells decoded ahead of the visible ones (the next screen down, half a screen up).
AHEAD, BEHIND = 1.0, 0.5
#: Images whose boxes are kept (one screen is ~20; a few screens back and forth stay).
BOXES_KEPT = 512
Boxes = tuple[np.ndarray, np.ndarray]


def thumbnail_boxes(state: AppState, image: int, opts: OverlayOptions) -> Boxes:
    """Boxes of image row ``image`` as the image view draws them (``opts``): ground truth (the
    selected class's, missed ones in ``MISSED_COLOR``) under the drawn detections coloured by
    verdict; float64 (N, 4) continuous image pixels, and uint32 (N,) colours (``QColor.rgba``);
    two arrays, not thousands of small objects for the garbage collector to walk."""
    ds = state.dataset
    assert ds is not None
    parts: list[np.ndarray] = []
    colors: list[int] = []
    if opts.show_gt:
        rows = np.arange(ds.objects_of(image).start, ds.objects_of(image).stop)
        if opts.class_index >= 0:
            rows = rows[ds.objects.label[rows] == opts.class_index]
        missed = np.zeros(len(rows), dtype=bool)
        if opts.missed is not None and len(opts.missed) == len(ds.objects):
            missed = opts.missed[rows]
        if opts.mode == "missed":
            rows, missed = rows[missed], missed[missed]
        ok, boxes = drawable_boxes(ds, image, ds.objects.box[rows])
        parts.append(boxes[ok])
        colors += [(MISSED_COLOR if m else GT_COLOR).rgba() for m in missed[ok].tolist()]
    i = state.current_results
    if i >= 0 and opts.show_detections:
        loaded, evals = state.results[i], state.evaluations[i]
        rows = detection_rows(loaded, evals, image, opts)
        ok, boxes = drawable_boxes(ds, image, loaded.results.detections.box[rows])
        parts.append(boxes[ok])
        colors += [row_style(evals, r)[0].rgba() for r in rows[ok].tolist()]
    boxes = np.concatenate(parts) if parts else np.zeros((0, 4))
    return boxes, np.array(colors, dtype=np.uint32)


def errors_text(errors: ErrorCounts | None, image: int) -> str:
    """``"2 FP · 1 missed"`` for image row ``image`` ("" without errors or counts)."""
    if errors is None:
        return ""
    fp, missed = int(errors.fp[image]), int(errors.missed[image])
    return " · ".join(([f"{fp} FP"] if fp else []) + ([f"{missed} missed"] if missed else []))


class ThumbnailDelegate(QStyledItemDelegate):
    """Paints a cell: the thumbnail (a neutral stand-in of the image's shape until it is
    decoded), its boxes, the id (elided) and the error counts (red)."""

    def __init__(self, grid: ThumbnailGrid) -> None:
        super().__init__(grid)
        self.grid = grid

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        return self.grid.cell_size()

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        grid, image = self.grid, int(self.grid.model_.rows[index.row()])
        ds = grid.app_state.dataset
        if ds is None:
            return
        rect, area, selected = begin_cell(painter, option, grid.thumb_w, PAD)
        pal = option.palette
        thumb = grid.loader.lookup(image)
        if thumb is None or isinstance(thumb, Unreadable):
            w, h = image_size(ds, image)
            target = fit(area, w, h)
            painter.fillRect(target, pal.mid())
            if thumb is None:
                grid.want_thumbnails()
            else:
                painter.setPen(pal.text().color())
                text = "file missing" if thumb.missing else "unreadable"
                painter.drawText(target, int(Qt.AlignmentFlag.AlignCenter), text)
        else:
            w, h = thumb.width, thumb.height
            target = fit(area, w, h)
            painter.drawImage(target, thumb.image)
        boxes, colors = grid.boxes_of(image)
        if len(boxes):
            sx, sy = target.width() / max(w, 1), target.height() / max(h, 1)
            painter.setClipRect(target.adjusted(-1, -1, 1, 1))
            halo = QPen(QColor(0, 0, 0, 150), 2.5)
            pens: dict[int, QPen] = {}
            for b, rgba in zip(boxes.tolist(), colors.tolist(), strict=True):
                r = QRectF(
                    target.x() + b[0] * sx,
                    target.y() + b[1] * sy,
                    (b[2] - b[0]) * sx,
                    (b[3] - b[1]) * sy,
                )
                painter.setPen(halo)
                painter.drawRect(r)
                pen = pens.get(rgba)
                if pen is None:
                    pen = pens[rgba] = QPen(QColor.fromRgba(rgba), 1.2)
                painter.setPen(pen)
                painter.drawRect(r)
            painter.setClipping(False)
        errors = errors_text(grid.errors, image)
        fm = painter.fontMetrics()
        if errors:  # a red tag in the picture's bottom-right corner
            tag = QRectF(0, 0, fm.horizontalAdvance(errors) + 8, fm.height() + 2)
            tag.moveBottomRight(area.bottomRight() - QPointF(1, 1))
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(ERROR_INK)
            painter.drawRoundedRect(tag, 3, 3)
            painter.setPen(QColor("#ffffff"))
            painter.drawText(tag, int(Qt.AlignmentFlag.AlignCenter), errors)
        if image in grid.marked:
            paint_tag_marker(painter, area.topLeft() + QPointF(2, 2), "")
        line = QRectF(rect.x() + PAD, area.bottom() + 3, rect.width() - 2 * PAD, grid.line_h)
        name = fm.elidedText(str(index.data()), Qt.TextElideMode.ElideMiddle, int(line.width()))
        painter.setPen((pal.highlightedText() if selected else pal.text()).color())
        painter.drawText(
            line, int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignVCenter), name
        )
        painter.restore()

    def helpEvent(
        self,
        event: QHelpEvent,
        view: QAbstractItemView,
        option: QStyleOptionViewItem,
        index: Index,
    ) -> bool:
        if event.type() == QEvent.Type.ToolTip and index.isValid():
            grid = self.grid
            tip = grid.model_.tooltip(index.row())
            errors = errors_text(grid.errors, int(grid.model_.rows[index.row()]))
            thumb = grid.loader.lookup(int(grid.model_.rows[index.row()]))
            tip += f" · {errors}" if errors else ""
            tip += f"\nimage file: {thumb.reason}" if isinstance(thumb, Unreadable) else ""
            QToolTip.showText(event.globalPos(), tip, view)
            return True
        return super().helpEvent(event, view, option, index)


def fit(area: QRectF, w: float, h: float) -> QRectF:
    """The largest rectangle of aspect ``w : h`` centred in ``area`` (never enlarged past it)."""
    scale = min(area.width() / max(w, 1.0), area.height() / max(h, 1.0))
    tw, th = w * scale, h * scale
    return QRectF(area.x() + (area.width() - tw) / 2, area.y() + (area.height() - th) / 2, tw, th)


class ThumbnailGrid(QListView):
    """The visible images as thumbnails, in list order; follows ``AppState``.

    Signals
    -------
    open_requested(int)
        A cell was clicked or Enter pressed on it: show this image row in the image view.
    """

    open_requested = Signal(int)

    def __init__(
        self, state: AppState, parent: QWidget | None = None, cache_bytes: int = DEFAULT_CACHE_BYTES
    ) -> None:
        super().__init__(parent)
        self.app_state = state
        self.model_ = ImageListModel(self)
        self.thumb_w = THUMB_W
        self.marked: frozenset[int] = frozenset()  # image rows with tags (flagged)
        self.loader = ThumbnailLoader(THUMB_W, THUMB_H, cache_bytes, self)
        self._errors: ErrorCounts | None = None
        self._errors_stale = True
        self._rows_stale = False  # the list changed while the grid was hidden
        self._boxes: dict[int, Boxes] = {}
        self._opts: OverlayOptions | None = None
        self.line_h = self.fontMetrics().height() + 2
        self.setModel(self.model_)
        self.setItemDelegate(ThumbnailDelegate(self))
        grid_view(self, QAbstractItemView.SelectionMode.SingleSelection)
        self._apply_cell_size()
        self.setMinimumSize(self.cell_size() + QSize(24, 8))
        self._request_later = Debounced(self._request_visible, 0, self)
        self._restyle_later = Debounced(self.restyle, REFRESH_DELAY_MS, self)

        self.selectionModel().currentChanged.connect(self._on_current_row)
        self.clicked.connect(self._open)
        self.loader.thumbnail_ready.connect(self._on_thumbnail)
        self.verticalScrollBar().valueChanged.connect(self._request_later.request)
        state.dataset_loaded.connect(self._on_dataset_loaded)
        state.visible_images_changed.connect(self._on_visible_changed)
        state.image_changed.connect(self._sync_current)
        for signal in (
            state.class_changed,
            state.threshold_changed,
            state.display_changed,
            state.current_results_changed,
            state.image_filter_changed,  # the boxes drawn are those the filter keeps
        ):
            signal.connect(self.restyle)
        state.evaluation.class_evaluated.connect(self._restyle_later.request)
        state.evaluation.evidence_replaced.connect(self._restyle_later.request_now)
        state.evaluation.finished.connect(self._restyle_later.flush_soon)

    def cell_size(self) -> QSize:
        tw, th = self.thumb_w, thumb_height(self.thumb_w)
        return QSize(tw + 2 * PAD, PAD + th + 3 + self.fontMetrics().height() + 2 + PAD)

    def _apply_cell_size(self) -> None:
        self.setGridSize(self.cell_size() + QSize(4, 4))
        self.doItemsLayout()  # uniform cells: the size of one is cached until laid out again
        self.verticalScrollBar().setSingleStep(self.cell_size().height() // 3)

    def set_thumb_size(self, width: int) -> None:
        """Pictures ``width`` logical pixels wide (three quarters high); the current cell stays
        in view and the thumbnails are decoded again at the new size."""
        if width == self.thumb_w:
            return
        self.thumb_w = width
        self.loader.set_size(width, thumb_height(width), self.loader.ratio)
        self._apply_cell_size()
        self.setMinimumSize(self.cell_size() + QSize(24, 8))
        if self.currentIndex().isValid():
            self.scrollTo(self.currentIndex(), QAbstractItemView.ScrollHint.EnsureVisible)
        self._request_later.request()

    def set_marked(self, images: frozenset[int]) -> None:
        """Flag these image rows (tagged images)."""
        self.marked = images
        self.viewport().update()

    # --- state → grid --------------------------------------------------------------------------
    def _on_dataset_loaded(self, dataset: object) -> None:
        self.loader.set_dataset(self.app_state.dataset)
        self.restyle()

    def _on_visible_changed(self) -> None:
        if not self.isVisible():  # laid out when shown (20,000 cells cost a few ms)
            self._rows_stale = True
            return
        st = self.app_state
        self._rows_stale = False
        self.model_.set_rows(st.dataset, st.visible_images)
        self._sync_current(st.current_image)
        self._request_later.request()

    def restyle(self, *_args: object) -> None:
        """Boxes and error counts follow the state again (threshold, class, toggles, verdicts);
        both are worked out again when next painted."""
        self._boxes.clear()
        self._opts = None
        self._errors_stale = True
        self.viewport().update()

    @property
    def errors(self) -> ErrorCounts | None:
        """``AppState.error_counts()`` as of the last ``restyle`` (``None``: not evaluated)."""
        if self._errors_stale:
            self._errors_stale = False
            self._errors = (
                self.app_state.error_counts() if self.app_state.dataset is not None else None
            )
        return self._errors

    def boxes_of(self, image: int) -> Boxes:
        """The boxes and colours drawn on image row ``image`` (kept until ``restyle``)."""
        got = self._boxes.get(image)
        if got is None:
            if len(self._boxes) >= BOXES_KEPT:
                self._boxes.clear()  # cheaper than an LRU, and the visible ones come back
            if self._opts is None:
                self._opts = overlay_options(self.app_state, 1.0)
            got = self._boxes[image] = thumbnail_boxes(self.app_state, image, self._opts)
        return got

    def _sync_current(self, image: int) -> None:
        row = self.model_.row_of(image)
        if row < 0:
            self.clearSelection()
            return
        index = self.model_.index(row)
        if self.currentIndex() != index:
            self.setCurrentIndex(index)
        self.scrollTo(index, QAbstractItemView.ScrollHint.EnsureVisible)

    # --- grid → state --------------------------------------------------------------------------
    def _on_current_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.app_state.set_current_image(int(self.model_.rows[current.row()]))

    def _open(self, index: QModelIndex) -> None:
        if index.isValid():
            image = int(self.model_.rows[index.row()])
            self.app_state.set_current_image(image)
            self.open_requested.emit(image)

    def event(self, event: QEvent) -> bool:
        return claims_page_keys(event) or super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if ACTIVATE_ROW.matches(event.key()) and self.currentIndex().isValid():
            self._open(self.currentIndex())
            return
        if PAGE_KEYS.matches(event.key()):
            move_page(self, 1 if event.key() == Qt.Key.Key_PageDown else -1)
            return
        super().keyPressEvent(event)

    # --- decoding ------------------------------------------------------------------------------
    def want_thumbnails(self) -> None:
        """A painted cell has no thumbnail yet: ask for the visible ones (coalesced)."""
        self._request_later.request()

    def visible_rows(self, ahead: float = 0.0, behind: float = 0.0) -> range:
        """List rows whose cells are on screen (``cells.visible_rows``)."""
        return visible_rows(self, ahead, behind)

    def _request_visible(self) -> None:
        if not self.isVisible() or self.app_state.dataset is None:
            return
        ratio = self.devicePixelRatioF()
        if ratio != self.loader.ratio:
            self.loader.set_size(self.thumb_w, thumb_height(self.thumb_w), ratio)
        rows = self.model_.rows
        shown = self.visible_rows()
        around = self.visible_rows(AHEAD, BEHIND)
        order = list(shown) + [r for r in around if r not in shown]
        self.loader.request([int(rows[r]) for r in order])

    def _on_thumbnail(self, image: int) -> None:
        row = self.model_.row_of(image) if self.isVisible() else -1
        if row >= 0:
            self.viewport().update(self.visualRect(self.model_.index(row)))

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._rows_stale:
            self._on_visible_changed()
        self._sync_current(self.app_state.current_image)
        self._request_later.request()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._request_later.request()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.DevicePixelRatioChange:
            self._request_later.request()
