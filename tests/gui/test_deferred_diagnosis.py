"""The window shows an evaluation's numbers first and diagnoses its false positives after: the
evaluation job yields undiagnosed views (the AP table and curves are final at ``finished``), a
diagnosis job follows (``EvaluationModel._diagnose``), and then the set's evidence is replaced
by the diagnosed one (``evidence_replaced``): every pane ends up showing exactly the diagnosis
the family computes when it evaluates and diagnoses at once."""

from __future__ import annotations

import dataclasses

import numpy as np

from tests.gui.test_state import state  # noqa: F401 (the fixture)
from vocviewer.families import registry
from vocviewer.families.eval_sets import read_sets
from vocviewer.families.registry import benchmark_of
from vocviewer.families.views import ClassView
from vocviewer.gui.panes.pr.pane import DOT_STYLES, dot_codes


def reference(dataset, results, choice):
    """The family's detection views at ``choice``, evaluated and diagnosed at once (no
    window)."""
    views = benchmark_of(dataset).evaluate_views(dataset, results, choice)
    return {
        v.class_index: v for v in views if isinstance(v, ClassView) and v.evaluation.task == "det"
    }


def test_numbers_come_first_and_the_diagnosis_after(qtbot, state, tiny):  # noqa: F811
    dataset, results = tiny
    ev = state.evaluation
    state.set_dataset(dataset)
    seen: list[str] = []
    came: list[bool] = []  # whether each arriving class came diagnosed
    ev.class_evaluated.connect(
        lambda i, e: came.append(ev.view_of(i, e.class_index).false_positives is not None)
    )
    ev.finished.connect(lambda: seen.append("finished"))
    ev.evidence_replaced.connect(lambda _i: seen.append("diagnosed"))
    with qtbot.waitSignal(ev.finished, timeout=10_000):
        state.add_result_set(results)
    qtbot.waitUntil(state.is_idle, timeout=10_000)
    assert came and not any(came)  # the evaluation leaves the diagnosis to the job after it
    assert seen == ["finished", "diagnosed"]
    want = reference(dataset, results, ev.choice())
    evals = state.evaluations[0]
    kinds = np.full(len(results.detections), -1, dtype=np.int8)
    for k, view in want.items():
        got = evals.views[k].false_positives
        np.testing.assert_array_equal(got.kind, view.false_positives.kind)
        np.testing.assert_array_equal(state.class_diagnosis(k).kind, view.false_positives.kind)
        kinds[view.evaluation.order] = view.false_positives.kind
    np.testing.assert_array_equal(evals.fp_kind_by_row, kinds)
    evidence = ev.evidence(0)  # what the analyses read: diagnosed
    assert evidence is not None
    assert all(v.false_positives is not None for v in evidence.views())


def test_the_pr_dots_show_the_kinds_once_diagnosed(qtbot, make_window, demo):
    """The class shown while the window evaluates is drawn again once diagnosed: its false
    positives' dots by kind, as the family diagnoses them."""
    ds = registry.open_dataset(demo.year_dir)
    (_, res), *_ = read_sets(ds, [demo.results_dir], "val")
    choice = dataclasses.replace(
        benchmark_of(ds).view_settings(ds).default_choice(), image_set="val"
    )
    want = reference(ds, res, choice)
    k = max(want, key=lambda c: len(np.unique(want[c].false_positives.kind)))  # most kinds
    win = make_window()
    st = win.state
    st.dataset_loaded.connect(lambda _d: st.select_class(k))  # shown while evaluated
    st.open_dataset(demo.year_dir, (demo.results_dir,), "val")
    qtbot.waitUntil(lambda: st.current_results >= 0 and st.is_idle(), timeout=60_000)
    assert st.selected_class == k and st.evaluation.choice() == choice
    qtbot.waitUntil(lambda: win.pr_pane.evaluation is not None, timeout=10_000)
    ev, kinds = want[k].evaluation, want[k].false_positives.kind
    ranks = np.flatnonzero(np.isfinite(ev.precision) & np.isfinite(ev.recall))
    codes = dot_codes(ev.verdict, kinds)[ranks]
    assert len({DOT_STYLES[c][1] for c in codes}) > 2  # several kinds of false positive
    symbols = win.pr_pane.spots.data["symbol"]
    assert list(symbols) == [win.pr_pane._symbols[c] for c in codes]
