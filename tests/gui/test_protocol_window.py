"""COCO, VisDrone and VOC segmentation in the real window (offscreen)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vocviewer.evaluation.result import Verdict, pr_polyline
from vocviewer.families.coco.columns import CocoAnnotations
from vocviewer.families.ilsvrc.columns import IlsvrcDetInfo
from vocviewer.families.views import ViewExtras

COCO_MINI = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "coco-mini"
INSTANCES = COCO_MINI / "annotations" / "instances_val2017.json"


def write_coco_results(dataset, path: Path, seed: int = 0) -> Path:
    """Jittered ground-truth boxes (some dropped, some duplicated, a few background boxes)."""
    coco = dataset.data(CocoAnnotations)
    rng = np.random.default_rng(seed)
    out = []
    for i in range(len(coco.ann_id)):
        if coco.iscrowd[i] or rng.random() < 0.1:
            continue
        x, y, w, h = coco.bbox[i]
        image_id = int(coco.image_id[dataset.objects.image_index[i]])
        for _ in range(1 + int(rng.random() < 0.1)):
            j = rng.normal(0.0, 0.12, 4)
            box = [x + j[0] * w, y + j[1] * h, max(1.0, w * (1 + j[2])), max(1.0, h * (1 + j[3]))]
            out.append(
                {
                    "image_id": image_id,
                    "category_id": int(coco.category_id_of[i]),
                    "bbox": [float(v) for v in box],
                    "score": float(rng.random()),
                }
            )
    for image_id in coco.image_id[:20].tolist():
        out.append(
            {
                "image_id": image_id,
                "category_id": 1,
                "bbox": [5.0, 5.0, 40.0, 60.0],
                "score": float(rng.random() * 0.5),
            }
        )
    path.write_text(json.dumps(out))
    return path


def wait_idle(qtbot, win, timeout: int = 30_000) -> None:
    st = win.state
    qtbot.waitUntil(
        lambda: st.dataset is not None and st.current_results >= 0 and st.is_idle(), timeout=timeout
    )
    qtbot.waitUntil(lambda: win.view.shown_image == st.current_image >= 0, timeout=10_000)


@pytest.fixture
def coco_window(qtbot, make_window, tmp_path):
    if not INSTANCES.is_file():
        pytest.skip("coco-mini is not available")
    from vocviewer.families.registry import open_dataset

    ds = open_dataset(INSTANCES, images=COCO_MINI / "val2017")
    results = write_coco_results(ds, tmp_path / "bbox_results.json")
    win = make_window()
    win.open_dataset(INSTANCES, (results,), None, images=COCO_MINI / "val2017")
    wait_idle(qtbot, win)
    win.results_path = results
    return win


def test_coco_window_evaluates_and_draws(qtbot, coco_window):
    from vocviewer.families.coco.evaluate import evaluate_coco
    from vocviewer.families.registry import open_results

    win, st = coco_window, coco_window.state
    ds = st.dataset
    assert win.ap_table.model().rowCount() == 80 + 1  # 80 categories and the summary row
    expected = evaluate_coco(ds, open_results(ds, [win.results_path])).stats()
    shown = win.summary.values()
    assert len(shown) == 12 and shown == expected
    assert win.summary.table.rowCount() == 12
    assert win.ap_table.model().index(80, 1).data() == f"{expected['AP']:.3f}"
    # an image with people: masks (a pixel layer), keypoints, captions
    person = ds.classes.index("person")
    view = ds.data(ViewExtras)
    has_kp = np.zeros(len(ds.images), bool)
    rows = np.flatnonzero((ds.objects.label == person) & (view.keypoints[:, :, 2] > 0).any(axis=1))
    has_kp[ds.objects.image_index[rows]] = True
    image = int(np.flatnonzero(has_kp)[0])
    st.set_current_image(image)
    qtbot.waitUntil(lambda: win.view.shown_image == image, timeout=10_000)
    assert win.view.layer("masks") is not None and win.view.layer("masks").isVisible()
    assert len(win.view.overlay_items("keypoints")) > 0
    assert win.captions.isVisible() and win.captions.text().count("“") == len(view.captions[image])
    st.set_display("show_gt", False)
    assert not win.view.layer("masks").isVisible()
    assert not win.view.overlay_items("keypoints")
    st.set_display("show_gt", True)
    win.display.toggle_actions["show_masks"].trigger()  # M: boxes stay, masks go
    assert not win.view.layer("masks").isVisible() and win.view.overlay_items("gt")
    win.display.toggle_actions["show_keypoints"].trigger()  # K
    assert not win.view.overlay_items("keypoints") and win.view.overlay_items("gt")
    win.display.toggle_actions["show_masks"].trigger()
    win.display.toggle_actions["show_keypoints"].trigger()
    assert win.view.layer("masks").isVisible() and win.view.overlay_items("keypoints")


def test_coco_verdicts_follow_the_iou_combo(qtbot, coco_window):
    win, st = coco_window, coco_window.state
    st.set_threshold(0.0)

    def verdicts() -> dict[int, int]:
        return {
            int(i.row): int(st.evaluations[0].verdict_by_row[i.row])
            for i in win.view.overlay_items("det")
        }

    at50 = st.evaluations[0].verdict_by_row.copy()
    assert np.count_nonzero(at50 == Verdict.TP) > 0
    combo = win.protocol.iou_combo
    i95 = combo.findData(0.95)
    combo.setCurrentIndex(i95)
    combo.activated.emit(i95)
    qtbot.waitUntil(lambda: st.is_idle() and st.evaluation.iou == 0.95, timeout=10_000)
    qtbot.waitUntil(
        lambda: not np.array_equal(st.evaluations[0].verdict_by_row, at50), timeout=10_000
    )
    at95 = st.evaluations[0].verdict_by_row
    assert np.count_nonzero(at95 == Verdict.TP) < np.count_nonzero(at50 == Verdict.TP)
    drawn = verdicts()
    assert drawn and all(v == at95[r] for r, v in drawn.items())
    person = st.dataset.classes.index("person")
    st.select_class(person)
    pc = st.evaluation.view_of(st.current_results, person)
    assert pc.iou == 0.95 and len(pc.curve_recall) <= 101
    # the ranked curve carries the verdict dots; COCO's interpolated one is drawn beside it, up
    # to the last recall level it reaches
    x, _ = win.pr_pane.interpolated.getData()
    positive = np.flatnonzero(pc.curve_precision > 0)
    reached = int(positive[-1]) + 1 if len(positive) else 0
    assert np.array_equal(x, pc.curve_recall[:reached])
    ev = pc.evaluation
    ranked_x, _ = win.pr_pane.curve.getData()
    assert np.array_equal(ranked_x, pr_polyline(ev.recall, ev.precision)[0])
    finite = np.isfinite(ev.recall) & np.isfinite(ev.precision)
    spots_x, spots_y = win.pr_pane.spots.getData()
    assert np.array_equal(spots_x, ev.recall[finite]) and np.array_equal(
        spots_y, ev.precision[finite]
    )
    assert f"AP95 {pc.ap_at:.3f}" in win.pr_pane.plot.getPlotItem().titleLabel.text


def test_visdrone_split_shades_ignored_regions(qtbot, make_window, tmp_path):
    from tests.evaluation.test_visdrone_reference import write_split

    gt = [
        (10, 10, 20, 20, 1, 4),
        (40, 5, 15, 25, 1, 1),
        (60, 40, 30, 20, 0, 0),
        (5, 45, 10, 10, 1, 11),
    ]
    det = [
        (11, 11, 20, 19, 0.9, 4),
        (42, 6, 14, 24, 0.8, 1),
        (70, 45, 5, 5, 0.7, 4),
        (0, 0, 8, 8, 0.3, 1),
    ]
    split, res = write_split(tmp_path, [(gt, det, 80, 100), (gt[:2], det[:2], 80, 100)])
    win = make_window()
    win.open_dataset(split, (res,))
    wait_idle(qtbot, win)
    st = win.state
    assert len(win.view.overlay_items("region")) == 2  # one region: shade + hatch
    names = [i.text for i in win.view.overlay_items("label")]
    assert "car" in " ".join(names) and "others" in " ".join(names)
    assert "ignored regions" not in " ".join(names)
    shown = win.summary.values()
    assert set(shown) == {"AP", "AP50", "AP75", "AR1", "AR10", "AR100", "AR500"}
    assert len(st.evaluations[0].det) == 12


def test_segmentation_overlay_toggles(qtbot, make_window, demo):
    win = make_window()
    win.open_dataset(demo.year_dir, (), "Segmentation/val")
    st = win.state
    qtbot.waitUntil(lambda: st.dataset is not None and st.is_idle(), timeout=30_000)
    qtbot.waitUntil(lambda: win.view.shown_image == st.current_image >= 0, timeout=10_000)
    assert str(st.dataset.images.id[st.current_image]).startswith("2012_")
    assert win.view.layer("segmentation") is None
    win.protocol.act_seg.trigger()  # key S
    qtbot.waitUntil(lambda: win.view.layer("segmentation") is not None, timeout=10_000)
    layer = win.view.layer("segmentation")
    assert layer.opacity() == pytest.approx(win.protocol.seg_opacity.value())
    win.protocol.seg_opacity.setValue(0.3)
    assert layer.opacity() == pytest.approx(0.3)
    win.protocol.seg_combo.setCurrentIndex(1)
    win.protocol.seg_combo.activated.emit(1)
    qtbot.waitUntil(
        lambda: win.view.seg_mode == "object" and win.view.layer("segmentation") is not None,
        timeout=10_000,
    )
    win.protocol.act_seg.trigger()
    qtbot.waitUntil(lambda: win.view.layer("segmentation") is None, timeout=10_000)


def test_ilsvrc_annotations_show_synset_names(qtbot, make_window, tmp_path):
    from tests.evaluation.test_ilsvrc import write_fixture

    images = [[(0, 1, 1, 40, 30), (2, 50, 10, 90, 60)], [(1, 5, 5, 20, 20)]]
    preds = [(1, 1, 0.9, 1, 1, 40, 30), (2, 2, 0.8, 5, 5, 20, 20)]
    gt, devkit, pred = write_fixture(tmp_path, images, preds)
    win = make_window()
    win.open_dataset(gt, (pred,), devkit=devkit)
    st = win.state
    qtbot.waitUntil(lambda: st.dataset is not None and st.is_idle(), timeout=30_000)
    qtbot.waitUntil(lambda: win.view.shown_image == st.current_image >= 0, timeout=10_000)
    assert st.dataset.has_data(IlsvrcDetInfo)
    assert len(st.results) == 1 and len(st.results[0].results.detections) == 2
    names = " ".join(i.text for i in win.view.overlay_items("label"))
    assert "name 1" in names and "name 3" in names  # synset names from the devkit mapping
    # evaluated with the devkit's rules, as evaluate_ilsvrc_det computes them
    from vocviewer.families.ilsvrc.evaluate import evaluate_ilsvrc_det

    ref = evaluate_ilsvrc_det(st.dataset, st.results[0].results)
    got = [st.class_evaluation(k).ap for k in range(len(ref.ap))]
    np.testing.assert_array_equal(got, ref.ap)
    assert set(win.summary.values()) == {"mAP", "medianAP"}


def test_coco_true_positives_carry_their_box_iou_and_the_confusion_tab_uses_the_iou(
    qtbot, coco_window
):
    from vocviewer.families.coco.similarity import box_iou_pairs

    st = coco_window.state
    ds, res = st.dataset, st.results[0].results
    coco_gt = ds.data(CocoAnnotations)
    for ev in st.evaluations[0].det.values():
        tp = ev.verdict == Verdict.TP
        assert np.all(np.isnan(ev.best_iou[~tp]))
        if not tp.any():
            continue
        # pycocotools' bbIou on the original x, y, w, h boxes (same numbers up to rounding)
        b = res.detections.box[ev.order[tp]]
        det_xywh = np.column_stack([b[:, :2], b[:, 2:] - b[:, :2]])
        gt_xywh = np.asarray(coco_gt.bbox)[ev.best_gt[tp]]
        ref = box_iou_pairs(det_xywh, gt_xywh, np.zeros(len(b), bool))
        assert np.allclose(ev.best_iou[tp], ref, atol=1e-9) and np.all(ref >= 0.5)
    pane = coco_window.confusion
    coco_window.right_tabs.setCurrentWidget(pane)
    qtbot.waitUntil(lambda: pane.matrix is not None, timeout=10_000)
    assert pane.matrix.iou_threshold == 0.5 and pane.compact.isChecked()  # 80 classes
    tp_total = sum(
        int(np.count_nonzero((e.verdict == Verdict.TP) & (e.score >= 0.5)))
        for e in st.evaluations[0].det.values()
    )
    assert int(np.trace(pane.matrix.counts[:, :80])) == tp_total


def test_coco_summary_has_a_column_per_result_set(qtbot, coco_window, tmp_path):
    from vocviewer.families.coco.evaluate import evaluate_coco
    from vocviewer.families.registry import open_results

    win, st = coco_window, coco_window.state
    second = write_coco_results(st.dataset, tmp_path / "second.json", seed=1)
    win.add_results([second])
    qtbot.waitUntil(lambda: len(st.results) == 2 and st.is_idle(), timeout=30_000)
    qtbot.waitUntil(lambda: win.summary.table.columnCount() == 4, timeout=5000)
    table = win.summary.table
    assert [table.horizontalHeaderItem(c).text() for c in range(3)] == [
        "Metric",
        "bbox_results",
        "second",
    ]
    assert table.horizontalHeaderItem(1).font().bold()  # the current result set
    for col, path in ((1, win.results_path), (2, second)):
        expected = evaluate_coco(st.dataset, open_results(st.dataset, [path])).stats()
        shown = {table.item(r, 0).text(): table.item(r, col).text() for r in range(12)}
        assert shown == {k: f"{v:.3f}" for k, v in expected.items()}


def test_coco_area_range_drives_the_curves_not_the_verdicts(qtbot, coco_window):
    win, st = coco_window, coco_window.state
    person = st.dataset.classes.index("person")
    win.ap_table.selectRow(person)
    verdicts = st.evaluations[0].verdict_by_row.copy()
    i = win.protocol.area_combo.findData("small")
    win.protocol.area_combo.setCurrentIndex(i)
    win.protocol.area_combo.activated.emit(i)
    qtbot.waitUntil(
        lambda: (
            st.evaluations[0].views.get(person) is not None
            and st.evaluations[0].views[person].area == "small"
        ),
        timeout=10_000,
    )
    pc = st.evaluations[0].views[person]
    expected = pc.raw.precision[0, :, 1, -1]  # IoU .50, area small, 100 detections
    assert np.array_equal(pc.curve_precision, expected[expected > -1])
    assert pc.ap_at == pytest.approx(float(np.mean(expected[expected > -1])), abs=0)
    assert np.array_equal(st.evaluations[0].verdict_by_row, verdicts)  # area all, unchanged
    positive = np.flatnonzero(pc.curve_precision > 0)
    reached = int(positive[-1]) + 1 if len(positive) else 0
    qtbot.waitUntil(
        lambda: np.array_equal(win.pr_pane.interpolated.getData()[1], pc.curve_precision[:reached]),
        timeout=5000,
    )
    legend = [label.text for _, label in win.pr_pane.legend.items]
    assert any(f"AP50 small {pc.ap_at:.3f}" in t for t in legend)


def test_coco_false_positives_are_diagnosed_and_drawn_by_kind(qtbot, coco_window):
    """COCO has no duplicate verdict: its false positives get their kind from the diagnosis, and
    the image, the inspector and the PR dots show it (tests/evaluation/test_coco_diagnosis.py
    checks each kind by hand)."""
    from vocviewer.evaluation.analysis import FPKind
    from vocviewer.gui.widgets.verdict_style import FP_KIND_STYLE, row_style

    win, st = coco_window, coco_window.state
    ev = st.evaluations[0]
    fp = ev.verdict_by_row == Verdict.FP
    kinds = set(ev.fp_kind_by_row[fp].tolist())
    assert min(kinds) >= FPKind.DUPLICATE  # every false positive diagnosed
    # write_coco_results duplicates some boxes and adds person boxes at the top left
    assert {FPKind.DUPLICATE, FPKind.BACKGROUND} <= kinds
    row = int(np.flatnonzero(fp & (ev.fp_kind_by_row == FPKind.DUPLICATE))[0])
    image = int(st.results[0].results.detections.image_index[row])
    st.set_threshold(0.0)
    st.set_current_image(image)
    qtbot.waitUntil(lambda: win.view.shown_image == image, timeout=10_000)
    (box,) = [i for i in win.view.overlay_items("det") if i.row == row]
    assert box.pen().color() == FP_KIND_STYLE[FPKind.DUPLICATE][0]
    assert row_style(ev, row)[2] == "FP: duplicate"
    qtbot.waitUntil(lambda: row in win.side.detections.rows_model.keys, timeout=5000)
    at = win.side.detections.rows_model.keys.index(row)
    assert win.side.detections.rows_model.rows[at][3] == "FP: duplicate"
    k = int(st.results[0].results.detections.label[row])
    st.select_detection(k, int(ev.rank_by_row[row]))
    assert "False positive: duplicate" in win.side.why.text()
    legend = [label.text for _, label in win.pr_pane.legend.items]
    assert any(t.startswith("FP: duplicate (") for t in legend)
