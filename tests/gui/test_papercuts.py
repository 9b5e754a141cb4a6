"""Small things a new user tripped over (issue 12's papercuts), each in a real window."""

from __future__ import annotations

from PySide6.QtCore import Qt

from vocviewer.gui.models.image_filter import ImageFilter
from vocviewer.gui.models.tasks import Message


def test_search_then_enter_opens_the_match(qtbot, window):
    st, browser = window.state, window.browser
    window.display.act_find.trigger()
    assert browser.search.hasFocus() or not window.isActiveWindow()
    qtbot.keyClicks(browser.search, "img2")
    qtbot.keyClick(browser.search, Qt.Key.Key_Return)
    assert st.dataset.images.id[st.current_image] == "img2"
    assert browser.list.hasFocus() or not window.isActiveWindow()


def test_a_filter_never_hides_the_current_image_with_nothing_selected(window):
    st = window.state
    st.set_current_image(0)
    st.set_image_filter(ImageFilter(text="img3"))
    assert st.visible_images.tolist() == [2]
    assert st.current_image == 2  # the first listed image, not an image off the list


def test_clicking_a_box_keeps_every_class_listed(window):
    st = window.state
    assert st.selected_class == -1
    listed = st.visible_images.tolist()
    cat_row = 4  # the cat detection on img2
    st.select_detection_row(cat_row)
    assert st.selected_detection is not None and st.selected_detection_row() == cat_row
    assert st.selected_class == -1 and st.visible_images.tolist() == listed


def test_a_note_is_not_announced_as_a_warning(window):
    window.state.post([Message("info", "Wrote /tmp/x.png")])
    assert window.status.problems_button.text() == "ℹ 1 message"
    window.state.post([Message("warning", "something odd")])
    assert window.status.problems_button.text() == "⚠ 2 messages"


def test_a_failed_open_does_not_stay_opening(qtbot, window, tmp_path):
    st = window.state
    missing = tmp_path / "nowhere"
    with qtbot.waitSignal(st.load_failed, timeout=10_000):
        window.open_dataset(missing)
    assert "Opening" not in window.status.label.text()
    assert window.status.label.text().startswith("tiny")  # the open dataset is still there


def test_the_view_mode_combo_shows_whole_names(window):
    combo = window.display.mode_combo
    for i in range(combo.count()):
        text = combo.itemText(i)
        assert combo.fontMetrics().horizontalAdvance(text) + 20 < combo.width(), text


def _top_by_image(det, class_index=-1):
    """Each image's highest detection score (of ``class_index``), by a plain loop."""
    top: dict[int, float] = {}
    for i, score, label in zip(
        det.image_index.tolist(), det.score.tolist(), det.label.tolist(), strict=True
    ):
        if class_index < 0 or label == class_index:
            top[i] = max(top.get(i, float("-inf")), score)
    return top


def test_the_image_list_sorts_by_top_score(window):
    st = window.state
    window.browser.score_sort_action.setChecked(True)
    det = st.results[0].results.detections
    top = _top_by_image(det)
    assert [top[i] for i in st.visible_images.tolist()] == sorted(top.values(), reverse=True)
    window.browser.sort_action.setChecked(True)  # one order at a time
    assert not window.browser.score_sort_action.isChecked()
    st.select_class(st.dataset.classes.index("dog"))
    window.browser.score_sort_action.setChecked(True)  # the class's own detections decide
    dog = _top_by_image(det, st.selected_class)
    shown = [dog[i] for i in st.visible_images.tolist() if i in dog]
    assert shown == sorted(dog.values(), reverse=True) and len(shown) == len(dog)


def test_a_note_takes_the_status_line_for_a_while_then_gives_it_back(qtbot, window):
    window.show_note("Wrote /tmp/figure.png", 200)
    window.state.step_image(1)  # the status would change now: the note holds the line
    assert window.status.label.text() == "Wrote /tmp/figure.png"
    assert window.statusBar().currentMessage() == ""  # nothing painted over the status text
    qtbot.waitUntil(lambda: window.status.label.text().startswith("tiny"), timeout=2000)
