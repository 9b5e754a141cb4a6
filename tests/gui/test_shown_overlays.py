"""The image's overlays kept cheap: batched box painting, tags placed in slices, boxes recoloured
in place when a class's verdicts arrive — each giving what drawing everything anew gives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QGraphicsScene

from vocviewer.core.dataset import VOC_CLASSES, Dataset, ImageTable, ObjectTable
from vocviewer.core.results import ClassScores, Detections, ResultSet
from vocviewer.evaluation.result import Verdict
from vocviewer.gui.panes.image.box_batch import EXACT_MAX, batch_boxes
from vocviewer.gui.panes.image.label_layout import LabelItem
from vocviewer.gui.panes.image.overlay_scene import build_overlays
from vocviewer.gui.panes.image.overlays import BoxItem
from vocviewer.gui.panes.image.shown_overlays import LABEL_SLICE
from vocviewer.gui.widgets.verdict_style import COLORS, row_style

CLASSES = [VOC_CLASSES.index(c) for c in ("dog", "cat", "person")]


def crowded_set(root: Path, n_dets: int, seed: int = 0) -> tuple[Dataset, ResultSet]:
    """One 400 x 300 image with six objects of three classes and ``n_dets`` detections: each
    object exactly, then a jittered copy of an object (a duplicate or a true positive) or a box
    anywhere."""
    rng = np.random.default_rng(seed)
    path = root / "crowded.jpg"
    Image.new("RGB", (400, 300), (90, 120, 150)).save(path)
    xy = rng.uniform(10, 250, (6, 2))
    gt = np.c_[xy, xy + rng.uniform(40, 120, (6, 2))]
    labels = np.array(CLASSES * 2)
    objects = ObjectTable(
        image_index=np.zeros(6, np.int64),
        label=labels,
        box=gt,
        difficult=np.zeros(6, bool),
        truncated=np.zeros(6, bool),
        occluded=np.zeros(6, bool),
        pose=np.zeros(6, np.int8),
        order_in_image=np.arange(6),
        actions=np.zeros((6, 0), bool),
    )
    images = ImageTable(
        np.array(["crowded"]), (path,), np.array([400]), np.array([300]), np.zeros(1, bool)
    )
    ds = Dataset(
        name="crowded",
        root=root,
        year=2012,
        classes=VOC_CLASSES,
        box_convention="voc",
        images=images,
        objects=objects,
        image_sets={"Main/val": np.array([0])},
    )
    near = rng.random(n_dets) < 0.4
    which = rng.integers(6, size=n_dets)
    far = rng.uniform(0, 330, (n_dets, 2))
    box = np.where(
        near[:, None],
        gt[which] + rng.normal(0, 4, (n_dets, 4)),
        np.c_[far, far + rng.uniform(15, 70, (n_dets, 2))],
    )
    label = np.where(near, labels[which], rng.choice(CLASSES, n_dets))
    box[:6], label[:6] = gt, labels  # every object found: none missed
    det = Detections(
        np.zeros(n_dets, np.int64),
        label,
        rng.uniform(0.05, 1.0, n_dets),
        box,
        np.zeros(n_dets, np.int64),
        np.arange(1, n_dets + 1),
    )
    rs = ResultSet(
        "crowded",
        (root / "comp4_det_val_all.txt",),
        det,
        ClassScores.empty(),
        classes_with_files={"det": frozenset(CLASSES)},
    )
    return ds, rs


def open_crowded(qtbot, make_window, tmp_path, n_dets):
    win = make_window()
    ds, rs = crowded_set(tmp_path, n_dets)
    win.state.set_threshold(0.0)
    win.state.set_dataset(ds)
    qtbot.waitUntil(lambda: win.view.shown_image == 0, timeout=10_000)
    return win, rs


def looks(win) -> tuple[dict, dict]:
    """Per detection row: its box's pen and its tag's text, colour, glyph and spot."""
    boxes = {
        b.row: (b.pen().color().name(), b.pen().style(), b.pen().widthF(), b.rect())
        for b in win.view.overlay_items("det")
    }
    tags = {
        t.row: (t.shown, t._color.name(), t.glyph, round(t.pos().x(), 6), round(t.pos().y(), 6))
        for t in win.view.overlay_items("label")
        if isinstance(t, LabelItem) and t.row >= 0
    }
    return boxes, tags


def test_arriving_verdicts_recolour_the_drawn_boxes_in_place(qtbot, make_window, tmp_path):
    win, rs = open_crowded(qtbot, make_window, tmp_path, 40)
    st, view = win.state, win.view
    with qtbot.waitSignal(st.evaluation.finished, timeout=10_000):
        st.add_result_set(rs)
        view.redraw_overlays()  # drawn before any verdict arrives
        drawn = view.overlay_items("det")
        assert len(drawn) == 40
        unevaluated = COLORS["unevaluated"].name()
        assert {b.pen().color().name() for b in drawn} == {unevaluated}
        tags_before = {id(t) for t in view.overlay_items("label")}
    # every class arrived: the same items, recoloured by their verdicts
    assert [id(b) for b in view.overlay_items("det")] == [id(b) for b in drawn]
    assert {id(t) for t in view.overlay_items("label")} == tags_before
    ev = st.evaluations[0]
    assert (ev.verdict_by_row == Verdict.TP).any() and (ev.verdict_by_row >= Verdict.FP).any()
    for b in drawn:
        assert b.pen().color() == row_style(ev, b.row)[0]
    recoloured = looks(win)
    view.redraw_overlays()  # everything anew
    qtbot.waitUntil(lambda: not view._shown.placing(), timeout=5000)
    assert looks(win) == recoloured
    assert len(recoloured[1]) > 10  # tags were compared, not just boxes


def test_a_crowded_image_places_its_tags_in_slices_as_in_one_go(qtbot, make_window, tmp_path):
    win, rs = open_crowded(qtbot, make_window, tmp_path, 3 * LABEL_SLICE)
    st, view = win.state, win.view
    with qtbot.waitSignal(st.evaluation.finished, timeout=10_000):
        st.add_result_set(rs)
    with qtbot.waitSignal(view._shown.labels_placed, timeout=5000):
        view.redraw_overlays()
        first = len(view.overlay_items("label"))
        assert view.overlays_pending()  # a screenshot waits for the rest
    assert not view.overlays_pending()
    assert 0 < first <= LABEL_SLICE < 3 * LABEL_SLICE
    sliced = sorted(
        (t.text, t.shown, t.pos().x(), t.pos().y()) for t in view.overlay_items("label")
    )
    assert len(sliced) > first  # later slices placed more
    items, failed = build_overlays(st, 0, view.overlay_options())
    at_once = sorted(
        (t.text, t.shown, t.pos().x(), t.pos().y()) for t in items if isinstance(t, LabelItem)
    )
    assert not failed and sliced == at_once


def render(items, size=(300, 220), scale=1.7) -> np.ndarray:
    scene = QGraphicsScene()
    for item in items:
        scene.addItem(item)
    out = QImage(*size, QImage.Format.Format_RGB32)
    out.fill(QColor("white"))
    painter = QPainter(out)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    target = QRectF(0, 0, *size)
    scene.render(painter, target, QRectF(0, 0, size[0] / scale, size[1] / scale))
    painter.end()
    for item in items:
        scene.removeItem(item)
    ptr = out.constBits()
    return np.frombuffer(ptr, np.uint8).reshape(size[1], size[0], 4).copy()


def some_boxes(n: int) -> list[BoxItem]:
    rng = np.random.default_rng(1)
    styles = [Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine]
    colors = [QColor("#009E73"), QColor("#D55E00"), QColor(240, 228, 66, 110)]
    out = []
    for i in range(n):
        x, y = (float(v) for v in rng.uniform(0, 120, 2))
        w, h = (float(v) for v in rng.uniform(10, 60, 2))
        box = BoxItem(
            QRectF(x, y, w, h),
            colors[i % 3],
            kind="det",
            row=i,
            style=styles[i % 3],
            width=2.0 + (i % 2),
            highlighted=i == 3,
        )
        out.append(box)
    return out


def test_batched_boxes_paint_the_pixels_the_boxes_paint(qtbot):
    alone = render(some_boxes(25))
    batched = render(batch_boxes(some_boxes(25), BoxItem))
    assert (alone != 255).any() and np.array_equal(alone, batched)
    # a crowded level is grouped by pen: the same outlines, halos first
    crowded = batch_boxes(some_boxes(EXACT_MAX + 1), BoxItem)
    assert len(crowded[-1]._strokes) <= 2 * 3 * 2 * 2
    assert (render(crowded) != 255).any()
