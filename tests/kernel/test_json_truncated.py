"""A results file cut short while the compiled scanner reads it where the system maps it
(``results_kernel.file_box_columns``: e.g. the detector rewrites its output while the window
reads it). Reading a mapped page past the new end raises SIGBUS, which would end the process
(the window with it); the scanner declines instead, so the readers read the file as it now is
and name what they find. Each case runs in a child process: without the guard it is killed."""

from __future__ import annotations

import json
import mmap
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from vocviewer import kernel
from vocviewer.core.errors import FormatError
from vocviewer.families.coco import results_reader
from vocviewer.formats.json_input import json_text, parse_json, read_json_bytes

pytestmark = pytest.mark.skipif(kernel.load("_json") is None, reason="no _json kernel here")

ROOT = Path(__file__).resolve().parents[2]


def _results_file(path: Path, n: int, keypoints: bool = False) -> int:
    """``n`` box (or keypoint) results written to ``path``; a page boundary inside the file
    where an entry is being read (the cut)."""
    rows = []
    for i in range(n):
        row = {"image_id": i % 97, "category_id": 1 + i % 7, "score": 1 / (i + 2)}
        row["bbox"] = [i * 0.25, 2.5, 30.125, 40.0 + i % 11]
        if keypoints:
            row["keypoints"] = [float(i % 50 + k) for k in range(51)]
        rows.append(row)
    path.write_text(json.dumps(rows))
    return path.stat().st_size // 2 // mmap.PAGESIZE * mmap.PAGESIZE


def in_child(code: str) -> subprocess.CompletedProcess[str]:
    """``code`` (dedented) run by this Python in a child process at the checkout's root."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
        check=False,
    )


def _printed(code: str) -> str:
    done = in_child(code)
    assert done.returncode == 0, f"child ended with {done.returncode}: {done.stderr[-2000:]}"
    return done.stdout.strip()


@pytest.mark.parametrize(
    ("keypoints", "threads", "part_bytes"),
    [(False, 1, 1 << 22), (False, 2, 1 << 16), (True, 1, 1 << 22), (True, 2, 1 << 16)],
)
def test_a_file_cut_short_while_mapped_is_declined(
    tmp_path: Path, keypoints: bool, threads: int, part_bytes: int
) -> None:
    path = tmp_path / "results.json"
    cut = _results_file(path, 6000 if keypoints else 20000, keypoints)
    out = _printed(
        f"""
        import mmap, os
        from vocviewer import kernel
        with open({str(path)!r}, "rb") as fh:
            view = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        assert kernel.load("_json").results(view, 0, {threads}, {part_bytes}) is not None
        os.truncate({str(path)!r}, {cut})  # (the mapping keeps its length)
        print(kernel.load("_json").results(view, 0, {threads}, {part_bytes}))
        """
    )
    assert out == "None"


def test_the_reader_names_a_file_cut_short_while_it_was_scanned(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    cut = _results_file(path, 20000)
    out = _printed(
        f"""
        import os
        from vocviewer.families.coco import results_kernel
        def scan(view):
            os.truncate({str(path)!r}, {cut})
            return results_kernel.box_columns(view)
        print(results_kernel._scan_mapped(__import__("pathlib").Path({str(path)!r}), scan))
        """
    )
    assert out == "None"
    assert results_reader.box_columns(path) is None  # the file as it now is: cut mid-entry
    with pytest.raises(FormatError) as caught:  # what the reader then names
        parse_json(path, json_text(path, read_json_bytes(path)))
    assert str(path) in str(caught.value)
