"""Issue 10 follow-ups: fuzz findings (huge object numbers, a PNG declaring a 2 GB chunk) and
``read_bytes`` leaking no descriptor on a folder, a FIFO or a device."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from vocviewer.core.errors import FormatError
from vocviewer.families.voc.action_reader import read_action_results
from vocviewer.families.voc.layout_reader import read_layout_results
from vocviewer.formats.image_file import read_rgb
from vocviewer.formats.input import read_bytes

ROOT = Path(__file__).resolve().parents[2]
HUGE = "1" * 40  # ~40 digits: beyond int64


def test_action_object_number_beyond_int64_is_a_line_problem(tmp_path: Path) -> None:
    path = tmp_path / "comp9_action_val_jumping.txt"
    path.write_text(f"2008_000001 1 0.5\n2008_000002 {HUGE} 0.7\n")
    scores, problems = read_action_results(path)
    assert scores.object_number.tolist() == [1]
    (p,) = problems
    assert p.path == path and p.line == 2 and HUGE in p.message
    with pytest.raises(FormatError) as e:
        read_action_results(path, strict=True)
    assert e.value.line == 2


def test_layout_object_number_beyond_int64_is_an_element_problem(tmp_path: Path) -> None:
    path = tmp_path / "comp7_layout_val.xml"
    layout = "<layout><image>2008_000001</image><object>{}</object><confidence>1</confidence>"
    path.write_text(f"<results>{layout.format(1)}</layout>{layout.format(HUGE)}</layout></results>")
    layouts, problems = read_layout_results(path)
    assert layouts.object_number.tolist() == [1]
    (p,) = problems
    assert p.path == path and p.element == "results/layout[2]/object"


def _png_declaring_2gb_idat(path: Path) -> None:
    """A 1x1 greyscale PNG whose IDAT chunk declares 0x7FFFFFF0 bytes (the file is ~1 KB)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data))
        return struct.pack(">I", len(data)) + kind + data + crc

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    idat = struct.pack(">I", 0x7FFFFFF0) + b"IDAT" + zlib.compress(b"\x00\x07") + bytes(900)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + idat)


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS")
@pytest.mark.parametrize("reader", ["read_label_png", "read_rgb"])
def test_png_declaring_a_huge_chunk_stays_within_its_size(tmp_path: Path, reader: str) -> None:
    """Decoded from the bytes read once, under a 1 GB address space: data or a FormatError
    naming the file, never a MemoryError (Pillow reads a file's declared IDAT rest at once)."""
    png = tmp_path / "bomb.png"
    _png_declaring_2gb_idat(png)
    code = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        "from vocviewer.core.errors import FormatError\n"
        "from vocviewer.formats.image_file import read_rgb\n"
        "from vocviewer.families.voc.segmentation_reader import read_label_png\n"
        "try:\n"
        f"    print('data', {reader}(sys.argv[1]).shape)\n"
        "except FormatError as e:\n"
        "    print('error', e.path)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code, str(png)], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(("data (1, 1", f"error {png}")), done.stdout


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
@pytest.mark.parametrize("kind", ["folder", "fifo", "device"])
def test_read_bytes_refuses_non_regular_files_and_leaks_no_descriptor(
    tmp_path: Path, kind: str
) -> None:
    if kind == "folder":
        path = tmp_path / "a.json"
        path.mkdir()
    elif kind == "fifo":
        path = tmp_path / "r.txt"
        os.mkfifo(path)
    else:
        path = Path("/dev/zero")
    before = _open_fds()
    for _ in range(20):
        for read in (read_bytes, read_rgb):
            with pytest.raises(FormatError) as e:
                read(path)
            assert e.value.path == path and "regular file" in e.value.message
    assert _open_fds() == before
