"""The analyses beyond AP: ``BUILTIN`` names the modules that declare one (``ANALYSIS``), in the
order they appear in ``vocviewer analyze``'s flags, JSON, text and figures; ``register`` adds
one at run time (a plug-in, a test). The command line, the analyze report, the Python API and
the window read this list; a new analysis is its module plus one line here."""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from vocviewer.evaluation.analyses.base import Analysis

#: the modules declaring an analysis, in order
BUILTIN: tuple[str, ...] = (
    "vocviewer.evaluation.analyses.operating_point",
    "vocviewer.evaluation.analyses.calibration",
    "vocviewer.evaluation.analyses.lrp",
)
_added: list[Analysis[Any, Any]] = []


@cache
def _builtin() -> tuple[Analysis[Any, Any], ...]:
    return tuple(importlib.import_module(m).ANALYSIS for m in BUILTIN)


def analyses() -> tuple[Analysis[Any, Any], ...]:
    """Every analysis, the built-in ones first."""
    return (*_builtin(), *_added)


def analysis(name: str) -> Analysis[Any, Any]:
    """The analysis called ``name`` (``KeyError`` if none)."""
    for a in analyses():
        if a.name == name:
            return a
    raise KeyError(f"no analysis {name!r}")


def register(new: Analysis[Any, Any]) -> None:
    """Add ``new`` after the others; ``ValueError`` if its name or an option's name is taken
    (options share the command line)."""
    taken = {a.name for a in analyses()}
    dests = {f.name for a in analyses() for f in a.option_fields()}
    dests |= {o.dest for a in analyses() for o in a.outputs}
    mine = {f.name for f in new.option_fields()} | {o.dest for o in new.outputs}
    if new.name in taken or mine & dests:
        raise ValueError(f"analysis {new.name!r}: a name is taken ({sorted(mine & dests)})")
    _added.append(new)


def unregister(name: str) -> None:
    """Remove an analysis ``register`` added."""
    _added[:] = [a for a in _added if a.name != name]
