"""End to end on the generated demo VOCdevkit: load, evaluate in workers, click through."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QImage

from vocviewer.evaluation.result import Verdict


@pytest.fixture
def demo_window(qtbot, make_window, demo):
    win = make_window()
    win.open_dataset(demo.year_dir, (demo.results_dir,), "val")
    st = win.state
    qtbot.waitUntil(
        lambda: st.dataset is not None and st.current_results >= 0 and st.is_idle(),
        timeout=30_000,
    )
    qtbot.waitUntil(lambda: win.view.shown_image == st.current_image >= 0, timeout=10_000)
    return win


def test_demo_loads_and_evaluates_every_class(demo_window):
    st = demo_window.state
    assert st.eval_set == "val" and st.image_set == "val"
    n = len(st.dataset.classes)
    assert n == 20
    assert len(st.evaluations[0].det) == n and len(st.evaluations[0].cls) == n
    table = demo_window.ap_table.model()
    assert table.rowCount() == n + 1  # 20 classes and the mean row
    assert table.index(n, 0).data() == "mean"
    assert table.index(n, 1).data() not in ("", "…")
    assert demo_window.status.progress.isHidden()
    assert demo_window.view.missing_file is None  # the demo ships its JPEGs
    assert len(demo_window.view.overlay_items("gt")) > 0
    assert sum(c.isVisible() for c in demo_window.pr_pane.overview.values()) > 0  # overview


def test_pr_click_opens_the_false_positive(qtbot, demo_window):
    st, pane, view = demo_window.state, demo_window.pr_pane, demo_window.view
    k = next(k for k, ev in st.evaluations[0].det.items() if (ev.verdict == Verdict.FP).any())
    demo_window.ap_table.selectRow(k)
    assert st.selected_class == k
    ev = pane.evaluation
    assert ev is not None and ev.class_index == k
    assert len(pane.curve.getData()[0]) > 0 and len(pane.spots.points()) > 0
    rank = int(next(r for r in range(len(ev)) if ev.verdict[r] == Verdict.FP))
    spot = next(s for s in pane.spots.points() if s.data() == rank)
    pane._on_spots_clicked(pane.spots, [spot], None)  # what sigClicked delivers
    image = int(ev.image_index[rank])
    qtbot.waitUntil(lambda: view.shown_image == image, timeout=10_000)
    hl = view.highlighted_item()
    assert hl is not None and hl.row == int(ev.order[rank])
    assert st.selected_detection == (k, rank)
    assert st.current_image == image


def test_next_previous_keys_walk_the_list(qtbot, demo_window):
    st = demo_window.state
    first, second = (int(i) for i in st.visible_images[:2])
    assert st.current_image == first
    demo_window.display.act_next.trigger()
    qtbot.waitUntil(lambda: demo_window.view.shown_image == second, timeout=10_000)
    demo_window.display.act_prev.trigger()
    assert st.current_image == first
    assert "(1 / " in demo_window.status.label.text()


def test_run_gui_saves_a_screenshot(qapp, demo, tmp_path):
    from vocviewer.gui.window.app import run_gui

    shot = tmp_path / "main.png"
    code = run_gui(demo.year_dir, [demo.results_dir], image_set="val", screenshot=shot)
    assert code == 0
    image = QImage(str(shot))
    assert not image.isNull() and image.width() >= 1000


def test_parts_and_scores_toggles(qtbot, demo_window):
    win, st = demo_window, demo_window.state
    ds = st.dataset
    with_parts = np.flatnonzero(np.bincount(ds.parts.object_index, minlength=len(ds.objects)))
    image = int(ds.objects.image_index[with_parts[0]])
    st.set_image_set(None)
    st.set_current_image(image)
    qtbot.waitUntil(lambda: win.view.shown_image == image, timeout=5000)
    assert win.view.overlay_items("part")
    win.display.toggle_actions["show_parts"].trigger()  # H
    assert not win.view.overlay_items("part") and not st.show_parts
    win.display.toggle_actions["show_parts"].trigger()
    assert win.view.overlay_items("part")
    st.set_threshold(0.0)
    det_labels = [i.text for i in win.view.overlay_items("label") if i.text[-3:-2] == "."]
    assert det_labels  # "cow 0.65"-style labels
    win.display.toggle_actions["show_scores"].trigger()  # C
    names = set(ds.classes)
    assert all(i.text.split(" · ")[0] in names for i in win.view.overlay_items("label"))


def test_browsing_another_set_keeps_results_on_the_set_they_name(qtbot, demo_window):
    """The demo's files are comp4_det_val_*: browsing train shows train's images but the
    evaluation stays on val (on train every detection would be outside the set)."""
    st = demo_window.state
    before = {k: ev.ap for k, ev in st.evaluations[0].det.items()}
    st.set_image_set("train")
    assert st.image_set == "train" and st.eval_set == "val"
    assert not any(k.startswith("eval/") for k in st.jobs.running_keys())
    assert {k: ev.ap for k, ev in st.evaluations[0].det.items()} == before
    assert len(st.visible_images) == len(st.dataset.images_in_set("train"))
