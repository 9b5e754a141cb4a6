"""The compiled RLE kernel (``vocviewer.kernel._rle``) against the numpy path and pycocotools.

Each function of ``core.masks`` / ``core.rle_columns`` (and the segm IoU of
``families.coco.similarity``) runs on the kernel where it is built and on numpy with
``VOCVIEWER_KERNEL=0``: both must give identical arrays, and those of pycocotools' ``mask`` where
pycocotools defines the result. Inputs the kernel declines (non-finite or huge polygon
coordinates, negative runs, bad strings) must still give the numpy path's result or error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.core.test_masks import _random_polygons
from tests.kernel.switch import numpy_path
from vocviewer import kernel
from vocviewer.core import mask_iou
from vocviewer.core import masks as mk
from vocviewer.core import rle_columns as rc
from vocviewer.families.coco import similarity
from vocviewer.families.coco.columns import RleTable

pm = pytest.importorskip("pycocotools.mask")
pytestmark = pytest.mark.skipif(
    kernel.load("_rle") is None, reason="the RLE kernel is not built on this machine"
)


def _outcome(fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
    """``fn``'s result, or its error as ``(type, message)``."""
    try:
        return fn(*args, **kw)
    except (ValueError, TypeError, IndexError) as e:
        return type(e), str(e)


def _both(fn: Callable[..., Any], *args: Any, **kw: Any) -> tuple[Any, Any]:
    """``fn`` on the kernel, then on the numpy path (an error as ``(type, message)``)."""
    assert kernel.enabled()
    on = _outcome(fn, *args, **kw)
    with numpy_path():
        off = _outcome(fn, *args, **kw)
    return on, off


def _same(a: Any, b: Any) -> None:
    """Identical results: arrays with equal dtype, shape and values (NaN-free); lists itemwise."""
    if isinstance(a, tuple) and a and isinstance(a[0], type):  # an error
        assert a == b
        return
    if isinstance(a, list | tuple):
        assert isinstance(b, list | tuple) and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
        return
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray)
        assert a.dtype == b.dtype and a.shape == b.shape
        assert np.array_equal(a, b)
        return
    assert a == b


def _random_masks(rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """Binary masks of assorted sizes (h or w = 0 too) and densities, blobs and noise."""
    out = []
    for i in range(n):
        h, w = (int(v) for v in rng.choice([0, 1, 2, 5, 17, 40], 2))
        kind = i % 4
        if kind == 0:
            m = rng.random((h, w)) < rng.random()
        elif kind == 1:
            m = np.zeros((h, w), bool)
            if h and w:
                y0, x0 = rng.integers(0, h), rng.integers(0, w)
                m[y0 : y0 + int(rng.integers(1, h + 1)), x0 : x0 + int(rng.integers(1, w + 1))] = (
                    True
                )
        elif kind == 2:
            m = np.ones((h, w), bool)
        else:
            m = np.zeros((h, w), bool)
        out.append(m)
    return out


def _pycoco_rle(m: np.ndarray) -> dict[str, Any]:
    return pm.encode(np.asfortranarray(m.astype(np.uint8)[:, :, None]))[0]  # type: ignore[no-any-return]


def test_encode_decode_strings_match_numpy_and_pycocotools() -> None:
    rng = np.random.default_rng(1)
    for m in _random_masks(rng, 200):
        h, w = m.shape
        c, c0 = _both(mk.encode, m)
        _same(c, c0)
        ref = _pycoco_rle(m)
        s, s0 = _both(mk.to_string, c)
        assert s == s0 == ref["counts"].decode()
        _same(*_both(mk.from_string, s))
        _same(mk.from_string(s), c)
        d, d0 = _both(mk.decode, c, h, w)
        _same(d, d0)
        assert np.array_equal(d, m)
    # a strided (transposed) mask and a non-bool one
    m = rng.random((9, 13)) < 0.4
    _same(*_both(mk.encode, m.T))
    _same(*_both(mk.encode, (m * 7).astype(np.int32)))


def test_decode_pads_and_cuts_like_numpy() -> None:
    for counts in ([3, 2], [0, 30], [2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2], [], [5, 0, 0, 3]):
        _same(*_both(mk.decode, np.array(counts, np.int64), 4, 5))
    on, off = _both(mk.decode, np.array([3, -1, 20]), 4, 5)  # a negative run: numpy's error
    assert on == off and on[0] is ValueError


def _columns(masks: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    parts = [mk.encode(m) for m in masks]
    offsets = np.cumsum([0] + [len(p) for p in parts], dtype=np.int64)
    h = np.array([m.shape[0] for m in masks], dtype=np.int64)
    return np.concatenate(parts), offsets, h


def test_columns_strings_areas_bboxes() -> None:
    rng = np.random.default_rng(2)
    masks = _random_masks(rng, 300)
    counts, offsets, h = _columns(masks)
    strings, strings0 = _both(rc.to_strings, counts, offsets)
    assert strings == strings0
    refs = [_pycoco_rle(m) for m in masks]
    assert strings == [r["counts"].decode() for r in refs]
    for src in (strings, [s.encode() for s in strings]):
        back, back0 = _both(rc.from_strings, src)
        _same(back, back0)
        _same(back, (counts, offsets))
    areas, areas0 = _both(rc.areas, counts, offsets)
    _same(areas, areas0)
    assert areas.tolist() == [int(pm.area(r)) for r in refs]
    w = np.array([m.shape[1] for m in masks], dtype=np.int64)
    boxes, boxes0 = _both(rc.bboxes, counts, offsets, h, w)
    _same(boxes, boxes0)
    assert np.array_equal(
        boxes.reshape(-1, 4), np.array([pm.toBbox(r) for r in refs]).reshape(-1, 4)
    )


def test_take_from_two_tables() -> None:
    """``take`` with a second table (its masks rows N, N + 1, ...): the masks of the two tables
    joined, then taken, on both paths; a row past both is an IndexError on the kernel."""
    rng = np.random.default_rng(5)
    a, a_off, _ = _columns(_random_masks(rng, 40))
    b, b_off, _ = _columns(_random_masks(rng, 25))
    rows = rng.integers(0, 65, 200)
    got, got0 = _both(rc.take, a, a_off, rows, (b, b_off))
    _same(got, got0)
    joined = np.concatenate((a, b)), np.concatenate((a_off, b_off[1:] + a_off[-1]))
    _same(got, rc.take(*joined, rows))
    want = [joined[0][joined[1][r] : joined[1][r + 1]] for r in rows]
    assert all(np.array_equal(got[0][got[1][i] : got[1][i + 1]], w) for i, w in enumerate(want))
    with pytest.raises(IndexError):
        rc.take(a, a_off, np.array([65]), (b, b_off))


def test_bboxes_and_areas_of_odd_rles() -> None:
    """Odd-length, empty, zero-run and wrapping RLEs (rleToBbox's quirks), column by column."""
    cases = [[], [7], [0, 5], [3, 0, 0, 4], [2, 9, 1], [0, 0, 3, 4, 0], [5, 1, 5, 1, 8], [1, 25]]
    parts = [np.array(c, np.int64) for c in cases]
    offsets = np.cumsum([0] + [len(p) for p in parts], dtype=np.int64)
    counts = np.concatenate(parts)
    for hh in (1, 4, 5, 0):
        h = np.full(len(cases), hh, np.int64)
        _same(*_both(rc.bboxes, counts, offsets, h, np.full(len(cases), 6)))
    _same(*_both(rc.areas, counts, offsets))
    rles = [{"size": [5, 6], "counts": rc.to_strings(p, np.array([0, len(p)]))[0]} for p in parts]
    kept = [i for i, c in enumerate(cases) if sum(c) == 30]
    assert np.array_equal(
        rc.bboxes(counts, offsets, np.full(len(cases), 5), np.full(len(cases), 6))[kept],
        pm.toBbox([rles[i] for i in kept]),
    )


@pytest.mark.parametrize(
    "bad",
    [["12"], ["0" * 3 + "Q"], ["0", "P" * 13 + "0"], ["é0"], [b"0\xff"], [bytearray(b"01")]],
)
def test_from_strings_odd_input_takes_the_numpy_path(bad: list[Any]) -> None:
    """Truncated strings, values over 60 bits, non-ASCII text, bytes: same result or error."""
    _same(*_both(rc.from_strings, bad))


def test_merge_union_and_intersection() -> None:
    rng = np.random.default_rng(3)
    for _ in range(150):
        h, w = (int(v) for v in rng.integers(0, 25, 2))
        masks = [rng.random((h, w)) < rng.random() for _ in range(int(rng.integers(0, 5)))]
        parts = [mk.encode(m) for m in masks]
        for intersect in (False, True):
            out, out0 = _both(mk.merge, parts, h, w, intersect=intersect)
            _same(out, out0)
            if len(parts) > 1 and h and w:
                ref = pm.merge([_pycoco_rle(m) for m in masks], intersect=int(intersect))
                assert mk.to_string(out) == ref["counts"].decode()
    # non-canonical inputs (empty runs, short or long sums): the numpy path's answer
    odd = [np.array(c, np.int64) for c in ([2, 0, 0, 3, 1], [0, 4, 0, 4], [1, 2], [3, 30])]
    for intersect in (False, True):
        _same(*_both(mk.merge, odd, 4, 5, intersect=intersect))
    on, off = _both(mk.merge, [np.array([2, -1, 21]), np.array([20])], 4, 5, intersect=True)
    assert on == off and on[0] is ValueError


def _rles(polys: list[list[float]], h: int, w: int) -> list[str]:
    return [r["counts"].decode() for r in pm.frPyObjects(polys, h, w)]


def test_polygons_match_numpy_and_pycocotools() -> None:
    rng = np.random.default_rng(4)
    polys, hs, ws = _random_polygons(rng, 600)
    out, out0 = _both(mk.polygons_to_rle_batch, polys, hs, ws)
    _same(out, out0)
    for p, h, w, c in zip(polys, hs, ws, out, strict=True):
        if len(p) >= 6:  # frPyObjects reads a list of polygons only if the first has > 4
            assert _rles([p], h, w) == [mk.to_string(c)]


def test_polygon_edge_cases() -> None:
    """Odd point counts, outside the image, collinear, tiny or beyond-int64 coordinates (the
    kernel declines those: numpy path), h or w = 0."""
    cases: list[tuple[list[float], int, int]] = [
        ([1.0, 1, 3, 1, 3, 3, 1], 5, 5),  # odd count: the last number ignored
        ([-10.0, -10, -5, -10, -5, -5], 20, 20),  # wholly outside (before)
        ([30.0, 30, 40, 30, 40, 40], 20, 20),  # wholly outside (after)
        ([-5.0, -5, 25, -5, 25, 25, -5, 25], 20, 20),  # covering the image
        ([0.0, 0, 5, 5, 10, 10], 20, 20),  # collinear
        ([3.1, 3.1, 3.15, 3.1, 3.12, 3.14], 20, 20),  # tiny
        ([2.5, 2.5, 7.5, 2.5, 7.5, 7.5, 2.5, 7.5], 10, 10),  # half-pixel ties
        ([1e5, 1, 3, 1e5, 3, 3], 50, 50),  # far outside
        ([1e20, 1, 3, 1e20, 3, 3], 50, 50),  # beyond int64: declined
        ([1.0, 1, 3, 1, 3, 3, 1, 3], 0, 5),  # h = 0
        ([1.0, 1, 3, 1, 3, 3, 1, 3], 5, 0),  # w = 0 (pycocotools' unsigned w - 1 differs)
        ([], 5, 5),  # no points
        ([2.0, 2], 5, 5),  # one point
    ]
    with np.errstate(invalid="ignore"):  # the numpy path's cast of 5e20 to int64
        for p, h, w in cases:
            out, out0 = _both(mk.polygons_to_rle_batch, [p], h, w)
            _same(out, out0)
            if len(p) >= 6 and max(map(abs, p)) < 1e8 and w > 0:
                assert _rles([p], h, w) == [mk.to_string(out[0])], (p, h, w)
        # all of them in one batch: the declined ones filled in from the numpy path
        ps, hs, ws = (list(v) for v in zip(*cases, strict=True))
        _same(*_both(mk.polygons_to_rle_batch, ps, hs, ws))


def test_polygon_far_and_non_finite_coordinates() -> None:
    """Coordinates far outside the image cost the kernel only the image's columns (the numpy
    path walks every column crossed: too slow to compare with); non-finite ones are declined."""
    p = [1e6, 1.0, 3.0, 1e6, 3.0, 3.0]  # (pycocotools walks 5e6 points: keep it small)
    assert _rles([p], 50, 50) == [mk.to_string(mk.polygons_to_rle_batch([p], 50, 50)[0])]
    far = mk.polygons_to_rle_batch([[1e14, 1.0, 3.0, 1e14, 3.0, 3.0]], 50, 50)[0]
    assert far.sum() == 2500 and (far >= 0).all()
    k = kernel.load("_rle")
    assert k is not None
    xy = np.array([np.nan, 1, 3, 4, 3, 3, np.inf, 1, 3, 4, 3, 3, 1, 1, 3, 1, 3, 3], np.float64)
    counts, offsets, declined = k.polygons(xy, np.array([3, 3, 3]), np.full(3, 9), np.full(3, 9))
    assert declined.tolist() == [0, 1]
    assert counts[offsets[2] : offsets[3]].tolist() == mk.polygon_to_rle(xy[12:], 9, 9).tolist()


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.floats(min_value=-8, max_value=40, allow_nan=False, allow_subnormal=False),
        min_size=6,
        max_size=24,
    ),
    st.integers(1, 30),
    st.integers(1, 30),
)
def test_polygon_property(p: list[float], h: int, w: int) -> None:
    out, out0 = _both(mk.polygons_to_rle_batch, [p], h, w)
    _same(out, out0)
    assert _rles([p], h, w) == [mk.to_string(out[0])]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 2**40), min_size=0, max_size=30))
def test_string_round_trip_property(counts: list[int]) -> None:
    c = np.array(counts, np.int64)
    s, s0 = _both(mk.to_string, c)
    assert s == s0
    _same(mk.from_string(s), c)
    _same(*_both(rc.from_strings, [s, s[: len(s) // 2], ""] if s else [s]))


def _table(masks: list[np.ndarray]) -> RleTable:
    parts = [mk.encode(m) for m in masks]
    hh = np.array([m.shape[0] for m in masks], np.int64)
    ww = np.array([m.shape[1] for m in masks], np.int64)
    return RleTable.from_list(parts, hh, ww)


def test_rle_iou_with_crowd_matches_pycocotools() -> None:
    """Crowd, empty masks, and masks of another size than the detection's (-1 where their
    boxes overlap, as ``rleIou``)."""
    rng = np.random.default_rng(5)
    seen = set()
    for _ in range(40):
        h, w = (int(v) for v in rng.integers(1, 30, 2))
        det = [rng.random((h, w)) < rng.random() * 0.3 for _ in range(int(rng.integers(0, 6)))]
        gt = [rng.random((h, w)) < rng.random() * 0.3 for _ in range(int(rng.integers(0, 6)))]
        det += [np.zeros((h, w), bool)]  # an empty mask
        gt += [rng.random((h + 1, w)) < 0.5, rng.random((h, w + 2)) < 0.5]
        crowd = rng.random(len(gt)) < 0.4
        dc, gc = [mk.encode(m) for m in det], [mk.encode(m) for m in gt]
        sizes = [m.shape for m in det], [m.shape for m in gt]
        out, out0 = _both(mask_iou.rle_iou, dc, gc, crowd, *sizes)
        _same(out, out0)
        seen |= {float(v) for v in np.unique(np.sign(out))}
        if gt:
            ref = pm.iou([_pycoco_rle(m) for m in det], [_pycoco_rle(m) for m in gt], crowd)
            assert np.array_equal(out, ref)
    assert seen == {-1.0, 0.0, 1.0}


def test_mask_iou_pairs_threads_sizes_and_declines() -> None:
    """Many pairs (split across threads), masks of another size (-1), crowd, empty masks; a
    negative run makes the kernel decline and the numpy path answer."""
    rng = np.random.default_rng(6)
    masks = []
    for i in range(160):
        h, w = (24, 32) if i % 7 else (32, 24)
        m = np.zeros((h, w), bool)
        y, x = rng.integers(0, h - 4), rng.integers(0, w - 4)
        m[y : y + int(rng.integers(1, 14)), x : x + int(rng.integers(1, 14))] = True
        m &= rng.random((h, w)) < 0.9
        masks.append(m if i % 23 else np.zeros_like(m))
    det, gt = _table(masks[:100]), _table(masks[100:])
    dr = np.repeat(np.arange(100), 60).astype(np.int64)
    gr = np.tile(np.arange(60), 100).astype(np.int64)
    crowd = (gr % 5 == 0).astype(bool)
    d_box, g_box = det.bboxes(), gt.bboxes()
    args = (det, gt, dr, gr, crowd, d_box, g_box)
    out, out0 = _both(similarity.mask_iou_pairs, *args)
    _same(out, out0)
    assert (out == -1).any() and (out > 0).any()
    ref = pm.iou(
        [{"size": [24, 32], "counts": s} for s in rc.to_strings(det.counts, det.offsets)],
        [{"size": [24, 32], "counts": s} for s in rc.to_strings(gt.counts, gt.offsets)],
        crowd[:60],
    )
    same_size = (det.height[dr] == 24) & (gt.height[gr] == 24)
    assert np.array_equal(out[same_size], ref.reshape(-1)[same_size])
    counts = det.counts.copy()
    counts[det.offsets[3] + 1] *= -1  # a negative run in mask 3
    bad = RleTable(counts, det.offsets, det.height, det.width)
    bad_args = (bad, *args[1:])
    with np.errstate(all="ignore"):
        _same(*_both(similarity.mask_iou_pairs, *bad_args))


def test_kernel_off_is_numpy() -> None:
    with numpy_path():
        assert kernel.load("_rle") is None
    assert kernel.load("_rle") is not None
