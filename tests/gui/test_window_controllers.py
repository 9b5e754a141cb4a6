"""The window is composed, not mixed in: ``MainWindow`` derives from ``QMainWindow`` alone, and
each controller owns the actions it lists, whose keys the window serves."""

from __future__ import annotations

from PySide6.QtWidgets import QMainWindow

from vocviewer.gui.window.main_window import MainWindow


def test_the_window_has_no_mixins_and_each_controller_owns_its_actions(make_window):
    assert MainWindow.__bases__ == (QMainWindow,)
    win = make_window()
    served = set(map(id, win.actions()))
    controllers = (
        win.opening,
        win.exporting,
        win.sessions,
        win.display,
        win.protocol,
        win.walk,
        win.help,
    )
    for controller in controllers:
        actions = controller.window_actions()
        assert actions, controller
        for act in actions:
            assert act.parent() is controller, (controller, act.text())
            assert id(act) in served, act.text()  # its keys work anywhere in the window
