"""``MemberList``: the Analysis tab's list under a chart (laid out by ``chart_over_list``) — the detections or objects a bar, band
or bin stands for. Choosing a row opens it in the image view, as the PR curve and the confusion
matrix do: a detection the window ranks is selected (``AppState.select_detection_row``), one it
does not rank opens its image; an object is selected in its image (``AppState.select_object``).
Enter or double-click also zooms to it; "Walk" sets the detection walk to the closest mode.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLayout,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from vocviewer.evaluation.analysis import object_name
from vocviewer.gui.models.analysis_tasks import Members
from vocviewer.gui.models.state import AppState
from vocviewer.gui.models.walk import WALK_MODES, DetectionWalk
from vocviewer.gui.widgets.rows_table import RowsTable
from vocviewer.gui.widgets.verdict_style import MISSED_COLOR

#: an object row's status ("missed", "found") and its colour (``None``: the table's own)
ObjectDetail = Callable[[int], tuple[str, QColor | None]]
#: the list's columns for detections and for objects
DETECTION_HEADERS = ("Rank", "Score", "Image", "Detail")
OBJECT_HEADERS = ("Status", "Class", "Image", "Object")


def rich_header() -> QLabel:
    """The wrapped rich-text line above a chart."""
    header = QLabel()
    header.setWordWrap(True)
    header.setTextFormat(Qt.TextFormat.RichText)
    return header


def chart_over_list(head: QWidget | QLayout, plot: QWidget, members: QWidget) -> QSplitter:
    """``head`` (a header or a row of them) above ``plot``, over ``members`` (the list a click
    fills), in a vertical splitter (260 : 140)."""
    top = QWidget()
    box = QVBoxLayout(top)
    box.setContentsMargins(0, 0, 0, 0)
    if isinstance(head, QLayout):
        box.addLayout(head)
    else:
        box.addWidget(head)
    box.addWidget(plot, 1)
    splitter = QSplitter(Qt.Orientation.Vertical)
    splitter.addWidget(top)
    splitter.addWidget(members)
    splitter.setSizes([260, 140])
    return splitter


def fill_with(owner: QWidget, child: QWidget) -> None:
    """``child`` as ``owner``'s only content, edge to edge."""
    layout = QVBoxLayout(owner)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(child)


def no_members() -> Members:
    return Members(np.zeros(0, np.int64), False)


class MemberList(QWidget):
    """A caption with a "Walk" button over the rows of a ``Members``.

    Signals
    -------
    zoom_requested()
        A member was opened (Enter / double-click): show it zoomed in.
    """

    zoom_requested = Signal()

    def __init__(
        self,
        state: AppState,
        walk: DetectionWalk | None,
        placeholder: str,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.state, self.walk, self.placeholder = state, walk, placeholder
        self.list_label = QLabel(placeholder)
        self.list_label.setWordWrap(True)
        self.walk_button = QPushButton("Walk these")
        self.walk_button.setEnabled(False)
        self.walk_button.setVisible(walk is not None)
        self.members = RowsTable(DETECTION_HEADERS, long=True)
        self.members.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        caption = QHBoxLayout()
        caption.addWidget(self.list_label, 1)
        caption.addWidget(self.walk_button)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addLayout(caption)
        box.addWidget(self.members, 1)
        self._members = no_members()
        self._walk_key: str | None = None
        self.members.row_chosen.connect(self.select)
        self.members.row_activated.connect(self._open)
        self.walk_button.clicked.connect(self.walk_these)

    def clear(self, text: str | None = None) -> None:
        """No members; the caption says ``text`` (default: the placeholder)."""
        self._members, self._walk_key = no_members(), None
        self.members.set_rows([], [], [])
        self.list_label.setText(self.placeholder if text is None else text)
        self.list_label.setToolTip("")
        self.walk_button.setEnabled(False)
        self.walk_button.setText("Walk these")

    def show_members(
        self,
        m: Members,
        caption: str,
        tip: str,
        detail: Callable[[int], str],
        walk_key: str | None = None,
        object_detail: ObjectDetail | None = None,
    ) -> None:
        """List ``m`` (detections: ``detail(row)`` in the last column; objects: the status
        ``object_detail(row)`` gives, default "missed" in the missed colour) under ``caption``."""
        st, ds = self.state, self.state.dataset
        self._members, self._walk_key = m, walk_key
        self.members.rows_model.headers = OBJECT_HEADERS if m.objects else DETECTION_HEADERS
        light = self.palette().color(QPalette.ColorRole.Base).lightness() > 128
        rows: list[tuple[str, ...]] = []
        colors: list[QColor | None] = []
        i = st.current_results
        ranks = st.evaluations[i].rank_by_row if i >= 0 else np.zeros(0, np.int64)
        det = st.results[i].results.detections if i >= 0 else None
        if ds is not None:
            for r in m.rows.tolist():
                if m.objects:
                    obj = ds.objects
                    image = str(ds.images.id[int(obj.image_index[r])])
                    status, color = object_detail(r) if object_detail else ("missed", MISSED_COLOR)
                    if color is not None and light and color.lightness() > 140:
                        color = color.darker(170)  # the yellow of missed objects, readable
                    cls = ds.classes[int(obj.label[r])]
                    rows.append((status, cls, image, object_name(ds, r)))
                    colors.append(color)
                    continue
                if det is None:
                    continue
                rank = int(ranks[r]) + 1 if r < len(ranks) and ranks[r] >= 0 else 0
                image = str(ds.images.id[int(det.image_index[r])])
                rows.append((str(rank) if rank else "—", f"{det.score[r]:.3f}", image, detail(r)))
                colors.append(None)
        self.members.set_rows(rows, list(range(len(rows))), colors)
        self.list_label.setText(caption)
        self.list_label.setToolTip(f"{tip}. Enter or double-click opens one.")
        mode = next((w for w in WALK_MODES if w.key == walk_key), None)
        self.walk_button.setEnabled(self.walk is not None and mode is not None)
        self.walk_button.setText(f"Walk: {mode.label}" if mode else "Walk these")
        self.walk_button.setToolTip(
            "Set the detection walk (Walk menu) to this mode: the window's own diagnosis of "
            "its false positives at the chosen IoU, the closest to this list"
            if mode
            else "The detection walk has no mode for this list"
        )

    def member_rows(self) -> Members:
        """The rows the list shows (detection or object rows), in its order."""
        return self._members

    def _open(self, key: int) -> None:
        self.select(key)
        self.zoom_requested.emit()

    def select(self, key: int) -> None:
        """Open listed row ``key`` in the image view."""
        m, st = self._members, self.state
        if not 0 <= key < len(m.rows) or st.dataset is None or st.current_results < 0:
            return
        row = int(m.rows[key])
        if m.objects:
            st.set_current_image(int(st.dataset.objects.image_index[row]))
            st.select_object(row)
            return
        ranks = st.evaluations[st.current_results].rank_by_row
        if row < len(ranks) and ranks[row] >= 0:
            st.select_detection_row(row)
            return
        det = st.results[st.current_results].results.detections
        st.set_current_image(int(det.image_index[row]))  # not ranked in the window: its image

    def walk_these(self) -> None:
        """Set the detection walk to the list's mode."""
        if self.walk is not None and self._walk_key is not None:
            self.walk.set_mode(self._walk_key)
