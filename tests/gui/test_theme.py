"""View ▸ Theme: the light and dark palettes reach the PR plot, the inspector, the tables, the
message area and the image background (checked on grabbed pixels), the choice is remembered in
the window's settings, and "System" gives the platform's palette back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QSettings
from PySide6.QtGui import QColor, QImage, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from vocviewer.gui.window.theme import SETTINGS_KEY, apply_theme


@pytest.fixture
def themed(qtbot, tmp_path: Path, tiny) -> Iterator:
    """Factory: a window on the tiny dataset (evaluated) with its own settings file; the
    application goes back to the system palette afterwards."""
    from vocviewer.gui.window.app import configure_pyqtgraph
    from vocviewer.gui.window.main_window import MainWindow

    configure_pyqtgraph()
    made = []
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)

    def factory(load: bool = True):
        win = MainWindow(settings=settings)
        qtbot.addWidget(win)
        win.resize(1400, 900)
        win.show()
        made.append(win)
        if load:
            dataset, results = tiny
            win.state.set_dataset(dataset)
            with qtbot.waitSignal(win.state.evaluation.finished, timeout=10_000):
                win.state.add_result_set(results)
            qtbot.waitUntil(lambda: win.view.shown_image == 0, timeout=5000)
        return win

    yield factory
    for win in made:
        win.view.shutdown()
        win.state.shutdown()
    apply_theme("system")
    qtbot.wait(20)


def lightness(image: QImage, x: int, y: int) -> int:
    return image.pixelColor(x, y).lightness()


def grab(widget: QWidget) -> QImage:
    QApplication.processEvents()
    return widget.grab().toImage()


def test_dark_and_light_reach_the_plot_inspector_tables_and_image(qtbot, themed):
    win = themed()
    win.display.act_messages.setChecked(True)  # the message area, shown
    win.state.select_class(11)  # dog: a curve, a legend and a title
    qtbot.wait(100)
    for name, dark in (("dark", True), ("light", False)):
        win.theme.actions[name].trigger()
        qtbot.wait(50)
        # the PR plot: its background pixels, right of the axis and above the legend
        plot = grab(win.pr_pane.plot)
        base = win.pr_pane.palette().color(QPalette.ColorRole.Base)
        corner = plot.pixelColor(plot.width() - 15, 40)
        assert corner == base
        assert (corner.lightness() < 60) if dark else (corner.lightness() > 220)
        # the axis labels are drawn in the palette's text colour: some pixels are that light/dark
        axis = win.pr_pane.plot.getPlotItem().getAxis("bottom")
        assert axis.textPen().color() == win.pr_pane.palette().color(QPalette.ColorRole.Text)
        # the inspector: its background and its words
        why = grab(win.side.why)
        back = lightness(why, why.width() - 3, why.height() - 3)
        assert (back < 70) if dark else (back > 220)
        inks = [
            why.pixelColor(x, y).lightness() for x in range(0, why.width(), 2) for y in (14, 16)
        ]
        assert (max(inks) > 170) if dark else (min(inks) < 90)
        # the AP table and the message list: right of the first row's text
        for widget in (win.ap_table.viewport(), win.messages.list.viewport()):
            img = grab(widget)
            px = lightness(img, img.width() - 3, 3)
            assert (px < 70) if dark else (px > 200), widget
        # the image background: a dark grey, darker still in the dark theme
        view = grab(win.view.viewport())
        assert view.pixelColor(2, 2) == win.view.backgroundBrush().color()
    assert win.view.backgroundBrush().color().lightness() > QColor("#18191b").lightness()


def test_legend_and_title_follow_the_theme(qtbot, themed):
    win = themed()
    win.state.select_class(11)
    qtbot.wait(100)
    win.theme.set_theme("dark")
    qtbot.wait(50)
    legend = win.pr_pane.legend
    assert legend.isVisible() and legend.items
    text = win.pr_pane.palette().color(QPalette.ColorRole.Text)
    for _sample, label in legend.items:
        assert QColor(label.opts["color"]) == text
    assert legend.brush().color().lightness() < 60
    title = win.pr_pane.plot.getPlotItem().titleLabel
    assert QColor(title.opts["color"]) == text


def test_choice_is_stored_and_restored_by_the_next_window(qtbot, themed):
    win = themed(load=False)
    assert win.theme.current == "system"
    system_window = QApplication.palette().color(QPalette.ColorRole.Window)
    win.theme.actions["dark"].trigger()
    assert win.theme.settings.value(SETTINGS_KEY) == "dark"
    assert QApplication.palette().color(QPalette.ColorRole.Window).lightness() < 80
    win.close()
    second = themed(load=False)  # same settings file: starts dark
    assert second.theme.current == "dark" and second.theme.actions["dark"].isChecked()
    assert second.palette().color(QPalette.ColorRole.Window).lightness() < 80
    second.theme.actions["system"].trigger()
    assert QApplication.palette().color(QPalette.ColorRole.Window) == system_window
    assert second.theme.settings.value(SETTINGS_KEY) == "system"


def test_a_foreign_stored_value_means_system(qtbot, themed, tmp_path):
    QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat).setValue(
        SETTINGS_KEY, "purple"
    )
    win = themed(load=False)
    assert win.theme.current == "system" and win.theme.actions["system"].isChecked()


def test_theme_menu_is_in_the_view_menu_with_status_tips(themed):
    win = themed(load=False)
    titles = [a.text() for a in win.view_menu.actions()]
    assert "&Theme" in titles
    assert [a.text() for a in win.theme.menu.actions()] == ["&System", "&Light", "&Dark"]
    assert all(a.statusTip() for a in win.theme.menu.actions())


def test_unknown_theme_is_refused():
    with pytest.raises(ValueError, match="unknown theme"):
        apply_theme("sepia")


def test_pane_restyles_on_a_system_palette_change(qtbot, themed):
    """A palette set from outside (the platform switching to dark) restyles the PR plot too."""
    win = themed(load=False)
    from vocviewer.gui.window.theme import theme_palette

    QApplication.setPalette(theme_palette("dark"))
    qtbot.wait(20)
    plot = grab(win.pr_pane.plot)
    assert plot.pixelColor(QPoint(plot.width() - 15, 40)).lightness() < 60
    assert win.view.backgroundBrush().color() == QColor("#18191b")
