"""``PatchesPane``: a grid of crops of what a ``PatchSelection`` selects, in place of the image.

The selection (``evaluation.patches``): detections of a verdict or false-positive kind, missed
objects or objects of a class, of the current result set at the score threshold (the drawn
rule), optionally on a subset of images (``set_images``: what a filter leaves), sorted by score,
IoU, class or image. A toolbar above the grid chooses kind, class and order. The table is
computed in a worker from the stored per-class views (never a second evaluation) while the pane
is shown, and again when evidence, threshold or result set change.

The grid is a ``QListView`` in icon mode over uniform cells (20,000 patches lay out without
calling into Python per cell); each cell shows the crop (cut off the GUI thread by a
``CropLoader``) with the box in its verdict's colour and line, the verdict, score, IoU, class and
image, and an amber flag with the number of tags on a tagged box. Double-click or Enter opens
the image with the box selected (``open_requested``); PgDn / PgUp move one page; several cells
may be selected at once (``targets`` names what a tag key tags).
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
from PySide6.QtGui import QColor, QHelpEvent, QKeyEvent, QPainter, QPen, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QLabel,
    QListView,
    QSizePolicy,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolBar,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from vocviewer.core.palette import ROLES
from vocviewer.core.tags import Fix, Target
from vocviewer.evaluation.patches import (
    KIND_LABELS,
    SORT_LABELS,
    PatchSelection,
    PatchTable,
    empty_table,
    patch_table,
)
from vocviewer.families.views import ClassView
from vocviewer.gui.models.crops import Crop, CropLoader
from vocviewer.gui.models.debounce import REFRESH_DELAY_MS, Debounced
from vocviewer.gui.models.patches import PatchListModel, patch_key, patch_target
from vocviewer.gui.models.state import AppState
from vocviewer.gui.models.tags import TagsModel
from vocviewer.gui.models.thumbnails import Unreadable
from vocviewer.gui.models.worker import Worker
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
from vocviewer.gui.panes.browse.thumbnail_grid import fit
from vocviewer.gui.widgets.pane_keys import ACTIVATE_ROW, PAGE_KEYS
from vocviewer.gui.widgets.verdict_style import COLORS, pen_style

Index = QModelIndex | QPersistentModelIndex
PAD = 5
#: Cells whose elided text lines are kept (a screen is ~20).
TEXTS_KEPT = 512
#: Cells cut ahead of the visible ones (screens down, up).
AHEAD, BEHIND = 1.0, 0.5


class PatchDelegate(QStyledItemDelegate):
    """Paints a patch: the crop (a neutral stand-in until cut), its box, the tag flag and two
    lines of text."""

    def __init__(self, grid: PatchGrid) -> None:
        super().__init__(grid)
        self.grid = grid
        self._texts: dict[tuple[int, int], tuple[str, ...]] = {}
        grid.model_.modelReset.connect(self._texts.clear)

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        return self.grid.cell_size()

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        grid, row = self.grid, index.row()
        model = grid.model_
        if model.dataset is None or row >= len(model.table):
            return
        rect, area, selected = begin_cell(painter, option, grid.thumb_w, PAD)
        pal = option.palette
        crop = grid.loader.lookup(patch_key(model.table, row))
        role = ROLES[int(model.table.role[row])]
        if isinstance(crop, Crop):
            ratio = crop.image.devicePixelRatio() or 1.0
            target = fit(area, crop.image.width() / ratio, crop.image.height() / ratio)
            painter.drawImage(target, crop.image)
            x1, y1, x2, y2 = crop.region
            sx = target.width() / max(x2 - x1, 1e-9)
            sy = target.height() / max(y2 - y1, 1e-9)
            b = model.boxes[row]
            box = QRectF(
                target.x() + (b[0] - x1) * sx,
                target.y() + (b[1] - y1) * sy,
                (b[2] - b[0]) * sx,
                (b[3] - b[1]) * sy,
            )
            painter.setClipRect(target.adjusted(-1, -1, 1, 1))
            painter.setPen(QPen(QColor(0, 0, 0, 150), 3.0))
            painter.drawRect(box)
            pen = QPen(COLORS[role], 1.6)
            pen.setStyle(pen_style(role))
            painter.setPen(pen)
            painter.drawRect(box)
            painter.setClipping(False)
        else:
            painter.fillRect(area, pal.mid())
            if crop is None:
                grid.want_crops()
            else:
                painter.setPen(pal.text().color())
                text = "file missing" if crop.missing else "unreadable"
                painter.drawText(area, int(Qt.AlignmentFlag.AlignCenter), text)
        painter.fillRect(QRectF(area.x(), area.bottom() - 3, area.width(), 3), COLORS[role])
        tags = grid.tags_of(row)
        if tags:
            paint_tag_marker(painter, area.topLeft() + QPointF(2, 2), str(len(tags)))
        width = int(rect.width() - 2 * PAD)
        painter.setPen((pal.highlightedText() if selected else pal.text()).color())
        centre = int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignVCenter)
        for k, text in enumerate(self.texts(painter, row, width)):
            line = QRectF(rect.x() + PAD, area.bottom() + 3 + k * grid.line_h, width, grid.line_h)
            painter.drawText(line, centre, text)
        painter.restore()

    def texts(self, painter: QPainter, row: int, width: int) -> tuple[str, ...]:
        """Row ``row``'s two lines elided to ``width`` (kept until the table or size change)."""
        got = self._texts.get((row, width))
        if got is None:
            if len(self._texts) >= TEXTS_KEPT:
                self._texts.clear()  # the visible ones come back
            fm = painter.fontMetrics()
            elide = Qt.TextElideMode.ElideRight
            lines = self.grid.model_.lines(row)
            got = self._texts[row, width] = tuple(fm.elidedText(t, elide, width) for t in lines)
        return got

    def helpEvent(
        self, event: QHelpEvent, view: QAbstractItemView, option: QStyleOptionViewItem, index: Index
    ) -> bool:
        if event.type() == QEvent.Type.ToolTip and index.isValid():
            grid, row = self.grid, index.row()
            tip = "\n".join(grid.model_.lines(row))
            tags = grid.tags_of(row)
            tip += f"\ntags: {', '.join(tags)}" if tags else ""
            crop = grid.loader.lookup(patch_key(grid.model_.table, row))
            tip += f"\nimage file: {crop.reason}" if isinstance(crop, Unreadable) else ""
            QToolTip.showText(event.globalPos(), tip, view)
            return True
        return super().helpEvent(event, view, option, index)


class PatchGrid(QListView):
    """The patches as cells; several may be selected.

    Signals
    -------
    open_requested(int)
        Double-click or Enter on this row.
    """

    open_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model_ = PatchListModel(self)
        self.thumb_w = DEFAULT_THUMB
        self.loader = CropLoader(self.thumb_w, thumb_height(self.thumb_w), parent=self)
        self.tags: TagsModel | None = None
        self.line_h = self.fontMetrics().height() + 1
        self.setModel(self.model_)
        self.setItemDelegate(PatchDelegate(self))
        grid_view(self, QAbstractItemView.SelectionMode.ExtendedSelection)
        self._apply_cell_size()
        self._request_later = Debounced(self._request_visible, 0, self)
        self._asked: dict[int, int] = {}  # crop key -> row, of the last request
        self.doubleClicked.connect(lambda index: self.open_requested.emit(index.row()))
        self.loader.thumbnail_ready.connect(self._on_crop)
        self.verticalScrollBar().valueChanged.connect(self._request_later.request)

    def cell_size(self) -> QSize:
        th = thumb_height(self.thumb_w)
        return QSize(self.thumb_w + 2 * PAD, PAD + th + 3 + 2 * self.line_h + PAD)

    def _apply_cell_size(self) -> None:
        self.setGridSize(self.cell_size() + QSize(4, 4))
        self.doItemsLayout()  # uniform cells: the size of one is cached until laid out again
        self.verticalScrollBar().setSingleStep(self.cell_size().height() // 3)
        self.setMinimumSize(self.cell_size() + QSize(24, 8))

    def set_thumb_size(self, width: int) -> None:
        """Crops ``width`` logical pixels wide (three quarters high), cut again at that size."""
        if width != self.thumb_w:
            self.thumb_w = width
            self.loader.set_size(width, thumb_height(width), self.loader.ratio)
            self._apply_cell_size()
            if self.currentIndex().isValid():
                self.scrollTo(self.currentIndex(), QAbstractItemView.ScrollHint.EnsureVisible)
            self._request_later.request()

    def tags_of(self, row: int) -> tuple[str, ...]:
        m = self.model_
        if self.tags is None or m.dataset is None:
            return ()
        return self.tags.get(patch_target(m.dataset, m.table, row, m.set_index)).tags

    def selected_rows(self) -> list[int]:
        return sorted({i.row() for i in self.selectionModel().selectedIndexes()})

    # --- cutting -------------------------------------------------------------------------------
    def want_crops(self) -> None:
        self._request_later.request()

    def _request_visible(self) -> None:
        m = self.model_
        if not self.isVisible() or m.dataset is None:
            return
        ratio = self.devicePixelRatioF()
        if ratio != self.loader.ratio:
            self.loader.set_size(self.thumb_w, thumb_height(self.thumb_w), ratio)
        shown = visible_rows(self)
        around = visible_rows(self, AHEAD, BEHIND)
        order = list(shown) + [r for r in around if r not in shown]
        items = [(patch_key(m.table, r), int(m.table.image[r]), tuple(m.boxes[r])) for r in order]
        self._asked = {key: row for row, (key, _, _) in zip(order, items, strict=True)}
        self.loader.request_crops(items)  # type: ignore[arg-type]

    def _on_crop(self, key: int) -> None:
        row = self._asked.get(key, -1)
        if row >= 0 and self.isVisible() and row < self.model_.rowCount():
            self.viewport().update(self.visualRect(self.model_.index(row)))  # that cell only

    # --- keys and events -----------------------------------------------------------------------
    def event(self, event: QEvent) -> bool:
        return claims_page_keys(event) or super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if ACTIVATE_ROW.matches(event.key()) and self.currentIndex().isValid():
            self.open_requested.emit(self.currentIndex().row())
            return
        if PAGE_KEYS.matches(event.key()):
            move_page(self, 1 if event.key() == Qt.Key.Key_PageDown else -1)
            return
        super().keyPressEvent(event)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._request_later.request()

    def resizeEvent(self, event: object) -> None:
        super().resizeEvent(event)  # type: ignore[arg-type]
        self._request_later.request()


class PatchesPane(QWidget):
    """The selector over the grid, following ``state``.

    Signals
    -------
    open_requested(int)
        A patch was opened (its image is current, its box selected).
    computed(int)
        A new table arrived (its number of patches).
    """

    open_requested = Signal(int)
    computed = Signal(int)

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.images: np.ndarray | None = None  # image rows to keep (a filter's), None: all
        #: the boxes the view's filter keeps (``follow_filter``), None: all
        self.kept_detections: np.ndarray | None = None
        self.kept_objects: np.ndarray | None = None
        self.kind = QComboBox()
        for key, label in KIND_LABELS.items():
            self.kind.addItem(label, key)
        self.class_combo = QComboBox()
        self.class_combo.addItem("Every class", -1)
        self.sort = QComboBox()
        for key, label in SORT_LABELS.items():
            self.sort.addItem(f"by {label.lower()}", key)
        self.order = QToolButton()
        self.order.setCheckable(True)
        self.order.setChecked(True)
        self.order.setToolTip("Highest first (checked) or lowest first")
        self.count = QLabel("")
        self.count.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.grid = PatchGrid()
        self.bar = QToolBar("Patches")  # in a narrow window, what does not fit goes under »
        self.bar.setIconSize(QSize(16, 16))
        for w in (QLabel(" Patches: "), self.kind, self.class_combo, self.sort, self.order):
            self.bar.addWidget(w)
        self.count.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.bar.addWidget(self.count)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.bar)
        layout.addWidget(self.grid, 1)
        self._stale = True
        self._recompute_later = Debounced(self.recompute, REFRESH_DELAY_MS, self)
        self._on_order(True)

        for combo in (self.kind, self.class_combo, self.sort):
            combo.currentIndexChanged.connect(self._selection_changed)
        self.order.toggled.connect(self._on_order)
        self.grid.open_requested.connect(self.open_row)
        state.dataset_loaded.connect(self._on_dataset_loaded)
        for signal in (state.threshold_changed, state.current_results_changed):
            signal.connect(self._selection_changed)
        state.visible_images_changed.connect(self.follow_filter)
        ev = state.evaluation
        ev.class_evaluated.connect(lambda *_: self._evidence_changed(later=True))
        for signal in (ev.finished, ev.evidence_replaced):
            signal.connect(self._evidence_changed)

    # --- the selection -------------------------------------------------------------------------
    def selection(self) -> PatchSelection:
        """What the toolbar (and ``set_images``) select, at the window's score threshold."""
        return PatchSelection(
            kind=str(self.kind.currentData()),
            class_index=int(self.class_combo.currentData()),
            sort=str(self.sort.currentData()),
            descending=self.order.isChecked(),
            min_score=self.state.drawn_thresholds,
            images=self.images,
            detections=self.kept_detections,
            objects=self.kept_objects,
        )

    def set_selection(self, kind: str, class_index: int = -1, sort: str = "score") -> None:
        """Choose in the toolbar (as a user would)."""
        for combo, value in ((self.kind, kind), (self.class_combo, class_index), (self.sort, sort)):
            at = combo.findData(value)
            if at < 0:
                raise ValueError(f"no such choice: {value!r}")
            combo.setCurrentIndex(at)

    def set_images(self, images: np.ndarray | None) -> None:
        """Keep only patches on these image rows (``None``: every image)."""
        self.images = None if images is None else np.asarray(images, dtype=np.int64)
        self._selection_changed()

    def follow_filter(self) -> None:
        """Show the patches of what the image list keeps: its images and, on them, the boxes
        the view's filter keeps (``AppState.kept``)."""
        st = self.state
        kept = st.kept
        same = kept.result_set == st.current_results
        self.kept_detections = kept.detections if same and st.image_filter.narrows else None
        self.kept_objects = kept.objects if st.image_filter.narrows else None
        self.set_images(kept.images if st.dataset is not None else None)

    def _on_order(self, descending: bool) -> None:
        self.order.setText("↓ high first" if descending else "↑ low first")
        self._selection_changed()

    def _selection_changed(self, *_args: object) -> None:
        self._stale = True
        if self.isVisible():
            self.recompute()

    # --- computing -----------------------------------------------------------------------------
    def _on_dataset_loaded(self, _dataset: object) -> None:
        ds = self.state.dataset
        self.class_combo.blockSignals(True)
        self.class_combo.clear()
        self.class_combo.addItem("Every class", -1)
        for k, name in enumerate(ds.classes if ds is not None else ()):
            self.class_combo.addItem(name, k)
        self.class_combo.blockSignals(False)
        self.grid.loader.set_dataset(ds)
        self.grid.model_.set_table(None, empty_table(), -1)
        self._selection_changed()

    def _evidence_changed(self, *_args: object, later: bool = False) -> None:
        self._stale = True
        if self.isVisible():
            if later:
                self._recompute_later.request()
            else:
                self.recompute()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self.recompute()

    def recompute(self) -> None:
        """Work out the table again (in a worker) from the current result set's views."""
        st, ds = self.state, self.state.dataset
        if ds is None:
            return
        self._stale = False
        i = st.current_results
        views: tuple[ClassView, ...] = ()
        boxes = np.zeros((0, 4))
        if 0 <= i < len(st.results):  # without results, only objects of a class are listed
            stored = st.evaluations[i].views
            views = tuple(stored[k] for k in sorted(stored))
            boxes = st.results[i].results.detections.box
        if i != self.grid.model_.set_index:
            self.grid.loader.set_dataset(ds)  # detection keys name rows of another set
        worker = Worker(patch_table, ds, views, boxes, self.selection())
        st.jobs.start(
            "patches",
            worker,
            on_returned=lambda table: self._arrived(table, i),
            on_errored=None,
        )

    def _arrived(self, table: PatchTable, set_index: int) -> None:
        grid = self.grid
        grid.model_.set_table(self.state.dataset, table, set_index)
        grid.scrollToTop()
        n = len(table)
        self.count.setText(f"{n:,} patches" if n else "no patches")
        grid.want_crops()
        self.computed.emit(n)

    # --- opening and tagging -------------------------------------------------------------------
    def open_row(self, row: int) -> None:
        """Open patch ``row``'s image with its detection (or object) selected."""
        st, m = self.state, self.grid.model_
        if not 0 <= row < len(m.table):
            return
        det = int(m.table.detection[row])
        if det >= 0 and 0 <= m.set_index < len(st.results):
            if m.set_index != st.current_results:
                st.set_current_results(m.set_index)
            st.select_detection_row(det)
        else:
            st.set_current_image(int(m.table.image[row]))
            st.select_object(int(m.table.object[row]))
        self.open_requested.emit(row)

    def targets(self, tag: str = "") -> list[tuple[Target, Fix | None]]:
        """What a tag key tags: every selected patch (with the fix ``tag`` stands for: a missed
        detection tagged "missing annotation" asks to add its box)."""
        m, ds = self.grid.model_, self.grid.model_.dataset
        if ds is None:
            return []
        out: list[tuple[Target, Fix | None]] = []
        for row in self.grid.selected_rows():
            target = patch_target(ds, m.table, row, m.set_index)
            fix = None
            if target.kind == "detection" and tag == "missing annotation":
                box = tuple(float(v) for v in m.table.box[row])
                fix = Fix("add", ds.classes[int(m.table.label[row])], box)  # type: ignore[arg-type]
            out.append((target, fix))
        return out

    def set_tags(self, tags: TagsModel) -> None:
        self.grid.tags = tags
        tags.changed.connect(self.grid.viewport().update)
