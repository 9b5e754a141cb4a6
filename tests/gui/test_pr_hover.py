"""The All-classes PR plot: a curve is named when the mouse rests on it, a click on it selects the
class, the legend lists the best (or worst) classes by AP (real mouse events, offscreen)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from vocviewer.core.dataset import VOC_CLASSES

DOG = VOC_CLASSES.index("dog")


def screen_point(pane, x: float, y: float) -> QPoint:
    """Viewport pixel of plot point ``(x, y)`` (recall, precision)."""
    vb = pane.plot.getPlotItem().getViewBox()
    return pane.plot.mapFromScene(vb.mapViewToScene(QPointF(x, y)))


def polyline_pixels(pane, k: int, n: int = 400) -> np.ndarray:
    """Class ``k``'s curve, sampled densely, in viewport pixels (N, 2)."""
    x, y = pane.overview[k].getData()
    t = np.linspace(0.0, 1.0, n)[:, None]
    pts = np.concatenate(
        [(1 - t) * np.c_[x[i], y[i]] + t * np.c_[x[i + 1], y[i + 1]] for i in range(len(x) - 1)]
    )
    return np.array([[p.x(), p.y()] for p in (screen_point(pane, *q) for q in pts)], float)


def a_point_only_on(pane, k: int) -> tuple[float, float]:
    """A point of class ``k``'s curve at least 25 screen pixels from every other curve."""
    x, y = pane.overview[k].getData()
    others = [
        polyline_pixels(pane, j)
        for j, c in pane.overview.items()
        if j != k and c.isVisible() and len(c.getData()[0]) > 1
    ]
    for i in range(len(x) - 1):
        mid = ((x[i] + x[i + 1]) / 2, (y[i] + y[i + 1]) / 2)
        p = screen_point(pane, *mid)
        far = all(np.hypot(o[:, 0] - p.x(), o[:, 1] - p.y()).min() > 25 for o in others)
        if far:
            return mid
    raise AssertionError("no point of the curve stands apart")


def move_mouse(widget, pos: QPoint) -> None:
    """A real mouse-move event with no button held (``QTest.mouseMove`` sends none offscreen),
    after a pause: pyqtgraph's scene drops moves that follow another within ~16 ms."""
    QApplication.processEvents()
    QTest.qWait(40)
    event = QMouseEvent(
        QEvent.Type.MouseMove,
        QPointF(pos),
        QPointF(widget.mapToGlobal(pos)),
        Qt.MouseButton.NoButton,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(widget, event)


def test_hover_names_the_curve_and_click_selects_its_class(qtbot, window):
    pane, st = window.pr_pane, window.state
    assert st.selected_class == -1 and pane.classes.on
    assert pane.shown_bar.isVisible()
    x, y = a_point_only_on(pane, DOG)
    viewport = pane.plot.viewport()
    away = screen_point(pane, 0.02, 0.02)
    move_mouse(viewport, away)
    qtbot.waitUntil(lambda: pane.classes.hovered == -1, timeout=2000)
    assert not pane.classes.label.isVisible()
    at = screen_point(pane, x, y)
    move_mouse(viewport, at)
    qtbot.waitUntil(lambda: pane.classes.hovered == DOG, timeout=2000)
    assert pane.classes.label.isVisible()
    ap = st.evaluations[0].det[DOG].ap
    assert pane.classes.label.textItem.toPlainText().startswith(f"dog  AP {ap:.3f}")
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=at)
    qtbot.waitUntil(lambda: st.selected_class == DOG, timeout=2000)
    assert not any(c.isVisible() for c in pane.overview.values())
    assert not pane.shown_bar.isVisible()


def test_click_far_from_every_curve_selects_nothing(qtbot, window):
    pane, st = window.pr_pane, window.state
    viewport = pane.plot.viewport()
    # (0.2, 0.15): below every curve of the tiny set (their precision stays >= 0.5)
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=screen_point(pane, 0.2, 0.15))
    qtbot.wait(50)
    assert st.selected_class == -1


def test_legend_lists_best_or_worst_classes_by_ap(qtbot, window):
    pane, st = window.pr_pane, window.state
    aps = {k: ev.ap for k, ev in st.evaluations[0].det.items() if len(ev)}
    texts = [label.text for _, label in pane.legend.items]
    best = sorted(aps, key=lambda k: -aps[k])
    assert texts == [f"{VOC_CLASSES[k]}  {aps[k]:.3f}" for k in best[:5]]
    worst = pane.shown_combo.findText("Worst 5 classes")
    pane.shown_combo.setCurrentIndex(worst)
    pane.shown_combo.activated.emit(worst)
    texts = [label.text for _, label in pane.legend.items]
    assert texts == [f"{VOC_CLASSES[k]}  {aps[k]:.3f}" for k in sorted(aps, key=lambda k: aps[k])]
    listed = pane.overview[pane.classes.listed[0]].opts["pen"].color().name()
    assert listed != pane.overview[pane.classes.listed[-1]].opts["pen"].color().name()
