"""Guard against Qt binding releases that corrupt the interpreter."""

from __future__ import annotations

import sys


def test_void_qt_calls_keep_their_reference_to_none(qapp):
    """PySide6 6.12.0 on CPython 3.11 returns None from void methods without a reference, which
    aborts the interpreter after a few thousand calls; pyproject excludes it. This test fails
    loudly if a binding with the same bug gets installed."""
    from PySide6.QtWidgets import QWidget

    w = QWidget()
    before = sys.getrefcount(None)
    for i in range(100):
        w.setMinimumWidth(i)
    assert sys.getrefcount(None) >= before - 5  # tolerate unrelated churn, not a 100-drop
