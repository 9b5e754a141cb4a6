"""The msgspec box-results parser: the same columns as ``json.loads`` + the bulk path wherever it
answers, ``None`` (so the standard library decides) for anything it may not take, and chunk cuts
that can never change what a file means."""

from __future__ import annotations

import contextlib
import gc
import json
import weakref
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vocviewer.families.coco import results_bulk as bulk
from vocviewer.families.coco import results_fast as fast
from vocviewer.families.coco import results_reader as cr
from vocviewer.families.coco.columns import CocoResults
from vocviewer.families.coco.reader import read_coco

pytestmark = pytest.mark.skipif(not fast.available(), reason="msgspec not installed")

GOOD = {"image_id": 7, "category_id": 2, "bbox": [1.5, 2, 3.25, 4], "score": 0.5}
TRICKY = [
    "}, {",
    '"}, {"',
    "},{",
    "] , [",
    '\\"}, {\\"',
    "a\\\\",
    "",
]


def _stdlib(data: bytes) -> bulk.Columns | None:
    """What the standard-library path makes of the same bytes (plain files only)."""
    anns = json.loads(data)
    return bulk.box_columns(anns, any(w in data for w in (b"true", b"false", b"null")))


def _same(a: bulk.Columns | None, b: bulk.Columns | None) -> None:
    assert (a is None) == (b is None)
    if a is not None and b is not None:
        for x, y in zip(a, b, strict=True):
            assert x.dtype == y.dtype
            np.testing.assert_array_equal(x, y)


NUM = st.one_of(
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.floats(-1e4, 1e4),
)
EXTRA = st.dictionaries(
    st.sampled_from(["id", "note", "segmentation", "area", "x"]),
    st.recursive(
        st.one_of(st.sampled_from(TRICKY), st.integers(-5, 5), st.floats(-2, 2)),
        lambda inner: st.one_of(
            st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(TRICKY), inner)
        ),
        max_leaves=6,
    ),
    max_size=2,
)
ENTRY = st.builds(
    lambda i, c, b, s, extra: {**extra, "image_id": i, "category_id": c, "bbox": b, "score": s},
    st.integers(-(2**63), 2**63 - 1),
    st.integers(0, 100),
    st.lists(NUM, min_size=4, max_size=4),
    NUM,
    EXTRA,
)


@settings(max_examples=120, deadline=None, derandomize=True)
@given(
    entries=st.lists(ENTRY, min_size=1, max_size=8),
    chunk=st.integers(1, 200),
    spaces=st.sampled_from([", ", ",", " ,\n\t", "\r\n,  "]),
)
def test_chunks_give_the_columns_of_the_standard_library(
    entries: list[dict[str, Any]], chunk: int, spaces: str
) -> None:
    data = ("[" + spaces.join(json.dumps(e) for e in entries) + "]\n").encode()
    want = _stdlib(data)
    _same(fast.box_columns(data), want)  # one chunk
    cut = fast.box_columns(data, chunk=chunk)
    if cut is not None or not any(set(e) - set(GOOD) for e in entries):
        _same(cut, want)  # a cut inside a string may refuse the file (json then reads it)


@pytest.mark.parametrize(
    "text",
    [
        # cut points inside strings and inside nested values: each chunk must fail to decode
        '[{"image_id": 1, "category_id": 2, "bbox": [1, 2, 3, 4], "score": 0.5, "x": "}, {"}, '
        '{"image_id": 1, "category_id": 2, "bbox": [1, 2, 3, 4], "score": 0.5}]',
        '[{"image_id": 1, "category_id": 2, "bbox": [1, 2, 3, 4], "score": 0.5, '
        '"x": [{"a": 1}, {"b": 2}]}, {"image_id": 3, "category_id": 2, "bbox": [1, 2, 3, 4], '
        '"score": 0.5}]',
    ],
)
def test_a_cut_anywhere_keeps_the_file_s_meaning(text: str) -> None:
    data = text.encode()
    want = _stdlib(data)
    for chunk in range(1, len(data)):
        got = fast.box_columns(data, chunk=chunk)
        if got is not None:  # a cut between entries, or none at all
            _same(got, want)
    assert fast.box_columns(data) is not None


@pytest.mark.parametrize(
    "entry",
    [
        {**GOOD, "score": float("nan")},  # json.load takes NaN / Infinity; msgspec does not
        {**GOOD, "bbox": [1, 2, float("inf"), 4]},
        {**GOOD, "score": 10**400},  # inf for json; out of range for msgspec
        {**GOOD, "image_id": 2**63},  # beyond int64
        {**GOOD, "image_id": 7.0},  # a whole float id: the bulk path takes it
        {**GOOD, "image_id": True},
        {**GOOD, "score": None},
        {**GOOD, "score": "0.5"},
        {**GOOD, "bbox": [1, 2, 3]},
        {k: v for k, v in GOOD.items() if k != "score"},
        {**GOOD, "note": "é"},  # not ASCII: json_text decides (UTF-8 / 16 / 32)
    ],
)
def test_what_it_may_not_take_goes_to_the_standard_library(entry: dict[str, Any]) -> None:
    data = json.dumps([GOOD, entry], allow_nan=True, ensure_ascii=False).encode()
    assert fast.box_columns(data) is None


def test_a_caption_file_and_other_shapes_are_left_alone() -> None:
    assert fast.box_columns(json.dumps([{**GOOD, "caption": "a cat"}]).encode()) is None
    assert fast.box_columns(json.dumps([GOOD, {**GOOD, "caption": "x"}]).encode()) is not None
    for data in (b"[]", b"{}", b"", b"[1]", b"[{}]", b"[" + json.dumps(GOOD).encode()):
        assert fast.box_columns(data) is None


def test_read_results_with_nan_keeps_the_rows_and_warns(tmp_path: Path) -> None:
    """The fast parser refuses NaN; the standard-library path keeps the row, warns, as before."""
    gt = {
        "images": [{"id": 7, "width": 64, "height": 48, "file_name": "a.jpg"}],
        "categories": [{"id": 2, "name": "b"}],
        "annotations": [
            {"id": 1, "image_id": 7, "category_id": 2, "bbox": [1, 2, 3, 4], "area": 12}
        ],
    }
    (tmp_path / "gt.json").write_text(json.dumps(gt))
    ds = read_coco(tmp_path / "gt.json", masks=False)
    path = tmp_path / "r.json"
    path.write_text(json.dumps([GOOD, {**GOOD, "score": float("nan")}], allow_nan=True))
    rs = cr.read_coco_results(ds, path)
    assert len(rs.detections.score) == 2 and np.isnan(rs.detections.score[1])
    assert [w.element for w in rs.warnings] == ["[1].score"]
    path.write_text(json.dumps([GOOD, {**GOOD, "score": 0.25}]))
    rs = cr.read_coco_results(ds, path)
    np.testing.assert_array_equal(rs.detections.score, [0.5, 0.25])
    np.testing.assert_array_equal(rs.data(CocoResults).bbox, [[1.5, 2, 3.25, 4]] * 2)
    assert rs.warnings == () and rs.problems == ()
    assert cr.box_columns(path) is not None


@pytest.mark.parametrize("kernel", [True, False])
@pytest.mark.parametrize("nonfinite", [False, True])
def test_id_columns_are_the_file_s_without_holding_its_parsed_ids(
    tmp_path: Path, kernel: bool, nonfinite: bool
) -> None:
    """``CocoResults.image_id`` / ``category_id`` read back the file's ids, on every reading
    path (the compiled scan handed over by ``box_columns``, msgspec, the standard library for
    a NaN score), while the ids the scan parsed are let go once the rows are found (the
    result set gathers the ground truth's ids when they are read)."""
    from tests.kernel.switch import numpy_path

    gt = {
        "images": [
            {"id": i, "width": 64, "height": 48, "file_name": f"{i}.jpg"} for i in (9, 4, 7)
        ],
        "categories": [{"id": c, "name": f"c{c}"} for c in (5, 2, 11)],
        "annotations": [],
    }
    (tmp_path / "gt.json").write_text(json.dumps(gt))
    ds = read_coco(tmp_path / "gt.json", masks=False)
    rng = np.random.default_rng(4)
    img, cat = rng.choice([9, 4, 7], 40).tolist(), rng.choice([5, 2, 11], 40).tolist()
    rows = [{**GOOD, "image_id": i, "category_id": c} for i, c in zip(img, cat, strict=True)]
    if nonfinite:
        rows[3]["score"] = float("nan")
    path = tmp_path / "r.json"
    path.write_text(json.dumps(rows, allow_nan=True))
    with contextlib.nullcontext() if kernel else numpy_path():
        parsed = cr.box_columns(path)
        gone = []
        if parsed is not None:
            gone = [weakref.ref(parsed.image_id), weakref.ref(parsed.category_id)]
        rs = cr.read_coco_results(ds, path, boxes=parsed)
    del parsed
    gc.collect()
    assert all(r() is None for r in gone)  # (the result set does not hold them)
    c = rs.data(CocoResults)
    assert c.image_id.dtype == np.int64 and c.image_id.tolist() == img
    assert c.category_id.dtype == np.int64 and c.category_id.tolist() == cat
    assert not c.image_id.flags.writeable and not c.category_id.flags.writeable
