"""The All-classes PR plot's first drawing of every class, at the end of an open, only hands
each class its curve: the first evaluation's worker works out each detection class's PR
polyline and its path (``curve_paths.with_paths``) before the class reaches the GUI thread, and
the curves are made ahead, some per turn, while the results are evaluated."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from tests.gui.test_consistency import coco_case
from tests.gui.test_rederive_panes import threads_making_polylines


def test_the_first_evaluation_brings_every_class_with_its_pr_curve_worked_out(
    qtbot, make_window, tmp_path, monkeypatch
):
    from vocviewer.evaluation import polylines
    from vocviewer.evaluation.result import pr_polyline
    from vocviewer.gui.models.curve_paths import path_of

    case = coco_case(tmp_path)
    threads = threads_making_polylines(monkeypatch)
    win = make_window()
    st = win.state
    arrived: list[tuple[Any, bool, bool]] = []  # (evaluation, path kept, polyline kept) on arrival
    st.evaluation.class_evaluated.connect(
        lambda _i, e: arrived.append((e, path_of(e) is not None, e in polylines._POLYLINES))
    )
    st.select_class(-1)
    win.open_dataset(case.path, tuple(case.sets[0]), None, **case.sources)
    qtbot.waitUntil(lambda: len(st.results) == 1 and st.is_idle(), timeout=60_000)
    det = [(e, path, line) for e, path, line in arrived if e.task == "det"]
    assert det and all(path and line for _e, path, line in det)
    assert threading.main_thread() not in threads
    drawn = {k: c for k, c in win.pr_pane.overview.items() if c.isVisible()}
    shown = st.evaluations[0].det
    assert set(drawn) == {k for k, e in shown.items() if len(e)}
    for k, curve in drawn.items():
        x, y = curve.getData()
        want = pr_polyline(shown[k].recall, shown[k].precision)
        assert np.array_equal(x, want[0]) and np.array_equal(y, want[1]), k
        assert curve.getPath() == curve.generatePath(x, y), k  # the path it would build


def test_class_curves_are_made_ahead_in_turns_while_the_results_are_evaluated(
    qtbot, make_window, tmp_path, monkeypatch
):
    """While a result set is evaluated, the PR pane makes the class curves not made yet, some
    per event-loop turn (a fast evaluation's first drawing of every class made the half the
    loading left in its own stall); once evaluated, they are made on use."""
    from vocviewer.gui.panes.pr import overview

    case = coco_case(tmp_path)
    win = make_window()
    st, pane = win.state, win.pr_pane
    win.open_dataset(case.path, tuple(case.sets[0]), None, **case.sources)
    qtbot.waitUntil(lambda: len(st.results) == 1 and st.is_idle(), timeout=60_000)
    n = len(st.dataset.classes)
    made: list[int] = []
    prepare = overview.ClassOverview.prepare
    monkeypatch.setattr(
        overview.ClassOverview,
        "prepare",
        lambda self, *a, **k: made.append(len(self.curves)) or prepare(self, *a, **k),
    )
    pane.classes.clear()
    monkeypatch.setattr(type(st.jobs), "running_keys", lambda _self: ["diagnose/0"])
    pane._prepare_curves()  # evaluated (its false positives being diagnosed): made on use
    assert len(pane.overview) == 0
    monkeypatch.setattr(type(st.jobs), "running_keys", lambda _self: ["eval/0", "diagnose/1"])
    pane._prepare_curves()
    assert 0 < len(pane.overview) < n  # some in this turn
    qtbot.waitUntil(lambda: len(pane.overview) == n, timeout=10_000)  # the rest in the next ones
    assert len(made) > 2
    monkeypatch.setattr(type(st.jobs), "running_keys", lambda _self: [])
    pane.classes.clear()
    pane._prepare_curves()  # evaluated: made on use
    assert len(pane.overview) == 0
