"""The Tags menu and the label-error queue in a real window on the demo: the Suspects tab lists
the queue ``vocviewer suspects`` prints, the walk keys walk it, tag keys tag what is selected
(with the suspect's fix), tags survive saving and reopening the session, and export writes
the tag tables and VOC patches beside, never into, the dataset."""

from __future__ import annotations

import csv
import io
import json
import os

from PySide6.QtCore import QSettings, Qt

from vocviewer.core.tags import Fix, Target
from vocviewer.families.registry import open_dataset
from vocviewer.families.suspects import evaluated_sets, queue_of

SHOTS = os.environ.get("VOCVIEWER_SHOTS")  # a folder for screenshots of the pane (unset: none)


def settled(win, n: int = 1) -> bool:
    st = win.state
    return st.dataset is not None and len(st.results) == n and st.is_idle()


def open_demo(qtbot, win, demo) -> None:
    det = sorted((demo.results_dir / "Main").glob("comp4_det_val_*.txt"))
    win.open_dataset(demo.year_dir, det, "val")
    qtbot.waitUntil(lambda: settled(win), timeout=30_000)
    assert win.curation.pane.suspects == ()  # computed only once the tab is shown
    win.side.tabs.setCurrentWidget(win.curation.pane)
    qtbot.waitUntil(lambda: len(win.curation.pane.suspects) > 0, timeout=30_000)


def press(qtbot, win, key, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    qtbot.keyClick(win.view, key, modifier)


def test_queue_pane_lists_the_cli_queue_and_walks_it(qtbot, make_window, demo):
    win = make_window()
    open_demo(qtbot, win, demo)
    pane = win.curation.pane
    dataset = open_dataset(demo.year_dir)
    expected = queue_of(dataset, evaluated_sets(dataset, [demo.results_dir]))
    assert [(s.kind, s.image, s.box) for s in pane.suspects] == [
        (s.kind, s.image, s.box) for s in expected
    ]
    assert pane.table.rows_model.rowCount() == len(expected)
    win.side.tabs.setCurrentWidget(pane)
    st = win.state
    press(qtbot, win, Qt.Key.Key_Period)  # the walk key: the first suspect
    first = pane.suspects[0]
    assert pane.current() is first and st.current_image == first.image
    if first.object >= 0:
        assert st.selected_object == first.object
    else:
        assert st.selected_detection_row() == first.support[0].detection
    press(qtbot, win, Qt.Key.Key_Period)
    assert pane.current() is pane.suspects[1]
    press(qtbot, win, Qt.Key.Key_Comma)
    assert pane.current() is first
    # the kind chooser narrows the list and the walk
    pane.kind.setCurrentIndex(pane.kind.findData("wrong_label"))
    press(qtbot, win, Qt.Key.Key_Period)
    assert pane.current().kind == "wrong_label"
    # with another tab in front, the keys walk the detections again
    win.side.tabs.setCurrentWidget(win.side.detections)
    before = pane.current()
    press(qtbot, win, Qt.Key.Key_Period)
    assert pane.current() is before and st.selected_detection is not None
    if SHOTS:
        win.side.tabs.setCurrentWidget(pane)
        pane.kind.setCurrentIndex(0)
        press(qtbot, win, Qt.Key.Key_Period)
        press(qtbot, win, Qt.Key.Key_Period)
        qtbot.wait(300)
        win.grab().save(f"{SHOTS}/queue.png")


def test_tag_keys_tag_suspects_objects_and_images_and_survive_the_session(
    qtbot, make_window, demo, tmp_path
):
    settings = QSettings(str(tmp_path / "v.ini"), QSettings.Format.IniFormat)
    win = make_window(settings)
    open_demo(qtbot, win, demo)
    st, pane, cur = win.state, win.curation.pane, win.curation
    ds = st.dataset
    win.side.tabs.setCurrentWidget(pane)
    pane.kind.setCurrentIndex(pane.kind.findData("missing"))
    press(qtbot, win, Qt.Key.Key_Period)
    missing = pane.current()
    press(qtbot, win, Qt.Key.Key_2, Qt.KeyboardModifier.AltModifier)  # "missing annotation"
    image_id = str(ds.images.id[missing.image])
    det = Target("detection", image_id, missing.support[0].detection, 0)
    entry = cur.tags.get(det)
    assert entry.tags == ("missing annotation",)
    assert entry.fix == Fix("add", ds.classes[missing.class_index], missing.box)
    assert "missing annotation" in pane.table.rows_model.index(0, 4).data()
    # an object selected in the Objects tab, tagged "ambiguous" with a note
    win.side.tabs.setCurrentWidget(win.side.objects)
    row = int(ds.object_offsets[missing.image])
    st.select_object(row)
    press(qtbot, win, Qt.Key.Key_5, Qt.KeyboardModifier.AltModifier)
    cur.edit_note("partly hidden")
    obj = Target("object", image_id, int(ds.objects.order_in_image[row]))
    assert cur.tags.get(obj).tags == ("ambiguous",)
    assert cur.tag_line.text() == "Tags of this object: ambiguous · note: partly hidden"
    # the image itself (nothing selected)
    other = (missing.image + 1) % len(ds.images)
    st.set_current_image(other)
    press(qtbot, win, Qt.Key.Key_1, Qt.KeyboardModifier.AltModifier)
    assert cur.tags.get(Target("image", str(ds.images.id[other]))).tags == ("label error",)
    model = win.browser.model
    marked = {str(ds.images.id[i]) for i in model.marked}
    assert marked == {image_id, str(ds.images.id[other])}
    press(qtbot, win, Qt.Key.Key_1, Qt.KeyboardModifier.AltModifier)  # again: removed
    assert Target("image", str(ds.images.id[other])) not in cur.tags.tags.entries
    saved = dict(cur.tags.tags.entries)

    session = tmp_path / "s.json"
    assert win.sessions.save_session(session) is not None
    data = json.loads(session.read_text())
    assert {e["kind"] for e in data["tags"]} == {"detection", "object"}
    again = make_window(settings)
    again.sessions.open_session(session)
    qtbot.waitUntil(lambda: settled(again) and len(again.curation.tags.tags) == 2, timeout=30_000)
    assert again.curation.tags.tags.entries == saved

    # export: beside the dataset, never into it
    refused = again.curation.export_tags(demo.year_dir / "tags")
    assert refused == [] and not (demo.year_dir / "tags").exists()
    written = again.curation.export_tags(tmp_path / "out")
    names = sorted(p.relative_to(tmp_path / "out").as_posix() for p in written)
    assert names == ["Annotations/" + image_id + ".xml", "tags.csv", "tags.json"]
    rows = list(csv.DictReader(io.StringIO((tmp_path / "out" / "tags.csv").read_text())))
    assert {(r["kind"], r["tag"], r["note"]) for r in rows} == {
        ("detection", "missing annotation", ""),
        ("object", "ambiguous", "partly hidden"),
    }
    if SHOTS:
        again.side.tabs.setCurrentWidget(again.curation.pane)
        qtbot.waitUntil(lambda: len(again.curation.pane.suspects) > 0, timeout=30_000)
        press(qtbot, again, Qt.Key.Key_Period)  # the strongest suspect: the one tagged
        qtbot.wait(300)
        again.grab().save(f"{SHOTS}/tagged.png")


def test_detection_tags_follow_their_result_set_through_the_session(
    qtbot, make_window, demo, tmp_path
):
    """A tag on a detection of the second result set comes back on the second set, also when the
    first set's files are gone when the session is opened (the set is renumbered)."""
    det = sorted((demo.results_dir / "Main").glob("comp4_det_val_*.txt"))
    other = tmp_path / "runs" / "other"
    other.mkdir(parents=True)
    for f in det:
        (other / f.name.replace("comp4", "comp3")).write_text(f.read_text())
    win = make_window()
    win.open_dataset(demo.year_dir, det, "val")
    qtbot.waitUntil(lambda: settled(win), timeout=30_000)
    win.add_results([other])
    qtbot.waitUntil(lambda: settled(win, 2), timeout=30_000)
    ds = win.state.dataset
    image = str(ds.images.id[win.state.results[1].results.detections.image_index[3]])
    target = Target("detection", image, 3, 1)
    win.curation.tags.toggle(target, "ambiguous")
    session = tmp_path / "s.json"
    win.sessions.save_session(session)
    data = json.loads(session.read_text())
    assert data["tags"] == [
        {"kind": "detection", "image": image, "tags": ["ambiguous"], "index": 3, "result_set": 1}
    ]
    again = make_window()
    again.sessions.open_session(session)
    qtbot.waitUntil(lambda: settled(again, 2) and len(again.curation.tags.tags), timeout=30_000)
    assert list(again.curation.tags.tags.entries) == [target]
    # the first set's files gone: the second is the window's first, and so is its tag's set
    data["result_sets"][0] = ["gone/comp4_det_val_dog.txt"]
    session.write_text(json.dumps(data))
    third = make_window()
    third.sessions.open_session(session)
    qtbot.waitUntil(lambda: settled(third, 1) and len(third.curation.tags.tags), timeout=30_000)
    assert list(third.curation.tags.tags.entries) == [Target("detection", image, 3, 0)]
