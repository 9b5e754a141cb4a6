"""``FilterPanel``: the view's filter field by field — score range, classes, verdicts and
false-positive kinds, box area and aspect ranges, object flags, tags, the judged result set —
with the counts it leaves and the saved views.

The panel edits the one filter record (``AppState.image_filter``, a ``core.view_filter.ViewFilter``)
that the browser's search and Filter menu edit too, so the image list, the thumbnail grid and
the walk follow it together. Edits are coalesced (``Debounced``): typing a range or ticking
boxes in a row filters once. Saved views (``SavedViews``) are named filters; choosing one
applies it; sessions and Open Recent keep them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtGui import QDoubleValidator, QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from vocviewer.core.tags import COMMON_TAGS
from vocviewer.core.view_filter import FLAG_KEYS, Range, ViewFilter
from vocviewer.gui.models.debounce import Debounced
from vocviewer.gui.models.image_filter import FLAG_NAMES, object_flags
from vocviewer.gui.models.saved_views import SavedViews
from vocviewer.gui.models.state import AppState

#: How long the panel waits for more edits before filtering (ms).
EDIT_DELAY_MS = 150
VERDICT_LABELS = {"tp": "TP", "fp": "FP", "ignored": "Ignored", "missed": "Missed"}
KIND_LABELS = {
    "background": "Background",
    "localization": "Poor localisation",
    "duplicate": "Duplicate",
    "similar": "Wrong class (similar)",
    "other": "Wrong class (other)",
}
#: Area presets (square pixels): COCO's small / medium / large.
AREA_PRESETS = {
    "Small (< 32²)": (-math.inf, 32.0**2),
    "Medium (32²–96²)": (32.0**2, 96.0**2),
    "Large (> 96²)": (96.0**2, math.inf),
    "Any area": None,
}
UNSAVED = "(current filter)"


class RangeEdit(QWidget):
    """Two number fields, ``lo`` – ``hi``; an empty field leaves that end open."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lo, self.hi = QLineEdit(), QLineEdit()
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        for edit, hint in ((self.lo, "min"), (self.hi, "max")):
            edit.setPlaceholderText(hint)
            edit.setValidator(QDoubleValidator(edit))
            edit.setClearButtonEnabled(True)
            edit.setMinimumWidth(edit.fontMetrics().horizontalAdvance("0.0000") + 12)
        row.addWidget(self.lo, 1)
        row.addWidget(QLabel("–"))
        row.addWidget(self.hi, 1)

    def value(self) -> Range | None:
        def end(edit: QLineEdit, default: float) -> float:
            try:
                return float(edit.text().replace(",", "."))
            except ValueError:
                return default

        lo, hi = end(self.lo, -math.inf), end(self.hi, math.inf)
        return None if (lo, hi) == (-math.inf, math.inf) else (lo, hi)

    def set_value(self, r: Range | None) -> None:
        lo, hi = r if r is not None else (-math.inf, math.inf)
        self.lo.setText("" if math.isinf(lo) else f"{lo:g}")
        self.hi.setText("" if math.isinf(hi) else f"{hi:g}")


def check_list(rows: int) -> QListWidget:
    """A list of checkable names, ``rows`` rows tall."""
    box = QListWidget()
    box.setUniformItemSizes(True)
    box.setMaximumHeight(box.fontMetrics().height() * rows + 12)
    return box


def checked(box: QListWidget) -> tuple[str, ...]:
    return tuple(
        box.item(i).text()
        for i in range(box.count())
        if box.item(i).checkState() == Qt.CheckState.Checked
    )


def set_checked(box: QListWidget, names: tuple[str, ...]) -> None:
    for i in range(box.count()):
        item = box.item(i)
        on = item.text() in names
        item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)


def fill(box: QListWidget, names: list[str]) -> None:
    box.clear()
    for name in names:
        fill_one(box, name)


def fill_one(box: QListWidget, name: str) -> None:
    """Add ``name``, unchecked."""
    item = QListWidgetItem(name)
    item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
    item.setCheckState(Qt.CheckState.Unchecked)
    box.addItem(item)


class FilterPanel(QScrollArea):
    """The filter's fields over ``state``, the counts it leaves and ``views``, the saved ones."""

    def __init__(self, state: AppState, views: SavedViews, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state, self.views = state, views
        self._syncing = False
        self._apply_later = Debounced(self.apply, EDIT_DELAY_MS, self)
        body = QWidget()
        self.setWidget(body)
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        # saved views
        self.view_combo = QComboBox()
        self.view_combo.setToolTip("Apply a saved view (a named filter)")
        self.save_button = QPushButton("Save…")
        self.save_button.setToolTip("Save the filter as a named view (kept in the session)")
        self.delete_button = QToolButton()
        self.delete_button.setText("Delete")
        self.delete_button.setToolTip("Forget the chosen saved view")
        views_row = QHBoxLayout()
        views_row.addWidget(self.view_combo, 1)
        views_row.addWidget(self.save_button)
        views_row.addWidget(self.delete_button)
        # fields
        self.score = RangeEdit()
        self.classes = check_list(5)
        self.verdicts = {k: QCheckBox(t) for k, t in VERDICT_LABELS.items()}
        self.kinds = {k: QCheckBox(t) for k, t in KIND_LABELS.items()}
        self.area = RangeEdit()
        self.area_presets = QToolButton()
        self.area_presets.setText("S·M·L")
        self.area_presets.setToolTip("COCO's small, medium and large")
        self.area_presets.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        wide = self.area_presets.fontMetrics().horizontalAdvance("S·M·L")
        self.area_presets.setMinimumWidth(wide + 24)  # room for the menu arrow
        presets = QMenu(self.area_presets)
        for text, r in AREA_PRESETS.items():
            presets.addAction(text, self._preset_of(r))
        self.area_presets.setMenu(presets)
        self.aspect = RangeEdit()
        self.flags = {k: QCheckBox(k.capitalize()) for k in FLAG_KEYS}
        self.tags = check_list(4)
        self.judged = QComboBox()
        self.judged.setToolTip("The result set whose detections the filter judges")
        self.clear_button = QPushButton("Clear")
        self.clear_button.setToolTip("Every filter off (the search and the Filter menu too)")
        self.counts = QLabel()
        self.counts.setWordWrap(True)
        self.counts.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setForegroundRole(QPalette.ColorRole.PlaceholderText)

        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow("Score", self.score)
        form.addRow("Classes", self.classes)
        form.addRow("Verdicts", grid(list(self.verdicts.values()), 2))
        form.addRow("FP kinds", grid(list(self.kinds.values()), 1))
        area_row = QHBoxLayout()
        area_row.setContentsMargins(0, 0, 0, 0)
        area_row.addWidget(self.area, 1)
        area_row.addWidget(self.area_presets)
        form.addRow("Box area", area_row)
        form.addRow("Aspect w/h", self.aspect)
        form.addRow("Images with", grid(list(self.flags.values()), 2))
        form.addRow("Tags", self.tags)
        form.addRow("Judge", self.judged)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(views_row)
        layout.addWidget(self.counts)
        layout.addWidget(self.summary)
        layout.addLayout(form)
        layout.addWidget(self.clear_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addStretch(1)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        bar = self.verticalScrollBar().sizeHint().width()
        self.setMinimumWidth(body.minimumSizeHint().width() + bar + 2)  # never cut at the right

        for edit in (self.score, self.area, self.aspect):
            edit.lo.textChanged.connect(self._apply_later.request)
            edit.hi.textChanged.connect(self._apply_later.request)
        for box in (*self.verdicts.values(), *self.kinds.values(), *self.flags.values()):
            box.toggled.connect(self._apply_later.request)
        for lst in (self.classes, self.tags):
            lst.itemChanged.connect(self._apply_later.request)
        self.judged.activated.connect(self._apply_later.request)
        self.clear_button.clicked.connect(self.clear)
        self.save_button.clicked.connect(lambda: self.save_view())
        self.delete_button.clicked.connect(self._delete_chosen)
        self.view_combo.activated.connect(self._on_view_chosen)
        self.views_menu = QMenu("Saved &views")  # the same views, for the Filter menu
        self.views_menu.menuAction().setStatusTip("Apply a filter saved by name")
        views.changed.connect(self._fill_views)
        state.dataset_loaded.connect(self._on_dataset_loaded)
        state.results_added.connect(self._fill_judged)
        state.image_filter_changed.connect(self.show_filter)
        state.visible_images_changed.connect(self._show_counts)
        self._fill_views()
        self._fill_judged()
        self._show_counts()

    # --- widgets → state -------------------------------------------------------------------
    def current_filter(self) -> ViewFilter:
        """The state's filter with the fields the panel shows."""
        data = self.judged.currentData()
        return replace(
            self.state.image_filter,
            score=self.score.value(),
            classes=checked(self.classes),
            verdicts=tuple(k for k, b in self.verdicts.items() if b.isChecked()),
            fp_kinds=tuple(k for k, b in self.kinds.items() if b.isChecked()),
            area=self.area.value(),
            aspect=self.aspect.value(),
            flags=tuple(k for k, b in self.flags.items() if b.isChecked()),
            tags=checked(self.tags),
            result_set=data if isinstance(data, int) and data >= 0 else None,
        )

    def apply(self) -> None:
        """Filter now with what the widgets say (edits otherwise wait ``EDIT_DELAY_MS``)."""
        if not self._syncing:
            self.state.set_image_filter(self.current_filter())

    def flush(self) -> None:
        """Run a pending edit now."""
        self._apply_later.flush()

    def clear(self) -> None:
        self.state.set_image_filter(ViewFilter())

    def _preset(self, r: Range | None) -> None:
        self.area.set_value(r)
        self._apply_later.flush()

    def _preset_of(self, r: Range | None) -> Callable[[], None]:
        return lambda: self._preset(r)

    # --- state → widgets -------------------------------------------------------------------
    def show_filter(self, flt: ViewFilter) -> None:
        """Show ``flt`` in the widgets (without filtering again)."""
        self._syncing = True
        try:
            self.score.set_value(flt.score)
            set_checked(self.classes, flt.classes)
            for key, box in self.verdicts.items():
                box.setChecked(key in flt.verdicts)
            for key, box in self.kinds.items():
                box.setChecked(key in flt.fp_kinds)
            self.area.set_value(flt.area)
            self.aspect.set_value(flt.aspect)
            for key, box in self.flags.items():
                box.setChecked(key in flt.flags)
            missing = [t for t in flt.tags if not self.tags.findItems(t, Qt.MatchFlag.MatchExactly)]
            for tag in missing:  # a tag of a saved view that no menu offers
                fill_one(self.tags, tag)
            set_checked(self.tags, flt.tags)
            self.judged.setCurrentIndex(max(self.judged.findData(flt.result_set), 0))
        finally:
            self._syncing = False
        name = self.views.name_of(flt)
        self.view_combo.setCurrentIndex(max(self.view_combo.findText(name or UNSAVED), 0))
        self.summary.setText(f"Keeps: {flt.describe()}")

    def _show_counts(self) -> None:
        st = self.state
        ds = st.dataset
        if ds is None:
            self.counts.setText("No dataset open")
            return
        images, objects, detections = st.kept.counts()
        total_det = (
            len(st.results[st.kept.result_set].results.detections) if st.kept.result_set >= 0 else 0
        )
        det = f" · {detections:,} of {total_det:,} detections" if st.kept.result_set >= 0 else ""
        self.counts.setText(
            f"{images:,} of {len(ds.images):,} images · {objects:,} of {len(ds.objects):,} "
            f"objects{det}"
        )

    def _on_dataset_loaded(self, _dataset: object) -> None:
        ds = self.state.dataset
        assert ds is not None
        fill(self.classes, list(ds.classes))
        present = object_flags(ds)
        for key, box in self.flags.items():
            box.setEnabled(key in present)
            box.setToolTip(f"Only images with {FLAG_NAMES[key]}")
            box.setVisible(key in present or key != "crowd")
        fill(self.tags, list(COMMON_TAGS))
        self._fill_judged()
        self.show_filter(self.state.image_filter)

    def _fill_judged(self, *_args: object) -> None:
        self.judged.clear()
        self.judged.addItem("The shown result set", -1)
        for i, loaded in enumerate(self.state.results):
            self.judged.addItem(loaded.results.name, i)
        has = bool(self.state.results)
        for box in (*self.verdicts.values(), *self.kinds.values()):
            box.setEnabled(has)
        self.score.setEnabled(has)
        self.judged.setEnabled(len(self.state.results) > 1)

    # --- saved views -----------------------------------------------------------------------
    def save_view(self, name: str | None = None) -> str | None:
        """Save the filter as ``name`` (asked for, the filter's description offered, if not
        given); the name, or ``None`` if cancelled."""
        self.flush()
        flt = self.state.image_filter
        if name is None:
            name, ok = QInputDialog.getText(
                self, "Save view", "Name of the view:", text=flt.describe()
            )
            if not ok:
                return None
        name = name.strip()
        if not name:
            return None
        self.views.save(name, flt)
        self.view_combo.setCurrentIndex(self.view_combo.findText(name))
        return name

    def apply_view(self, name: str) -> bool:
        """Apply the saved view ``name``; whether there is one."""
        flt = self.views.views.get(name)
        if flt is None:
            return False
        self.state.set_image_filter(flt)
        return True

    def _on_view_chosen(self, index: int) -> None:
        if index > 0:
            self.apply_view(self.view_combo.itemText(index))

    def _delete_chosen(self) -> None:
        if self.view_combo.currentIndex() > 0:
            self.views.remove(self.view_combo.currentText())

    def _fill_views(self) -> None:
        self.view_combo.clear()
        self.view_combo.addItem(UNSAVED)
        for name, flt in self.views.views.items():
            self.view_combo.addItem(name)
            tip = f"{name}: keeps {flt.describe()}"
            self.view_combo.setItemData(
                self.view_combo.count() - 1, tip, Qt.ItemDataRole.ToolTipRole
            )
        found = self.views.name_of(self.state.image_filter)
        self.view_combo.setCurrentIndex(max(self.view_combo.findText(found or UNSAVED), 0))
        self.delete_button.setEnabled(bool(self.views.views))
        self.views_menu.clear()
        for name, flt in self.views.views.items():
            act = self.views_menu.addAction(name, self._view_applier(name))
            act.setStatusTip(f"Apply the saved view: keeps {flt.describe()}")
        self.views_menu.setEnabled(bool(self.views.views))

    def _view_applier(self, name: str) -> Callable[[], object]:
        return lambda: self.apply_view(name)


def grid(boxes: list[QWidget], columns: int) -> QWidget:
    holder = QWidget()
    layout = QGridLayout(holder)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setVerticalSpacing(2)
    for n, box in enumerate(boxes):
        layout.addWidget(box, n // columns, n % columns)
    return holder
