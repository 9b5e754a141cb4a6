"""``_rle.string_masks`` (a results file's compressed RLE strings checked and measured in one
pass, a pair of runs per step) on any runs: ``rleArea`` and ``rleToBbox`` as pycocotools'
and as the numpy path's (an odd last run dropped, a foreground run across columns spanning the
full height, empty foreground runs skipped, none of a pixel giving maskApi's unsigned start),
bit for bit; and on any string, the same strings declined as the numpy path's ``from_strings`` +
``checked_masks`` decline."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.kernel.switch import numpy_path
from vocviewer import kernel
from vocviewer.core import rle_columns as rc
from vocviewer.families.coco import results_bulk as bulk

mask_util = pytest.importorskip("pycocotools.mask")
_rle = kernel.load("_rle")
pytestmark = pytest.mark.skipif(_rle is None, reason="kernels not built")


@st.composite
def masks(draw: st.DrawFn) -> tuple[list[int], int, int]:
    """Runs of an ``h`` x ``w`` mask: any non-negative lengths (zeros too) summing to h * w,
    small images or large ones (values of several characters, deltas of either sign)."""
    h = draw(st.integers(1, 9) | st.integers(100, 700))
    w = draw(st.integers(1, 9) | st.integers(100, 700))
    cuts = draw(st.lists(st.integers(0, h * w), max_size=40))
    edges = [0, *sorted(cuts), h * w]
    runs = [b - a for a, b in itertools.pairwise(edges)]
    return runs, h, w


def _columns(strings: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    chars = np.frombuffer(b"".join(strings), dtype=np.uint8)
    start = np.concatenate(([0], np.cumsum([len(s) for s in strings]))).astype(np.int64)
    return chars, start


def _values(s: bytes) -> int:
    """A string's count of values (one ends at each character without bit 0x20)."""
    return sum(1 for c in s if not ((c - 48) & 0x20))


@settings(max_examples=300, deadline=None)
@given(st.lists(masks(), min_size=1, max_size=12))
def test_measured_as_pycocotools(items: list[tuple[list[int], int, int]]) -> None:
    runs = [np.array(r, dtype=np.int64) for r, _, _ in items]
    offsets = np.concatenate(([0], np.cumsum([len(r) for r in runs]))).astype(np.int64)
    strings = [s.encode() for s in rc.to_strings(np.concatenate(runs), offsets)]
    h = np.array([a for _, a, _ in items], dtype=np.int64)
    w = np.array([b for _, _, b in items], dtype=np.int64)
    chars, start = _columns(strings)
    got = _rle.string_masks(chars, start, offsets, h, w)  # type: ignore[union-attr]
    assert got is not None
    rles = [{"size": [int(a), int(b)], "counts": s} for s, a, b in zip(strings, h, w, strict=True)]
    want_area = mask_util.area(rles).astype(np.int64)
    assert np.array_equal(got[1], want_area) and got[1].dtype == np.int64
    want_box = mask_util.toBbox(rles).astype(np.float64).reshape(-1, 4)
    assert got[0].tobytes() == want_box.tobytes()
    c, o = rc.from_strings(strings)
    assert rc.bboxes(c, o, h, w).tobytes() == want_box.tobytes()
    with numpy_path():
        assert rc.bboxes(c, o, h, w).tobytes() == want_box.tobytes()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.binary(max_size=12).map(lambda b: bytes(48 + x % 64 for x in b)),
            st.integers(1, 4),
            st.integers(1, 4),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_declined_as_the_numpy_path(items: list[tuple[bytes, int, int]]) -> None:
    """Any strings of rleFrString's characters: a table exactly where the numpy path's decoded
    runs make whole ``h`` x ``w`` masks (truncated strings, values of over 12 characters,
    negative runs, sums other than h * w: none), measured as it measures."""
    strings = [s for s, _, _ in items]
    h = np.array([a for _, a, _ in items], dtype=np.int64)
    w = np.array([b for _, _, b in items], dtype=np.int64)
    chars, start = _columns(strings)
    offsets = np.concatenate(([0], np.cumsum([_values(s) for s in strings]))).astype(np.int64)
    got = _rle.string_masks(chars, start, offsets, h, w)  # type: ignore[union-attr]
    with numpy_path():
        try:
            c, o = rc.from_strings(strings)
        except ValueError:
            want = None
        else:
            ok = bulk.checked_masks(c, o, h, w)
            want = None if ok is None else (rc.bboxes(c, o, h, w), rc.areas(c, o))
    if want is None:
        assert got is None
    else:
        assert got is not None
        assert got[0].tobytes() == want[0].tobytes() and np.array_equal(got[1], want[1])
