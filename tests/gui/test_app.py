"""Entry points: ``run_gui`` and the ``vocviewer-gui`` script on bad input (no demo needed)."""

from __future__ import annotations

import pytest

from vocviewer.core.errors import FormatError


def test_run_gui_reraises_a_load_error_for_the_cli(qapp, tmp_path):
    from vocviewer.gui.app import run_gui

    with pytest.raises(FormatError, match="does not exist"):
        run_gui(tmp_path / "missing", screenshot=tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


def test_gui_script_reports_a_bad_path(qapp, tmp_path, capsys):
    from vocviewer.cli import gui_main

    assert gui_main([str(tmp_path / "missing"), "--screenshot", str(tmp_path / "x.png")]) == 1
    assert "does not exist" in capsys.readouterr().err
