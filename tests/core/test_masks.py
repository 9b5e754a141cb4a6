"""``core.masks`` against pycocotools' mask API: every coco-mini polygon gives the identical RLE."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.core import polygon_oracle
from tests.core.polygon_oracle import polygon_to_rle_oracle
from vocviewer.core import mask_iou
from vocviewer.core import masks as mk

MINI = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "coco-mini" / "annotations"


def test_encode_decode_roundtrip() -> None:
    rng = np.random.default_rng(0)
    m = rng.random((7, 5)) > 0.5
    c = mk.encode(m)
    assert c.sum() == m.size
    assert np.array_equal(mk.decode(c, 7, 5), m)
    assert mk.area(c) == m.sum()
    full = np.ones((3, 4), bool)
    assert mk.encode(full).tolist() == [0, 12]


def test_string_roundtrip_and_known_value() -> None:
    c = np.array([3, 5, 100, 2, 7, 1000, 1], dtype=np.int64)
    assert np.array_equal(mk.from_string(mk.to_string(c)), c)
    cm = pytest.importorskip("pycocotools.mask")
    m = np.zeros((20, 30), np.uint8, order="F")
    m[3:9, 4:20] = 1
    m[12:15, 22:29] = 1
    ref = cm.encode(m)
    assert mk.to_string(mk.encode(m)) == ref["counts"].decode()
    assert mk.to_bbox(mk.encode(m), 20, 30).tolist() == cm.toBbox(ref).tolist()


def test_merge_iou_crowd() -> None:
    a = np.zeros((10, 10), bool)
    a[0:5, 0:5] = True
    b = np.zeros((10, 10), bool)
    b[2:8, 2:8] = True
    ca, cb = mk.encode(a), mk.encode(b)
    assert np.array_equal(mk.decode(mk.merge([ca, cb], 10, 10), 10, 10), a | b)
    assert np.array_equal(mk.decode(mk.merge([ca, cb], 10, 10, intersect=True), 10, 10), a & b)
    assert mk.intersection(ca, cb) == 9
    iou = mask_iou.rle_iou([ca], [cb, cb], [False, True], [(10, 10)], [(10, 10)] * 2)
    assert iou[0, 0] == 9 / (25 + 36 - 9)
    assert iou[0, 1] == 9 / 25


@pytest.mark.skipif(not MINI.is_dir(), reason="coco-mini not available")
def test_every_coco_mini_polygon_matches_pycocotools() -> None:
    cm = pytest.importorskip("pycocotools.mask")
    data = json.loads((MINI / "instances_val2017.json").read_text())
    imgs = {i["id"]: i for i in data["images"]}
    n = 0
    for a in data["annotations"]:
        h, w = imgs[a["image_id"]]["height"], imgs[a["image_id"]]["width"]
        seg = a["segmentation"]
        if isinstance(seg, list):
            refs = cm.frPyObjects(seg, h, w)
            for poly, ref in zip(seg, refs, strict=True):
                assert mk.to_string(mk.polygon_to_rle(poly, h, w)) == ref["counts"].decode()
                n += 1
            merged = cm.merge(refs)
            ours = mk.polygons_to_rle(seg, h, w)
            assert mk.to_string(ours) == merged["counts"].decode()
            assert mk.to_bbox(ours, h, w).tolist() == cm.toBbox(merged).tolist()
        else:
            ref = cm.frPyObjects(seg, h, w)
            assert mk.to_string(np.array(seg["counts"])) == ref["counts"].decode()
            assert np.array_equal(mk.from_string(ref["counts"]), seg["counts"])
    assert n > 600


def test_polygon_edge_cases_match_pycocotools() -> None:
    cm = pytest.importorskip("pycocotools.mask")
    polys = [
        [-3.2, -1.0, 50.7, 2.2, 50.7, 2.2, 30.1, 60.9],  # negative coords, repeated vertex
        [0.0, 0.0, 639.9, 0.0, 639.9, 479.9, 0.0, 479.9],  # whole image
        [10.5, 10.5, 20.5, 10.5, 15.5, 30.5],
        [100.0, 100.0, 101.0, 100.0, 101.0, 101.0],  # tiny
    ]
    for p in polys:
        ref = cm.frPyObjects([p], 480, 640)[0]
        assert mk.to_string(mk.polygon_to_rle(p, 480, 640)) == ref["counts"].decode()
    box = cm.frPyObjects(np.array([[5.5, 6.2, 20.0, 10.4]]), 480, 640)[0]
    assert (
        mk.to_string(mk.polygons_to_rle([[5.5, 6.2, 20.0, 10.4]], 480, 640))
        == box["counts"].decode()
    )


def _random_polygons(
    rng: np.random.Generator, n: int
) -> tuple[list[list[float]], list[int], list[int]]:
    """Random polygons with their image sizes, many of them degenerate."""
    polys: list[list[float]] = []
    hs: list[int] = []
    ws: list[int] = []
    for i in range(n):
        h, w = (int(v) for v in rng.choice([1, 2, 3, 7, 20, 64, 150], 2))
        k = int(rng.integers(3, 13))
        lo, hi = -0.3 * max(h, w) - 2, 1.3 * max(h, w) + 2
        xy = rng.uniform(lo, hi, (k, 2))
        kind = i % 10
        if kind == 1:  # repeated points
            xy[1:] = xy[rng.integers(0, k, k - 1)]
        elif kind == 2:  # zero area: collinear
            xy = xy[:1] + np.outer(rng.uniform(-1, 1, k), xy[1] - xy[0])
        elif kind == 3:  # a single point (once or repeated)
            xy = xy[:1] if rng.random() < 0.5 else np.repeat(xy[:1], k, axis=0)
        elif kind == 4:  # horizontal / vertical edges: axis-aligned staircase
            xy[1::2, 0] = xy[:-1:2, 0]
            xy[2::2, 1] = xy[1:-1:2, 1]
        elif kind == 5:  # quantised coordinates (exact .5 / .1 steps, ties in rounding)
            xy = np.round(xy * rng.choice([1, 2, 10])) / rng.choice([1, 2, 10])
        elif kind == 6:  # a box's corner polygon
            x0, y0, bw, bh = rng.uniform(lo, hi), rng.uniform(lo, hi), *rng.uniform(0, hi, 2)
            xy = np.array([[x0, y0], [x0, y0 + bh], [x0 + bw, y0 + bh], [x0 + bw, y0]])
        elif kind == 7:  # tiny, inside one pixel or two
            xy = rng.uniform(0, 1, 2) * [w, h] + rng.uniform(-0.6, 0.6, (k, 2))
        polys.append(xy.reshape(-1).tolist())
        hs.append(h)
        ws.append(w)
    return polys, hs, ws


def test_polygons_to_rle_batch_equals_polygon_to_rle(monkeypatch: pytest.MonkeyPatch) -> None:
    merged: list[int] = []  # reference polygons whose crossings left empty runs to merge
    orig = polygon_oracle._merge_empty_runs

    def counting(a: mk.Counts) -> mk.Counts:
        merged.append(int(np.any(a[1:] == 0)))
        return orig(a)

    monkeypatch.setattr(polygon_oracle, "_merge_empty_runs", counting)
    rng = np.random.default_rng(12345)
    polys, hs, ws = _random_polygons(rng, 6000)
    polys += [[], [3.0], [1.0, 2.0, 3.0]]  # empty, and an odd trailing number ignored
    hs += [5, 5, 5]
    ws += [4, 4, 4]
    got = mk.polygons_to_rle_batch(polys, hs, ws)
    assert len(got) == len(polys)
    for p, h, w, c in zip(polys, hs, ws, got, strict=True):
        ref = polygon_to_rle_oracle(p, h, w)
        assert c.dtype == ref.dtype == np.int64
        assert np.array_equal(c, ref), (p, h, w)
        assert c.sum() == h * w
    assert sum(merged) > 1000  # many needed rleFrPoly's empty-run merge
    # small chunks (many passes) give the same counts; scalar h, w broadcast
    monkeypatch.setattr(mk, "_BATCH_PAIRS", 50)
    small = mk.polygons_to_rle_batch(polys, hs, ws)
    assert all(np.array_equal(a, b) for a, b in zip(small, got, strict=True))
    same = mk.polygons_to_rle_batch(polys[:50], 20, 30)
    assert all(
        np.array_equal(c, polygon_to_rle_oracle(p, 20, 30))
        for p, c in zip(polys[:50], same, strict=True)
    )
    assert mk.polygons_to_rle_batch([], [], []) == []
