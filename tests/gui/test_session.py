"""File ▸ Save session / Open session and Open Recent with result sets, on the demo dataset with
two result sets: what is saved comes back; what cannot be read is said, never a crash."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSettings

from vocviewer.formats.session import FORMAT, VERSION
from vocviewer.gui.window.recent import KEY, RecentEntry


@pytest.fixture
def settings(tmp_path):
    return QSettings(str(tmp_path / "vocviewer.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def start(make_window):
    """Windows on a settings file or ``QSettings`` (``make_window``)."""
    return make_window


@pytest.fixture(scope="module")
def two_sets(demo, tmp_path_factory):
    """The demo's comp4 detections (20 files, one set) and a second detector outside the
    dataset: every other line of each file, as comp3 (a folder, one set)."""
    det = sorted((demo.results_dir / "Main").glob("comp4_det_val_*.txt"))
    other = tmp_path_factory.mktemp("runs") / "weaker"
    other.mkdir()
    for f in det:
        lines = f.read_text().splitlines()[::2]
        (other / f.name.replace("comp4", "comp3")).write_text("\n".join(lines) + "\n")
    return det, other


def settled(win, n_results: int) -> bool:
    st = win.state
    return st.dataset is not None and len(st.results) == n_results and st.is_idle()


def messages(win) -> list[str]:
    return [win.messages.list.item(i).text() for i in range(win.messages.count())]


def open_two(qtbot, win, demo, two_sets) -> None:
    det, other = two_sets
    win.open_dataset(demo.year_dir, det, "val")
    qtbot.waitUntil(lambda: settled(win, 1), timeout=30_000)
    win.add_results([other])
    qtbot.waitUntil(lambda: settled(win, 2), timeout=30_000)


def test_session_round_trip_with_two_result_sets(qtbot, start, settings, demo, two_sets, tmp_path):
    win = start(settings)
    open_two(qtbot, win, demo, two_sets)
    st = win.state
    dog = st.dataset.classes.index("dog")
    st.select_class(dog)
    st.set_current_results(1)
    st.set_threshold(0.3)
    st.set_display("show_labels", False)
    st.set_view_mode("fp")
    win.browser.search.setText("2012_0000")
    qtbot.waitUntil(lambda: len(st.visible_images) > 2, timeout=10_000)
    image = int(st.visible_images[2])
    st.set_current_image(image)
    patches = win.image_area.patches
    patches.set_selection("localization", dog, "iou")
    patches.order.setChecked(False)
    win.image_area.show_patches(True)
    target = tmp_path / "sessions" / "demo.json"
    assert win.sessions.save_session(target) == target.resolve()

    data = json.loads(target.read_text())
    assert (data["format"], data["version"]) == (FORMAT, VERSION)
    assert not Path(data["dataset"]).is_absolute()  # relative to the session file
    assert len(data["result_sets"]) == 2 and data["current_result_set"] == 1
    assert (data["class"], data["image_set"]) == ("dog", "val")
    assert data["view"]["page"] == "patches"
    assert data["view"]["patches"] == {
        "kind": "localization",
        "class": "dog",
        "sort": "iou",
        "descending": False,
    }

    again = start()  # a fresh window, no settings: everything comes from the session
    again.sessions.open_session(target)
    qtbot.waitUntil(lambda: settled(again, 2), timeout=30_000)
    st2 = again.state
    assert [r.results.name for r in st2.results] == [r.results.name for r in st.results]
    assert st2.current_results == 1 and again.display.results_combo.currentData() == 1
    assert st2.image_set == "val" and st2.selected_class == dog
    assert again.browser.class_combo.currentData() == dog
    assert st2.score_threshold == 0.3 and not st2.show_labels and st2.view_mode == "fp"
    assert st2.image_filter.text == "2012_0000" and again.browser.search.text() == "2012_0000"
    assert st2.current_image == image
    qtbot.waitUntil(lambda: again.view.shown_image == image, timeout=10_000)
    assert np.array_equal(st2.visible_images, st.visible_images)
    assert messages(again) == []
    qtbot.waitUntil(again.image_area.patches_in_front, timeout=5_000)
    chosen = again.image_area.patches.selection()
    assert (chosen.kind, chosen.class_index, chosen.sort, chosen.descending) == (
        "localization",
        dog,
        "iou",
        False,
    )
    # and the recent list of the reopened window holds both sets, in order
    entry = again.opening.opened
    assert entry.image_set == "val" and len(entry.result_sets) == 2


def test_a_session_is_not_saved_inside_the_dataset(qtbot, start, demo, two_sets):
    win = start()
    open_two(qtbot, win, demo, two_sets)
    target = demo.devkit / "session.json"
    assert win.sessions.save_session(target) is None
    assert not target.exists()
    (text,) = [m for m in messages(win) if "Session not saved" in m]
    assert "refusing to write inside" in text and str(target) in text
    # nor over one of its result files
    weaker = next(two_sets[1].iterdir())
    before = weaker.read_bytes()
    assert win.sessions.save_session(weaker) is None
    assert weaker.read_bytes() == before


BAD_FILES = {
    "not JSON": ("{oops", "not valid JSON"),
    "foreign": ('{"format": "labelme", "version": 1}', "(format)"),
    "newer": (f'{{"format": "{FORMAT}", "version": 99, "dataset": "x"}}', "(version)"),
    "no dataset": (f'{{"format": "{FORMAT}", "version": 1}}', "(dataset)"),
    "dataset gone": (f'{{"format": "{FORMAT}", "version": 1, "dataset": "gone"}}', "no longer"),
}


@pytest.mark.parametrize("kind", list(BAD_FILES))
def test_a_damaged_foreign_or_newer_session_is_said_and_changes_nothing(start, tmp_path, kind):
    text, words = BAD_FILES[kind]
    path = tmp_path / "s.json"
    path.write_text(text)
    win = start()
    assert win.sessions.open_session(path) is None
    (message,) = messages(win)
    assert str(path) in message and words in message
    assert win.state.dataset is None and win.state.score_threshold == 0.5


def test_unusable_values_of_a_session_are_named_and_left_at_defaults(qtbot, start, demo, tmp_path):
    path = tmp_path / "s.json"
    session = {
        "format": FORMAT,
        "version": VERSION,
        "dataset": str(demo.year_dir),
        "result_sets": [[str(demo.results_dir / "gone.txt")]],
        "image_set": "val",
        "class": "unicorn",
        "image": "no_such_image",
        "image_filter": {"flags": ["sparkly"], "errors": "all of them"},
        "view": {
            "score_threshold": "high",
            "mode": "sideways",
            "toggles": {"show_fog": False},
            "page": "aside",
            "patches": {"kind": "sparkles", "class": "yeti", "sort": "size", "descending": 1},
        },
        "evaluation": {"iou": 0.42, "area": "huge"},
    }
    path.write_text(json.dumps(session))
    win = start()
    win.sessions.open_session(path)
    qtbot.waitUntil(lambda: settled(win, 0), timeout=30_000)
    qtbot.waitUntil(lambda: len(messages(win)) >= 15, timeout=5_000)
    text = "\n".join(messages(win))
    for where in (
        "view.score_threshold",
        "view.mode",
        "view.toggles.show_fog",
        "evaluation.iou",
        "evaluation.area",
        "result_sets",
        "class",
        "image_filter.flags",
        "image_filter.errors",
        "(image)",
        "view.page",
        "view.patches.kind",
        "view.patches.class",
        "view.patches.sort",
        "view.patches.descending",
    ):
        assert where in text, where
    assert all(str(path) in m for m in messages(win))
    st = win.state
    assert (st.score_threshold, st.view_mode, st.evaluation.iou, st.evaluation.area) == (
        0.5,
        "all",
        0.5,
        "all",
    )
    assert st.selected_class == -1 and st.current_image == int(st.visible_images[0])
    chosen = win.image_area.patches.selection()  # the patches at their defaults, the image shown
    assert (chosen.kind, chosen.class_index, chosen.sort, chosen.descending) == (
        "fp",
        -1,
        "score",
        True,
    )
    assert not win.image_area.patches_in_front()


def test_open_recent_reopens_the_dataset_with_its_result_sets_in_order(
    qtbot, start, settings, demo, two_sets
):
    win = start(settings)
    open_two(qtbot, win, demo, two_sets)
    names = [r.results.name for r in win.state.results]
    win.browser.set_combo.setCurrentIndex(win.browser.set_combo.findData("train"))
    win.browser.set_combo.activated.emit(win.browser.set_combo.currentIndex())  # as a click
    (entry,) = win.opening.recent.entries()
    det, other = two_sets
    assert entry.result_sets == (tuple(map(str, det)), (str(other),))
    assert entry.image_set == "train"
    win.close()

    again = start(QSettings(settings.fileName(), QSettings.Format.IniFormat))
    again.opening.recent_menu.aboutToShow.emit()
    (act,) = [a for a in again.opening.recent_menu.actions() if a.text().startswith("&1")]
    assert "(+2 result sets)" in act.text() and "[train]" in act.text()
    act.trigger()
    qtbot.waitUntil(lambda: settled(again, 2), timeout=30_000)
    assert [r.results.name for r in again.state.results] == names
    assert again.state.image_set == "train"


@pytest.mark.parametrize(
    "stored",
    [
        lambda d, r: [str(d)],  # the oldest form: a bare path
        lambda d, r: [{"dataset": str(d), "results": [str(r)], "sources": {}}],  # one flat list
    ],
)
def test_older_recent_entries_still_open(qtbot, start, settings, demo, stored):
    settings.setValue(KEY, json.dumps(stored(demo.year_dir, demo.results_dir)))
    win = start(settings)
    (entry,) = win.opening.recent.entries()
    assert entry.dataset == str(demo.year_dir)
    win.open_recent(entry)
    n = len(entry.result_sets)
    qtbot.waitUntil(lambda: settled(win, n), timeout=30_000)
    assert win.state.dataset.name == "VOC2012"
    # rewritten in today's form, with the image set browsed
    assert win.opening.recent.entries()[0] == RecentEntry(
        str(demo.year_dir), entry.result_sets, {}, "val"
    )


def test_a_dataset_opened_meanwhile_wins_over_a_session_still_opening(
    qtbot, start, demo, two_sets, tmp_path
):
    win = start()
    open_two(qtbot, win, demo, two_sets)
    win.state.select_class(win.state.dataset.classes.index("cat"))
    target = win.sessions.save_session(tmp_path / "s.json")
    again = start()
    opener = again.sessions.open_session(target)
    assert opener is not None
    again.open_dataset(demo.year_dir, (), "val")  # before the session's dataset arrived
    qtbot.waitUntil(
        lambda: again.state.dataset is not None and again.state.is_idle(), timeout=20_000
    )
    qtbot.wait(300)  # anything the session would still do has had its chance
    assert again.state.results == [] and again.state.selected_class == -1
    assert again.opening.opened.result_sets == ()
