"""The filter panel (issue 25): it drives the image list, the thumbnail grid and the walk
together with the counts it shows; saved views survive a session; old sessions still open; the
Filter menu sets fields of the same record."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

from vocviewer.core.view_filter import ViewFilter
from vocviewer.evaluation.view_filter import JudgedSet, filter_masks

SHOTS = Path("/tmp/shots-filters")


def shoot(widget, name: str) -> None:
    """Keep a picture to look at (where the folder exists)."""
    if SHOTS.is_dir():
        widget.grab().save(str(SHOTS / name))


@pytest.fixture
def demo_window(qtbot, make_window, demo):
    win = make_window(size=(1366, 768))
    win.open_dataset(demo.year_dir, [demo.results_dir], "val")
    st = win.state
    qtbot.waitUntil(lambda: len(st.results) == 1 and st.is_idle(), timeout=60_000)
    qtbot.waitUntil(lambda: st.current_image >= 0, timeout=5000)
    return win


def expected(st, flt: ViewFilter):
    """What ``filter_masks`` keeps of the window's evidence, on the listed image set."""
    ev = st.evaluations[st.current_results]
    judged = JudgedSet(
        st.results[st.current_results].results.detections,
        ev.verdict_by_row,
        ev.fp_kind_by_row,
        st.current_results,
    )
    missed = ev.missed_at(st.dataset, st.score_threshold)
    masks = filter_masks(st.dataset, flt, judged, missed, st.tags)
    in_set = np.zeros(len(st.dataset.images), bool)
    in_set[st.dataset.images_in_set(st.image_set)] = True
    images = masks.images & in_set
    return (
        np.flatnonzero(images).tolist(),
        int(np.count_nonzero(masks.objects & images[st.dataset.objects.image_index])),
        int(np.count_nonzero(masks.detections & images[judged.detections.image_index])),
    )


def test_panel_drives_list_grid_and_walk(qtbot, demo_window) -> None:
    win = demo_window
    st, panel = win.state, win.filter_panel
    win.act_filters.trigger()
    assert win.filter_dock.isVisible()
    panel.score.lo.setText("0.8")
    panel.kinds["background"].setChecked(True)
    panel.flush()
    flt = st.image_filter
    assert flt.score == (0.8, math.inf) and flt.fp_kinds == ("background",)
    images, objects, detections = expected(st, flt)
    assert 0 < len(images) < len(st.dataset.images_in_set("val"))
    # the list, the grid and the state agree, and the panel says the counts
    assert sorted(st.kept_images.tolist()) == images
    assert win.browser.model.rowCount() == len(images)
    assert st.kept.counts() == (len(images), objects, detections)
    assert f"{len(images):,} of" in panel.counts.text()
    assert f"{detections:,} of" in panel.counts.text()
    assert f"{len(images):,} images" in win.browser.count_label.text()
    win.image_area.show_grid(True)
    grid = win.image_area.grid
    qtbot.waitUntil(lambda: grid.model_.rowCount() == len(images), timeout=5000)
    assert sorted(grid.model_.rows.tolist()) == images
    shoot(win, "window-filter-panel.png")
    shoot(win.filter_dock, "filter-panel.png")
    win.image_area.show_grid(False)
    # the image and the grid draw only the detections the filter keeps (scoring >= the threshold)
    st.set_current_image(images[0])
    qtbot.waitUntil(lambda: win.view.shown_image == images[0], timeout=5000)
    det = st.results[0].results.detections
    on_image = np.flatnonzero(
        (det.image_index == images[0]) & st.kept.detections & (det.score >= st.score_threshold)
    )
    drawn = sorted(item.row for item in win.view.overlay_items("det"))
    assert drawn == on_image.tolist() and drawn
    boxes, _ = grid.boxes_of(images[0])
    n_gt = int(np.count_nonzero(st.dataset.objects.image_index == images[0]))
    assert len(boxes) <= n_gt + len(drawn)
    # the walk visits only the kept detections: background FPs scoring >= 0.8
    kept_rows = set(np.flatnonzero(st.kept.detections).tolist())
    seen = set()
    while win.walk.step(1):
        row = st.selected_detection_row()
        assert row in kept_rows and st.current_image in images
        seen.add(row)
    assert seen == kept_rows
    # clearing brings everything back
    panel.clear_button.click()
    assert st.image_filter == ViewFilter()
    assert len(st.kept_images) == len(st.dataset.images_in_set("val"))


def test_filter_menu_sets_the_same_record(qtbot, demo_window) -> None:
    win = demo_window
    st, panel, browser = win.state, win.filter_panel, win.browser
    dog = panel.classes.findItems("dog", Qt.MatchFlag.MatchExactly)[0]
    dog.setCheckState(Qt.CheckState.Checked)
    panel.flush()
    assert st.image_filter.classes == ("dog",)
    browser.flag_actions["truncated"].setChecked(True)  # the Filter menu
    assert st.image_filter.flags == ("truncated",) and st.image_filter.classes == ("dog",)
    assert panel.flags["truncated"].isChecked()  # the panel shows the menu's choice
    rows = st.kept_images.tolist()
    ds = st.dataset
    for image in rows:
        objs = ds.objects_of(image)
        assert ds.objects.truncated[objs].any()
        dets = st.results[0].results.detections
        has_dog = (ds.objects.label[objs] == ds.classes.index("dog")).any() or (
            (dets.image_index == image) & (dets.label == ds.classes.index("dog"))
        ).any()
        assert has_dog
    panel.flags["truncated"].setChecked(False)  # and the menu shows the panel's
    panel.flush()
    assert not browser.flag_actions["truncated"].isChecked()
    browser.clear_filters()
    assert st.image_filter == ViewFilter() and dog.checkState() == Qt.CheckState.Unchecked


def test_saved_views_round_trip_through_a_session(
    qtbot, demo_window, make_window, tmp_path
) -> None:
    win = demo_window
    st, panel = win.state, win.filter_panel
    fp_small = ViewFilter(
        score=(0.8, math.inf), fp_kinds=("background",), area=(-math.inf, 96.0**2), result_set=0
    )
    st.set_image_filter(fp_small)
    assert panel.save_view("FP background > 0.8, small objects") is not None
    st.set_image_filter(ViewFilter(verdicts=("missed",), classes=("cat",)))
    panel.save_view("missed cats")
    st.set_image_filter(ViewFilter(text="0001", result_set=0))
    path = win.sessions.save_session(tmp_path / "s.json")
    payload = json.loads(path.read_text())
    assert payload["version"] == 3 and [v["name"] for v in payload["views"]] == [
        "FP background > 0.8, small objects",
        "missed cats",
    ]
    again = make_window(size=(1366, 768))
    again.sessions.open_session(path)
    st2 = again.state
    qtbot.waitUntil(lambda: len(st2.results) == 1 and st2.is_idle(), timeout=60_000)
    qtbot.waitUntil(lambda: st2.image_filter == ViewFilter(text="0001", result_set=0), timeout=5000)
    assert list(again.saved_views.views) == ["FP background > 0.8, small objects", "missed cats"]
    combo = again.filter_panel.view_combo
    combo.setCurrentIndex(1)
    combo.activated.emit(1)  # as a user's choice
    assert st2.image_filter == fp_small
    assert again.filter_panel.area.hi.text() == "9216"
    assert sorted(st2.kept_images.tolist()) == expected(st2, fp_small)[0]
    st2.set_image_filter(ViewFilter())
    menu = again.filter_panel.views_menu  # the same views in the browser's Filter menu
    assert menu.menuAction() in again.browser.filter_menu.actions()
    next(a for a in menu.actions() if a.text() == "missed cats").trigger()
    assert st2.image_filter == ViewFilter(verdicts=("missed",), classes=("cat",))
    again.saved_views.replace([])  # the demo's recent entry forgets them (the next tests')
    assert again.opening.recent.entries()[0].views == ()


def test_old_session_version_still_opens(qtbot, demo, make_window, tmp_path) -> None:
    old = {
        "format": "vocviewer-session",
        "version": 2,
        "dataset": str(demo.year_dir),
        "result_sets": [[str(demo.results_dir)]],
        "image_set": "val",
        "image_filter": {"text": "", "flags": ["difficult"], "errors": "", "by_errors": False},
        "views": [{"name": "ignored in v2", "filter": {"text": "x"}}],
        "tags": [],
    }
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    win = make_window(size=(1366, 768))
    win.sessions.open_session(path)
    st = win.state
    qtbot.waitUntil(lambda: len(st.results) == 1 and st.is_idle(), timeout=60_000)
    qtbot.waitUntil(lambda: st.image_filter.flags == ("difficult",), timeout=5000)
    assert win.browser.flag_actions["difficult"].isChecked()
    assert win.saved_views.views == {}


def test_open_recent_remembers_saved_views(qtbot, demo_window, make_window) -> None:
    win = demo_window
    win.state.set_image_filter(ViewFilter(verdicts=("fp",), score=(0.9, 1.0)))
    win.filter_panel.save_view("confident FPs")
    entry = win.opening.recent.entries()[0]
    assert [n for n, _ in entry.views] == ["confident FPs"]
    again = make_window(size=(1366, 768))
    again.open_recent(entry)
    qtbot.waitUntil(lambda: again.state.dataset is not None, timeout=60_000)
    assert again.saved_views.views == {
        "confident FPs": ViewFilter(verdicts=("fp",), score=(0.9, 1))
    }
    assert again.filter_panel.view_combo.findText("confident FPs") > 0
    again.saved_views.remove("confident FPs")
    assert again.opening.recent.entries()[0].views == ()


def test_show_takes_a_filter_and_the_handle_reads_it(qtbot, demo) -> None:
    from vocviewer.gui.window.show import show

    wanted = {"fp_kinds": ["background"], "score": (0.8, None)}
    handle = show(demo.year_dir, results=demo.result_sets[0], filter=wanted, block=False)
    try:
        assert handle.wait_until_ready(timeout=120)
        st = handle.window.state
        assert handle.filter == ViewFilter(fp_kinds=("background",), score=(0.8, math.inf))
        assert handle.view["image_filter"]["fp_kinds"] == ["background"]
        qtbot.waitUntil(lambda: st.is_idle(), timeout=10_000)

        def ids() -> list[str]:
            return [str(i) for i in st.dataset.images.id[expected(st, handle.filter)[0]]]

        qtbot.waitUntil(lambda: sorted(handle.kept_images) == ids(), timeout=5000)  # debounced
        assert ids()
    finally:
        handle.close()


def test_typing_a_range_filters_once(qtbot, demo_window) -> None:
    from PySide6.QtTest import QTest

    win = demo_window
    st, panel = win.state, win.filter_panel
    changes: list[object] = []
    st.image_filter_changed.connect(changes.append)
    QTest.keyClicks(panel.score.lo, "0.95")  # four edits in a burst
    assert changes == []  # not yet: the panel waits for the burst to end
    qtbot.waitUntil(lambda: len(changes) == 1, timeout=2000)
    qtbot.wait(300)
    assert len(changes) == 1 and st.image_filter.score == (0.95, math.inf)
    assert win.browser.filter_button.text() == "Filter (1)"


def test_the_missed_walk_visits_only_kept_objects(qtbot, demo_window) -> None:
    win = demo_window
    st = win.state
    st.set_image_filter(ViewFilter(verdicts=("missed",), area=(-math.inf, 64.0**2)))
    ev = st.evaluations[0]
    missed = ev.missed_at(st.dataset, st.score_threshold)
    kept = set(np.flatnonzero(st.kept.objects).tolist())
    assert kept and kept <= set(np.flatnonzero(missed).tolist())
    win.walk_model.set_mode("missed")
    seen = set()
    while win.walk.step(1):
        assert st.selected_object in kept and st.current_image in st.kept_images
        seen.add(st.selected_object)
    assert seen == kept


def test_tagging_under_a_tag_filter_redraws_the_image(qtbot, demo_window) -> None:
    """With a filter on a tag, tagging a detection of the image on screen draws it at once."""
    from vocviewer.core.tags import Target

    win = demo_window
    st = win.state
    image = int(st.current_image)
    det = st.results[0].results.detections
    rows = np.flatnonzero((det.image_index == image) & (det.score >= st.score_threshold))
    assert len(rows)
    st.set_image_filter(ViewFilter(tags=("label error",)))
    st.set_current_image(image)  # kept on screen although the filter lists no image yet
    qtbot.waitUntil(lambda: win.view.shown_image == image, timeout=5000)
    assert not list(win.view.overlay_items("det"))
    target = Target("detection", str(st.dataset.images.id[image]), int(rows[0]), 0)
    win.curation.tags.toggle(target, "label error")
    qtbot.waitUntil(
        lambda: [i.row for i in win.view.overlay_items("det")] == [int(rows[0])], timeout=5000
    )


def test_the_inspector_marks_the_detections_the_filter_leaves_out(qtbot, demo_window) -> None:
    """The image's Detections list keeps every row; a drawn one the filter leaves out says so."""
    win = demo_window
    st = win.state
    st.set_image_filter(ViewFilter(score=(0.8, math.inf)))
    image = int(st.kept_images[0])
    st.set_current_image(image)
    qtbot.waitUntil(lambda: win.view.shown_image == image, timeout=5000)
    det = st.results[0].results.detections
    rows = np.flatnonzero(det.image_index == image)
    model = win.side.detections.rows_model
    qtbot.waitUntil(lambda: len(model.rows) == len(rows), timeout=5000)
    verdicts = dict(zip(model.keys, (r[3] for r in model.rows), strict=True))
    for row in rows.tolist():
        left_out = st.score_threshold <= det.score[row] < 0.8
        assert ("filtered out" in verdicts[row]) == left_out, (row, verdicts[row])
    assert any("filtered out" in v for v in verdicts.values())
