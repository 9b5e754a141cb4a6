"""Atomic writes: complete files with ordinary permissions, nothing left behind on failure."""

from __future__ import annotations

import os
import stat

import pytest

from vocviewer.formats.atomic import write_bytes_atomic, write_text_atomic


def test_written_file_has_umask_permissions_and_no_temp_left(tmp_path):
    target = write_text_atomic(tmp_path / "a.txt", "x y\n")
    assert target.read_text() == "x y\n"
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]


def test_failure_keeps_the_old_file(tmp_path):
    target = tmp_path / "b.bin"
    write_bytes_atomic(target, b"old")
    with pytest.raises(TypeError):
        write_bytes_atomic(target, "not bytes")  # type: ignore[arg-type]
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["b.bin"]
