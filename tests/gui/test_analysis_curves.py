"""The Analysis tab's analyze() curves in the real window: the drawn curves and legend equal the
library's ``analyze()``; a real click on a band lists the detections or objects derived here
independently from the window's verdicts and the boxes, and choosing one opens it. coco-mini
(where present), a generated VisDrone split, and ILSVRC (no curves: the tab says so)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

from tests.gui.test_protocol_window import COCO_MINI, INSTANCES, write_coco_results
from vocviewer.evaluation.analysis_curves import CURVE_NAMES
from vocviewer.evaluation.result import Verdict
from vocviewer.families.coco.columns import CocoAnnotations
from vocviewer.gui.panes.analysis.pane import CURVES


def _open(qtbot, make_window, path, results, **kw):
    win = make_window()
    st = win.state
    win.open_dataset(path, results, None, **kw)
    qtbot.waitUntil(lambda: st.current_results >= 0 and st.is_idle(), timeout=60_000)
    win.right_tabs.setCurrentWidget(win.analysis)
    qtbot.waitUntil(lambda: win.analysis.tide is not None, timeout=60_000)
    win.analysis.choose_chart(CURVES)
    return win


def _click_band(qtbot, chart, name: str) -> None:
    """A real mouse click where band ``name`` is widest."""
    view = chart.plot
    pos = view.mapFromScene(chart.band_scene_pos(name))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(pos.x(), pos.y()))
    qtbot.waitUntil(lambda: chart.band == name, timeout=3000)


def _iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise IoU of xyxy boxes (continuous coordinates, COCO's and VisDrone's rule)."""
    w = np.clip(np.minimum(a[:, 2], b[:, 2]) - np.maximum(a[:, 0], b[:, 0]), 0, None)
    h = np.clip(np.minimum(a[:, 3], b[:, 3]) - np.maximum(a[:, 1], b[:, 1]), 0, None)
    inter = w * h
    area = lambda x: (x[:, 2] - x[:, 0]) * (x[:, 3] - x[:, 1])  # noqa: E731
    return inter / (area(a) + area(b) - inter)


def _drawn(chart) -> dict[str, np.ndarray]:
    return {n: np.asarray(chart.items[n].getData()[1]) for n in CURVE_NAMES}


def _legend_areas(chart) -> list[str]:
    import re

    return re.findall(r"\[[.0-9]+\] \w+", re.sub(r"<[^>]+>", "", chart.legend.text()))


@pytest.fixture
def coco_window(qtbot, make_window, tmp_path):
    if not INSTANCES.is_file():
        pytest.skip("coco-mini is not available")
    from vocviewer.families.registry import open_dataset

    ds = open_dataset(INSTANCES, images=COCO_MINI / "val2017")
    path = write_coco_results(ds, tmp_path / "bbox_results.json")
    win = _open(qtbot, make_window, INSTANCES, (path,), images=COCO_MINI / "val2017")
    win.results_path = path
    return win


def test_coco_mini_curves_and_their_bands(qtbot, coco_window):
    from vocviewer.families.coco.analyze_curves import analyze_coco
    from vocviewer.families.registry import open_dataset, open_results

    win, st, chart = coco_window, coco_window.state, coco_window.analysis.curves
    assert win.analysis.stack.currentWidget() is chart
    ds = open_dataset(INSTANCES, images=COCO_MINI / "val2017")
    a = analyze_coco(ds, open_results(ds, [coco_window.results_path]))
    overall = a.overall("all")
    for n, p in overall.curves().items():
        np.testing.assert_allclose(_drawn(chart)[n], p, atol=1e-12)
    assert _legend_areas(chart) == [
        f"[{overall.areas[n]:.3f}]".replace("[0.", "[.").replace("[1.000]", "[1.00]") + f" {n}"
        for n in CURVE_NAMES
    ]
    person = st.dataset.classes.index("person")
    st.select_class(person)
    cid = int(st.dataset.data(CocoAnnotations).category_id[person])
    for n, p in a.category(cid).curves().items():
        np.testing.assert_allclose(_drawn(chart)[n], p, atol=1e-12)

    # C50: the window's true positives at IoU 0.5 whose box overlaps its object by < 0.75
    _click_band(qtbot, chart, "C50")
    ev = st.class_evaluation(person)
    det, obj = st.results[0].results.detections, st.dataset.objects
    tp = np.flatnonzero(ev.verdict == Verdict.TP)
    iou = _iou(det.box[ev.order[tp]], obj.box[ev.best_gt[tp]])
    want = ev.order[tp[iou < 0.75]]
    listed = chart.member_rows()
    assert not listed.objects and 0 < len(listed.rows) < len(tp)
    assert sorted(listed.rows.tolist()) == sorted(want.tolist())
    assert np.all(np.diff(det.score[listed.rows]) <= 0)  # highest score first
    row = int(listed.rows[2])
    chart.list.members.selectRow(2)
    qtbot.waitUntil(
        lambda: st.selected_detection == (person, int(np.flatnonzero(ev.order == row)[0])),
        timeout=3000,
    )
    qtbot.waitUntil(lambda: win.view.shown_image == int(det.image_index[row]), timeout=10_000)

    # FN: person objects (not crowd) no true positive matched
    _click_band(qtbot, chart, "FN")
    crowd = st.dataset.data(CocoAnnotations).iscrowd
    matched = np.zeros(len(obj), bool)
    matched[ev.best_gt[tp]] = True
    want = np.flatnonzero((obj.label == person) & ~crowd & ~matched)
    listed = chart.member_rows()
    assert listed.objects and sorted(listed.rows.tolist()) == want.tolist() and len(want)
    chart.list.members.selectRow(0)
    target = int(listed.rows[0])
    qtbot.waitUntil(lambda: st.selected_object == target, timeout=3000)
    assert st.current_image == int(obj.image_index[target])

    # another IoU: the window's verdicts are no longer analyze()'s; the list says so
    st.evaluation.set_iou(0.75)
    qtbot.waitUntil(
        lambda: st.is_idle() and "choose IoU 0.5" in chart.list.list_label.text(), timeout=30_000
    )
    assert len(chart.member_rows().rows) == 0


def test_visdrone_curves_and_the_localisation_band(qtbot, make_window, tmp_path):
    from tests.test_cli_analyze_families import random_visdrone, write_visdrone
    from vocviewer.families.visdrone.analyze import visdrone_curves
    from vocviewer.families.visdrone.evaluate import evaluate_visdrone
    from vocviewer.families.visdrone.reader import read_visdrone, read_visdrone_results

    gts, dets = random_visdrone(np.random.default_rng(5), 12, 0.6)
    split = write_visdrone(tmp_path, gts, {"res": dets})
    win = _open(qtbot, make_window, split, (tmp_path / "res",))
    st, chart = win.state, win.analysis.curves
    ds = read_visdrone(split)
    res = read_visdrone_results(ds, [tmp_path / "res"])
    expected = visdrone_curves(ds, res, evaluate_visdrone(ds, res)).curves()
    for n, p in expected.curves().items():
        np.testing.assert_allclose(_drawn(chart)[n], p, atol=1e-12)

    # Loc over every class: false positives whose best overlap with an object of their own
    # class is in [0.1, 0.5) (0.5 or more: a duplicate)
    _click_band(qtbot, chart, "Loc")
    det, obj = st.results[0].results.detections, st.dataset.objects
    verdict = st.evaluations[0].verdict_by_row
    want = []
    for r in np.flatnonzero(verdict == Verdict.FP):
        same = np.flatnonzero((obj.image_index == det.image_index[r]) & (obj.label == det.label[r]))
        best = _iou(np.repeat(det.box[r : r + 1], len(same), 0), obj.box[same]).max(initial=0)
        if 0.1 <= best < 0.5:
            want.append(int(r))
    listed = chart.member_rows()
    assert sorted(listed.rows.tolist()) == sorted(want) and len(want) > 0
    assert chart.list.walk_button.isEnabled()
    qtbot.mouseClick(chart.list.walk_button, Qt.MouseButton.LeftButton)
    assert win.walk.walk.mode.key == "kind:2"


def test_ilsvrc_says_it_has_no_curves(qtbot, make_window, tmp_path):
    from tests.evaluation.test_ilsvrc import write_fixture

    images = [[(0, 1, 1, 40, 30), (2, 50, 10, 90, 60)], [(1, 5, 5, 20, 20)]]
    preds = [(1, 1, 0.9, 1, 1, 40, 30), (2, 2, 0.8, 5, 5, 20, 20)]
    gt, devkit, pred = write_fixture(tmp_path, images, preds)
    win = _open(qtbot, make_window, gt, (pred,), devkit=devkit)
    chart = win.analysis.curves
    assert "no analyze() curves" in chart.header.text()
    assert all(len(chart.items[n].getData()[0] or []) == 0 for n in CURVE_NAMES)
