"""Atomic file writes: a temporary file beside the target, then a rename.

A reader never sees a half-written file, and a failed write leaves the old file in place. The
new file gets the usual permissions (``0o666`` less the process umask), not ``mkstemp``'s 0600.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _read_umask()  # read once at import: os.umask can only be read by setting it


def write_bytes_atomic(target: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``target`` atomically; returns the path."""
    target = Path(target)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def write_text_atomic(target: str | Path, text: str) -> Path:
    """Write ``text`` as UTF-8 with ``\\n`` line ends to ``target`` atomically."""
    return write_bytes_atomic(target, text.encode("utf-8"))
