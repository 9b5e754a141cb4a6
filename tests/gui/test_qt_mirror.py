"""pyqtgraph's mirror of the Qt modules is filled as names are used (``gui.qt_mirror``): importing
the window's modules leaves PySide6's unused classes uncreated, and pyqtgraph works the same."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
#: a class nothing in vocviewer or pyqtgraph's import uses (PySide6 creates classes on first use)
UNUSED = "QWizard"
PLOT = """
from PySide6.QtWidgets import QApplication
import pyqtgraph as pg
app = QApplication([])
w = pg.PlotWidget()
w.plot([1, 2, 3], [3, 1, 2])
w.resize(200, 100)
w.grab()
from pyqtgraph.Qt import QtCore, QtGui, QtWidgets
import PySide6.QtCore, PySide6.QtGui, PySide6.QtWidgets
assert QtWidgets.QApplication is PySide6.QtWidgets.QApplication
assert QtCore.QPointF is PySide6.QtCore.QPointF and QtGui.QColor is PySide6.QtGui.QColor
assert QtGui.QFileSystemModel is PySide6.QtWidgets.QFileSystemModel  # pyqtgraph's own shim
assert pg.Qt.QtVersion == PySide6.QtCore.__version__
"""


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=ENV, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _copies_whole() -> bool:
    from vocviewer.gui import qt_mirror

    return qt_mirror._copies_everything()


@pytest.mark.skipif(not _copies_whole(), reason="this pyqtgraph fills its mirrors lazily itself")
def test_the_window_modules_leave_unused_qt_classes_uncreated():
    code = (
        "import vocviewer.gui.window.main_window, PySide6.QtWidgets as W\n"
        "from vocviewer.gui import qt_mirror\n"
        f"print(qt_mirror.installed(), {UNUSED!r} in W.__dict__)"
    )
    assert _run(code) == "True False"
    # pyqtgraph imported first copies the modules whole (the class is created)
    assert _run(f"import pyqtgraph, PySide6.QtWidgets as W; print({UNUSED!r} in W.__dict__)") == (
        "True"
    )


@pytest.mark.parametrize("first", ["import vocviewer.gui", "pass"])
def test_pyqtgraph_works_the_same_with_either_mirror(first):
    _run(f"{first}\n{PLOT}")


def test_nothing_is_installed_once_pyqtgraph_is_imported():
    code = (
        "import pyqtgraph\nfrom vocviewer.gui import qt_mirror\n"
        "print(qt_mirror.install(), qt_mirror.installed())"
    )
    assert _run(code) == "False False"


@pytest.mark.skipif(not _copies_whole(), reason="this pyqtgraph fills its mirrors lazily itself")
def test_a_mirror_asked_before_pyqtgraph_is_imported_has_no_such_attribute():
    """``getattr(module, "__file__", None)`` over ``sys.modules`` (as hypothesis's pytest plugin
    does while collecting) must not fail where ``vocviewer.gui`` put the mirrors in place and
    pyqtgraph is not imported yet."""
    code = (
        "import sys, vocviewer.gui\n"
        "from vocviewer.gui import qt_mirror\n"
        "assert qt_mirror.installed() and 'pyqtgraph.Qt' not in sys.modules\n"
        "m = sys.modules['pyqtgraph.Qt.QtCore']\n"
        "print(getattr(m, '__file__', None), getattr(m, 'QPointF', None), hasattr(m, 'Qt'))\n"
        "import pyqtgraph.Qt, PySide6.QtCore\n"
        "print(pyqtgraph.Qt.QtCore.QPointF is PySide6.QtCore.QPointF)"
    )
    assert _run(code) == "None None False\nTrue"
