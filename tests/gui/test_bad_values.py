"""One bad value never hides an image's overlays, never raises, never warns (issue 10, case 4).

Datasets and results are built directly (``core``), so values a reader may refuse are tried too:
NaN, infinities, 1e308, huge integers, zero and negative sizes, boxes far outside the image.
Every other box of the image must still be drawn (items counted in the scene), the window must
paint, hover, select, zoom and export, and nothing may reach stderr (pytest already fails on
warnings, Qt warnings and exceptions raised in Qt callbacks).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from tests.gui.conftest import make_tiny
from vocviewer.core.dataset import VOC_CLASSES, PartTable
from vocviewer.gui.panes.image.drawable import NOT_DRAWN

INF, NAN = math.inf, math.nan
DOG, PERSON = VOC_CLASSES.index("dog"), VOC_CLASSES.index("person")
#: name → (x1, y1, x2, y2), and whether such a box is drawn
BAD = {
    "nan": ((NAN, NAN, NAN, NAN), False),
    "one-nan": ((21.0, 21.0, NAN, 90.0), False),
    "inf-box": ((-INF, -INF, INF, INF), False),
    "all-minus-inf": ((-INF, -INF, -INF, -INF), False),
    "all-inf": ((INF, INF, INF, INF), False),
    "1e308": ((1e308, 1e308, 1e308, 1e308), True),
    "minus-1e308": ((-1e308, -1e308, -1e308, -1e308), True),
    "1e308-cover": ((-1e308, -1e308, 1e308, 1e308), True),
    "huge-int": ((float(2**70), float(2**70), float(2**71), float(2**71)), True),
    "zero-size": ((50.0, 50.0, 50.0, 50.0), True),
    "negative-size": ((150.0, 140.0, 20.0, 20.0), True),
    "far-outside": ((1e6, -1e6, 1e6 + 50, -1e6 + 50), True),
}


def with_bad_rows(root, box):
    """The tiny dataset (see ``conftest``) plus, on ``img1``, a dog object and a 0.97 dog
    detection with ``box``, and person-layout parts (one of them with ``box``)."""
    ds, res = make_tiny(root)
    obj = ds.objects
    at = 2  # after img1's two objects
    objects = replace(
        obj,
        image_index=np.insert(obj.image_index, at, 0),
        label=np.insert(obj.label, at, DOG),
        box=np.insert(obj.box, at, box, axis=0),
        difficult=np.insert(obj.difficult, at, False),
        truncated=np.insert(obj.truncated, at, False),
        occluded=np.insert(obj.occluded, at, False),
        pose=np.insert(obj.pose, at, 0),
        order_in_image=np.insert(obj.order_in_image, at, 2),
        actions=np.zeros((len(obj) + 1, 0), bool),
    )
    parts = PartTable(
        np.array([1, 1, 1]),
        np.array([0, 1, 2]),
        np.array([(101, 31, 120, 50), box, (130, 120, 150, 140)], dtype=float),
    )
    det = res.detections
    n = len(det)
    dets = replace(
        det,
        image_index=np.append(det.image_index, 0),
        label=np.append(det.label, DOG),
        score=np.append(det.score, 0.97),
        box=np.vstack((det.box, [box])),
        file_index=np.append(det.file_index, 0),
        line=np.append(det.line, n + 1),
    )
    return replace(ds, objects=objects, parts=parts), replace(res, detections=dets), n


def open_window(qtbot, make_window, dataset, results):
    win = make_window()
    win.state.set_dataset(dataset)
    with qtbot.waitSignal(win.state.evaluation.finished, timeout=10_000):
        win.state.add_result_set(results)
    qtbot.waitUntil(lambda: win.view.shown_image == win.state.current_image == 0, timeout=5000)
    return win


def counts(win):
    return {k: len(win.view.overlay_items(k)) for k in ("gt", "det", "part", "note")}


@pytest.mark.parametrize("name", list(BAD))
def test_every_other_box_is_drawn_and_the_window_paints(qtbot, make_window, tmp_path, capfd, name):
    box, drawn = BAD[name]
    ds, res, bad_row = with_bad_rows(tmp_path, box)
    win = open_window(qtbot, make_window, ds, res)
    extra = 1 if drawn else 0
    # img1 alone: dog + difficult person; dog TP, dog duplicate, person ignored; two good parts
    assert counts(win) == {"gt": 2 + extra, "det": 3 + extra, "part": 2 + extra, "note": 0}
    view = win.view
    for item in view.overlay_items():  # hover and click everywhere something is drawn
        pos = view.mapFromScene(item.sceneBoundingRect().center())
        view.tooltip_at(pos)
        view.select_at(pos)
    assert not win.grab().isNull()
    messages = [win.messages.list.item(i).text() for i in range(win.messages.count())]
    assert not [m for m in messages if "internal error" in m]
    assert capfd.readouterr().err == ""
    assert int(win.state.evaluations[0].verdict_by_row[bad_row]) >= 0  # evaluated all the same


@pytest.mark.parametrize("name", [k for k, (_, drawn) in BAD.items() if not drawn])
def test_selecting_a_detection_that_cannot_be_drawn(qtbot, make_window, tmp_path, capfd, name):
    ds, res, bad_row = with_bad_rows(tmp_path, BAD[name][0])
    win = open_window(qtbot, make_window, ds, res)
    st, view = win.state, win.view
    rank = int(st.evaluations[0].rank_by_row[bad_row])
    st.select_detection(DOG, rank)  # as a PR click or the Ranks list lands on it
    assert st.selected_detection_row() == bad_row
    assert counts(win) == {"gt": 2, "det": 2, "part": 2, "note": 1}  # dogs only: its class
    note = view.overlay_items("note")[0]
    assert NOT_DRAWN in note.text and f"#{rank + 1} dog" in note.text
    assert NOT_DRAWN in win.side.why.text() and "comp4_det_val_all.txt:7" in win.side.why.text()
    table = win.side.detections.rows_model
    assert any(NOT_DRAWN in row[3] for row in table.rows)
    win.display.act_zoom_sel.trigger()  # Z: the box is not there (its best object, if any, is)
    assert not view._zoom_pending  # no zoom left waiting for a box that never comes
    st.step_image(1)
    qtbot.waitUntil(lambda: view.shown_image == 1, timeout=5000)
    assert view._fit  # the next image is fitted, not zoomed to a stale request
    st.click_pr_point(DOG, rank)  # lands on the detection blamed for the drop there
    qtbot.waitUntil(lambda: view.shown_image == st.current_image, timeout=5000)
    assert not win.grab().isNull()
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize("name", list(BAD))
def test_export_of_the_annotated_image(qtbot, make_window, tmp_path, name):
    from PIL import Image

    from vocviewer.gui.window.export import export_image

    ds, res, _ = with_bad_rows(tmp_path, BAD[name][0])
    win = open_window(qtbot, make_window, ds, res)
    st = win.state
    out = export_image(
        tmp_path / "out" / "img1.png",
        ds,
        0,
        st.results[0],
        st.evaluations[0],
        win.view.overlay_options(),
    )
    with Image.open(out) as im:
        assert im.size == (200, 150)


def test_keypoints_regions_and_tags_with_bad_numbers(qtbot, tmp_path):
    from vocviewer.families.views import ViewExtras, with_view_extras
    from vocviewer.gui.panes.image.extra_overlays import keypoint_items, region_items
    from vocviewer.gui.panes.image.overlays import OverlayOptions

    ds, _ = make_tiny(tmp_path)
    n = len(ds.objects)
    kp = np.zeros((n, 3, 3))
    kp[0] = [(30, 30, 2), (NAN, 40, 2), (INF, 50, 1)]  # one drawable point
    kp[1] = [(NAN, NAN, 2), (-INF, 1, 1), (1e308, -1e308, 2)]  # one drawable (clamped) point
    kp[2] = [(NAN, 1, 2), (1, INF, 2), (0, 0, 0)]  # nothing drawable
    view = ViewExtras(kp, tuple(np.array([[1, 2], [2, 3]]) for _ in ds.classes))
    opts = OverlayOptions()
    items = keypoint_items(with_view_extras(ds, view), 0, opts)
    assert [it.visible_count() for it in items] == [1, 1]
    items += keypoint_items(with_view_extras(ds, view), 1, opts)
    assert len(items) == 2  # img2's only object has no drawable point
    ltwh = np.array(
        [
            (10, 10, 20, 20),
            (NAN, 0, 5, 5),
            (1e308, 1e308, 1e308, 1e308),
            (-1e308, -1e308, 1e308, 1e308),
        ]
    )
    with np.errstate(over="ignore"):  # as the VisDrone reader makes boxes: 1e308 + 1e308 = inf
        box = np.hstack((ltwh[:, :2], ltwh[:, :2] + ltwh[:, 2:]))
    objects = replace(
        ds.objects,
        image_index=np.zeros(4, np.int64),
        label=np.zeros(4, np.int64),
        box=box,
        difficult=np.zeros(4, bool),
        truncated=np.zeros(4, bool),
        occluded=np.zeros(4, bool),
        pose=np.zeros(4, np.int8),
        order_in_image=np.arange(4),
        actions=np.zeros((4, 0), bool),
    )
    vd = with_view_extras(replace(ds, objects=objects), ViewExtras(regions=np.ones(4, bool)))
    shaded = region_items(vd, 0)
    assert len(shaded) == 2 * 2  # two layers for each drawable region (1e308 + 1e308 is not)
    from PySide6.QtWidgets import QGraphicsScene

    scene = QGraphicsScene()
    for it in items + shaded:
        scene.addItem(it)
    from PySide6.QtGui import QImage, QPainter

    img = QImage(200, 150, QImage.Format.Format_RGB32)
    painter = QPainter(img)
    scene.render(painter)
    painter.end()
