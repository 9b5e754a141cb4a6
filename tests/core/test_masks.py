"""``core.masks`` against pycocotools' mask API: every coco-mini polygon gives the identical RLE."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

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
    assert mk.to_bbox(mk.encode(m), 20).tolist() == cm.toBbox(ref).tolist()


def test_merge_iou_crowd() -> None:
    a = np.zeros((10, 10), bool)
    a[0:5, 0:5] = True
    b = np.zeros((10, 10), bool)
    b[2:8, 2:8] = True
    ca, cb = mk.encode(a), mk.encode(b)
    assert np.array_equal(mk.decode(mk.merge([ca, cb], 10, 10), 10, 10), a | b)
    assert np.array_equal(mk.decode(mk.merge([ca, cb], 10, 10, intersect=True), 10, 10), a & b)
    assert mk.intersection(ca, cb) == 9
    iou = mk.rle_iou([ca], [cb, cb], [False, True], 10)
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
            assert mk.to_bbox(ours, h).tolist() == cm.toBbox(merged).tolist()
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
