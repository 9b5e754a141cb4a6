"""Per-class drawing thresholds in the window (View ▸ Load per-class thresholds…, the
operating-point page's "Draw at best F1 per class"): every place that counts drawn detections
draws exactly those scoring at least their class's threshold plus the slider's offset (clamped
to 0–1; ``>=``, not ``>``); the slider says it is an offset and goes back to one threshold; a bad
file is said in the message area with its path and what was expected; a session keeps them.

The boundary set of ``test_drawn_boundary``: on img1 a dog TP at 0.6 and a dog FP just below;
on img2 a dog FP at 0.6 and a cat TP just below 0.6.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.gui.test_drawn_boundary import (
    AT,
    BELOW,
    BOUNDARY,
    CAT,
    DOG,
    MISSED,
    boundary_window,
    drawn_rows,
)
from vocviewer.core.dataset import VOC_CLASSES
from vocviewer.formats.thresholds import ClassThresholds
from vocviewer.gui.panes.analysis.pages import page_key
from vocviewer.gui.panes.browse.thumbnail_grid import errors_text


@pytest.fixture
def boundary(qtbot, make_window, tiny):
    return boundary_window(qtbot, make_window, tiny)


def messages(win) -> list[str]:
    return [win.messages.list.item(i).text() for i in range(win.messages.count())]


def confusion_counts(qtbot, win):
    pane = win.confusion
    win.right_tabs.setCurrentWidget(pane)
    want = win.state.drawn_thresholds
    qtbot.waitUntil(
        lambda: (
            pane.matrix is not None
            and np.array_equal(np.asarray(pane.matrix.score_threshold), np.asarray(want))
        ),
        timeout=5000,
    )
    return pane.matrix.counts


def expected_rows(image: int, thresholds: dict[int, float]) -> set[int]:
    """The rule written out: a detection is drawn iff score >= its class's threshold."""
    return {
        i
        for i, (c, img, score, _) in enumerate(BOUNDARY)
        if img == image and score >= thresholds[VOC_CLASSES.index(c)]
    }


def test_each_class_is_drawn_at_or_above_its_own_threshold(qtbot, boundary):
    win, st = boundary, boundary.state
    st.set_threshold(0.9)  # one threshold: none of them drawn
    assert drawn_rows(qtbot, win, 0) == set() and drawn_rows(qtbot, win, 1) == set()
    # dog at 0.6, cat just below 0.6: the cat TP scoring exactly its threshold is drawn
    st.set_class_thresholds(ClassThresholds({"dog": AT, "cat": BELOW}, 0.0, "test"))
    per = {DOG: AT, CAT: BELOW}
    assert st.class_drawn_threshold(DOG) == AT and st.class_drawn_threshold(CAT) == BELOW
    assert drawn_rows(qtbot, win, 0) == expected_rows(0, per) == {0}
    assert drawn_rows(qtbot, win, 1) == expected_rows(1, per) == {2, 3}
    # selecting compares the drawn options with the new ones (per-class thresholds included)
    st.select_detection_row(2)
    qtbot.wait(50)
    assert {item.row for item in win.view.overlay_items("det")} == {2, 3}
    assert messages(win) == []
    listed = [row[3] for row in win.side.detections.rows_model.rows]
    assert not any(v.endswith("below threshold") for v in listed)
    # the grid: img1's dog FP below its threshold is not counted; img2's cat is found
    errors = win.image_area.grid.errors
    qtbot.waitUntil(lambda: errors_text(win.image_area.grid.errors, 1) == "1 FP", timeout=5000)
    errors = win.image_area.grid.errors
    assert [errors_text(errors, i) for i in range(3)] == ["", "1 FP", "1 missed"]
    counts = confusion_counts(qtbot, win)
    assert counts[CAT, CAT] == 1 and counts[CAT, MISSED] == 0
    assert counts[DOG, DOG] == 1 and counts[DOG, MISSED] == 1 and counts.sum() == 4
    # the cat's threshold one step above its score: not drawn, its cat missed again
    st.set_class_thresholds(ClassThresholds({"dog": AT, "cat": AT}, 0.0, "test"))
    assert drawn_rows(qtbot, win, 1) == expected_rows(1, {DOG: AT, CAT: AT}) == {2}
    counts = confusion_counts(qtbot, win)
    assert counts[CAT, CAT] == 0 and counts[CAT, MISSED] == 1


def test_the_offset_moves_every_class_and_is_clamped(qtbot, boundary):
    win, st = boundary, boundary.state
    st.set_threshold(BELOW)
    # the cat is not named: it takes the one threshold (BELOW) plus the offset
    st.set_class_thresholds(ClassThresholds({"dog": 0.5}, 0.0, "test"))
    assert drawn_rows(qtbot, win, 1) == {2, 3}
    st.set_slider(0.1)  # dog at 0.5 + 0.1 == 0.6: the dog at 0.6 stays, the one below goes
    assert st.class_thresholds.offset == 0.1 and st.class_drawn_threshold(DOG) == 0.5 + 0.1
    per = {DOG: 0.5 + 0.1, CAT: min(BELOW + 0.1, 1.0)}
    for image in (0, 1):
        assert drawn_rows(qtbot, win, image) == expected_rows(image, per)
    st.set_slider(-1.0)  # every threshold clamped to 0: everything drawn
    assert st.drawn_thresholds.tolist() == [0.0] * len(VOC_CLASSES)
    assert drawn_rows(qtbot, win, 0) == {0, 1} and drawn_rows(qtbot, win, 1) == {2, 3}
    st.set_slider(1.0)  # clamped to 1: nothing below 1 drawn
    assert drawn_rows(qtbot, win, 0) == set()


def test_the_slider_is_an_offset_and_goes_back_to_one_threshold(qtbot, boundary):
    win, st, d = boundary, boundary.state, boundary.display
    st.set_threshold(0.3)
    assert d.threshold_label.text().strip() == "Score ≥" and d.threshold_slider.minimum() == 0
    assert not win.thresholds.act_one.isEnabled()
    st.set_class_thresholds(ClassThresholds({"dog": 0.6}, 0.0, "f.json"))
    assert "Per-class" in d.threshold_label.text() and "f.json" in d.threshold_slider.toolTip()
    assert d.threshold_slider.minimum() == -100 and d.threshold_spin.value() == 0.0
    d.threshold_slider.setValue(-20)  # the user drags: the offset moves, not the threshold
    assert st.class_thresholds.offset == -0.2 and st.score_threshold == 0.3
    assert d.threshold_spin.value() == -0.2
    assert "per class -0.20" in st.threshold_words(DOG)
    win.thresholds.act_one.trigger()
    assert st.class_thresholds is None and st.drawn_thresholds == 0.3
    assert d.threshold_label.text().strip() == "Score ≥" and d.threshold_spin.value() == 0.3
    assert d.threshold_slider.minimum() == 0 and d.threshold_slider.value() == 30


def test_a_thresholds_file_loads_and_names_what_it_ignores(qtbot, boundary, tmp_path):
    win, st = boundary, boundary.state
    path = tmp_path / "deploy.json"
    path.write_text(json.dumps({"dog": AT, "cat": None, "zebra": 0.2}))
    assert win.thresholds.load_file(path)
    assert st.class_thresholds == ClassThresholds({"dog": AT, "cat": None}, 0.0, str(path))
    (msg,) = messages(win)
    assert str(path) in msg and "zebra" in msg and "ignored" in msg


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{not json", "not valid json"),
        ('["dog", 0.5]', "expected a json object of class name -> score threshold"),
        ('{"dog": 7}', "expected a score threshold from 0 to 1 (or null), found 7"),
        ('{"zebra": 0.5, "unicorn": 0.1}', "no class of"),
        (None, "no such file"),
    ],
)
def test_a_bad_thresholds_file_is_said_with_its_path_and_changes_nothing(
    qtbot, boundary, tmp_path, text, words
):
    win, st = boundary, boundary.state
    path = tmp_path / "deploy.json"
    if text is not None:
        path.write_text(text)
    st.set_threshold(0.4)
    assert not win.thresholds.load_file(path)
    assert st.class_thresholds is None and st.drawn_thresholds == 0.4
    (msg,) = messages(win)
    assert str(path) in msg and words in msg.lower()
    assert msg.startswith("Per-class thresholds not loaded: ")
    assert "Traceback" not in msg and win.messages.isVisible()


def test_best_f1_per_class_draws_the_operating_points_counts(qtbot, make_window, demo):
    from tests.gui.test_analysis_pane import _open

    win = _open(qtbot, make_window, demo.year_dir, (demo.results_dir,), "val")
    st, pane = win.state, win.analysis
    pane.choose_chart(page_key("operating_point"))
    qtbot.waitUntil(lambda: pane.beyond.current() is not None, timeout=20_000)
    op = pane.beyond.result("operating_point").op
    pane.pages["operating_point"].per_class_button.click()
    ct = st.class_thresholds
    assert ct is not None and ct.thresholds == op.thresholds() and ct.offset == 0.0
    assert "best F1 of" in ct.source
    counts = confusion_counts(qtbot, win)
    K = len(st.dataset.classes)
    for k, curve in op.per_class.items():
        t = ct.thresholds[curve.name]
        t = st.score_threshold if t is None else t
        at = curve.at(t)
        assert st.class_drawn_threshold(k) == t
        assert counts[k, k] == at["tp"]
        assert counts[k, : K + 2].sum() - counts[k, k] == at["fp"]
    # "Draw at this threshold": one threshold for every class again
    win.right_tabs.setCurrentWidget(pane)
    pane.pages["operating_point"].draw_button.click()
    assert st.class_thresholds is None and "Score" in win.display.threshold_label.text()


def test_a_session_keeps_the_per_class_thresholds_and_their_offset(
    qtbot, make_window, demo, tmp_path
):
    from tests.gui.test_session import settled

    det = sorted((demo.results_dir / "Main").glob("comp4_det_val_*.txt"))
    win = make_window()
    win.open_dataset(demo.year_dir, det, "val")
    qtbot.waitUntil(lambda: settled(win, 1), timeout=30_000)
    st = win.state
    st.set_threshold(0.35)
    st.set_class_thresholds(ClassThresholds({"dog": 0.7, "cat": None}, 0.0, "deploy.json"))
    st.set_slider(-0.15)
    target = tmp_path / "s.json"
    assert win.sessions.save_session(target) == target.resolve()
    again = make_window()
    again.sessions.open_session(target)
    qtbot.waitUntil(lambda: settled(again, 1), timeout=30_000)
    st2 = again.state
    assert st2.class_thresholds == st.class_thresholds
    assert st2.class_thresholds.offset == -0.15 and st2.score_threshold == 0.35
    assert np.array_equal(st2.drawn_thresholds, st.drawn_thresholds)
    assert again.display.threshold_spin.value() == -0.15
    assert "Per-class" in again.display.threshold_label.text() and messages(again) == []
    # a session without them goes back to one threshold
    st2.set_class_thresholds(None)
    again.sessions.save_session(target)
    win.sessions.open_session(target)
    qtbot.waitUntil(lambda: settled(win, 1) and st.class_thresholds is None, timeout=30_000)
    assert st.drawn_thresholds == 0.35
