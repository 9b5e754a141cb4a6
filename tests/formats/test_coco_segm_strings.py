"""Compressed-RLE segm results: what ``read_coco_results`` builds equals pycocotools' ``loadRes``
(masks, areas, boxes), whether the strings are decoded in bulk or entry by entry, and a bad
entry among good ones is still named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vocviewer.core import masks as mk
from vocviewer.core.coco import CocoResults
from vocviewer.core.errors import FormatError
from vocviewer.formats.coco import read_coco
from vocviewer.formats.coco_results import read_coco_results

pm = pytest.importorskip("pycocotools.mask")


def _files(tmp: Path, n: int = 30) -> tuple[Path, list[dict[str, Any]], list[np.ndarray]]:
    rng = np.random.default_rng(5)
    sizes = [(1, 1), (7, 3), (48, 64), (33, 17)]
    images = [{"id": 10 + i, "height": h, "width": w} for i, (h, w) in enumerate(sizes)]
    gt = {"images": images, "categories": [{"id": 3, "name": "a"}, {"id": 9, "name": "b"}],
          "annotations": []}  # fmt: skip
    (tmp / "gt.json").write_text(json.dumps(gt))
    dets, masks = [], []
    for k in range(n):
        im = images[k % len(images)]
        h, w = im["height"], im["width"]
        m = np.asfortranarray((rng.random((h, w)) < [0.0, 1.0, 0.3, 0.9][k % 4]).astype(np.uint8))
        r = pm.encode(m)
        masks.append(m)
        d = {"image_id": im["id"], "category_id": [3, 9][k % 2], "score": float(rng.random()),
             "segmentation": {"size": [h, w], "counts": r["counts"].decode()}}  # fmt: skip
        if k == 5:
            d["bbox"] = [1.0, 2.0, 3.0, 4.0]
        dets.append(d)
    return tmp / "gt.json", dets, masks


@pytest.mark.parametrize("with_bbox", [False, True])
def test_strings_read_as_load_res(tmp_path: Path, with_bbox: bool) -> None:
    gt_path, dets, masks = _files(tmp_path)
    if not with_bbox:
        del dets[5]["bbox"]
    (tmp_path / "dt.json").write_text(json.dumps(dets))
    ds = read_coco(gt_path)
    rs = read_coco_results(ds, tmp_path / "dt.json", task="segm")
    co: CocoResults = rs.extras["coco"]
    assert co.masks is not None and len(co.masks) == len(dets)
    rles = [{"size": d["segmentation"]["size"], "counts": d["segmentation"]["counts"].encode()}
            for d in dets]  # fmt: skip
    assert co.area.tolist() == [float(a) for a in pm.area(rles)]
    boxes = pm.toBbox(rles).tolist()
    want = np.array([d.get("bbox") or b for d, b in zip(dets, boxes, strict=True)])
    assert np.array_equal(co.bbox, want)
    for i, m in enumerate(masks):
        assert co.masks.height[i] == m.shape[0] and co.masks.width[i] == m.shape[1]
        assert np.array_equal(mk.decode(co.masks[i], *m.shape), m.astype(bool))
    assert co.det_id.tolist() == list(range(1, len(dets) + 1))


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"counts": "0P"}, "segmentation"),  # ends inside a value
        ({"counts": "0"}, "RLE runs sum"),  # too few pixels
        ({"counts": ""}, "RLE runs sum"),
        ({"counts": [3, 5]}, "RLE runs sum"),  # uncompressed, too few pixels
        ({"size": [3]}, "size"),
    ],
)
def test_a_bad_string_among_good_ones_is_named(
    tmp_path: Path, bad: dict[str, Any], message: str
) -> None:
    gt_path, dets, _ = _files(tmp_path)
    dets[7]["segmentation"].update(bad)
    (tmp_path / "dt.json").write_text(json.dumps(dets))
    with pytest.raises(FormatError, match=message) as err:
        read_coco_results(read_coco(gt_path), tmp_path / "dt.json", task="segm")
    assert err.value.element == "[7]"
