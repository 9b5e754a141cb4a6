"""Compiled kernels: the hot loops of reading and evaluating, in C, each optional.

Each ``_name.c`` in this folder is built by setup.py into ``vocviewer.kernel._name``. Callers ask
``load("_name")`` and take the numpy path when it returns ``None`` (the kernel was not built on
this machine, or ``VOCVIEWER_KERNEL=0`` turns the kernels off, as the tests do to prove both paths
give identical evidence). ``missing()`` names the kernels that were wanted but not built (the CLI
says so once, on stderr).
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

_missing: set[str] = set()


def enabled() -> bool:
    """Whether the kernels may be used (``VOCVIEWER_KERNEL=0`` turns them off)."""
    return os.environ.get("VOCVIEWER_KERNEL", "1") != "0"


def load(name: str) -> ModuleType | None:
    """The compiled module ``vocviewer.kernel.<name>``, or ``None`` (take the numpy path) if the
    kernels are turned off or this one was not built (then it is remembered for ``missing``)."""
    if not enabled():
        return None
    try:
        return importlib.import_module(f"vocviewer.kernel.{name}")
    except ImportError:
        _missing.add(name)
        return None


def missing() -> tuple[str, ...]:
    """The kernels asked for but not built on this machine, sorted."""
    return tuple(sorted(_missing))


def cores() -> int:
    """The cores this process may run on (a kernel's thread count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # (not on every platform)
        return os.cpu_count() or 1
