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
    from vocviewer.families.ilsvrc.reader import read_synsets

    rows = [(2, "n002", "bird", "a bird"), (1, "n001", "accordion", "an instrument")]
    syn = _struct_array(rows, ("ILSVRC2014_DET_ID", "WNID", "name", "description"))
    scipy_io.savemat(tmp_path / "meta_det.mat", {"synsets": syn})
    wnids, names = read_synsets(tmp_path)
    assert wnids == ("n001", "n002") and names == ("accordion", "bird")


def test_meta_clsloc_mat(tmp_path):
    from vocviewer.families.ilsvrc.clsloc_reader import read_clsloc_synsets

    rows = [(1, "n01440764", "tench, Tinca tinca"), (2, "n01443537", "goldfish")]
    syn = _struct_array(rows, ("ILSVRC2014_ID", "WNID", "words"))
    scipy_io.savemat(tmp_path / "meta_clsloc.mat", {"synsets": syn})
    wnids, names = read_clsloc_synsets(tmp_path)
    assert wnids == ("n01440764", "n01443537")
    assert names[0] == "tench, Tinca tinca"


def test_garbage_and_wrong_structure_name_the_file_and_element(tmp_path):
    from vocviewer.core.errors import FormatError
    from vocviewer.families.ilsvrc.reader import read_synsets

    mat = tmp_path / "meta_det.mat"
    good = _struct_array([(1, "n001", "a", "")], ("ILSVRC2014_DET_ID", "WNID", "name", "x"))
    scipy_io.savemat(mat, {"synsets": good}, do_compression=True)
    data = mat.read_bytes()
    cases = {
        data[:150]: "",  # truncated inside the compressed element
        data[:128] + bytes(40): "",  # an element of unknown type, nothing else
        b"junk" * 100: "",
    }
    for content, element in cases.items():
        mat.write_bytes(content)
        with pytest.raises(FormatError) as info:
            read_synsets(tmp_path)
        assert info.value.path == mat and (info.value.element or "") == element
    bad_id = _struct_array([("one", "n001", "a", "")], ("ILSVRC2014_DET_ID", "WNID", "name", "x"))
    scipy_io.savemat(mat, {"synsets": bad_id})
    with pytest.raises(FormatError) as info:
        read_synsets(tmp_path)
    assert info.value.element == "synsets(1).ILSVRC2014_DET_ID"


def test_matfile_matches_scipy_on_nested_values(tmp_path):
    from vocviewer.formats.matfile import load_variable

    rows = [(2, "n002", np.array([1.5, 2.0]), np.array(["ab", "cd"], dtype=object))]
    syn = _struct_array(rows, ("ILSVRC2014_ID", "WNID", "children", "cells"))
    for compress in (False, True):
        scipy_io.savemat(
            tmp_path / "m.mat", {"x": np.arange(3), "synsets": syn}, do_compression=compress
        )
        data = (tmp_path / "m.mat").read_bytes()
        got = load_variable(tmp_path / "m.mat", data, "synsets")
        assert got == [
            {"ILSVRC2014_ID": [2.0], "WNID": "n002", "children": [1.5, 2.0], "cells": ["ab", "cd"]}
        ]
        assert load_variable(tmp_path / "m.mat", data, "x") == [0.0, 1.0, 2.0]
