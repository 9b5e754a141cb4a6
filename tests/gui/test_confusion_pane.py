"""The confusion-matrix tab: counts from the protocol's verdicts, cell members, opening one.

Tiny set (conftest), dog detections by rank: 0 (0.9) TP on img1, 1 (0.8) duplicate on img1,
2 (0.7) TP on img3, 3 (0.6) FP on img2 overlapping nothing of another class by 0.5 (the cat box
11..120 x 11..100 against 130..180 x 20..60: no overlap at all); cat 0.95 TP; person 0.55 ignored
(difficult), so it is counted nowhere and the difficult person is never missed.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from vocviewer.core.dataset import VOC_CLASSES

DOG, CAT, PERSON = (VOC_CLASSES.index(c) for c in ("dog", "cat", "person"))
K = len(VOC_CLASSES)
DUP, BACKGROUND, MISSED = K, K + 1, K + 2


def show_confusion(qtbot, window):
    pane = window.confusion
    assert pane.matrix is None  # not computed while hidden
    window.right_tabs.setCurrentWidget(pane)
    qtbot.waitUntil(lambda: pane.matrix is not None, timeout=5000)
    return pane


def test_counts_follow_the_verdicts_and_the_threshold(qtbot, window):
    pane = show_confusion(qtbot, window)
    expected = np.zeros((K, K + 3), dtype=np.int64)
    expected[DOG, DOG], expected[DOG, DUP], expected[DOG, BACKGROUND] = 2, 1, 1
    expected[CAT, CAT] = 1
    assert np.array_equal(pane.matrix.counts, expected)
    assert pane.model.rowCount() == K and pane.model.columnCount() == K + 3

    old = pane.matrix
    window.state.set_threshold(0.75)  # drops the 0.6 FP and the 0.7 TP: img3's dog is missed
    qtbot.waitUntil(lambda: pane.matrix is not old, timeout=5000)
    expected[DOG, DOG], expected[DOG, BACKGROUND], expected[DOG, MISSED] = 1, 0, 1
    assert np.array_equal(pane.matrix.counts, expected)
    assert pane.matrix.score_threshold == 0.75 and pane.matrix.iou_threshold == 0.5


def test_compact_view_keeps_classes_with_counts_and_the_extra_columns(qtbot, window):
    pane = show_confusion(qtbot, window)
    pane.compact.setChecked(True)
    assert pane.model.rows.tolist() == [CAT, DOG]
    assert pane.model.cols.tolist() == [DUP, BACKGROUND, MISSED, CAT, DOG]  # extras first


def test_clicking_a_cell_lists_it_and_enter_opens_the_detection(qtbot, window):
    pane = show_confusion(qtbot, window)
    pane.select_cell(DOG, BACKGROUND)
    rows = pane.members.rows_model.rows
    assert rows == [("4", "0.600", "img2", "on nothing")]
    assert "1 false positive dog detection on no object" in pane.cell_label.text()
    pane.members.selectRow(0)
    qtbot.keyClick(pane.members, "\r")
    st = window.state
    assert st.selected_detection == (DOG, 3) and st.current_image == 1
    qtbot.waitUntil(lambda: window.view.highlighted_item() is not None, timeout=5000)

    pane.select_cell(DOG, DUP)
    assert pane.members.rows_model.rows == [("2", "0.800", "img1", "duplicate of rank 1")]


def test_missed_cell_opens_the_object(qtbot, window):
    pane = show_confusion(qtbot, window)
    st = window.state
    old = pane.matrix
    st.set_threshold(0.75)
    qtbot.waitUntil(lambda: pane.matrix is not old, timeout=5000)
    pane.select_cell(DOG, MISSED)
    assert pane.members.rows_model.rows == [("—", "—", "img3", "dog #1")]
    pane.members.row_activated.emit(0)
    assert st.current_image == 2 and st.selected_object == 3 and st.selected_class == DOG


def test_headers_are_whole_names_read_bottom_to_top(qtbot, window):
    from PySide6.QtCore import Qt

    from vocviewer.gui.widgets.rotated_header import RotatedHeader

    pane = show_confusion(qtbot, window)
    horizontal = Qt.Orientation.Horizontal
    # view columns: duplicate, background, missed, then the classes, each named in full
    assert pane.model.headerData(1, horizontal, Qt.ItemDataRole.DisplayRole) == "background"
    assert pane.model.headerData(1, horizontal, Qt.ItemDataRole.ToolTipRole) == "background"
    assert pane.model.headerData(3 + DOG, horizontal, Qt.ItemDataRole.DisplayRole) == "dog"
    vertical = Qt.Orientation.Vertical
    assert pane.model.headerData(DOG, vertical, Qt.ItemDataRole.DisplayRole) == "dog"
    header = pane.table.horizontalHeader()
    assert isinstance(header, RotatedHeader)
    fm = header.fontMetrics()  # tall enough for "background" upright, narrow columns
    assert header.sizeHint().height() >= fm.horizontalAdvance("background")
    assert header.sectionSize(1) < fm.horizontalAdvance("background")


def test_export_and_right_click_menus(qtbot, window, tmp_path_factory):
    import csv
    import json

    from PySide6.QtCore import Qt

    pane = show_confusion(qtbot, window)
    out = tmp_path_factory.mktemp("exports")
    window.export_confusion(str(out / "confusion.csv"))
    rows = list(csv.reader((out / "confusion.csv").read_text().splitlines()))
    assert rows[0][1:] == [*VOC_CLASSES, "duplicate", "background", "missed"]
    dog = next(r for r in rows if r[0] == "dog")
    assert [int(v) for v in dog[1:]] == pane.matrix.counts[DOG].tolist()
    window.export_confusion(str(out / "confusion.json"))
    assert json.loads((out / "confusion.json").read_text())["counts"] == pane.matrix.counts.tolist()
    for widget, action in (
        (pane.table, window.exporting.act_export_confusion),
        (window.view, window.exporting.act_export_image),
        (window.ap_table, window.exporting.act_export_table),
    ):
        assert widget.contextMenuPolicy() == Qt.ContextMenuPolicy.ActionsContextMenu
        assert action in widget.actions()


def test_arrow_keys_move_between_cells_not_images(qtbot, window):
    from PySide6.QtCore import Qt

    pane = show_confusion(qtbot, window)
    pane.select_cell(DOG, DOG)
    pane.table.setFocus()
    image = window.state.current_image
    column = pane.table.currentIndex().column()
    qtbot.keyClick(pane.table, Qt.Key.Key_Right)
    assert pane.table.currentIndex().column() == column + 1
    assert window.state.current_image == image


def test_rows_normalised_and_the_diagonal_hidden(qtbot, window):
    """Shares of each row (dog: 2 TP, 1 duplicate, 1 background of 4) and a blank diagonal;
    the counts and the cell's members stay."""
    pane = show_confusion(qtbot, window)
    model = pane.model
    model.set_view(False, False)
    pane.normalise.setChecked(True)
    idx = model.index(int(np.flatnonzero(model.rows == DOG)[0]), 0)
    cols = model.cols.tolist()

    def shown(col: int) -> str | None:
        return model.data(idx.siblingAtColumn(cols.index(col)), Qt.ItemDataRole.DisplayRole)

    assert (shown(DOG), shown(DUP), shown(BACKGROUND), shown(CAT)) == ("0.50", "0.25", "0.25", "")
    pane.hide_diagonal.setChecked(True)
    assert shown(DOG) is None and shown(DUP) == "0.25"
    assert pane.matrix.counts[DOG, DOG] == 2  # the counts are unchanged
    pane.normalise.setChecked(False)
    assert shown(DUP) == "1" and shown(DOG) is None


@pytest.mark.parametrize("size", [(1400, 900), (1366, 768)])
def test_summary_spans_the_pane_at_the_default_window_sizes(qtbot, make_window, demo, size):
    """The summary has its own row: beside the check boxes it was squeezed to ~4 px, one letter
    a line, at the window's default size on the demo."""
    win = make_window(size=size)
    win.open_dataset(demo.year_dir, (demo.results_dir,), "val")
    st = win.state
    qtbot.waitUntil(lambda: st.dataset is not None and st.current_results >= 0, timeout=30_000)
    pane = win.confusion
    win.right_tabs.setCurrentWidget(pane)
    qtbot.waitUntil(lambda: pane.matrix is not None, timeout=30_000)
    assert pane.summary.isVisible() and "score" in pane.summary.text()
    assert pane.summary.width() >= pane.width() / 2
    line = pane.summary.fontMetrics().height()
    assert pane.summary.height() < 3 * line  # a line or two, not a letter a line
