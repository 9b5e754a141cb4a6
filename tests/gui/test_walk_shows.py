"""Show follows the walk (issue 20, item 10; viewdet's ``onlytp``): walking only TPs draws only
TPs, walking a FP kind draws that kind (and the ground truth), walking missed objects draws the
missed objects, walking every detection draws what View ▸ Show says; the boxes on screen are
counted per verdict against the window's own verdicts, in every walk mode, on and off."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from PySide6.QtCore import QSettings

from vocviewer.evaluation.analysis import FPKind
from vocviewer.evaluation.result import Verdict
from vocviewer.gui.models.walk import WALK_MODES, WRONG_CLASS


@pytest.fixture
def demo_window(qtbot, make_window, demo):
    win = make_window()
    win.open_dataset(demo.year_dir, (demo.results_dir / "Main",))
    st = win.state
    qtbot.waitUntil(lambda: st.current_results >= 0 and st.is_idle(), timeout=60_000)
    st.set_threshold(0.0)  # every detection of the image is a candidate
    return win


def busiest_image(st) -> int:
    """The image with the most kinds of verdict among its detections (TP, FP kinds)."""
    det = st.results[0].results.detections
    ev = st.evaluations[0]
    kinds = np.where(ev.verdict_by_row == Verdict.TP, 99, ev.fp_kind_by_row).astype(np.int64)
    variety = [
        len(set(kinds[det.image_index == i].tolist())) for i in range(len(st.dataset.images))
    ]
    return int(np.argmax(variety))


def drawn(win) -> Counter:
    """The detections on screen by ``(verdict, fp kind)``."""
    ev = win.state.evaluations[0]
    rows = [item.row for item in win.view.overlay_items("det")]
    return Counter((int(ev.verdict_by_row[r]), int(ev.fp_kind_by_row[r])) for r in rows)


def expected(win, key: str) -> Counter:
    """What a mode should draw, from the verdicts (not from the overlay code)."""
    st = win.state
    det, ev = st.results[0].results.detections, st.evaluations[0]
    rows = np.flatnonzero(det.image_index == st.current_image)
    v, kind = ev.verdict_by_row[rows], ev.fp_kind_by_row[rows]
    if key == "tp":
        keep = v == Verdict.TP
    elif key == "fp":
        keep = v >= Verdict.FP
    elif key.startswith("kind:"):
        keep = (v >= Verdict.FP) & np.isin(kind, [int(k) for k in key[5:].split(",")])
    elif key == "missed":
        keep = np.zeros(len(rows), bool)
    else:
        keep = np.ones(len(rows), bool)
    return Counter(zip(v[keep].tolist(), kind[keep].tolist(), strict=True))


@pytest.mark.parametrize("key", [m.key for m in WALK_MODES])
def test_the_image_draws_what_the_walk_visits(qtbot, demo_window, key):
    win, st = demo_window, demo_window.state
    st.set_current_image(busiest_image(st))
    qtbot.waitUntil(lambda: win.view.shown_image == st.current_image, timeout=10_000)
    everything = drawn(win)
    assert len({v for v, _ in everything}) >= 2  # TPs and FPs on this image
    assert win.walk.act_follow.isChecked() and st.follow_walk  # on by default
    win.walk.walk.set_mode(key)
    assert st.drawn_mode == key
    assert drawn(win) == expected(win, key)
    gt = [item.row for item in win.view.overlay_items("gt")]
    objects = np.arange(len(st.dataset.objects))[st.dataset.objects_of(st.current_image)]
    if key == "missed":
        missed = st.evaluations[0].missed_at(st.dataset, st.score_threshold)
        assert sorted(gt) == objects[missed[objects]].tolist()
    else:  # ground truth stays drawn beside the walked detections
        assert len(gt) == len(objects)
    # turned off, the walk's mode no longer decides: View ▸ Show ("all boxes") does
    win.walk.act_follow.trigger()
    assert not st.follow_walk and st.drawn_mode == "all"
    assert drawn(win) == everything


def test_walking_only_true_positives_hides_every_false_positive(qtbot, demo_window):
    win, st = demo_window, demo_window.state
    st.set_current_image(busiest_image(st))
    qtbot.waitUntil(lambda: win.view.shown_image == st.current_image, timeout=10_000)
    assert any(v >= Verdict.FP for v, _ in drawn(win))
    win.walk.mode_actions["tp"].trigger()  # Walk ▸ Only true positives
    assert drawn(win) and {v for v, _ in drawn(win)} == {int(Verdict.TP)}
    win.walk.mode_actions[WRONG_CLASS].trigger()
    wrong = {int(FPKind.SIMILAR), int(FPKind.OTHER)}
    assert all(v >= Verdict.FP and k in wrong for v, k in drawn(win))


def test_every_detection_restores_view_show(qtbot, demo_window):
    win, st = demo_window, demo_window.state
    st.set_current_image(busiest_image(st))
    qtbot.waitUntil(lambda: win.view.shown_image == st.current_image, timeout=10_000)
    st.set_view_mode("fp")  # View ▸ Show: only false positives
    win.walk.walk.set_mode("tp")
    assert drawn(win) == expected(win, "tp")  # the walk decides while it is not "every"
    win.walk.walk.set_mode("all")
    assert drawn(win) == expected(win, "fp")  # ... and View ▸ Show again once it is


def test_a_step_keeps_its_detection_drawn_and_the_grid_follows(qtbot, demo_window):
    win, st = demo_window, demo_window.state
    person = st.dataset.classes.index("person")
    st.select_class(person)
    win.walk.walk.set_mode(f"kind:{int(FPKind.BACKGROUND)}")
    assert win.walk.step(1)
    qtbot.waitUntil(lambda: win.view.shown_image == st.current_image, timeout=10_000)
    assert win.view.highlighted_item() is not None
    assert all(k == FPKind.BACKGROUND for _, k in drawn(win))
    from vocviewer.gui.panes.image.overlay_scene import overlay_options

    assert overlay_options(st, 1.0).mode == f"kind:{int(FPKind.BACKGROUND)}"  # the grid's too


def test_show_follows_the_walk_is_remembered(qtbot, tmp_path):
    from vocviewer.gui.window.app import configure_pyqtgraph
    from vocviewer.gui.window.main_window import MainWindow

    configure_pyqtgraph()
    ini = str(tmp_path / "vocviewer.ini")
    first = MainWindow(settings=QSettings(ini, QSettings.Format.IniFormat))
    qtbot.addWidget(first)
    assert first.walk.act_follow.isChecked()
    first.walk.act_follow.trigger()
    first.close()
    second = MainWindow(settings=QSettings(ini, QSettings.Format.IniFormat))
    qtbot.addWidget(second)
    assert not second.state.follow_walk and not second.walk.act_follow.isChecked()
    second.close()
