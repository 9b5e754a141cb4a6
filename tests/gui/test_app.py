"""Entry points: ``run_gui`` and the ``vocviewer-gui`` script on bad input (no demo needed)."""

from __future__ import annotations

import pytest

from vocviewer.core.errors import FormatError


def test_run_gui_reraises_a_load_error_for_the_cli(qapp, tmp_path):
    from vocviewer.gui.window.app import run_gui

    with pytest.raises(FormatError, match="does not exist"):
        run_gui(tmp_path / "missing", screenshot=tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


def test_gui_script_reports_a_bad_path(qapp, tmp_path, capsys):
    from vocviewer.cli import gui_main

    assert gui_main([str(tmp_path / "missing"), "--screenshot", str(tmp_path / "x.png")]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_run_gui_names_what_it_waited_for_on_timeout(qapp, demo, tmp_path, monkeypatch):
    from PySide6.QtCore import QThreadPool

    import vocviewer.gui.window.app as app

    monkeypatch.setattr(app, "SCREENSHOT_TIMEOUT_MS", 1)
    # what is still running after 1 ms: the dataset job, or (a warm, fast load) the drawing
    waited = "gave up after 0 s waiting for: (dataset|drawing the image)"
    with pytest.raises(TimeoutError, match=waited) as err:
        app.run_gui(demo.year_dir, screenshot=tmp_path / "x.png")
    assert err.value.filename == demo.year_dir
    assert not (tmp_path / "x.png").exists()
    QThreadPool.globalInstance().waitForDone(10_000)


def test_an_exception_escaping_a_callback_goes_to_the_message_area(qtbot, make_window):
    import sys

    from vocviewer.gui.window.app import post_uncaught_errors

    win = make_window()
    undo = post_uncaught_errors(win)
    try:
        try:
            {}["missing"]
        except KeyError as exc:
            sys.excepthook(KeyError, exc, exc.__traceback__)
    finally:
        undo()
    item = win.messages.list.item(win.messages.count() - 1)
    assert item.text().startswith("Unexpected error: internal error (KeyError: 'missing')")
    assert "Traceback" in item.toolTip() and "test_app.py" in item.toolTip()
