"""File ▸ Export the listed images as a dataset… in a real window on the demo: the images the list
shows (a class filter) with the result set's rows on them, written on a worker as a new folder
that reads back as exactly those images; a refusal (inside the dataset) is a message, nothing
written."""

from __future__ import annotations

from PySide6.QtWidgets import QFileDialog, QInputDialog

from vocviewer.families.registry import open_dataset


def demo_window(qtbot, make_window, demo):
    win = make_window()
    win.open_dataset(demo.year_dir, (demo.results_dir / "Main",), "val")
    st = win.state
    qtbot.waitUntil(lambda: st.current_results >= 0 and st.is_idle(), timeout=60_000)
    return win


def posted(win) -> list[tuple[str, str]]:
    seen: list[tuple[str, str]] = []
    win.state.messages_posted.connect(lambda ms: seen.extend((m.level, m.text) for m in ms))
    return seen


def test_the_menu_action_writes_the_listed_images(qtbot, make_window, demo, monkeypatch, tmp_path):
    win = demo_window(qtbot, make_window, demo)
    st = win.state
    st.select_class(st.dataset.class_index("dog"))
    qtbot.waitUntil(lambda: 0 < len(st.visible_images) < len(st.dataset.images), timeout=5000)
    listed = sorted(st.dataset.images.id[st.visible_images].tolist())
    menu = [a.text() for a in win.menuBar().actions()[0].menu().actions()]
    assert "Export the listed images as a &dataset…" in menu
    target = tmp_path / "dogs"
    monkeypatch.setattr(QInputDialog, "getItem", staticmethod(lambda *a, **k: ("voc", True)))
    monkeypatch.setattr(
        QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(target), ""))
    )
    seen = posted(win)
    win.subset.act_export_subset.trigger()
    assert win.subset.running is not None  # on a worker, not the GUI thread
    qtbot.waitUntil(lambda: win.subset.running is None, timeout=30_000)
    assert sorted(open_dataset(target).images.id.tolist()) == listed
    said = f"Dataset export: wrote {target}: {len(listed)} images"
    assert any(level == "info" and text.startswith(said) for level, text in seen)
    name = st.results[0].results.name
    det = st.results[0].results.detections
    expected = sum(int(i) in set(st.visible_images.tolist()) for i in det.image_index)
    files = list((target / "results" / name / "Main").glob("comp4_det_subset_*.txt"))
    assert sum(len(f.read_text().splitlines()) for f in files) == expected > 0


def test_a_refusal_is_a_message(qtbot, make_window, demo, tmp_path):
    win = demo_window(qtbot, make_window, demo)
    seen = posted(win)
    inside = demo.year_dir / "subset"
    win.subset.export_listed(inside, "coco")
    qtbot.waitUntil(lambda: win.subset.running is None, timeout=30_000)
    errors = [text for level, text in seen if level == "error"]
    assert len(errors) == 1 and "refusing to write inside" in errors[0]
    assert not inside.exists()
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("mine")
    win.subset.export_listed(tmp_path / "full", "yolo")
    qtbot.waitUntil(lambda: win.subset.running is None, timeout=30_000)
    assert "exists and is not empty" in [t for lv, t in seen if lv == "error"][-1]
