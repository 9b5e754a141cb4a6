"""The Analysis tab reads the window's evidence: one open of the demo with its results, then the
Analysis tab (TIDE, ``analyze()`` curves, characteristics, the pages of the analyses beyond AP)
and its bootstrap, cost one VOC evaluation per result set and choice — the window's own; a
bootstrap asked for while the window evaluates waits for that evaluation instead of making its
own. The family's evaluator entry point is
wrapped with a counter (every module attribute bound to it), the real function still runs."""

from __future__ import annotations

import importlib

from tests.families.test_window_evidence import count_calls
from vocviewer.families.views import ViewChoice
from vocviewer.gui.panes.analysis.pages import page_key


def test_demo_open_and_analysis_tab_evaluate_once_per_result_set(
    qtbot, make_window, demo, monkeypatch
):
    from vocviewer.families.voc import evaluate

    for name in ("analyze", "view"):  # loaded first, so their bindings are counted too
        importlib.import_module(f"vocviewer.families.voc.{name}")

    calls = count_calls(monkeypatch, evaluate.iter_evaluate_voc_det)
    win = make_window()
    st = win.state
    st.open_dataset(demo.year_dir, (demo.results_dir,), "val")
    qtbot.waitUntil(lambda: st.current_results >= 0 and st.is_idle(), timeout=60_000)
    n_sets = len(st.results)
    assert n_sets == 1 and len(calls) == n_sets  # the window's evaluation

    win.right_tabs.setCurrentWidget(win.analysis)  # TIDE, curves and characteristics
    qtbot.waitUntil(lambda: win.analysis.tide is not None, timeout=30_000)
    assert win.analysis.analysis.curves is not None and win.analysis.characteristics
    for name in win.analysis.pages:  # the analyses beyond AP: the window's evidence too
        win.analysis.choose_chart(page_key(name))
        qtbot.waitUntil(lambda: win.analysis.beyond.current() is not None, timeout=30_000)
    assert set(win.analysis.beyond.current().results) >= set(win.analysis.pages)
    boot = win.analysis.boot
    boot.replicates.setValue(50)
    with qtbot.waitSignal(win.analysis.jobs.boot_done, timeout=30_000):
        boot.run_bootstrap()
    assert len(calls) == n_sets, [c.get("iou_threshold") for c in calls]

    # another choice VOC cannot re-derive: the window evaluates at it, the analyses stay
    st.evaluation.set_iou(0.7)
    assert st.evaluation.is_running()
    with qtbot.waitSignal(win.analysis.jobs.boot_done, timeout=30_000):
        boot.run_bootstrap()  # asked while the window evaluates: it waits, then reads that
    qtbot.waitUntil(st.is_idle, timeout=30_000)
    assert len(calls) == 2 * n_sets, [c.get("iou_threshold") for c in calls]
    assert st.evaluation.choice() == ViewChoice(0.7, "all", "val")
    assert win.analysis.jobs.cached(st.results[0].results)[0]  # computed once, kept
    with qtbot.waitSignal(win.analysis.jobs.boot_done, timeout=30_000):
        boot.run_bootstrap()  # at IoU 0.5 re-derived from the window's classes at 0.7
    assert len(calls) == 2 * n_sets
