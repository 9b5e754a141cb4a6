"""Which stream a ``--json`` target names (``cli`` writes to it): ``-``, a path that is this
process's stdout or stderr (``/dev/stdout``, or the file stdout is redirected to), or a pipe,
socket or character device (``/dev/fd/63`` of a shell's ``>(jq .)``, ``/dev/null``), written
as it is instead of being replaced like a file (``formats.output``)."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from vocviewer.core.errors import OutputError


def std_stream(target: Path) -> TextIO | None:
    """``sys.stdout`` for ``-`` or a path that is this process's stdout, ``sys.stderr`` for its
    stderr, else None."""
    if str(target) == "-":
        return sys.stdout
    try:
        st = os.stat(target)
    except (OSError, ValueError):
        return None
    for stream in (sys.stdout, sys.stderr):
        try:
            fst = os.fstat(stream.fileno())
        except (OSError, ValueError, AttributeError):
            continue
        if (st.st_dev, st.st_ino) == (fst.st_dev, fst.st_ino):
            return stream
    return None


def is_pipe(target: Path) -> bool:
    """Whether ``target`` is a pipe, a socket or a character device."""
    try:
        mode = os.stat(target).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISSOCK(mode)


def refuse_inside(target: Path, roots: Sequence[Path]) -> None:
    """``OutputError`` if the stream ``target`` (links resolved) lies inside one of ``roots``."""
    if str(target) == "-":
        return
    real = Path(os.path.realpath(target))
    for root in roots:
        base = Path(os.path.realpath(root))
        if real == base or base in real.parents:
            raise OutputError(target, f"refusing to write inside the dataset folder {root}")
