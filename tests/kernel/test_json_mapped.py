"""The compiled scanner over a results file mapped into memory (``results_kernel
.file_box_columns``): the same columns as over the file's bytes; ``None`` (the readers then read
and name the file) for an empty file, a folder, a missing file and a file the scanner declines."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.kernel.test_json_kernel import diff
from vocviewer import kernel
from vocviewer.families.coco import results_kernel

pytestmark = pytest.mark.skipif(kernel.load("_json") is None, reason="no _json kernel here")

ROW = {"image_id": 1, "category_id": 2, "bbox": [1.5, 2, 3.25, 4e2], "score": 0.123456789}


def test_mapped_equals_bytes(tmp_path: Path) -> None:
    rows = [{**ROW, "image_id": i, "score": 1 / (i + 3)} for i in range(1000)]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(rows, indent=1))
    mapped = results_kernel.file_box_columns(path)
    read = results_kernel.box_columns(path.read_bytes())
    assert mapped is not None and read is not None
    assert diff(tuple(mapped), tuple(read)) is None
    assert np.array_equal(mapped[0], np.arange(1000))


@pytest.mark.parametrize("text", ["", "[]", '[{"image_id": 1, "category_id": 2, "score": NaN}]'])
def test_declined_files(tmp_path: Path, text: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(text)
    assert results_kernel.file_box_columns(path) is None


def test_not_files(tmp_path: Path) -> None:
    assert results_kernel.file_box_columns(tmp_path) is None
    assert results_kernel.file_box_columns(tmp_path / "missing.json") is None
