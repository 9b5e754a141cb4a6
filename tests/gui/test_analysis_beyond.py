"""The Analysis tab's pages beyond AP in the real window: the operating point's curves and the
reliability diagram equal ``vocviewer analyze --operating-point --calibration --json`` on the demo
(one computation, three outlets: CLI, API, window); a click on the operating-point plot sets
the threshold (and "Draw at this threshold" the score slider), a click on a bin lists its
detections, which are the ones the evidence puts in that bin."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

import vocviewer
from tests.gui.test_analysis_pane import _open
from vocviewer.cli import main
from vocviewer.evaluation.drawn import is_drawn
from vocviewer.gui.panes.analysis.pages import page_key

OPERATING, CALIBRATION = page_key("operating_point"), page_key("calibration")
SHOTS = os.environ.get("VOCVIEWER_SHOTS")  # a folder: save the pages' screenshots there


@pytest.fixture
def demo_window(qtbot, make_window, demo):
    return _open(qtbot, make_window, demo.year_dir, (demo.results_dir,), "val")


def _cli(demo, tmp_path: Path) -> dict:
    out = tmp_path / "a.json"
    argv = ["analyze", str(demo.year_dir), "--results", str(demo.results_dir), "--bootstrap", "2"]
    argv += ["--operating-point", "--calibration", "--lrp", "--json", str(out)]
    assert main(argv) == 0
    (entry,) = json.loads(out.read_text())["sets"].values()
    return dict(entry)


def _click(qtbot, view, scene_pos_of) -> None:
    """A real click where ``scene_pos_of()`` says, once the plot is laid out."""
    qtbot.waitExposed(view)
    qtbot.wait(100)
    pos = view.mapFromScene(scene_pos_of())
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(pos.x(), pos.y()))


def _same(a, b) -> bool:
    if a is None or (isinstance(a, float) and math.isnan(a)):
        return b is None or (isinstance(b, float) and math.isnan(b))
    return a == b


def test_pages_equal_analyze_json_and_the_api(qtbot, demo_window, demo, tmp_path, capsys):
    entry = _cli(demo, tmp_path)
    capsys.readouterr()
    api = vocviewer.beyond_ap(demo.year_dir, demo.results_dir, image_set="val").to_dict()
    assert api["operating_point"] == entry["operating_point"]
    assert api["calibration"] == entry["calibration"] and api["lrp"] == entry["lrp"]
    st, pane = demo_window.state, demo_window.analysis
    pane.choose_chart(OPERATING)
    qtbot.waitUntil(lambda: pane.beyond.current() is not None, timeout=10_000)
    shown = pane.beyond.current()
    assert shown is not None
    assert shown.to_dict()["operating_point"] == entry["operating_point"]
    assert shown.to_dict()["calibration"] == entry["calibration"]
    assert shown.to_dict()["lrp"] == entry["lrp"]
    # the plotted points are the JSON's curve
    curve = entry["operating_point"]["overall"]["curve"]
    xs, ys = pane.pages["operating_point"].lines["f1"].getData()
    assert xs.tolist() == curve["thresholds"] and ys.tolist() == curve["f1"]
    cat = st.dataset.classes.index("cat")
    st.select_class(cat)
    xs, ys = pane.pages["operating_point"].lines["precision"].getData()
    per = entry["operating_point"]["per_class"]["cat"]
    assert xs.tolist() == per["curve"]["thresholds"]
    assert ys.tolist() == [p for p in per["curve"]["precision"] if p is not None]
    # the reliability page's bars are the JSON's bins
    pane.choose_chart(CALIBRATION)
    heights = pane.pages["calibration"].bars.opts["height"]
    bins = entry["calibration"]["per_class"]["cat"]["bins"]
    assert [0.0 if p is None else p for p in bins["precision"]] == list(heights)
    assert all(
        _same(a, b)
        for a, b in zip(bins["precision"], pane.pages["calibration"].cal.precision, strict=True)
    )


def test_a_click_sets_the_threshold_and_lists_the_kept_detections(qtbot, demo_window):
    win, st, pane = demo_window, demo_window.state, demo_window.analysis
    pane.choose_chart(OPERATING)
    qtbot.waitUntil(lambda: pane.beyond.current() is not None, timeout=10_000)
    page = pane.pages["operating_point"]
    curve = page.curve
    assert curve is not None and page.index == pane.beyond.result("operating_point").op.overall_best
    target = float(curve.thresholds[len(curve.thresholds) // 3])
    _click(qtbot, page.plot, lambda: page.scene_pos(target))
    qtbot.waitUntil(lambda: page.threshold() == target, timeout=3000)
    rows = page.member_rows().rows
    det = st.results[st.current_results].results.detections
    ev = st.evaluations[st.current_results]
    counted = np.flatnonzero((ev.verdict_by_row >= 0) & (ev.verdict_by_row != 0))
    kept = counted[is_drawn(det.score[counted], target)]
    assert sorted(rows.tolist()) == sorted(kept.tolist())
    d = curve.at(target)
    assert d["tp"] + d["fp"] == len(rows)
    page.draw_at_threshold()  # the slider's 0.01 step at or below: every kept one drawn
    assert st.score_threshold == math.floor(target * 100) / 100 <= target
    if SHOTS:
        win.grab().save(str(Path(SHOTS, "operating-point.png")))


def test_a_bin_lists_its_detections(qtbot, demo_window):
    win, st, pane = demo_window, demo_window.state, demo_window.analysis
    pane.choose_chart(CALIBRATION)
    qtbot.waitUntil(lambda: pane.pages["calibration"].cal is not None, timeout=10_000)
    page = pane.pages["calibration"]
    cal = page.cal
    b = int(np.argmax(cal.count))
    _click(qtbot, page.plot, lambda: page.bin_scene_pos(b))
    qtbot.waitUntil(lambda: page.bin == b, timeout=3000)
    rows = page.member_rows().rows
    assert len(rows) == cal.count[b]
    det = st.results[st.current_results].results.detections
    lo, hi = cal.edges[b], cal.edges[b + 1]
    eps = np.finfo(np.float64).eps
    score = np.clip(det.score[rows], eps, 1 - eps)  # as D-ECE bins them
    assert np.all((score >= lo) & (score < hi))
    page.list.select(0)
    assert st.current_image == int(det.image_index[rows[0]])
    if SHOTS:
        win.grab().save(str(Path(SHOTS, "calibration.png")))


def test_the_pages_compute_in_a_worker_and_the_event_loop_runs_meanwhile(qtbot, demo_window, demo):
    from PySide6.QtCore import QTimer

    from vocviewer.families.beyond_ap import beyond_ap
    from vocviewer.gui.models.beyond_source import JOB

    st, pane = demo_window.state, demo_window.analysis
    source = pane.beyond
    assert source.current() is None  # asked: nothing computed on the GUI thread
    assert JOB in st.jobs.running_keys() and source.computing()
    ticks: list[int] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(0)
    with qtbot.waitSignal(source.ready, timeout=20_000):
        pane.choose_chart(OPERATING)  # the page asks again: the same job, not a second one
        assert "Computing" in pane.pages["operating_point"].header.text()
    timer.stop()
    assert ticks  # the event loop ran while the worker computed
    shown = source.current()
    assert shown is not None and not source.computing()
    evidence = st.evaluation.evidence(st.current_results)
    direct = beyond_ap(st.dataset, st.results[st.current_results].results, evidence)
    assert shown.to_dict() == direct.to_dict()  # the same numbers as computed in line
    assert (
        pane.pages["operating_point"].curve is shown["operating_point"].op.overall
    )  # the page redrew when they came


def test_the_lrp_page_shows_analyze_lrp(qtbot, demo_window, demo, tmp_path, capsys):
    """The LRP page's bars, curve and list are ``vocviewer analyze --lrp``'s numbers."""
    from vocviewer.evaluation.analyses.lrp import lrp_curve

    lrp = _cli(demo, tmp_path)["lrp"]
    capsys.readouterr()
    win, st, pane = demo_window, demo_window.state, demo_window.analysis
    pane.choose_chart(page_key("lrp"))
    page = pane.pages["lrp"]
    qtbot.waitUntil(lambda: bool(page.classes), timeout=10_000)
    names = [st.dataset.classes[k] for k in page.classes]
    assert set(names) == set(lrp["per_class"])
    heights = page.bars.opts["height"]
    assert list(heights) == [lrp["per_class"][n]["olrp"] for n in names]
    assert f"moLRP {lrp['moLRP']:.3f}" in page.header.text()
    page._on_hover(page.bar_scene_pos(0))  # a hover names the bar
    assert page.plot.toolTip().startswith(f"{names[0]}: oLRP {heights[0]:.3f}")
    if SHOTS:
        win.grab().save(str(Path(SHOTS, "lrp-classes.png")))
    # a click on a bar chooses its class: its LRP curve, the oLRP threshold, the counted ones
    i = max(range(len(names)), key=lambda j: heights[j] < 1)  # a class with a true positive
    k = page.classes[i]
    _click(qtbot, page.plot, lambda: page.bar_scene_pos(i))
    qtbot.waitUntil(lambda: st.selected_class == k, timeout=3000)
    assert not page.classes  # one class: its curve, no bars
    per = lrp["per_class"][names[i]]
    ev = pane.beyond.evaluations[k]
    xs, ys = page.line.getData()
    assert xs.tolist() == ev.score.tolist()
    assert ys.tolist() == lrp_curve(ev, lrp["tau"]).tolist()
    assert page.best_line.isVisible() and page.best_line.value() == per["threshold"]
    rows = page.member_rows().rows
    assert len(rows) == per["tp_count"] + per["fp_count"]  # what oLRP counts at its rank
    det = st.results[st.current_results].results.detections
    assert np.all(det.score[rows] >= per["threshold"])
    page.draw_per_class()
    assert st.class_thresholds is not None
    assert st.class_thresholds.thresholds == {
        n: c["threshold"] for n, c in lrp["per_class"].items()
    }
    if SHOTS:
        win.grab().save(str(Path(SHOTS, "lrp-class.png")))
