"""No stale selection (issue 20, item 6): after walking to a detection, changing the image or the
selection by any route — the image list, the grid and Enter, the arrow keys, ``]``, the walk, a PR
click, a confusion cell, an Analysis row — leaves the PR marker, the Ranks row, the inspector and
the walk's note in the status bar agreeing with the current image and selection, or cleared."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from vocviewer.evaluation.result import Verdict


@pytest.fixture
def walked(qtbot, make_window, demo):
    """The demo window, person selected, three steps walked with ``.`` (the Walk menu's key)."""
    win = make_window()
    win.open_dataset(demo.year_dir, (demo.results_dir / "Main",))
    st = win.state
    qtbot.waitUntil(lambda: st.current_results >= 0 and st.is_idle(), timeout=60_000)
    st.select_class(st.dataset.classes.index("person"))
    return walk(qtbot, win, 3)


def walk(qtbot, win, steps: int):
    """``steps`` presses of ``.``; the window and the status note where the walk stands."""
    st = win.state
    win.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win, timeout=5000)
    for _ in range(steps):
        qtbot.keyClick(win, Qt.Key.Key_Period)
    qtbot.waitUntil(lambda: win.view.shown_image == st.current_image, timeout=10_000)
    assert st.selected_detection is not None and st.selected_detection[1] > 0
    walk_note = win.status.label.text()
    assert f"rank {st.selected_detection[1] + 1}" in walk_note and win.status.note_timer.isActive()
    assert_agree(win)
    return win, walk_note


def marker(win) -> list[tuple[float, float]]:
    x, y = win.pr_pane.marker.getData()
    return list(zip(np.asarray(x).tolist(), np.asarray(y).tolist(), strict=True))


def assert_agree(win, stale_note: str = "") -> None:
    """PR marker, Ranks row, inspector and status line describe the state's selection."""
    st, side = win.state, win.side
    sel, why = st.selected_detection, side.why.text()
    ranks_selected = [i.row() for i in side.ranks.selectionModel().selectedRows()]
    status = win.status.label.text()
    if stale_note:
        assert status != stale_note, "the status bar still says where the walk was"
    if sel is None:
        assert marker(win) == []
        assert side.ranks.current_key() == -1 and ranks_selected == []
        assert not why.startswith("Rank ")
        if st.selected_object >= 0:
            assert int(st.dataset.objects.image_index[st.selected_object]) == st.current_image
            assert side.objects.current_key() == st.selected_object
        else:
            assert why.startswith("Select a detection")
        assert not (win.status.note_timer.isActive() and " rank " in status)  # no walk position
        return
    k, r = sel
    ev = st.class_evaluation(k)
    assert int(ev.image_index[r]) == st.current_image
    if win.pr_pane.evaluation is not None and win.pr_pane.evaluation.class_index == k:
        assert marker(win) == [(float(ev.recall[r]), float(ev.precision[r]))]
    else:
        assert marker(win) == []
    assert side.ranks.current_key() == r and ranks_selected == [r]
    assert why.startswith(f"Rank {r + 1} of {len(ev)}")
    if win.status.note_timer.isActive() and " rank " in status:  # a walk note names this detection
        assert f"{st.dataset.classes[k]} rank {r + 1}" in status


def other_image(st) -> int:
    """A visible image without the selected detection."""
    k, r = st.selected_detection
    here = int(st.class_evaluation(k).image_index[r])
    return int(next(i for i in st.visible_images if int(i) != here))


def test_image_list_clears_the_selection(qtbot, walked):
    win, note = walked
    st = win.state
    target = other_image(st)
    browser = win.browser
    browser.list.setCurrentIndex(browser.model.index(browser.model.row_of(target)))
    assert st.current_image == target
    assert st.selected_detection is None
    assert_agree(win, note)


def test_grid_and_enter_clear_the_selection(qtbot, walked):
    win, note = walked
    st = win.state
    target = other_image(st)
    qtbot.keyClick(win, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    grid = win.image_area.grid
    assert win.image_area.currentWidget() is grid
    grid.setCurrentIndex(grid.model_.index(grid.model_.row_of(target)))
    qtbot.keyClick(grid, Qt.Key.Key_Return)
    assert win.image_area.currentWidget() is win.view  # Enter opens the image
    assert st.current_image == target and st.selected_detection is None
    assert_agree(win, note)


@pytest.mark.parametrize("key", [Qt.Key.Key_Right, Qt.Key.Key_Left])
def test_arrow_keys_clear_the_selection(qtbot, walked, key):
    win, note = walked
    st = win.state
    before = st.current_image
    win.view.setFocus()
    qtbot.keyClick(win.view, key)
    assert st.current_image != before
    assert st.selected_detection is None
    assert_agree(win, note)


def test_next_false_positive_moves_everything_and_unsays_the_walk(qtbot, walked):
    win, note = walked
    st = win.state
    k, r = st.selected_detection
    qtbot.keyClick(win, Qt.Key.Key_BracketRight)
    k2, r2 = st.selected_detection
    ev = st.class_evaluation(k2)
    assert (k2, r2) != (k, r) and ev.verdict[r2] >= Verdict.FP
    assert_agree(win, note)
    assert not win.status.note_timer.isActive()


def test_each_walk_step_moves_everything(qtbot, walked):
    win, _note = walked
    st = win.state
    win.walk.walk.set_mode("fp")
    for _ in range(3):
        qtbot.keyClick(win, Qt.Key.Key_Period)
        k, r = st.selected_detection
        assert f"{st.dataset.classes[k]} rank {r + 1}" in win.status.label.text()
        assert_agree(win)
    win.walk.walk.set_mode("missed")  # an object walk: the detection goes
    qtbot.keyClick(win, Qt.Key.Key_Period)
    assert st.selected_detection is None and st.selected_object >= 0
    assert_agree(win)


def test_pr_click_selects_the_drop_everywhere(qtbot, walked):
    win, note = walked
    st, pane = win.state, win.pr_pane
    ev = pane.evaluation
    k, r = st.selected_detection
    far = len(ev) - 1  # a point far from the walk's
    while not np.isfinite(ev.precision[far]):
        far -= 1
    pane._on_spots_clicked(None, [p for p in pane.spots.points() if int(p.data()) == far])
    assert st.selected_detection is not None and st.selected_detection != (k, r)
    assert win.side.tabs.currentWidget() is win.side.ranks
    assert_agree(win, note)


def test_confusion_missed_cell_clears_the_detection(qtbot, walked):
    win, note = walked
    st, pane = win.state, win.confusion
    person = st.selected_class
    win.right_tabs.setCurrentWidget(pane)
    qtbot.waitUntil(lambda: pane.matrix is not None, timeout=10_000)
    win, note = walk(qtbot, win, 1)  # a fresh note
    missed_col = len(st.dataset.classes) + 2  # after duplicate and background
    pane.select_cell(person, missed_col)
    assert pane.members.rows_model.rows, "the demo's detector misses some people"
    here = st.current_image
    keys = [
        i
        for i, (c, n) in enumerate(pane._keys)
        if c < 0 and int(st.dataset.objects.image_index[n]) != here
    ]
    pane.members.selectRow(keys[0])
    assert st.selected_object >= 0 and st.selected_detection is None
    assert st.current_image != here
    assert_agree(win, note)


def test_analysis_row_of_a_missed_object_clears_the_detection(qtbot, walked):
    from tests.gui.test_analysis_pane import _click_bar

    win, note = walked
    st, pane = win.state, win.analysis
    win.right_tabs.setCurrentWidget(pane)
    qtbot.waitUntil(lambda: pane.tide is not None, timeout=30_000)
    _click_bar(qtbot, pane, "FalseNeg")
    win, note = walk(qtbot, win, 1)  # a fresh note
    listed = pane.member_rows()
    assert listed.objects
    here = st.current_image
    key = next(
        i
        for i, row in enumerate(listed.rows.tolist())
        if int(st.dataset.objects.image_index[row]) != here
    )
    pane.members.selectRow(key)
    qtbot.waitUntil(lambda: st.selected_object == int(listed.rows[key]), timeout=3000)
    assert st.selected_detection is None and st.current_image != here
    assert_agree(win, note)
