"""Side panel, view modes, FP walking, box clicks, several result sets, comparison and export."""

from __future__ import annotations

import json

import numpy as np
from PySide6.QtCore import Qt

from vocviewer.core.dataset import VOC_CLASSES
from vocviewer.core.results import ResultSet

DOG = VOC_CLASSES.index("dog")


def second_set(results: ResultSet) -> ResultSet:
    """The tiny results without the TP on img3 (so img3 differs) under another name."""
    d = results.detections
    keep = np.flatnonzero(~((d.image_index == 2) & (d.label == DOG)))
    det = type(d)(
        d.image_index[keep],
        d.label[keep],
        d.score[keep],
        d.box[keep],
        d.file_index[keep],
        d.line[keep],
    )
    return ResultSet("other", results.files, det, results.class_scores, results.classes_with_files)


def test_side_panel_lists_the_image_and_selection_follows_both_ways(qtbot, window):
    side, st = window.side, window.state
    dets = side.detections.rows_model
    assert [r[3] for r in dets.rows] == ["TP", "duplicate", "ignored"]  # score order on img1
    assert [r[1] for r in side.objects.rows_model.rows] == ["dog", "person"]
    # clicking the TP's box on the image (on its left edge) selects its row
    box = next(i for i in window.view.overlay_items("det") if i.row == 0)
    window.view.select_at(window.view.mapFromScene(box.rect().left(), 50.0))
    assert st.selected_detection == (DOG, 0)
    assert side.detections.current_key() == 0
    assert "True positive" in side.why.text()
    assert "rank 1 of 4" in box.tooltip_text() and "IoU" in box.tooltip_text()
    side.detections.selectRow(1)  # the duplicate
    assert st.selected_detection == (DOG, 1)
    assert window.view.highlighted_item().row == 1
    assert "already matched by rank 1" in side.why.text()
    # an object row explains what happened to it
    side.objects.selectRow(0)
    assert st.selected_object == 0 and "Matched by rank 1" in side.why.text()


def test_pr_click_lists_neighbours_and_preselects_the_drop(qtbot, window):
    window.ap_table.selectRow(DOG)
    pane, side, st = window.pr_pane, window.side, window.state
    tp = next(s for s in pane.spots.points() if s.data() == 2)  # rank 2: the TP on img3
    pane._on_spots_clicked(pane.spots, [tp], None)
    assert st.selected_detection == (DOG, 1)  # the nearest FP (the duplicate) is blamed
    assert side.tabs.currentWidget() is side.ranks
    assert list(side.ranks.rows_model.keys) == [0, 1, 2, 3] and side.ranks.current_key() == 1
    side.ranks.row_activated.emit(1)  # Enter: zoom to it
    qtbot.waitUntil(lambda: window.view.scale_factor() > 2.0, timeout=5000)


def test_walk_false_positives_and_view_modes(qtbot, window):
    st = window.state
    window.ap_table.selectRow(DOG)
    window.display.act_next_fp.trigger()
    assert st.selected_detection == (DOG, 1)
    window.display.act_next_fp.trigger()
    assert st.selected_detection == (DOG, 3)
    window.display.act_next_fp.trigger()  # no further FP: stays
    assert st.selected_detection == (DOG, 3)
    window.display.act_prev_fp.trigger()
    assert st.selected_detection == (DOG, 1)
    st.set_current_image(0)
    st.select_object(-1)
    st.selected_detection = None
    st.set_view_mode("fp")
    assert [i.row for i in window.view.overlay_items("det")] == [1]
    st.set_view_mode("missed")
    assert window.view.overlay_items("det") == []
    window.display.mode_combo.setCurrentIndex(0)
    window.display.mode_combo.activated.emit(0)
    assert st.view_mode == "all"


def test_missed_ground_truth_is_drawn_highlighted(qtbot, window):
    st = window.state
    with qtbot.waitSignal(st.evaluation.finished, timeout=10_000):
        st.set_current_results(0)
        st.add_result_set(second_set(st.results[0].results))
    st.set_current_results(1)
    st.set_current_image(2)
    qtbot.waitUntil(lambda: window.view.shown_image == 2, timeout=5000)
    st.set_view_mode("missed")
    gt = window.view.overlay_items("gt")
    assert len(gt) == 1 and gt[0].pen().widthF() > 3.0  # the dog on img3, missed by "other"
    assert "missed" in window.side.objects.rows_model.rows[0][3]


def test_two_result_sets_table_pr_and_comparison(qtbot, window):
    st = window.state
    with qtbot.waitSignal(st.evaluation.finished, timeout=10_000):
        st.add_result_set(second_set(st.results[0].results))
    model = window.ap_table.ap_model
    assert model.headers()[:3] == ["Class", "tinydet", "other"]
    dog_row = window.ap_table.proxy.mapFromSource(model.index(DOG, 0)).row()
    assert dog_row >= 0
    window.ap_table.sortByColumn(1, Qt.SortOrder.DescendingOrder)
    last = window.ap_table.model().rowCount() - 1
    assert window.ap_table.model().index(last, 0).data() == "mean"
    window.ap_table.selectRow(DOG)
    assert st.selected_class == DOG
    assert len(window.pr_pane.others) == 1
    legend = [label.text for _, label in window.pr_pane.legend.items]
    assert any("other" in t and "AP" in t for t in legend)
    window.show_compare()
    cmp = window.compare
    assert cmp.combo_a.currentIndex() == 0 and cmp.combo_b.currentIndex() == 1
    assert cmp.table.rows_model.rows == [("img3", "1", "0", "+1", "0", "0")]
    cmp.table.selectRow(0)
    assert st.current_image == 2
    qtbot.waitUntil(lambda: window.view.shown_image == 2, timeout=5000)

    # both sets are drawn: A's dog TP as usual, B's boxes dashed, labels tagged A / B
    def drawn(i: int, image: int) -> int:
        det = st.results[i].results.detections
        return int(
            np.count_nonzero(
                (det.image_index == image) & (det.label == DOG) & (det.score >= st.score_threshold)
            )
        )

    def tags() -> list[str]:
        return [i.text.split()[0] for i in window.view.overlay_items("label")]

    assert tags().count("A") == drawn(0, 2) == 1 and tags().count("B") == drawn(1, 2) == 0
    st.set_current_image(0)  # img1: both sets have dogs there
    qtbot.waitUntil(lambda: window.view.shown_image == 0, timeout=5000)
    assert tags().count("A") == drawn(0, 0) == 2 and tags().count("B") == drawn(1, 0) == 2
    dashed = [
        i for i in window.view.overlay_items("det") if i.pen().style() == Qt.PenStyle.DashLine
    ]
    assert dashed
    window.side.tabs.setCurrentWidget(window.side.detections)  # leaving the comparison: A only
    assert not any(i.text.startswith("B ") for i in window.view.overlay_items("label"))


def test_exports_from_the_window(qtbot, window, tmp_path, tmp_path_factory):
    window.ap_table.selectRow(DOG)
    out = tmp_path_factory.mktemp("exports")
    for suffix, magic in ((".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF")):
        window.export_pr(str(out / f"pr{suffix}"))
        assert (out / f"pr{suffix}").read_bytes().startswith(magic)
    window.export_image(str(out / "img.png"))
    assert (out / "img.png").read_bytes().startswith(b"\x89PNG")
    window.export_table(str(out / "ap.json"))
    table = json.loads((out / "ap.json").read_text())
    dog = next(r for r in table["rows"] if r["Class"] == "dog")
    ap = window.state.evaluations[0].det[DOG].ap  # unrounded in JSON, as evaluated
    assert table["columns"][:4] == ["Class", "AP", "npos", "ndet"] and dog["AP"] == ap > 0
    window.export_table(str(tmp_path / "ap.md"))  # tmp_path is the dataset root: refused
    assert not (tmp_path / "ap.md").exists()
    assert not list(out.glob(".*"))  # no temp files left behind


def test_hovering_a_box_shows_its_details(qtbot, window):
    from PySide6.QtCore import QEvent, QPoint
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QToolTip

    view = window.view
    box = next(i for i in view.overlay_items("det") if i.row == 0)
    at = view.mapFromScene(box.rect().left(), 50.0)
    assert "rank 1 of 4" in view.tooltip_at(at)
    event = QHelpEvent(QEvent.Type.ToolTip, at, view.viewport().mapToGlobal(at))
    QApplication.sendEvent(view.viewport(), event)
    qtbot.waitUntil(QToolTip.isVisible, timeout=2000)
    assert "rank 1 of 4" in QToolTip.text() and "TP" in QToolTip.text()
    assert view.tooltip_at(QPoint(1, 1)) == ""  # the dark margin: nothing
    QToolTip.hideText()


def test_pr_legend_counts_verdict_kinds_and_leaves_them_out_when_small(qtbot, window):
    """Tiny set, dog: TP 2, duplicate 1, FP on background 1 (img2's dog box is on nothing)."""
    st = window.state
    st.select_class(DOG)

    def legend() -> list[str]:
        return [label.text for _, label in window.pr_pane.legend.items]

    assert legend()[1:] == ["TP (2)", "FP: background (1)", "duplicate (1)"]
    window.resize(1000, 560)  # the plot gets shorter than SMALL_PLOT_PX: only the curve's entry
    qtbot.waitUntil(lambda: len(legend()) == 1, timeout=2000)
    assert "AP" in legend()[0]
    window.resize(1400, 900)
    qtbot.waitUntil(lambda: len(legend()) == 4, timeout=2000)
