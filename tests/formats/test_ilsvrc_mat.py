"""The devkit's MAT v5 synset files (read with scipy, an optional dependency)."""

from __future__ import annotations

import numpy as np
import pytest

scipy_io = pytest.importorskip("scipy.io")


def _struct_array(rows, fields):
    arr = np.empty(len(rows), dtype=[(f, object) for f in fields])
    for i, row in enumerate(rows):
        arr[i] = row
    return arr


def test_meta_det_mat_gives_synsets_in_det_id_order(tmp_path):
    from vocviewer.formats.ilsvrc import read_synsets

    rows = [(2, "n002", "bird", "a bird"), (1, "n001", "accordion", "an instrument")]
    syn = _struct_array(rows, ("ILSVRC2014_DET_ID", "WNID", "name", "description"))
    scipy_io.savemat(tmp_path / "meta_det.mat", {"synsets": syn})
    wnids, names = read_synsets(tmp_path)
    assert wnids == ("n001", "n002") and names == ("accordion", "bird")


def test_meta_clsloc_mat(tmp_path):
    from vocviewer.formats.ilsvrc_clsloc import read_clsloc_synsets

    rows = [(1, "n01440764", "tench, Tinca tinca"), (2, "n01443537", "goldfish")]
    syn = _struct_array(rows, ("ILSVRC2014_ID", "WNID", "words"))
    scipy_io.savemat(tmp_path / "meta_clsloc.mat", {"synsets": syn})
    wnids, names = read_clsloc_synsets(tmp_path)
    assert wnids == ("n01440764", "n01443537")
    assert names[0] == "tench, Tinca tinca"
