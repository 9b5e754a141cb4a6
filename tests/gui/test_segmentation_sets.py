"""Segmentation results as first-class result sets (issue 20, item 5): the demo opens its
segmentation results beside its detections (``vocviewer demo``, File ▸ Open demo dataset); chosen,
such a set says it has no PR curve (never "evaluating…"), adds no empty AP column and keeps the
image being looked at in the list."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from vocviewer.cli import main
from vocviewer.gui.panes.pr.pane import NO_CURVES
from vocviewer.gui.window.main_window import MainWindow
from vocviewer.gui.window.recent import SetOpener

NAMES = ["comp4+comp2", "comp6_val_cls"]  # the demo's detections (+ classification), its PNGs


def test_demo_paths_name_both_result_sets(demo):
    assert demo.result_sets == (demo.results_dir, demo.results_dir / "Segmentation")


def test_vocviewer_demo_opens_the_segmentation_results_too(qapp, demo, tmp_path, capsys):
    shot = tmp_path / "demo.png"
    root = demo.devkit.parent  # the demo is there already: reused, not rewritten
    before = set(QApplication.topLevelWidgets())
    assert main(["demo", "--dir", str(root), "--screenshot", str(shot)]) == 0
    assert shot.stat().st_size > 0
    new = set(QApplication.topLevelWidgets()) - before
    (win,) = [w for w in new if isinstance(w, MainWindow)]  # the window it showed, closed
    st = win.state
    assert [r.results.name for r in st.results] == NAMES
    assert st.current_results == 0 and st.image_set == "val"
    assert st.evaluations[1].summary is not None  # the segmentation set was evaluated
    assert "mean IoU" in st.evaluations[1].summary.stats
    win.deleteLater()


def test_open_demo_in_the_window_opens_both_sets(qtbot, make_window, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # the demo's cache folder
    win = make_window()
    win.opening.act_demo.trigger()
    st = win.state
    qtbot.waitUntil(lambda: len(st.results) == 2 and st.is_idle(), timeout=120_000)
    assert [r.results.name for r in st.results] == NAMES
    assert Path(win.opening.opened.dataset).is_relative_to(tmp_path / "cache")
    assert len(win.opening.opened.result_sets) == 2


def headers(win) -> list[str]:
    model = win.ap_table.ap_model
    return [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]


def test_a_segmentation_set_has_no_curve_no_ap_column_and_keeps_the_image(qtbot, make_window, demo):
    win = make_window()
    st = win.state
    seg = demo.results_dir / "Segmentation"
    SetOpener(win.opening, demo.year_dir, [[demo.results_dir], [seg]], "val", {}, win)
    qtbot.waitUntil(lambda: len(st.results) == 2 and st.is_idle(), timeout=60_000)
    # one AP column, named (once the table's coalesced refresh ran)
    qtbot.waitUntil(lambda: headers(win)[:3] == ["Class", "comp4+comp2", "npos"], timeout=5_000)
    ds = st.dataset
    train = ds.classes.index("train")
    st.select_class(train)
    ev = st.class_evaluation(train)
    # a false positive on an image without a train: listed for the class through the detections
    with_train = set(ds.objects.image_index[ds.objects.label == train].tolist())
    rank = next(r for r in range(len(ev)) if int(ev.image_index[r]) not in with_train)
    st.select_detection(train, rank)
    image = st.current_image
    assert image in st.visible_images

    win.display.results_combo.setCurrentIndex(1)
    win.display.results_combo.activated.emit(1)  # as a click
    assert st.current_results == 1
    qtbot.waitUntil(st.is_idle, timeout=30_000)
    qtbot.wait(300)  # debounced refreshes
    title = win.pr_pane._title
    assert title == NO_CURVES and "evaluating" not in title
    assert win.pr_pane.note.isVisible() and "Summary tab" in win.pr_pane.note.toPlainText()
    cols = headers(win)
    assert cols == ["Class", "comp4+comp2", "npos", "ndet"]  # no empty AP column (nor AP_N)
    model = win.ap_table.ap_model
    assert model.text_of(train, 1) == f"{ev.ap:.3f}"
    assert "…" not in {model.text_of(r, c) for r in range(model.rowCount()) for c in (2, 3)}
    # the image being looked at stays current and listed, where the list shows it
    assert st.current_image == image
    assert image in st.visible_images
    assert (
        int(np.flatnonzero(st.visible_images == image)[0]) == win.browser.list.currentIndex().row()
    )

    # All classes: the same note, never "evaluating…"
    st.select_class(-1)
    assert win.pr_pane._title == NO_CURVES
    # back to the detections: curves again
    st.set_current_results(0)
    st.select_class(train)
    assert not win.pr_pane.note.isVisible() and win.pr_pane._title != NO_CURVES
