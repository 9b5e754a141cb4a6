"""``ImageBrowser``: the image-set chooser, class filter, id search, flag / error filters and the
virtualised image list that drives the current image.

The list model holds an int64 array of image rows and their ids as Qt strings; the delegate
paints the rest of each row from the ``Dataset`` (uniform row heights, so 20,000 rows cost what
the visible ones cost). Filtering and ordering are ``image_filter``'s; this module only collects
the user's choice into an ``ImageFilter``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from PySide6.QtCore import QEvent, QModelIndex, QPersistentModelIndex, QStringListModel, Qt
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QColor,
    QHelpEvent,
    QPainter,
    QPalette,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QMenu,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from vocviewer.core.dataset import Dataset
from vocviewer.gui.models.image_filter import (
    ERROR_FILTERS,
    FLAG_NAMES,
    ErrorCounts,
    ImageFilter,
    object_flags,
)
from vocviewer.gui.models.state import AppState
from vocviewer.gui.models.tasks import image_set_choices

Index = QModelIndex | QPersistentModelIndex
ERROR_INK = QColor("#d93025")


class ImageListModel(QStringListModel):
    """Rows of ``Dataset.images``: the ids are held by Qt (a ``QStringListModel``), so laying out
    and painting 20,000 rows never calls back into Python (a Python model is asked ``rowCount``
    twice per row on every reset); ``count_text`` / ``errors_text`` / ``tooltip`` give the rest
    of a row (errors: ``"2 FP · 1 missed"`` when the list is filtered or sorted by errors)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.dataset: Dataset | None = None
        self.rows = np.zeros(0, dtype=np.int64)
        self.errors: ErrorCounts | None = None
        self.marked: frozenset[int] = frozenset()  # image rows with tags (flagged in the list)

    def set_marked(self, images: frozenset[int]) -> None:
        """Flag the rows of these image rows (tagged images)."""
        self.marked = images

    def is_marked(self, row: int) -> bool:
        return int(self.rows[row]) in self.marked

    def set_rows(
        self, dataset: Dataset | None, rows: np.ndarray, errors: ErrorCounts | None = None
    ) -> None:
        self.dataset, self.rows = dataset, np.asarray(rows, dtype=np.int64)
        self.errors = errors
        ids = dataset.images.id[self.rows].tolist() if dataset is not None else []
        self.setStringList([str(i) for i in ids])

    def count_text(self, row: int) -> str:
        """The number of objects in the image at ``row``."""
        ds, image = self.dataset, int(self.rows[row])
        return "" if ds is None else f"{ds.object_offsets[image + 1] - ds.object_offsets[image]}"

    def errors_text(self, row: int) -> str:
        if self.errors is None:
            return ""
        image = int(self.rows[row])
        fp, missed = int(self.errors.fp[image]), int(self.errors.missed[image])
        parts = ([f"{fp} FP"] if fp else []) + ([f"{missed} missed"] if missed else [])
        return " · ".join(parts)

    def tooltip(self, row: int) -> str:
        ds = self.dataset
        if ds is None:
            return ""
        image = int(self.rows[row])
        sl = ds.objects_of(image)
        n, hard = sl.stop - sl.start, int(np.count_nonzero(ds.objects.difficult[sl]))
        tip = f"{ds.images.id[image]} · {n} objects" + (f" ({hard} difficult)" if hard else "")
        errors = self.errors_text(row)
        return tip + (f" · {errors} (drawn)" if errors else "")

    def row_of(self, image: int) -> int:
        hit = np.flatnonzero(self.rows == image)
        return int(hit[0]) if len(hit) else -1


class ImageRowDelegate(QStyledItemDelegate):
    """Paints an image row compactly: id on the left; errors (red) and the object count (muted)
    right-aligned; the tooltip names the objects and errors."""

    def __init__(self, model: ImageListModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows = model

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        text, opt.text = opt.text, ""
        style = opt.widget.style() if opt.widget is not None else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        rect = opt.rect.adjusted(6, 0, -8, 0)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        ink = opt.palette.highlightedText() if selected else opt.palette.text()
        align = Qt.AlignmentFlag.AlignVCenter
        right = int(align | Qt.AlignmentFlag.AlignRight)
        painter.save()
        count = self.rows.count_text(index.row())
        errors = self.rows.errors_text(index.row())
        fm = painter.fontMetrics()
        gap = fm.horizontalAdvance(count + "   ")
        room = rect.width() - gap - (fm.horizontalAdvance(errors + "  ") if errors else 0)
        painter.setPen(ink.color())  # the id elided, never under the counts
        if self.rows.is_marked(index.row()):
            text = f"⚑ {text}"  # tagged
        text = fm.elidedText(text, Qt.TextElideMode.ElideMiddle, max(room, 0))
        painter.drawText(rect, int(align | Qt.AlignmentFlag.AlignLeft), text)
        painter.setPen(ink.color() if selected else opt.palette.placeholderText().color())
        painter.drawText(rect, right, count)
        if errors:
            painter.setPen(ink.color() if selected else ERROR_INK)
            painter.drawText(rect.adjusted(0, 0, -gap, 0), right, errors)
        painter.restore()

    def helpEvent(
        self,
        event: QHelpEvent,
        view: QAbstractItemView,
        option: QStyleOptionViewItem,
        index: Index,
    ) -> bool:
        if event.type() == QEvent.Type.ToolTip and index.isValid():
            QToolTip.showText(event.globalPos(), self.rows.tooltip(index.row()), view)
            return True
        return super().helpEvent(event, view, option, index)


class ImageBrowser(QWidget):
    """Image-set chooser, class filter, id search, filter menu and the (filtered) image list."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.set_combo = QComboBox()
        self.class_combo = QComboBox()
        self.class_combo.setMaxVisibleItems(25)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search ids (Ctrl+F)")
        self.search.setClearButtonEnabled(True)
        self.filter_button = QToolButton()
        self.filter_button.setText("Filter")
        wide = self.filter_button.fontMetrics().horizontalAdvance("Filter (3)")
        self.filter_button.setMinimumWidth(wide + 28)  # room for the menu arrow
        self.filter_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.filter_button.setToolTip("Show only images with flagged objects or errors; sort")
        self.filter_menu = QMenu(self)
        self.filter_button.setMenu(self.filter_menu)
        self.count_label = QLabel()
        self.count_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.count_label.setWordWrap(True)
        self.model = ImageListModel(self)
        self.list = QListView()
        self.list.setModel(self.model)
        self.list.setUniformItemSizes(True)
        self.list.setItemDelegate(ImageRowDelegate(self.model, self.list))
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Image set", self.set_combo)
        form.addRow("Class", self.class_combo)
        search_row = QHBoxLayout()
        search_row.addWidget(self.search, 1)
        search_row.addWidget(self.filter_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 0, 6)
        layout.addLayout(form)
        layout.addLayout(search_row)
        layout.addWidget(self.count_label)
        layout.addWidget(self.list, 1)
        fm = self.fontMetrics()  # "Image set", "All classes", the search hint: never cut
        self.setMinimumWidth(fm.horizontalAdvance("Image set  All classes") + 64)
        self._syncing = False  # widgets being set from the state's filter
        self._build_filter_menu()
        self.set_combo.activated.connect(self._on_set_chosen)
        self.class_combo.activated.connect(self._on_class_chosen)
        self.search.textChanged.connect(self._apply_filter)
        self.search.returnPressed.connect(self.open_first_match)
        self.list.selectionModel().currentChanged.connect(self._on_current_row)
        state.dataset_loaded.connect(self._on_dataset_loaded)
        state.image_set_changed.connect(self._sync_set_combo)
        state.class_changed.connect(self._sync_class_combo)
        state.visible_images_changed.connect(self._on_visible_changed)
        state.image_changed.connect(self._sync_current)
        state.results_added.connect(self._enable_error_filters)
        state.image_filter_changed.connect(self._sync_filter)

    def _build_filter_menu(self) -> None:
        menu = self.filter_menu
        self.flag_actions: dict[str, QAction] = {}
        for name, text in FLAG_NAMES.items():
            act = menu.addAction(f"With {text}")
            act.setStatusTip(f"List only the images with {text}")
            act.setCheckable(True)
            act.setEnabled(False)
            act.toggled.connect(self._apply_filter)
            self.flag_actions[name] = act
        menu.addSeparator()
        group = QActionGroup(self)
        self.error_actions: dict[str, QAction] = {}
        for key, text in {"": "Any image, errors or not", **ERROR_FILTERS}.items():
            act = menu.addAction(f"With {text}" if key else text)
            act.setCheckable(True)
            act.setChecked(not key)
            act.setToolTip("For the current result set and class, at the score threshold")
            act.setStatusTip(
                f"List only the images with {text}, for the current result set and class"
                if key
                else "List the images whatever their errors"
            )
            group.addAction(act)
            act.toggled.connect(self._apply_filter)
            self.error_actions[key] = act
        menu.addSeparator()
        self.sort_action = menu.addAction("Sort by errors (most first)")
        self.sort_action.setCheckable(True)
        self.sort_action.setStatusTip("Put the images with the most errors first")
        self.sort_action.toggled.connect(self._apply_filter)
        self.score_sort_action = menu.addAction("Sort by top score (highest first)")
        self.score_sort_action.setCheckable(True)
        self.score_sort_action.setStatusTip(
            "Put the images with the highest-scoring detection (of the class) first"
        )
        self.score_sort_action.toggled.connect(self._apply_filter)
        sorts = QActionGroup(self)  # one order at a time, or none (list order)
        sorts.setExclusionPolicy(QActionGroup.ExclusionPolicy.ExclusiveOptional)
        sorts.addAction(self.sort_action)
        sorts.addAction(self.score_sort_action)
        menu.addSeparator()
        menu.addAction("Clear filters", self.clear_filters).setStatusTip(
            "List every image of the image set and class again"
        )

    def current_filter(self) -> ImageFilter:
        """The view's filter with the image-list fields the widgets describe (the filter
        panel's fields as they are)."""
        flags = frozenset(k for k, a in self.flag_actions.items() if a.isChecked())
        errors = next((k for k, a in self.error_actions.items() if a.isChecked()), "")
        return replace(
            self.state.image_filter,
            text=self.search.text().strip(),
            flags=tuple(flags),
            errors=errors,
            by_errors=self.sort_action.isChecked(),
            by_score=self.score_sort_action.isChecked(),
        )

    def clear_filters(self) -> None:
        """Every filter off: the menu's, the search and the filter panel's."""
        self.state.set_image_filter(ImageFilter())

    def _apply_filter(self, *_args: object) -> None:
        if not self._syncing:
            self.state.set_image_filter(self.current_filter())

    def _sync_filter(self, flt: ImageFilter) -> None:
        """Show ``flt``'s image-list fields (set by the filter panel, a session, a saved view)."""
        self._syncing = True
        try:
            for name, act in self.flag_actions.items():
                act.setChecked(name in flt.flags)
            self.error_actions.get(flt.errors, self.error_actions[""]).setChecked(True)
            self.sort_action.setChecked(flt.by_errors)
            self.score_sort_action.setChecked(flt.by_score and not flt.by_errors)
            if self.search.text().strip() != flt.text:
                self.search.setText(flt.text)
        finally:
            self._syncing = False
        n = len(flt.flags) + bool(flt.errors) + flt.by_errors + flt.by_score
        panel = ("score", "classes", "verdicts", "fp_kinds", "area", "aspect", "tags")
        n += sum(getattr(flt, f) not in (None, ()) for f in panel)  # the filter panel's fields
        self.filter_button.setText(f"Filter ({n})" if n else "Filter")

    def open_first_match(self) -> None:
        """Enter in the search: open the first listed image (unless the current one is listed)
        and hand the keyboard to the list."""
        st = self.state
        if len(st.visible_images) and not (st.visible_images == st.current_image).any():
            st.set_current_image(int(st.visible_images[0]))
        self.list.setFocus()

    def focus_search(self) -> None:
        """Put the cursor in the id search, its text selected (View ▸ Find image, Ctrl+F)."""
        self.search.setFocus()
        self.search.selectAll()

    def _on_dataset_loaded(self, dataset: Dataset) -> None:
        self.set_combo.clear()
        for label, key in image_set_choices(dataset):
            self.set_combo.addItem(label, key)
        self.class_combo.clear()
        self.class_combo.addItem("All classes", -1)
        for k, name in enumerate(dataset.classes):
            self.class_combo.addItem(name, k)
        self._enable_error_filters()
        present = object_flags(dataset)
        for name, act in self.flag_actions.items():
            act.setEnabled(name in present)
            act.setVisible(name in present or name != "crowd")

    def _enable_error_filters(self, *_args: object) -> None:
        """Error filters and sorting need an evaluated result set."""
        has = bool(self.state.results)
        for key, act in self.error_actions.items():
            act.setEnabled(has or not key)
        self.sort_action.setEnabled(has)

    def _on_set_chosen(self, i: int) -> None:
        self.state.set_image_set(self.set_combo.itemData(i))

    def _on_class_chosen(self, i: int) -> None:
        self.state.select_class(int(self.class_combo.itemData(i)))

    def _sync_set_combo(self, key: str | None) -> None:
        i = self.set_combo.findData(key)
        if i >= 0:
            self.set_combo.setCurrentIndex(i)

    def _sync_class_combo(self, k: int) -> None:
        self.class_combo.setCurrentIndex(max(self.class_combo.findData(k), 0))

    def _on_visible_changed(self) -> None:
        st = self.state
        errors = st.listing.errors if st.listing is not None else None
        self.model.set_rows(st.dataset, st.visible_images, errors)
        n = len(st.visible_images)
        total = len(st.dataset.images) if st.dataset is not None else 0
        text = f"{n:,} image{'s' if n != 1 else ''}"
        text = text if n == total else f"{text} of {total:,}"
        if st.image_filter.judges_boxes:  # the filter panel's box fields: what they keep
            _, objects, detections = st.kept.counts()
            text += f" · {objects:,} objects" + (
                f" · {detections:,} detections" if st.kept.result_set >= 0 else ""
            )
        self.count_label.setText(text)
        self._sync_current(st.current_image)

    def _sync_current(self, image: int) -> None:
        row = self.model.row_of(image)
        if row < 0:
            self.list.clearSelection()
            return
        index = self.model.index(row)
        self.list.setCurrentIndex(index)
        self.list.scrollTo(index)

    def _on_current_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.state.set_current_image(int(self.model.rows[current.row()]))
