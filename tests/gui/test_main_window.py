"""The main window on a tiny in-memory dataset: drawing, toggles, keys, PR click-through."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from vocviewer.core.dataset import VOC_CLASSES
from vocviewer.gui.models.state import Message
from vocviewer.gui.panes.image.overlays import BoxItem

DOG = VOC_CLASSES.index("dog")


def kinds(win):
    return {k: len(win.view.overlay_items(k)) for k in ("gt", "det", "label")}


def test_first_image_is_drawn_with_ground_truth_and_detections(window):
    # img1: dog + difficult person; detections ≥ 0.5: dog TP, dog duplicate, person ignored
    assert kinds(window) == {"gt": 2, "det": 3, "label": 5}
    difficult = [
        i for i in window.view.overlay_items("gt") if i.pen().style() == Qt.PenStyle.DashLine
    ]
    assert len(difficult) == 1
    assert window.ap_table.model().rowCount() == 21  # 20 classes + mean
    assert "tiny" in window.status.label.text() and "img1" in window.status.label.text()
    assert window.status.progress.isHidden()


def test_toggles_change_what_is_drawn(qtbot, window):
    acts = window.display.toggle_actions
    acts["show_labels"].trigger()
    assert kinds(window) == {"gt": 2, "det": 3, "label": 0}
    acts["show_gt"].trigger()
    assert kinds(window)["gt"] == 0
    acts["only_tp"].trigger()
    assert kinds(window)["det"] == 1
    acts["show_detections"].trigger()
    assert kinds(window) == {"gt": 0, "det": 0, "label": 0}
    for act in acts.values():
        act.trigger()
    assert kinds(window) == {"gt": 2, "det": 3, "label": 5}
    window.state.set_threshold(0.85)
    assert kinds(window)["det"] == 1  # only the 0.9 dog
    assert window.display.threshold_slider.value() == 85


def test_keys_change_image_and_toggles(qtbot, window):
    window.activateWindow()
    window.view.setFocus()
    qtbot.keyClick(window.view, Qt.Key.Key_Right)
    assert window.state.current_image == 1
    qtbot.keyClick(window.view, Qt.Key.Key_N)
    assert window.state.current_image == 2
    qtbot.keyClick(window.view, Qt.Key.Key_PageUp)
    assert window.state.current_image == 1
    qtbot.keyClick(window.view, Qt.Key.Key_Left)
    assert window.state.current_image == 0
    qtbot.keyClick(window.view, Qt.Key.Key_G)
    assert not window.state.show_gt
    qtbot.keyClick(window.view, Qt.Key.Key_T)
    assert window.state.only_tp


def test_missing_image_file_shows_a_placeholder(qtbot, window):
    window.state.set_current_image(2)  # img3.jpg does not exist
    qtbot.waitUntil(lambda: window.view.shown_image == 2, timeout=5000)
    assert window.view.missing_file is not None and window.view.missing_file.name == "img3.jpg"
    assert kinds(window)["gt"] == 1  # overlays are still drawn over the placeholder
    assert "image file missing" in window.status.label.text()


def test_zoom_keys(qtbot, window):
    view = window.view
    fit = view.scale_factor()
    window.display.act_zoom_in.trigger()
    assert view.scale_factor() == pytest.approx(fit * 1.25)
    window.display.act_one.trigger()
    assert view.scale_factor() == 1.0
    window.display.act_fit.trigger()
    assert view.scale_factor() == pytest.approx(fit)


def test_ap_table_selects_class_and_pr_click_opens_the_detection(qtbot, window):
    table = window.ap_table
    table.selectRow(DOG)
    assert window.state.selected_class == DOG
    pane = window.pr_pane
    assert pane.evaluation is not None and pane.evaluation.class_name == "dog"
    spots = pane.spots.points()
    assert len(spots) == 4 and len(pane.curve.getData()[0]) == 4
    fp = next(s for s in spots if s.data() == 3)  # rank 3: the FP on img2
    pane._on_spots_clicked(pane.spots, [fp], None)
    assert window.state.selected_detection == (DOG, 3)
    qtbot.waitUntil(lambda: window.view.shown_image == 1, timeout=5000)
    hl = window.view.highlighted_item()
    assert isinstance(hl, BoxItem) and hl.row == 2 and hl.pen().widthF() > 2.0
    assert len(pane.marker.points()) == 1
    # the highlighted detection stays visible even when detections are filtered out
    window.state.set_threshold(0.95)
    assert window.view.highlighted_item() is not None


def test_messages_panel_collects_problems(qtbot, window):
    assert window.messages.isHidden()
    window.state.post([Message("warning", "a.xml: bad box"), Message("error", "b.txt:3: bad")])
    assert window.messages.count() == 2
    assert not window.messages.isHidden()  # errors open the panel
    assert window.status.problems_button.text().endswith("2 messages")


def test_all_classes_overview_and_curve_click(qtbot, window):
    pane = window.pr_pane
    assert window.state.selected_class == -1
    visible = [k for k, c in sorted(pane.overview.items()) if c.isVisible()]
    assert visible == [VOC_CLASSES.index(c) for c in ("cat", "dog", "person")]
    pane._on_overview_clicked(DOG)  # what a curve's sigClicked delivers (plus the curve)
    assert window.state.selected_class == DOG
    assert not any(c.isVisible() for c in pane.overview.values())
    assert window.browser.class_combo.currentText() == "dog"
    assert window.browser.model.rowCount() == 3  # img1, img3 contain a dog; img2 has a dog FP


def test_neighbours_are_decoded_ahead_so_stepping_shows_at_once(qtbot, window):
    from PySide6.QtCore import QThreadPool

    st, view = window.state, window.view
    assert st.current_image == 0
    QThreadPool.globalInstance().waitForDone(5000)  # the prefetch of image 1 has run
    qtbot.wait(20)  # its result delivered on the GUI thread
    window.display.act_next.trigger()
    assert view.shown_image == st.current_image == 1  # shown synchronously from the cache


def test_escape_cancels_a_running_evaluation_and_keeps_the_window_usable(qtbot, make_window, tiny):
    win = make_window()
    dataset, results = tiny
    win.state.set_dataset(dataset)
    win.state.add_result_set(results)  # evaluation starts in a worker; nothing delivered yet
    assert any(k.startswith("eval/") for k in win.state.jobs.running_keys())
    with qtbot.waitSignal(win.state.evaluation.finished, timeout=2000):
        win.display.act_cancel.trigger()
    qtbot.wait(200)  # whatever the cancelled worker still sends is dropped
    assert win.state.evaluations[0].det == {}
    assert win.status.progress.isHidden() and win.status.cancel_button.isHidden()
    assert "Evaluation cancelled" in win.messages.list.item(0).text()
    win.state.set_threshold(0.3)  # changing a setting re-runs nothing, raises nothing
    win.display.act_cancel.trigger()  # nothing running: no second message
    assert win.messages.count() == 1


def test_clearing_messages_resets_the_status_bar_button(qtbot, window):
    window.state.post([Message("warning", "one"), Message("info", "two")])
    assert (
        window.status.problems_button.isVisibleTo(window)
        and "2 messages" in window.status.problems_button.text()
    )
    window.messages.clear_button.click()
    assert not window.status.problems_button.isVisibleTo(window) and window.messages.count() == 0
    window.state.post([Message("error", "three")])
    assert "1 message" in window.status.problems_button.text() and window.messages.isVisibleTo(
        window
    )


def test_fp_keys_with_all_classes_start_at_the_top_scoring_false_positive(qtbot, window):
    st = window.state
    assert st.selected_class == -1 and st.selected_detection is None
    window.display.act_next_fp.trigger()  # ]: the duplicate dog 0.8 beats the dog FP 0.6
    assert st.selected_detection == (DOG, 1)
    window.display.act_next_fp.trigger()  # then on within that class
    assert st.selected_detection == (DOG, 3)
    st.select_class(-1)  # back to all classes with nothing selected
    assert st.selected_detection is None
    window.display.act_prev_fp.trigger()  # [: the lowest-scoring false positive
    assert st.selected_detection == (DOG, 3)


def test_views_repainted_during_evaluation_hold_their_cells_in_qt(window):
    """The AP table, the inspector's tables and the image list never call back into Python to
    paint (each call would wait for the interpreter lock an evaluating worker holds): their
    models override none of the methods a view calls per cell or per row."""
    per_cell = ("data", "rowCount", "columnCount", "index", "parent", "headerData", "flags")
    side = window.side  # (the Ranks tab reads every rank on demand: a list of 500,000)
    models = [
        window.ap_table.ap_model,
        window.browser.model,
        side.detections.rows_model,
        side.objects.rows_model,
    ]
    for model in models:
        ours = [c for c in type(model).__mro__ if c.__module__.startswith("vocviewer")]
        assert ours, type(model)
        for cls in ours:
            assert not set(per_cell) & set(vars(cls)), cls
