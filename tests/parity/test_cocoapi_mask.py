"""``vocviewer.cocoapi.mask`` against ``pycocotools.mask`` on random masks, polygons and boxes:
the same RLE strings, areas, boxes, IoUs and decoded pixels, in the same types."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pycocotools")
from hypothesis import given, settings
from hypothesis import strategies as st
from pycocotools import mask as ref

from vocviewer.cocoapi import mask as ours


def _same(a: Any, b: Any) -> None:
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(b, a)
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
    else:
        assert type(a) is type(b) and a == b, (a, b)


def _masks(seed: int, h: int = 37, w: int = 23, n: int = 6) -> np.ndarray:
    rng = np.random.default_rng(seed)
    m = np.zeros((h, w, n), dtype=np.uint8, order="F")
    for i in range(n):
        y0, x0 = rng.integers(0, h - 5), rng.integers(0, w - 5)
        m[y0 : y0 + rng.integers(1, 12), x0 : x0 + rng.integers(1, 9), i] = 1
        m[:, :, i] |= (rng.random((h, w)) < 0.05).astype(np.uint8)
    m[:, :, 0] = 0  # an empty mask
    return m


def _quiet(f: Any, *args: Any) -> Any:
    with warnings.catch_warnings():  # pycocotools' decode under numpy 2
        warnings.simplefilter("ignore", DeprecationWarning)
        return f(*args)


@pytest.mark.parametrize("seed", [0, 1])
def test_encode_decode_area_bbox(seed: int) -> None:
    m = _masks(seed)
    want, got = ref.encode(m), ours.encode(m)
    _same(want, got)
    _same(ref.encode(m[:, :, 2].copy(order="F")), ours.encode(m[:, :, 2]))
    _same(_quiet(ref.decode, want), ours.decode(got))
    _same(_quiet(ref.decode, want[3]), ours.decode(got[3]))
    _same(ref.area(want), ours.area(got))
    _same(ref.area(want[4]), ours.area(got[4]))
    _same(ref.toBbox(want), ours.toBbox(got))
    _same(ref.toBbox(want[1]), ours.toBbox(got[1]))
    for flag in (0, 1):
        _same(ref.merge(want[1:4], intersect=flag), ours.merge(got[1:4], intersect=flag))


def test_iou_of_masks_and_boxes() -> None:
    a, b = ref.encode(_masks(2)), ref.encode(_masks(3))
    crowd = [0, 1, 0, 0, 1, 0]
    _same(ref.iou(a, b, crowd), ours.iou(a, b, crowd))
    boxes_d = np.array([[1, 2, 10, 8], [0, 0, 5, 5], [3.5, 2.25, 4, 9]], dtype=np.float64)
    boxes_g = [[2.0, 2.0, 6.0, 6.0], [20.0, 20.0, 3.0, 3.0]]
    _same(ref.iou(boxes_d, boxes_g, [0, 1]), ours.iou(boxes_d, boxes_g, [0, 1]))
    _same(ref.iou(boxes_d, np.zeros((0, 4)), []), ours.iou(boxes_d, np.zeros((0, 4)), []))


def test_fr_py_objects() -> None:
    h, w = 40, 30
    polys = [[1.5, 2.0, 20.25, 3.0, 18.0, 30.5, 4.0, 25.0], [10, 10, 15, 12, 11, 20]]
    _same(ref.frPyObjects(polys, h, w), ours.frPyObjects(polys, h, w))
    boxes = np.array(
        [[1.0, 2.0, 10.5, 7.0], [0.0, 0.0, 30.0, 40.0]]
    )  # (a list fails in pycocotools)
    _same(ref.frPyObjects(boxes, h, w), ours.frPyObjects(boxes, h, w))
    raw = {"size": [h, w], "counts": [5, 10, 300, 20, 865]}
    _same(ref.frPyObjects(raw, h, w), ours.frPyObjects(raw, h, w))
    _same(ref.frPyObjects([raw, raw], h, w), ours.frPyObjects([raw, raw], h, w))


@st.composite
def _any_rles(draw: st.DrawFn) -> dict[str, Any]:
    """A compressed RLE of a mask of 1..6 x 1..6 pixels whose runs are any non-negative lengths
    summing to its size: empty runs anywhere, which pycocotools' encoder never writes but a
    results file may hold."""
    h, w = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    cuts = sorted(draw(st.lists(st.integers(0, h * w), max_size=8)))
    runs = [b - a for a, b in zip([0, *cuts], [*cuts, h * w], strict=True)]
    return ref.frPyObjects({"size": [h, w], "counts": runs}, h, w)  # type: ignore[no-any-return]


@settings(max_examples=300, deadline=None)
@given(st.lists(_any_rles(), min_size=1, max_size=6), st.lists(_any_rles(), max_size=6))
def test_boxes_areas_and_iou_of_any_runs(
    dt: list[dict[str, Any]], gt: list[dict[str, Any]]
) -> None:
    """``toBbox`` (pycocotools 2.0.11 skips empty foreground runs; without a foreground pixel
    its box is maskApi's unsigned start), ``area`` and ``iou`` (-1 for masks of another size
    whose boxes overlap; the walk that stops early where both masks go on with an empty run)
    as pycocotools', on the kernel and on the numpy path."""
    crowd = [i % 2 for i in range(len(gt))]
    for path in ("1", "0"):
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("VOCVIEWER_KERNEL", path)
            _same(ref.toBbox(dt), ours.toBbox(dt))
            _same(ref.toBbox(dt[0]), ours.toBbox(dt[0]))
            _same(ref.area(dt), ours.area(dt))
            _same(ref.iou(dt, gt, crowd), ours.iou(dt, gt, crowd))
