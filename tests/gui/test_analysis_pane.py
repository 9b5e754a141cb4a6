"""The Analysis tab in the real window: TIDE's bars equal the library's breakdown, a bar lists its
detections or objects (the window's own verdicts agree), a row opens in the image view, the walk
takes the bar's mode, and the bootstrap of the mean AP runs and can be cancelled."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

from tests.gui.test_protocol_window import COCO_MINI, INSTANCES, write_coco_results
from vocviewer.evaluation.analysis import FPKind
from vocviewer.evaluation.result import Verdict
from vocviewer.gui.models.analysis_tasks import BARS
from vocviewer.gui.models.worker import running_workers


def _open(qtbot, make_window, path, results, image_set=None, **kw):
    win = make_window()
    st = win.state
    win.open_dataset(path, results, image_set, **kw)
    qtbot.waitUntil(lambda: st.current_results >= 0 and st.is_idle(), timeout=60_000)
    win.right_tabs.setCurrentWidget(win.analysis)
    qtbot.waitUntil(lambda: win.analysis.tide is not None, timeout=30_000)
    return win


@pytest.fixture
def demo_window(qtbot, make_window, demo):
    return _open(qtbot, make_window, demo.year_dir, (demo.results_dir,), "val")


def _heights(pane) -> dict[str, float]:
    return dict(zip(BARS, [float(h) for h in pane.bars.opts["height"]], strict=True))


def _click_bar(qtbot, pane, name: str) -> None:
    """A real mouse click in the middle of bar ``name`` (the path the user takes)."""
    view = pane.plot
    pos = view.mapFromScene(pane.bar_scene_pos(name))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(pos.x(), pos.y()))
    qtbot.waitUntil(lambda: pane.bar == name, timeout=3000)


def test_demo_bars_are_tides_breakdown_and_list_the_right_detections(qtbot, demo_window, demo):
    from vocviewer.families.registry import open_dataset, open_results
    from vocviewer.families.voc.evaluate import evaluate_voc_det
    from vocviewer.families.voc.tide import voc_tide

    win, st, pane = demo_window, demo_window.state, demo_window.analysis
    ds = open_dataset(demo.year_dir)
    res = open_results(ds, [demo.results_dir], image_set="val")
    expected = voc_tide(ds, res, evaluate_voc_det(ds, res, image_set="val"), image_set="val")
    shown = _heights(pane)
    assert shown == pytest.approx({**expected.main, **expected.special}, abs=1e-12)
    assert shown["Bkg"] > 0 and shown["Loc"] > 0  # the demo's detector makes both errors
    cat = ds.classes.index("cat")
    st.select_class(cat)
    per_class = {n: float(expected.class_delta(n)[cat]) for n in BARS}
    assert _heights(pane) == pytest.approx(per_class, abs=1e-12)

    # background errors of cat: the rows the window diagnoses as FP: background
    _click_bar(qtbot, pane, "Bkg")
    ev = st.evaluations[st.current_results]
    det = st.results[st.current_results].results.detections
    listed = pane.member_rows()
    assert not listed.objects and len(listed.rows) > 0
    of_cat = np.flatnonzero(det.label == cat)
    window_bkg = of_cat[ev.fp_kind_by_row[of_cat] == FPKind.BACKGROUND]
    assert sorted(listed.rows.tolist()) == sorted(window_bkg.tolist())
    assert np.all(np.diff(det.score[listed.rows]) <= 0)  # highest score first
    assert pane.members.model().rowCount() == len(listed.rows)

    # every false positive of cat: exactly the window's non-TP, non-ignored verdicts
    _click_bar(qtbot, pane, "FalsePos")
    fp = pane.member_rows().rows
    ranked = of_cat[ev.verdict_by_row[of_cat] >= 0]
    not_tp = ranked[~np.isin(ev.verdict_by_row[ranked], (Verdict.TP, Verdict.IGNORED))]
    assert sorted(fp.tolist()) == sorted(not_tp.tolist())

    # choosing a row selects that detection and opens its image
    _click_bar(qtbot, pane, "Bkg")
    row = int(listed.rows[1])
    pane.members.selectRow(1)
    rank = int(ev.rank_by_row[row])
    qtbot.waitUntil(lambda: st.selected_detection == (cat, rank), timeout=3000)
    image = int(det.image_index[row])
    assert st.current_image == image
    qtbot.waitUntil(lambda: win.view.shown_image == image, timeout=10_000)
    assert ev.verdict_by_row[row] == Verdict.FP

    # "Walk these": the walk goes through cat's background false positives
    assert pane.walk_button.isEnabled()
    qtbot.mouseClick(pane.walk_button, Qt.MouseButton.LeftButton)
    assert win.walk.walk.mode.key == f"kind:{int(FPKind.BACKGROUND)}"


def test_demo_missed_objects_open_selected(qtbot, demo_window):
    win, st, pane = demo_window, demo_window.state, demo_window.analysis
    ds = st.dataset
    _click_bar(qtbot, pane, "FalseNeg")
    listed = pane.member_rows()
    assert listed.objects and len(listed.rows) > 0
    ev = st.evaluations[st.current_results]
    # every object TIDE leaves unmatched is one the window's VOC verdicts missed, and back
    in_val = np.isin(ds.objects.image_index, ds.image_sets["Main/val"]) & ~ds.objects.difficult
    assert sorted(listed.rows.tolist()) == np.flatnonzero(ev.missed & in_val).tolist()
    obj = int(listed.rows[0])
    pane.members.selectRow(0)
    qtbot.waitUntil(lambda: st.selected_object == obj, timeout=3000)
    assert st.current_image == int(ds.objects.image_index[obj])
    qtbot.waitUntil(lambda: win.view.shown_image == st.current_image, timeout=10_000)
    _click_bar(qtbot, pane, "Miss")
    assert set(pane.member_rows().rows.tolist()) <= set(listed.rows.tolist())
    qtbot.mouseClick(pane.walk_button, Qt.MouseButton.LeftButton)
    assert win.walk.walk.mode.key == "missed"


def test_bootstrap_runs_and_cancels(qtbot, demo_window):
    st, pane = demo_window.state, demo_window.analysis.boot
    jobs = demo_window.analysis.jobs
    with qtbot.waitSignal(jobs.boot_done, timeout=30_000) as done:
        qtbot.mouseClick(pane.boot_button, Qt.MouseButton.LeftButton)
    out = done.args[0].boot.interval(st.results[st.current_results].results.name)
    assert out.replicates == 1000 and out.level == 0.95
    headline = st.evaluations[st.current_results].headline("det", len(st.dataset.classes))
    assert out.point == pytest.approx(headline, abs=1e-12)  # the window's mAP
    assert out.low < out.point < out.high
    assert f"[{out.low:.3f}, {out.high:.3f}]" in pane.boot_label.text()
    assert not pane.boot_progress.isVisible() and pane.boot_button.isEnabled()

    pane.replicates.setValue(200_000)  # long enough to stop half-way
    with qtbot.waitSignal(jobs.boot_progress, timeout=30_000) as first:
        pane.run_bootstrap()
    assert 0 < first.args[0] < 200_000 and first.args[1] == 200_000
    assert pane.cancel_button.isVisible()
    qtbot.mouseClick(pane.cancel_button, Qt.MouseButton.LeftButton)
    assert pane.boot_label.text() == "Bootstrap cancelled."
    assert not jobs.bootstrap_running() and not pane.cancel_button.isVisible()
    qtbot.waitUntil(lambda: running_workers() == 0, timeout=30_000)  # it really stopped
    assert pane.boot_label.text() == "Bootstrap cancelled."


def test_demo_characteristics_bins_list_their_objects(qtbot, demo_window, demo):
    from vocviewer.evaluation.normalised_ap import default_normalisers
    from vocviewer.families.registry import open_dataset, open_results
    from vocviewer.families.voc.analyze import voc_characteristics
    from vocviewer.families.voc.evaluate import evaluate_voc_det

    win, st, pane = demo_window, demo_window.state, demo_window.analysis
    ds = open_dataset(demo.year_dir)
    ev = evaluate_voc_det(
        ds, open_results(ds, [demo.results_dir], image_set="val"), image_set="val"
    )
    expected = voc_characteristics(ds, ev, default_normalisers(ev)[0])["size"]
    assert pane.chart_combo.findData("size") > 0 and pane.chart_combo.findData("truncated") > 0
    pane.choose_chart("size")
    chart = pane.chars
    assert pane.stack.currentWidget() is chart and chart.isVisible()
    bars = chart.bars.opts
    assert list(bars["height"]) == pytest.approx(np.nan_to_num(expected.mean).tolist())
    assert list(chart.errors.opts["top"]) == pytest.approx(np.nan_to_num(expected.se).tolist())
    assert chart.plot.getAxis("bottom")._tickLevels[0] == list(enumerate(expected.bins))

    # the truncated bin of every class: the annotations' truncated, non-difficult objects of the
    # val images; missed ones (the window's own verdicts: no true positive matched) first
    pane.choose_chart("truncated")
    obj = st.dataset.objects
    in_val = np.isin(obj.image_index, st.dataset.image_sets["Main/val"])
    truncated = np.flatnonzero(in_val & ~obj.difficult & obj.truncated)
    view = chart.plot
    pos = view.mapFromScene(chart.bin_scene_pos(1))  # "yes"
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(pos.x(), pos.y()))
    qtbot.waitUntil(lambda: chart.bin == 1, timeout=3000)
    listed = chart.member_rows()
    assert listed.objects and sorted(listed.rows.tolist()) == truncated.tolist()
    missed = st.evaluations[st.current_results].missed[listed.rows]
    n_missed = int(np.count_nonzero(missed))
    assert 0 < n_missed < len(listed.rows)
    assert missed[:n_missed].all() and not missed[n_missed:].any()  # missed first
    table = chart.list.members.model()
    assert table.rowCount() == len(listed.rows)
    assert [table.index(r, 0).data() for r in range(2)] == ["missed", "missed"]

    # choosing the first one opens its image with it selected
    target = int(listed.rows[0])
    chart.list.members.selectRow(0)
    qtbot.waitUntil(lambda: st.selected_object == target, timeout=3000)
    assert st.current_image == int(obj.image_index[target])
    qtbot.waitUntil(lambda: win.view.shown_image == st.current_image, timeout=10_000)

    # with a class selected: only its objects, its own bars
    person = st.dataset.classes.index("person")
    st.select_class(person)
    rows = chart.member_rows().rows
    assert sorted(rows.tolist()) == truncated[obj.label[truncated] == person].tolist()
    pane.choose_chart("size")
    own = np.nan_to_num(expected.ap_n[person])
    assert list(chart.bars.opts["height"]) == pytest.approx(own.tolist())
    pane.choose_chart("")
    assert pane.stack.currentWidget() is pane.splitter


def test_coco_mini_bars_are_tidecv_style_breakdown(qtbot, make_window, tmp_path):
    if not INSTANCES.is_file():
        pytest.skip("coco-mini is not available")
    from vocviewer.families.coco.tide import coco_tide
    from vocviewer.families.registry import open_dataset, open_results

    ds = open_dataset(INSTANCES, images=COCO_MINI / "val2017")
    path = write_coco_results(ds, tmp_path / "bbox_results.json")
    win = _open(qtbot, make_window, INSTANCES, (path,), images=COCO_MINI / "val2017")
    expected = coco_tide(ds, open_results(ds, [path]))
    assert _heights(win.analysis) == pytest.approx({**expected.main, **expected.special})
    _click_bar(qtbot, win.analysis, "Dupe")
    rows = win.analysis.member_rows().rows
    ev = win.state.evaluations[0]
    assert len(rows) > 0  # the results duplicate about one box in ten
    ranked = rows[ev.rank_by_row[rows] >= 0]
    assert np.all(ev.verdict_by_row[ranked] != Verdict.TP)


def test_lvis_is_analysed_under_its_federated_rules(qtbot, make_window, tmp_path):
    """LVIS's bars are ``lvis_tide``'s breakdown; a bar lists only detections LVIS evaluates;
    the bootstrap's point is the window's LVIS AP and its interval the library's."""
    from tests.parity.lvis_data import write_lvis
    from vocviewer.families.lvis.evaluate import EVALUATED, evaluate_lvis, select
    from vocviewer.families.lvis.tide import lvis_tide
    from vocviewer.families.registry import open_dataset, open_results
    from vocviewer.families.view_analysis import view_bootstrap

    ann, res = write_lvis(tmp_path, 5)
    win = _open(qtbot, make_window, ann, (res,))
    st, pane = win.state, win.analysis
    ds = open_dataset(ann)
    results = open_results(ds, [res])
    expected = lvis_tide(ds, results, evaluate_lvis(ds, results))
    assert _heights(pane) == pytest.approx({**expected.main, **expected.special}, abs=1e-12)
    _click_bar(qtbot, pane, "Bkg")
    rows = pane.member_rows().rows
    assert len(rows) > 0 and np.all(select(ds, results).status[rows] == EVALUATED)
    jobs, boot = pane.jobs, pane.boot
    boot.replicates.setValue(100)
    with qtbot.waitSignal(jobs.boot_done, timeout=60_000) as done:
        boot.run_bootstrap()
    out = done.args[0].boot.interval(results.name)
    headline = st.evaluations[st.current_results].headline("det", len(st.dataset.classes))
    assert out.point == pytest.approx(headline, abs=1e-12) and out.replicates == 100
    lib = view_bootstrap(ds, [results], None, 100, 0).interval(results.name)
    assert [out.low, out.high] == pytest.approx([lib.low, lib.high], abs=1e-12)
    assert f"[{out.low:.3f}, {out.high:.3f}]" in boot.boot_label.text()
