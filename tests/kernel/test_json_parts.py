"""The results scanner in parts (``_json.results(data, False, threads, part_bytes)``): a box
results file cut at entry boundaries and scanned on several threads gives exactly the columns
of the one-thread scan, and declines exactly when it declines (the readers then name the
problem), whatever the cuts land on: strings and nested values holding ``},{``, whitespace,
escapes, a bad entry in any part."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.kernel.test_json_kernel import diff
from vocviewer import kernel

_json = kernel.load("_json")
pytestmark = pytest.mark.skipif(_json is None, reason="the _json kernel is not built here")

#: Values that look like entry boundaries to a byte search.
_TRAPS = ["}, {", "},{", '"}, {"', "}\n,\n{", '\\"}, {\\"', "]}, {[", ""]


def _entry(i: int, trap: str, nested: bool) -> dict[str, Any]:
    e: dict[str, Any] = {"image_id": i % 13, "category_id": 1 + i % 5, "score": 1 / (i + 2)}
    e["bbox"] = [i * 0.5, 2, 3.25, 4e1 + i]
    if trap:
        e["note"] = trap * (1 + i % 3)
    if nested:
        e["extra"] = [{"a": 1}, {"b": [2, {"c": trap}]}, {}]
    return e


def _scan(data: bytes, threads: int, part_bytes: int) -> Any:
    return _json.results(data, False, threads, part_bytes)  # type: ignore[union-attr]


def _same(data: bytes) -> None:
    one = _scan(data, 1, 1)
    for threads, part_bytes in ((2, 1), (3, 50), (8, 1), (8, 400), (4, 10**9)):
        got = _scan(data, threads, part_bytes)
        assert (got is None) == (one is None)
        if one is not None:
            assert diff(dict(one), dict(got)) is None


@settings(max_examples=60, deadline=None)
@given(
    traps=st.lists(st.sampled_from(_TRAPS), min_size=1, max_size=40),
    nested=st.lists(st.booleans(), min_size=1, max_size=40),
    indent=st.sampled_from([None, 0, 1]),
    separators=st.sampled_from([(",", ":"), (", ", ": "), (" ,\n", " :\t")]),
)
def test_parts_give_the_one_thread_columns(
    traps: list[str], nested: list[bool], indent: int | None, separators: tuple[str, str]
) -> None:
    rows = [_entry(i, t, nested[i % len(nested)]) for i, t in enumerate(traps * 3)]
    _same(json.dumps(rows, indent=indent, separators=separators).encode())


def test_a_large_file_in_parts() -> None:
    rows = [_entry(i, _TRAPS[i % len(_TRAPS)], i % 7 == 0) for i in range(20000)]
    data = json.dumps(rows).encode()
    one = _scan(data, 1, 1)
    assert one is not None and len(one["score"]) == 20000
    got = _scan(data, 4, 1 << 16)
    assert diff(dict(one), dict(got)) is None


@pytest.mark.parametrize("where", [0.1, 0.5, 0.9, 0.98])
@pytest.mark.parametrize(
    "bad",
    [
        b'"score": NaN',
        b'"score": "1"',
        b'"score": 1, "caption": "a"',
        b'"score": 1}, "x", {"score": 1',
        b'"score": 1}, {',
        b'"score": 1}] [{"score": 1',
    ],
)
def test_a_bad_entry_in_any_part_declines(where: float, bad: bytes) -> None:
    rows = [_entry(i, "}, {", False) for i in range(400)]
    data = json.dumps(rows, separators=(",", ":")).encode()
    at = data.index(b'"score":', int(len(data) * where))
    end = data.index(b",", at)
    broken = data[:at] + bad + data[end:]
    assert _scan(broken, 1, 1) is None
    for threads in (2, 4, 8):
        assert _scan(broken, threads, 64) is None


@pytest.mark.parametrize("tail", [b"", b" \n", b" x", b",", b"]"])
def test_the_end_of_the_document(tail: bytes) -> None:
    data = json.dumps([_entry(i, "", False) for i in range(300)]).encode() + tail
    _same(data)


def test_segmentations_are_only_skipped_in_parts() -> None:
    """A file with masks in parts: segmentations checked to be valid JSON, as one thread."""
    rows = [
        {**_entry(i, "", False), "segmentation": {"size": [4, 5], "counts": "}, {" * (i % 3 + 1)}}
        for i in range(500)
    ]
    _same(json.dumps(rows).encode())


def test_keypoint_lists_in_parts() -> None:
    """Results with keypoints (each part's lists read at the end, in file order), and a bad
    list in a later part: declined as the one-thread scan declines it."""
    rows = [_entry(i, "", i % 4 == 0) for i in range(300)]
    for i, r in enumerate(rows):
        r["keypoints"] = [i + 0.5, 2 * i, 2] * (1 + i % 17) if i % 9 else []
    _same(json.dumps(rows).encode())
    one = _scan(json.dumps(rows).encode(), 1, 1)
    assert one is not None and one["keypoints"].sum() > 0
    rows[250]["keypoints"] = [1, 2, "v"]
    _same(json.dumps(rows).encode())
    assert _scan(json.dumps(rows).encode(), 1, 1) is None
