"""pyqtgraph's mirror of the Qt modules, filled as names are used rather than all at import.

pyqtgraph up to 0.14.0 keeps its own ``pyqtgraph.Qt.QtCore`` / ``QtGui`` / ``QtWidgets``
modules and fills them at import by copying every name of the binding's modules
(``_copy_attrs``: ``for o in dir(src): if not hasattr(dst, o): setattr(dst, o, getattr(src, o))``).
PySide6 (6.8 on) creates its classes lazily, on first access, so that copy creates all ~720
classes and enums of the three modules: ~100 ms of the window's start-up, under the interpreter
lock the read-ahead thread wants too, for the ~200 classes anything uses. pyqtgraph's next
release fills the mirrors lazily itself (upstream commit 92096ee, "populate QtCore, QtGui,
QtWidgets lazily": a module ``__getattr__`` that fetches a name from the binding on first use and
keeps it).

``install()`` puts such lazy mirrors in ``sys.modules`` before pyqtgraph is imported, so its
``from . import QtCore, QtGui, QtWidgets`` finds them; the copy's ``hasattr`` questions (asked
from ``_copy_attrs`` only) are answered yes without creating anything, and every other access
fetches the name from the binding pyqtgraph chose (``pyqtgraph.Qt.QT_LIB``) and keeps it, as
upstream does. It does nothing (pyqtgraph copies as before) unless pyqtgraph is not imported
yet and its ``Qt/__init__.py`` still has that copy.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from pathlib import Path
from typing import Any

NAMES = ("QtCore", "QtGui", "QtWidgets")
_PACKAGE = "pyqtgraph.Qt"
_COPY = "def _copy_attrs(src, dst):"


class LazyMirror(types.ModuleType):
    """``pyqtgraph.Qt.<name>``: each attribute fetched from the binding's module on first use."""

    def __getattr__(self, attr: str) -> Any:
        caller = sys._getframe(1)
        if caller.f_code.co_name == "_copy_attrs" and caller.f_globals.get("__name__") == _PACKAGE:
            return True  # ``hasattr(dst, o)`` in the copy: "present" (fetched when used)
        package = sys.modules.get(_PACKAGE)
        lib = getattr(package, "QT_LIB", None)  # (set before pyqtgraph imports its mirrors)
        if lib is None:  # (asked before pyqtgraph is imported: e.g. a walk over ``sys.modules``)
            raise AttributeError(f"module {self.__name__!r} has no attribute {attr!r}")
        value = getattr(importlib.import_module(f"{lib}.{self.__name__.rsplit('.', 1)[1]}"), attr)
        setattr(self, attr, value)
        return value


def _copies_everything() -> bool:
    """Whether the pyqtgraph that would be imported copies the binding's modules whole."""
    try:
        spec = importlib.util.find_spec("pyqtgraph")
        if spec is None or not spec.submodule_search_locations:
            return False
        source = Path(spec.submodule_search_locations[0]) / "Qt" / "__init__.py"
        return _COPY in source.read_text(encoding="utf-8")
    except (OSError, ImportError, ValueError):
        return False


def install() -> bool:
    """Put lazy mirrors where pyqtgraph's import finds them (before it is imported, where it
    copies the binding's modules whole); whether it did."""
    if _PACKAGE in sys.modules or "pyqtgraph" in sys.modules or not _copies_everything():
        return False
    for name in NAMES:
        sys.modules.setdefault(f"{_PACKAGE}.{name}", LazyMirror(f"{_PACKAGE}.{name}"))
    return True


def installed() -> bool:
    """Whether pyqtgraph's mirrors are the lazy ones."""
    return all(isinstance(sys.modules.get(f"{_PACKAGE}.{n}"), LazyMirror) for n in NAMES)
