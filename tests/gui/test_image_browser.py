"""The image list: id search, object-flag and error filters, sorting by errors (real window).

Tiny set (conftest): dog detections ranked 0.9 TP (img1), 0.8 duplicate (img1), 0.7 TP (img3),
0.6 FP (img2); cat 0.95 TP (img2); person 0.55 ignored (difficult, img1). img1's person is the
only difficult and truncated object.
"""

from __future__ import annotations

import numpy as np
import pytest

from vocviewer.core.dataset import VOC_CLASSES
from vocviewer.gui.models.image_filter import ImageFilter, apply_filter, error_counts, search_ids

DOG = VOC_CLASSES.index("dog")


def counts(window, threshold: float, class_index: int = -1):
    st = window.state
    ev = st.evaluations[0]
    res = st.results[0].results
    missed = ev.missed_at(st.dataset, threshold)
    return error_counts(st.dataset, res, ev.verdict_by_row, missed, threshold, class_index)


def test_error_counts_follow_the_drawn_threshold(window):
    # threshold 0.5: img1 has the duplicate (0.8), img2 the dog FP (0.6); nothing is missed
    at_half = counts(window, 0.5)
    assert at_half.fp.tolist() == [1, 1, 0] and at_half.missed.tolist() == [0, 0, 0]
    # threshold 0.75: the 0.6 FP is not drawn; img3's dog is only found by the 0.7 TP -> missed
    high = counts(window, 0.75)
    assert high.fp.tolist() == [1, 0, 0] and high.missed.tolist() == [0, 0, 1]
    # only cats: the cat TP scores 0.95, so no cat error at either threshold
    assert counts(window, 0.75, VOC_CLASSES.index("cat")).total.tolist() == [0, 0, 0]
    assert counts(window, 0.75, DOG).total.tolist() == [1, 0, 1]


def test_search_is_case_insensitive_substring():
    ids = np.array(["2008_000123", "IMG_7", "img3"])
    assert search_ids(ids, "img").tolist() == [False, True, True]
    assert search_ids(ids, "").all()
    assert not search_ids(ids, "zzz").any()


def test_apply_filter_without_evaluation_keeps_no_error_rows():
    rows = np.arange(3)
    ids = np.array(["a", "b", "c"])
    got = apply_filter(rows, ImageFilter(errors="fp"), ids, {}, None)
    assert got.tolist() == []
    assert apply_filter(rows, ImageFilter(by_errors=True), ids, {}, None).tolist() == [0, 1, 2]
    assert apply_filter(rows, ImageFilter(flags=frozenset({"crowd"})), ids, {}, None).size == 0


@pytest.mark.parametrize(
    ("flt", "threshold", "expected"),
    [
        (ImageFilter(text="2"), 0.5, [1]),
        (ImageFilter(flags=frozenset({"difficult"})), 0.5, [0]),
        (ImageFilter(flags=frozenset({"truncated", "difficult"})), 0.5, [0]),
        (ImageFilter(errors="fp"), 0.5, [0, 1]),
        (ImageFilter(errors="missed"), 0.5, []),
        (ImageFilter(errors="missed"), 0.75, [2]),
        (ImageFilter(errors="any"), 0.75, [0, 2]),
        # totals at 0.75: img1 1, img2 0, img3 1 -> most first, ties in list order
        (ImageFilter(by_errors=True), 0.75, [0, 2, 1]),
        (ImageFilter(text="img", errors="fp", by_errors=True), 0.5, [0, 1]),
    ],
)
def test_state_filters_the_visible_images(window, flt, threshold, expected):
    st = window.state
    st.set_threshold(threshold)
    st.set_image_filter(flt)
    assert st.visible_images.tolist() == expected


def test_filters_follow_threshold_changes(qtbot, window):
    st = window.state
    st.set_image_filter(ImageFilter(errors="missed"))
    assert st.visible_images.tolist() == []
    st.set_threshold(0.75)  # re-applied after the debounce
    qtbot.waitUntil(lambda: st.visible_images.tolist() == [2], timeout=2000)


def test_browser_widgets_drive_the_filter(qtbot, window, tmp_path):
    browser, st = window.browser, window.state
    assert browser.flag_actions["difficult"].isEnabled()
    assert not browser.flag_actions["occluded"].isEnabled()  # no occluded object in the set
    assert not browser.flag_actions["crowd"].isVisible()  # not a COCO set
    browser.search.setText("IMG3")
    assert st.visible_images.tolist() == [2]
    assert browser.count_label.text() == "1 image of 3"
    browser.search.clear()
    browser.error_actions["fp"].setChecked(True)
    browser.sort_action.setChecked(True)
    assert st.visible_images.tolist() == [0, 1]
    assert browser.filter_button.text() == "Filter (2)"
    assert browser.model.errors_text(0) == "1 FP"
    window.grab().save(str(tmp_path / "filtered.png"))
    browser.clear_filters()
    assert st.visible_images.tolist() == [0, 1, 2]
    assert browser.filter_button.text() == "Filter"


def test_ctrl_f_focuses_the_search(qtbot, window):
    from PySide6.QtCore import Qt

    window.activateWindow()
    qtbot.keyClick(window.view, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(window.browser.search.hasFocus, timeout=2000)


def test_missed_objects_agree_between_list_image_and_inspector(qtbot, window):
    """At score >= 0.75 img3's dog is found only by the 0.7 TP: the list counts it missed, the
    image draws it in the missed colour (in every mode) and the Objects tab says "missed"."""
    from vocviewer.evaluation.confusion import missed_at
    from vocviewer.gui.widgets.verdict_style import MISSED_COLOR

    st = window.state
    st.set_threshold(0.75)
    st.set_image_filter(ImageFilter(errors="missed"))
    assert st.visible_images.tolist() == [2]
    ev = st.evaluations[0]  # its cache, filled class by class, equals the whole computation
    assert np.array_equal(
        ev.missed_at(st.dataset, 0.75), missed_at(st.dataset, ev.det, ev.missed, 0.75)
    )
    st.set_current_image(2)
    qtbot.waitUntil(lambda: window.view.shown_image == 2, timeout=5000)
    (dog,) = window.view.overlay_items("gt")
    assert dog.pen().color() == MISSED_COLOR
    assert window.side.objects.rows_model.rows[0][3] == "missed"
    st.set_threshold(0.5)  # the 0.7 TP is drawn again: found everywhere
    (dog,) = window.view.overlay_items("gt")
    assert dog.pen().color() != MISSED_COLOR
    qtbot.waitUntil(lambda: window.side.objects.rows_model.rows[0][3] == "found", timeout=2000)


def test_list_rows_show_id_object_count_errors_and_tooltip(qtbot, window):
    """Ids are held by Qt; the delegate paints the count and errors and answers tooltips."""
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QToolTip

    browser, st = window.browser, window.state
    st.set_image_filter(ImageFilter(by_errors=True))
    model = browser.model
    ids = [model.index(r).data() for r in range(model.rowCount())]
    assert ids == [str(st.dataset.images.id[i]) for i in st.visible_images]
    row = model.row_of(0)  # img1: a dog and a difficult person; the dog duplicate drawn at 0.5
    assert model.count_text(row) == "2" and model.errors_text(row) == "1 FP"
    rect = browser.list.visualRect(model.index(row))
    viewport = browser.list.viewport()
    event = QHelpEvent(QEvent.Type.ToolTip, rect.center(), viewport.mapToGlobal(rect.center()))
    QToolTip.hideText()
    browser.list.viewportEvent(event)
    assert QToolTip.text() == "img1 · 2 objects (1 difficult) · 1 FP (drawn)"
