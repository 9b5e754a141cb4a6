"""Open Images in the window: group-of boxes drawn dashed and tagged, the challenge's verdicts
as ranks, and the inspector saying why a detection is set aside (absorbed by a group-of box, a
class not verified on its image); boxes drawn on a blank canvas where the image is absent."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt

from tests.parity.openimages_data import predictions, write_openimages, write_predictions
from vocviewer.evaluation.result import Verdict
from vocviewer.families.openimages.columns import OpenImagesGroundTruth
from vocviewer.families.openimages.evaluate import Why, evaluate_openimages
from vocviewer.families.openimages.view import CANVAS
from vocviewer.families.registry import open_dataset, open_results

SHOTS = os.environ.get("VOCVIEWER_SHOTS")  # a folder: save what the test shows there


def _why_after_selecting(qtbot, win, row: int) -> str:
    win.state.select_detection_row(row)
    image = int(win.state.results[0].results.detections.image_index[row])
    qtbot.waitUntil(lambda: win.state.selected_detection_row() == row, timeout=10_000)
    qtbot.waitUntil(lambda: win.view.shown_image == image, timeout=10_000)
    return win.side.why.text()


def test_openimages_window_shows_groups_and_reasons(qtbot, make_window, tmp_path: Path) -> None:
    boxes = write_openimages(tmp_path / "oi", 4, 30)
    pred = write_predictions(tmp_path / "pred.csv", predictions(boxes, 104))
    win = make_window()
    st = win.state
    win.open_dataset(tmp_path / "oi", (pred,))
    qtbot.waitUntil(lambda: st.current_results >= 0 and st.is_idle(), timeout=60_000)
    qtbot.waitUntil(lambda: st.evaluations[0].summary is not None, timeout=10_000)
    ds = open_dataset(tmp_path / "oi")
    raw = evaluate_openimages(ds, open_results(ds, [pred]))
    assert st.evaluations[0].summary.stats["mAP"] == raw.mean_ap
    verdict = st.evaluations[0].verdict_by_row
    aside = np.flatnonzero(~np.isin(raw.why, [Why.TP, Why.FP, Why.GROUP_TP]))
    assert set(verdict[aside].tolist()) == {int(Verdict.IGNORED)}  # never a false positive
    assert set(verdict[raw.why == Why.GROUP_TP].tolist()) == {int(Verdict.TP)}

    absorbed = int(np.flatnonzero(raw.why == Why.ABSORBED)[0])
    text = _why_after_selecting(qtbot, win, absorbed)
    assert "Absorbed by a group-of box" in text and "intersection over its own area" in text
    shown = win.view.shown_image
    group_rows = [
        i.row
        for i in win.view.overlay_items("gt")
        if ds.data(OpenImagesGroundTruth).group_of[i.row]
    ]
    assert group_rows, "the absorbing group-of box is drawn"
    for item in win.view.overlay_items("gt"):
        dashed = item.pen().style() == Qt.PenStyle.DashLine
        assert dashed == bool(ds.data(OpenImagesGroundTruth).group_of[item.row])
    assert st.dataset.images.width[shown] == CANVAS[0]  # no image file: the blank canvas
    if SHOTS:
        win.grab().save(str(Path(SHOTS) / "openimages-absorbed.png"))

    unverified = int(np.flatnonzero(raw.why == Why.NOT_VERIFIED)[0])
    text = _why_after_selecting(qtbot, win, unverified)
    assert "Not evaluated: its class is not verified on this image" in text
    if SHOTS:
        win.grab().save(str(Path(SHOTS) / "openimages-unverified.png"))
