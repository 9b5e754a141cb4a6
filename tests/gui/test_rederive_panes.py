"""Changing the IoU threshold or the area range (re-derived from the stored evidence) reaches
every pane at once and as a rebuild would: the drawn detections recoloured in place give the
pixels a rebuild gives, the AP table's header follows on the next turn (no burst delay), and
a kept view's AP_N (``normalised_aps``, kept per evaluation) equals eq. 6 worked out afresh."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from tests.gui.test_consistency import coco_case, open_case
from vocviewer.evaluation.normalised_ap import mean_positives, normalised_det_ap
from vocviewer.gui.models import debounce


def settled(win: Any) -> bool:
    """Every job done, no coalesced refresh waiting, no overlay redraw or tag due."""
    turns = debounce._TURNS
    waiting = any(d._timer.isActive() for d in win.findChildren(debounce.Debounced))
    queued = turns is not None and bool(turns.queue)
    return win.state.is_idle() and not waiting and not queued and not win.view.overlays_pending()


def threads_making_polylines(monkeypatch: Any) -> list[threading.Thread]:
    """The threads that make a PR polyline from now on (``polylines.pr_polyline`` traced)."""
    from vocviewer.evaluation import polylines

    threads: list[threading.Thread] = []
    worked = polylines.pr_polyline

    def traced(*args: Any) -> Any:
        threads.append(threading.current_thread())
        return worked(*args)

    monkeypatch.setattr(polylines, "pr_polyline", traced)
    return threads


def busiest_image(win: Any) -> int:
    """The image row with the most detections of the current result set."""
    st = win.state
    det = st.results[st.current_results].results.detections
    return int(np.bincount(det.image_index, minlength=len(st.dataset.images)).argmax())


def test_a_rederive_recolours_in_place_as_a_rebuild_would(qtbot, make_window, tmp_path):
    win = open_case(qtbot, make_window, coco_case(tmp_path))
    st, view = win.state, win.view
    st.set_current_results(0)
    st.set_current_image(busiest_image(win))
    shown = lambda: view.shown_image == st.current_image and bool(view._shown.items)  # noqa: E731
    qtbot.waitUntil(lambda: settled(win) and shown(), timeout=60_000)
    for what, value in (("iou", 0.75), ("area", "small"), ("iou", 0.5), ("iou", 0.95)):
        before = list(view._shown.items)  # held: their ids stay theirs
        with qtbot.waitSignal(st.evaluation.evidence_replaced, timeout=60_000):
            (st.evaluation.set_iou if what == "iou" else st.evaluation.set_area)(value)
        assert not win.ap_table._reset_later._timer.isActive()  # due next turn, no delay
        qtbot.waitUntil(lambda: settled(win), timeout=60_000)
        header = win.ap_table.ap_model._headers[-1]
        assert header == f"AP_N@{st.evaluation.iou:.2f}", (what, value, header)
        after = list(view._shown.items)
        recoloured = len(after) == len(before) and all(
            a is b for a, b in zip(after, before, strict=False)
        )
        shown = view.grab().toImage()
        view.redraw_overlays()
        qtbot.waitUntil(lambda: not view.overlays_pending(), timeout=10_000)
        assert view.grab().toImage() == shown, (what, value, recoloured)
        if what == "area":  # the verdicts stay: the boxes are the same items, recoloured
            assert recoloured


def test_a_kept_view_brings_its_normalised_ap_back_unchanged(qtbot, make_window, tmp_path):
    win = open_case(qtbot, make_window, coco_case(tmp_path))
    st, ev = win.state, win.state.evaluation
    rule = ev.settings.ap_rule
    for what, value in (("iou", 0.75), ("area", "medium"), ("iou", 0.5), ("iou", 0.75)):
        with qtbot.waitSignal(ev.evidence_replaced, timeout=60_000):
            (ev.set_iou if what == "iou" else ev.set_area)(value)
        qtbot.waitUntil(st.is_idle, timeout=60_000)
        for evals in st.evaluations:
            assert evals.normalised is not None and evals.normalised[0] == rule
            evs = {k: v.evaluation for k, v in evals.views.items()}
            n_pos = mean_positives([e.npos for e in evs.values()])
            assert evals.normalised[1] == n_pos or (
                np.isnan(n_pos) and np.isnan(evals.normalised[1])
            )
            fresh = {k: normalised_det_ap(e, rule, n_pos) for k, e in evs.items()}
            np.testing.assert_array_equal(
                [evals.normalised[2][k] for k in sorted(fresh)], [fresh[k] for k in sorted(fresh)]
            )


def test_every_pane_after_a_rederive_equals_a_rebuild(qtbot, make_window, tmp_path):
    """After each change: the per-row arrays equal the views added afresh (the ranks by row are
    shared with the evaluations re-derived from), the All-classes plot (curves re-set from
    kept polylines, title set only when it changed) the pixels of a plot drawn anew, and the
    AP table every cell of a table filled anew."""
    from vocviewer.gui.models.evaluation import ResultEvaluations

    win = open_case(qtbot, make_window, coco_case(tmp_path))
    st, ev, pane = win.state, win.state.evaluation, win.pr_pane
    st.select_class(-1)
    win.resize(1200, 800)
    for what, value in (("iou", 0.75), ("area", "small"), ("iou", 0.5), ("iou", 0.75)):
        with qtbot.waitSignal(ev.evidence_replaced, timeout=60_000):
            (ev.set_iou if what == "iou" else ev.set_area)(value)
        qtbot.waitUntil(lambda: settled(win), timeout=60_000)
        for i, evals in enumerate(st.evaluations):
            fresh = ResultEvaluations(len(st.results[i].results.detections), len(evals.missed))
            for k in sorted(evals.views):
                fresh.add(evals.views[k])
            for col in ("verdict_by_row", "fp_kind_by_row", "rank_by_row", "missed"):
                assert np.array_equal(getattr(evals, col), getattr(fresh, col)), (value, col)
        plot = pane.plot.grab().toImage()
        table = win.ap_table.ap_model.shown(), win.ap_table.ap_model.shown_values()
        pane.classes.clear()
        pane._title_set = None
        pane.refresh()
        win.ap_table.ap_model._cells = {}
        win.ap_table.ap_model.refresh()
        assert pane.plot.grab().toImage() == plot, (what, value)
        assert (win.ap_table.ap_model.shown(), win.ap_table.ap_model.shown_values()) == table


def test_the_workers_work_ahead_what_the_rederive_and_the_pr_plot_read(
    qtbot, make_window, tmp_path, monkeypatch
):
    """The diagnosis job lays every result set's ranks end to end (``lay_out``: its first
    re-derive does not) and searches the overlaps of all of them (``search_ahead``: a
    re-derive searches none), and a re-derive works out every class's PR polyline and its
    path in its worker: the GUI thread works none out, and the All-classes plot draws
    ``pr_polyline``'s points by the path its curve would build."""

    from vocviewer.evaluation import diagnosis_all, pair_overlaps
    from vocviewer.evaluation.result import pr_polyline
    from vocviewer.gui.models.curve_paths import path_of

    win = open_case(qtbot, make_window, coco_case(tmp_path))
    st, ev, pane = win.state, win.state.evaluation, win.pr_pane
    st.select_class(-1)
    qtbot.waitUntil(lambda: settled(win), timeout=60_000)
    laid = diagnosis_all._LAID.keys()
    for evals in st.evaluations:
        orders = [evals.det[k].order for k in sorted(evals.det) if len(evals.det[k].order)]
        assert any(
            len(key) == len(orders) and all(a is b for a, b in zip(key, orders, strict=True))
            for key in laid
        )

    def searched() -> list[int]:  # rows searched, per result set
        rows = [
            pair_overlaps._rows_of(st.dataset, r.results, st.dataset.plus_one) for r in st.results
        ]
        return [r.used for r in rows]

    before = searched()
    assert all(n > 0 for n in before)
    threads = threads_making_polylines(monkeypatch)
    for what, value in (("iou", 0.75), ("area", "small"), ("iou", 0.95)):
        with qtbot.waitSignal(ev.evidence_replaced, timeout=60_000):
            (ev.set_iou if what == "iou" else ev.set_area)(value)
        qtbot.waitUntil(lambda: settled(win), timeout=60_000)
        assert threading.main_thread() not in threads, (what, value)
        assert searched() == before, (what, value)
        det = st.evaluations[st.current_results].det
        drawn = {k for k, c in pane.overview.items() if c.isVisible()}
        assert drawn == {k for k, e in det.items() if len(e)}
        for k in drawn:
            curve = pane.overview[k]
            x, y = curve.getData()
            want = pr_polyline(det[k].recall, det[k].precision)
            assert np.array_equal(x, want[0]) and np.array_equal(y, want[1]), (value, k)
            assert curve.getPath() is path_of(det[k]), (value, k)  # built in the worker
            assert curve.getPath() == curve.generatePath(x, y), (value, k)  # as it would


def test_an_overview_curve_bounds_its_polyline_as_pyqtgraph_does(qtbot):
    """The All-classes plot's curves (``overview._Curve``) read their data bounds straight off
    the polyline: what pyqtgraph's own look gives, a hover's shadow pen and a NaN (then its
    look) included."""
    import pyqtgraph as pg

    from vocviewer.gui.panes.pr.overview import _Curve

    rng = np.random.default_rng(3)
    x, y = np.sort(rng.random(500)), rng.random(500)
    cases = [(x, y, "all"), (x, np.r_[y[:-1], np.nan], "finite"), (x[:1], y[:1], "all")]
    for xs, ys, connect in cases:
        ours, theirs = _Curve(), pg.PlotCurveItem()
        for curve in (ours, theirs):
            curve.setData(xs, ys, connect=connect, skipFiniteCheck=connect == "all")
        for shadow in (None, pg.mkPen("#111111", width=3.5)):
            for curve in (ours, theirs):
                curve.setShadowPen(shadow)
            for ax in (0, 1):
                assert ours.dataBounds(ax) == theirs.dataBounds(ax), (connect, ax)
            assert ours.boundingRect() == theirs.boundingRect()


def test_going_back_to_the_choice_shown_before_takes_its_evidence_again(
    qtbot, make_window, tmp_path, monkeypatch
):
    """The evidence shown before a change (diagnosed) is kept one step: going back to that
    choice takes it again at once, no re-derive job; another choice re-derives."""
    win = open_case(qtbot, make_window, coco_case(tmp_path))
    st, ev = win.state, win.state.evaluation
    qtbot.waitUntil(lambda: settled(win), timeout=60_000)
    started: list[str] = []
    start = ev.jobs.start

    def recorded(key: str, *args: Any, **kw: Any) -> int:
        started.append(key)
        return start(key, *args, **kw)

    monkeypatch.setattr(ev.jobs, "start", recorded)
    shown = {ev.choice(): list(st.evaluations)}
    steps = (("iou", 0.75, True), ("iou", 0.5, False), ("iou", 0.75, False))
    steps += (("area", "small", True), ("area", "all", False), ("iou", 0.95, True))
    for what, value, rederived in steps:
        started.clear()
        with qtbot.waitSignal(ev.evidence_replaced, timeout=60_000):
            (ev.set_iou if what == "iou" else ev.set_area)(value)
        qtbot.waitUntil(lambda: settled(win), timeout=60_000)
        jobs = [k for k in started if k.startswith("rederive/")]
        assert bool(jobs) == rederived, (what, value, started)
        if not rederived:
            assert all(a is b for a, b in zip(st.evaluations, shown[ev.choice()], strict=True))
        for evals in st.evaluations:
            assert evals.choice == ev.choice() and evals.diagnosed()
            assert evals.before is None or evals.before.before is None  # one step kept
        shown[ev.choice()] = list(st.evaluations)
