"""What a re-derive (another IoU threshold or area range) costs the window's painting: the new
evidence reaches the screen in one repaint of the window (the PR plot's scene, the image's scene
and the AP table's reset painted together, not one repaint each), what is on screen then is what
the window drawn afresh gives, and what a re-derive leaves unchanged is not repainted (a box
batch whose pens and rectangles stay, the PR plot's empty curves and its legend)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, QRectF
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QGraphicsScene, QGraphicsView

from tests.gui.test_consistency import coco_case, open_case
from tests.gui.test_rederive_panes import busiest_image, settled
from vocviewer.gui.widgets.plot_theme import paint_with_window


class Repaints(QObject):
    """Counts the window's repaints (``UpdateRequest``) and the widgets each one painted."""

    def __init__(self, window: Any) -> None:
        super().__init__()
        self.window = window
        self.rounds: list[set[Any]] = []

    def eventFilter(self, obj: Any, event: Any) -> bool:
        if event.type() == QEvent.Type.UpdateRequest and obj is self.window:
            self.rounds.append(set())
        elif event.type() == QEvent.Type.Paint and self.rounds:
            self.rounds[-1].add(obj)
        return False


def test_a_rederive_repaints_its_panes_in_one_window_repaint(qtbot, make_window, tmp_path):
    """One result set (each set's evidence arrives in a turn of its own)."""
    case = coco_case(tmp_path)
    win = make_window()
    win.open_dataset(case.path, tuple(case.sets[0]), None, **case.sources)
    st, ev = win.state, win.state.evaluation
    qtbot.waitUntil(lambda: len(st.results) == 1 and st.is_idle(), timeout=60_000)
    st.select_class(-1)  # the All-classes plot: every curve changes
    st.set_current_image(busiest_image(win))
    qtbot.waitUntil(lambda: settled(win) and bool(win.view._shown.items), timeout=60_000)
    repaints = Repaints(win)

    def restart(_index: int) -> None:  # count from the evidence's arrival
        repaints.rounds.clear()

    QApplication.instance().installEventFilter(repaints)
    try:
        for what, value in (("iou", 0.75), ("iou", 0.5), ("area", "small"), ("iou", 0.95)):
            QApplication.processEvents()
            ev.evidence_replaced.connect(restart)  # (after the panes' slots)
            with qtbot.waitSignal(ev.evidence_replaced, timeout=60_000):
                (ev.set_iou if what == "iou" else ev.set_area)(value)
            ev.evidence_replaced.disconnect(restart)
            qtbot.waitUntil(lambda: settled(win), timeout=60_000)
            for _ in range(5):
                QApplication.processEvents()
            rounds = repaints.rounds
            # the first repaint paints the plot and the table, no later one the table (the
            # image's tags of a rebuilt overlay may come over the next turns: ``ShownOverlays``;
            # in whole-suite runs the plot was seen repainted once more in a later round)
            first = rounds[0] if rounds else set()  # (none: nothing drawn changed)
            later = set().union(*rounds[1:])
            panes = (win.pr_pane.plot.viewport(), win.ap_table.viewport())
            assert win.ap_table.viewport() not in later, (what, value, [len(r) for r in rounds])
            if what == "iou":  # new curves, a new AP_N column
                assert all(pane in first for pane in panes), (what, value)
            on_screen = QApplication.primaryScreen().grabWindow(win.winId()).toImage()
            assert on_screen == win.grab().toImage(), (what, value)  # (nothing stale left)
            model = win.ap_table.ap_model
            heads, cells = model.shown()
            for r, row in enumerate(cells):
                assert row == [model.text_of(r, c) for c in range(len(heads))], (value, r)
        st.select_class(0)  # a class's curve and dots, its legend
        for value in (0.75, 0.5):
            with qtbot.waitSignal(ev.evidence_replaced, timeout=60_000):
                ev.set_iou(value)
            qtbot.waitUntil(lambda: settled(win), timeout=60_000)
            for _ in range(5):
                QApplication.processEvents()
            on_screen = QApplication.primaryScreen().grabWindow(win.winId()).toImage()
            assert on_screen == win.grab().toImage(), value
    finally:
        QApplication.instance().removeEventFilter(repaints)


def scene_changes(scene: QGraphicsScene) -> list[list[QRectF]]:
    got: list[list[QRectF]] = []
    scene.changed.connect(lambda rects: got.append(list(rects)))
    return got


def test_a_box_batch_whose_pens_stay_is_not_repainted(qtbot):
    from vocviewer.gui.panes.image.box_batch import BoxBatch
    from vocviewer.gui.panes.image.overlays import BoxItem

    scene = QGraphicsScene()
    view = QGraphicsView(scene)
    qtbot.addWidget(view)
    paint_with_window(scene)
    boxes = [
        BoxItem(QRectF(10 * i, 10, 30, 20), QColor("#1e8e3e"), kind="det", row=i) for i in range(4)
    ]
    for box in boxes:
        scene.addItem(box)
    batch = BoxBatch(boxes, 2.0)
    scene.addItem(batch)
    view.show()
    QApplication.processEvents()
    got = scene_changes(scene)
    for box in boxes:  # the same look again (an area range that keeps every verdict)
        box.set_look(QColor("#1e8e3e"), box.pen().style(), box.pen().widthF())
    batch.restyle()
    QApplication.processEvents()
    assert got == []
    boxes[1].set_look(QColor("#d93025"), boxes[1].pen().style(), boxes[1].pen().widthF())
    batch.restyle()
    QApplication.processEvents()
    assert got and any(r.intersects(batch.sceneBoundingRect()) for r in got[0])


def test_the_pr_plot_redrawn_unchanged_is_not_repainted(qtbot, make_window, tmp_path):
    win = open_case(qtbot, make_window, coco_case(tmp_path))
    st, pane = win.state, win.pr_pane
    st.select_class(-1)
    qtbot.waitUntil(lambda: settled(win), timeout=60_000)
    QApplication.processEvents()
    paints = Repaints(win)
    QApplication.instance().installEventFilter(paints)
    try:  # nothing new: the same curves and legend, an empty class curve emptied again
        pane.refresh()
        for _ in range(3):
            QApplication.processEvents()
    finally:
        QApplication.instance().removeEventFilter(paints)
    assert not any(pane.plot.viewport() in painted for painted in paints.rounds)
    before = pane.plot.grab().toImage()
    st.select_class(0)
    qtbot.waitUntil(lambda: settled(win), timeout=60_000)
    st.select_class(-1)
    qtbot.waitUntil(lambda: settled(win), timeout=60_000)
    assert pane.plot.grab().toImage() == before  # (the class curve emptied when it had points)


def test_an_overview_curve_given_the_pixel_bounds_itself_as_pyqtgraph_does(qtbot):
    """``overview._Curve`` with the length of a pixel given (worked out once for every curve)
    has the rectangle pyqtgraph works out per curve: in a plot, plain and with a hover's
    shadow pen, and after the plot's transform changed (the length worked out again)."""
    import numpy as np
    import pyqtgraph as pg

    from vocviewer.gui.panes.pr.overview import _Curve, pixel_lengths

    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    plot.resize(400, 300)
    plot.show()
    rng = np.random.default_rng(5)
    x, y = np.sort(rng.random(300)), rng.random(300)
    ours, theirs = _Curve(), pg.PlotCurveItem()
    for curve in (ours, theirs):
        plot.addItem(curve)
        curve.setData(x, y, connect="all", skipFiniteCheck=True)
    for size in ((400, 300), (520, 260)):
        plot.resize(*size)
        QApplication.processEvents()
        for shadow in (None, pg.mkPen("#111111", width=3.5)):
            ours.pixel = pixel_lengths(ours)
            for curve in (ours, theirs):
                curve.setShadowPen(shadow)  # (and a new rectangle)
            assert ours.boundingRect() == theirs.boundingRect(), (size, shadow)
            assert ours.pixel is not None and ours.pixel[0] > 0
