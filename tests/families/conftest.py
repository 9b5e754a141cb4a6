"""The window factory of the GUI tests (``make_window``), for the window invariants of
``test_common``."""

from tests.gui.conftest import make_window

__all__ = ["make_window"]
