"""``formats.input.peek``: the head of a regular file, and nothing (without blocking or raising)
for a FIFO, a folder, a missing file or a symbolic-link loop."""

from __future__ import annotations

import os
from pathlib import Path

from vocviewer.formats.input import peek


def test_regular_file_gives_its_first_bytes(tmp_path: Path) -> None:
    f = tmp_path / "a.json"
    f.write_bytes(b"0123456789")
    assert peek(f, 4) == b"0123"
    assert peek(f) == b"0123456789"


def test_anything_else_gives_nothing(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)  # opening it for reading would block until a writer comes
    loop = tmp_path / "loop.xml"
    loop.symlink_to(loop)
    for path in (fifo, tmp_path, tmp_path / "missing.json", loop):
        assert peek(path) == b"", path
