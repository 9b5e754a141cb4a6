"""``core.rle_columns`` (many RLEs at once) against pycocotools' mask API, mask by mask.

Random masks of every shape from 1 x 1 up, empty and full ones included, go through pycocotools
(``encode`` / ``frPyObjects`` / ``area`` / ``toBbox`` / ``iou``) and through the bulk functions,
which must agree exactly; small block sizes make every multi-block path run.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vocviewer.core import masks as mk
from vocviewer.core import rle_columns as rc
from vocviewer.families.coco import similarity as sim
from vocviewer.families.coco.columns import RleTable

pm = pytest.importorskip("pycocotools.mask")


@st.composite
def masks(draw: st.DrawFn, h: int | None = None, w: int | None = None) -> np.ndarray:
    """A binary ``uint8`` mask, Fortran order: empty, full, noise, rectangles, one pixel or one
    column-major run (which may wrap from one column into the next)."""
    h = h or draw(st.integers(1, 13))
    w = w or draw(st.integers(1, 13))
    kind = draw(st.sampled_from(["empty", "full", "noise", "boxes", "pixel", "run"]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    m = np.zeros((h, w), np.uint8)
    if kind == "full":
        m[:] = 1
    elif kind == "noise":
        m[:] = rng.random((h, w)) < rng.random()
    elif kind == "boxes":
        for _ in range(int(rng.integers(1, 4))):
            y0, x0 = rng.integers(0, h), rng.integers(0, w)
            m[y0 : rng.integers(y0, h) + 1, x0 : rng.integers(x0, w) + 1] = 1
    elif kind == "pixel":
        m[rng.integers(0, h), rng.integers(0, w)] = 1
    elif kind == "run":  # one column-major run, often wrapping into the next columns
        a, b = sorted(rng.integers(0, h * w + 1, 2))
        m.T.reshape(-1)[a:b] = 1
    return np.asfortranarray(m)


def _table(ms: list[np.ndarray]) -> tuple[list[dict], RleTable]:
    rles = [pm.encode(m) for m in ms]
    counts = [mk.encode(m) for m in ms]
    return rles, RleTable.from_list(counts, [m.shape[0] for m in ms], [m.shape[1] for m in ms])


@pytest.fixture(params=[1 << 20, 7], ids=["one block", "tiny blocks"])
def block(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(rc, "_BLOCK", request.param)
    monkeypatch.setattr(rc, "_CHUNK", request.param)
    return int(request.param)


@settings(max_examples=60, deadline=None)
@given(ms=st.lists(masks(), min_size=1, max_size=12))
def test_strings_areas_boxes_equal_pycocotools(ms: list[np.ndarray]) -> None:
    default = rc._BLOCK
    for size in (default, 5):
        rc._BLOCK = size
        try:
            rles, table = _table(ms)
            strings = [r["counts"].decode() for r in rles]
            counts, offsets = rc.from_strings(strings)
            assert np.array_equal(counts, table.counts)
            assert np.array_equal(offsets, table.offsets)
            assert np.array_equal(rc.from_strings([s.encode() for s in strings])[0], counts)
            assert rc.to_strings(counts, offsets) == strings
            assert rc.areas(counts, offsets).tolist() == [int(pm.area(r)) for r in rles]
            boxes = table.bboxes()
            assert np.array_equal(boxes, np.array([pm.toBbox(r) for r in rles]))
            for i, s in enumerate(strings):
                assert np.array_equal(mk.from_string(s), table[i])
        finally:
            rc._BLOCK = default


@settings(max_examples=60, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 12), st.integers(1, 12)),
    data=st.data(),
)
def test_iou_equals_pycocotools(shape: tuple[int, int], data: st.DataObject) -> None:
    h, w = shape
    dts = data.draw(st.lists(masks(h, w), min_size=1, max_size=6))
    gts = data.draw(st.lists(masks(h, w), min_size=1, max_size=6))
    crowd = data.draw(st.lists(st.booleans(), min_size=len(gts), max_size=len(gts)))
    d_rles, d_tab = _table(dts)
    g_rles, g_tab = _table(gts)
    ref = np.asarray(pm.iou(d_rles, g_rles, [int(c) for c in crowd]))
    di, gi = np.meshgrid(np.arange(len(dts)), np.arange(len(gts)), indexing="ij")
    di, gi = di.reshape(-1), gi.reshape(-1)
    d_box, g_box = d_tab.bboxes(), g_tab.bboxes()
    default = rc._CHUNK
    for size in (default, 3):
        rc._CHUNK = size
        try:
            got = sim.mask_iou_pairs(d_tab, g_tab, di, gi, np.asarray(crowd)[gi], d_box, g_box)
        finally:
            rc._CHUNK = default
        assert np.array_equal(got.reshape(len(dts), len(gts)), ref)
    inter = rc.intersections(
        rc.Intervals(d_tab.counts, d_tab.offsets), rc.Intervals(g_tab.counts, g_tab.offsets), di, gi
    )
    assert inter.tolist() == [int((dts[i] & gts[j]).sum()) for i, j in zip(di, gi, strict=True)]


def test_polygon_masks_and_a_full_sized_image(block: int) -> None:
    """frPyObjects polygons on a 480 x 640 image: strings, boxes, areas and IoU as pycocotools."""
    rng = np.random.default_rng(3)
    polys = []
    for _ in range(40):
        cx, cy, r = rng.uniform(0, 640), rng.uniform(0, 480), rng.uniform(0.5, 200)
        t = np.sort(rng.uniform(0, 2 * np.pi, 9))
        polys.append(np.column_stack((cx + r * np.cos(t), cy + r * np.sin(t))).reshape(-1))
    rles = pm.frPyObjects([p.tolist() for p in polys], 480, 640)
    counts, offsets = rc.from_strings([r["counts"] for r in rles])
    h, w = np.full(len(rles), 480), np.full(len(rles), 640)
    assert np.array_equal(rc.bboxes(counts, offsets, h, w), pm.toBbox(rles))
    assert np.array_equal(rc.areas(counts, offsets), pm.area(rles))
    table = RleTable(counts, offsets, h, w)
    ref = np.asarray(pm.iou(rles, rles, [0] * len(rles)))
    n = len(rles)
    di, gi = np.repeat(np.arange(n), n), np.tile(np.arange(n), n)
    box = table.bboxes()
    got = sim.mask_iou_pairs(table, table, di, gi, np.zeros(n * n, bool), box, box)
    assert np.array_equal(got.reshape(n, n), ref)


def test_truncated_string_is_named() -> None:
    with pytest.raises(ValueError, match=r"truncated.*string 2"):
        rc.from_strings(["0", "", "1P"])  # "P" = 32 + 48: a continuation char at the end
    with pytest.raises(TypeError):
        rc.from_strings(["01", [3, 5]])  # an uncompressed RLE is not a string
    assert rc.from_strings(["01", b"01", bytearray(b"01")])[0].tolist() == [0, 1] * 3
    counts, offsets = rc.from_strings([])
    assert len(counts) == 0 and offsets.tolist() == [0]
    counts, offsets = rc.from_strings(["", "0", ""])
    assert counts.tolist() == [0] and offsets.tolist() == [0, 0, 1, 1]


def test_different_sizes_are_minus_one_and_no_overlap_zero() -> None:
    a = np.zeros((4, 4), np.uint8, order="F")
    a[:2, :2] = 1
    b = np.zeros((4, 4), np.uint8, order="F")
    b[2:, 2:] = 1
    c = np.ones((4, 5), np.uint8, order="F")
    _, dt = _table([a])
    _, gt = _table([b, c, a])
    box_d, box_g = dt.bboxes(), gt.bboxes()
    got = sim.mask_iou_pairs(
        dt, gt, np.zeros(3, np.int64), np.arange(3), np.zeros(3, bool), box_d, box_g
    )
    assert got.tolist() == [0.0, -1.0, 1.0]
