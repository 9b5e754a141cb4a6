"""Box results' columns (``results_bulk``): ``lookup``, the row of each id, by a table where the
ids are dense enough, else by sorting, as the plain definition (first row of an equal key;
``None`` when an id is missing); ``corners`` as ``np.column_stack``; ``nonfinite_warnings``
naming the first NaN / infinite row, none for finite rows whose sums overflow."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vocviewer.families.coco.results_bulk import DENSE_SPAN, corners, lookup, nonfinite_warnings


def reference(keys: list[int], values: list[int]) -> list[int] | None:
    first: dict[int, int] = {}
    for row, k in enumerate(keys):
        first.setdefault(k, row)
    return None if any(v not in first for v in values) else [first[v] for v in values]


def check(keys: list[int], values: list[int]) -> None:
    got = lookup(np.array(keys, dtype=np.int64), np.array(values, dtype=np.int64))
    want = reference(keys, values)
    if want is None:
        assert got is None
    else:
        assert got is not None and got.dtype == np.int64 and got.tolist() == want


ID = st.one_of(st.integers(-5, 40), st.integers(-(2**63), 2**63 - 1), st.just(DENSE_SPAN + 3))


@settings(max_examples=300, deadline=None)
@given(st.lists(ID, max_size=30), st.lists(ID, max_size=30), st.booleans())
def test_as_the_definition(keys: list[int], values: list[int], known: bool) -> None:
    check(keys, [v for v in values if v in keys] if known and keys else values)


def test_dense_sparse_and_equal_keys() -> None:
    rng = np.random.default_rng(3)
    sparse = rng.choice(10**12, 500, replace=False).tolist()  # sorted path
    coco = rng.choice(600_000, 5_000, replace=False).tolist()  # table path (COCO's image ids)
    for keys in (sparse, coco, [7, 3, 7, 9], list(range(100))):
        values = rng.choice(keys, 1_000).tolist()
        check(keys, values)
        check(keys, [*values, max(keys) + 1])
        check(keys, [min(keys) - 1, *values])
    top = 2**63 - 1
    check([top - 10, top], [-(2**63) + 10])  # a difference beyond int64 is no hit
    check([], [])
    check([], [1])


def test_corners_as_column_stack() -> None:
    xywh = np.array([[1.5, 2, 3, 4], [np.nan, 1, np.inf, -np.inf], [1e308, 0, 1e308, 5]])
    with np.errstate(invalid="ignore", over="ignore"):
        want = np.column_stack((xywh[:, :2], xywh[:, :2] + xywh[:, 2:]))
    got = corners(xywh)
    assert got.dtype == np.float64 and got.flags.c_contiguous
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize(
    ("score", "box", "where"),
    [
        ([0.5, 0.5], [[1, 2, 3, 4], [5, 6, 7, 8]], None),
        ([1e308, 1e308], [[1e308, 1e308, 1e308, 1e308]] * 2, None),  # sums overflow: all finite
        ([0.5, np.nan], [[1, 2, 3, 4]] * 2, "[1].score"),
        ([0.5, 0.5], [[1, 2, 3, 4], [5, -np.inf, 7, 8]], "[1].bbox"),
        ([np.inf, 0.5], [[1, 2, 3, 4], [5, np.inf, -np.inf, 8]], "[0].score"),
    ],
)
def test_nonfinite_warnings(score: list[float], box: list[list[float]], where: str | None) -> None:
    got = nonfinite_warnings(Path("r.json"), np.array(score), np.array(box, dtype=np.float64))
    if where is None:
        assert got == []
    else:
        assert len(got) == 1 and where in str(got[0])
