"""Compressed-RLE segm results: what ``read_coco_results`` builds equals pycocotools' ``loadRes``
(masks, areas, boxes), whether the strings are decoded in bulk or entry by entry; a bad entry
among good ones is named by its JSON path, and an oddity the official code accepts is kept with a
warning (the bulk path hands such files to the per-entry path)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vocviewer.core import masks as mk
from vocviewer.core.errors import FormatError
from vocviewer.families.coco import results_bulk as bulk
from vocviewer.families.coco import results_entries
from vocviewer.families.coco.columns import CocoAnnotations, CocoResults
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results

pm = pytest.importorskip("pycocotools.mask")


def _files(tmp: Path, n: int = 30) -> tuple[Path, list[dict[str, Any]], list[np.ndarray]]:
    rng = np.random.default_rng(5)
    sizes = [(1, 1), (7, 3), (48, 64), (33, 17)]
    images = [{"id": 10 + i, "height": h, "width": w} for i, (h, w) in enumerate(sizes)]
    gt = {
        "images": images,
        "categories": [{"id": 3, "name": "a"}, {"id": 9, "name": "b"}],
        "annotations": [],
    }
    (tmp / "gt.json").write_text(json.dumps(gt))
    dets, masks = [], []
    for k in range(n):
        im = images[k % len(images)]
        h, w = im["height"], im["width"]
        m = np.asfortranarray((rng.random((h, w)) < [0.0, 1.0, 0.3, 0.9][k % 4]).astype(np.uint8))
        r = pm.encode(m)
        masks.append(m)
        d = {
            "image_id": im["id"],
            "category_id": [3, 9][k % 2],
            "score": float(rng.random()),
            "segmentation": {"size": [h, w], "counts": r["counts"].decode()},
        }
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
    co: CocoResults = rs.data(CocoResults)
    assert co.masks is not None and len(co.masks) == len(dets)
    rles = [
        {"size": d["segmentation"]["size"], "counts": d["segmentation"]["counts"].encode()}
        for d in dets
    ]
    assert co.area.tolist() == [float(a) for a in pm.area(rles)]
    boxes = pm.toBbox(rles).tolist()
    want = np.array([d.get("bbox") or b for d, b in zip(dets, boxes, strict=True)])
    assert np.array_equal(co.bbox, want)
    for i, m in enumerate(masks):
        assert co.masks.height[i] == m.shape[0] and co.masks.width[i] == m.shape[1]
        assert np.array_equal(mk.decode(co.masks[i], *m.shape), m.astype(bool))
    assert co.det_id.tolist() == list(range(1, len(dets) + 1))


@pytest.mark.parametrize(
    ("bad", "element", "message"),
    [
        ({"counts": "0P"}, "counts", "not a compressed RLE string"),  # ends inside a value
        ({"counts": "0" * 12 + "P" * 12 + "0"}, "counts", "runs sum to 0, not"),  # 65 bits
        ({"counts": "0é"}, "counts", "not a compressed RLE string"),  # not ASCII
        ({"counts": "0"}, "counts", "runs sum to 0, not 33 x 17 = 561 pixels"),  # too few
        ({"counts": ""}, "counts", "runs sum to 0, not 33 x 17 = 561 pixels"),
        ({"counts": [3, 5]}, "counts", "runs sum to 8, not 33 x 17 = 561 pixels"),
        ({"counts": 7}, "counts", "expected a list of runs or a compressed string, got 7"),
        ({"size": [3]}, "size", "expected [height, width] (two positive integers), got [3]"),
        ({"size": [33.0, 17]}, "size", "(two positive integers), got [33.0, 17]"),
        ({"size": [100_000, 100_000]}, "size", "is over the 178,956,970-pixel limit"),
        ({"size": [0, 17]}, "size", "image size 17 x 0: expected positive integers"),
    ],
)
def test_a_bad_string_among_good_ones_is_named(
    tmp_path: Path, bad: dict[str, Any], element: str, message: str
) -> None:
    """Entry 7 of 30 is bad: the file goes to the per-entry path, which names its JSON path."""
    gt_path, dets, _ = _files(tmp_path)
    dets[7]["segmentation"].update(bad)
    (tmp_path / "dt.json").write_text(json.dumps(dets))
    with pytest.raises(FormatError) as err:
        read_coco_results(read_coco(gt_path), tmp_path / "dt.json", task="segm")
    assert err.value.element == f"[7].segmentation.{element}"
    assert message in err.value.message
    assert err.value.path == tmp_path / "dt.json"


@pytest.mark.parametrize(
    ("field", "value", "element", "message"),
    [
        ("score", "0.5", "[7].score", 'expected a number, got "0.5"'),
        ("score", True, "[7].score", "expected a number, got true"),
        ("score", None, "[7].score", "expected a number, got null"),
        ("image_id", 99, "[7].image_id", "image_id 99 is not an image of the annotation file"),
        ("image_id", "13", "[7].image_id", 'expected an integer image_id, got "13"'),
        ("bbox", [1, 2, 3], "[7].bbox", "expected 4 numbers, got 3"),
        ("bbox", [1, 2, "3", 4], "[7].bbox[2]", 'expected a number, got "3"'),
        ("segmentation", "abc", "[7].segmentation", "expected polygons or an RLE {size, counts}"),
    ],
)
def test_a_bad_field_among_good_ones_is_named(
    tmp_path: Path, field: str, value: Any, element: str, message: str
) -> None:
    gt_path, dets, _ = _files(tmp_path)
    dets[7][field] = value
    (tmp_path / "dt.json").write_text(json.dumps(dets))
    with pytest.raises(FormatError) as err:
        read_coco_results(read_coco(gt_path), tmp_path / "dt.json", task="segm")
    assert (err.value.element, err.value.message) == (element, message)


@pytest.mark.parametrize(
    ("edit", "element", "message"),
    [
        (lambda d: d.update(score=float("nan")), "[7].score", "with a NaN or infinite value"),
        (lambda d: d.update(bbox=[1, 2, float("inf"), 4]), "[7].bbox", "NaN or infinite"),
        (lambda d: d["segmentation"].update(size=[17, 33]), "[7].segmentation.size", "differs"),
    ],
)
def test_kept_oddities_give_one_warning(
    tmp_path: Path, edit: Any, element: str, message: str
) -> None:
    """Rows the official code accepts are kept, with one warning (from the per-entry path)."""
    gt_path, dets, _ = _files(tmp_path)
    edit(dets[7])
    (tmp_path / "dt.json").write_text(json.dumps(dets))
    rs = read_coco_results(read_coco(gt_path), tmp_path / "dt.json", task="segm")
    co: CocoResults = rs.data(CocoResults)
    assert len(co.det_id) == len(dets) and len(co.warnings) == 1
    assert co.warnings[0].element == element and message in co.warnings[0].message


def test_the_bulk_path_reads_the_plain_file(tmp_path: Path) -> None:
    """The plain file is taken by the bulk path (not only handed on), and what it builds equals
    the per-entry path's, masks included — with a ``bbox`` on every entry too (``loadRes``' bbox
    branch: area ``w * h``)."""
    gt_path, dets, _ = _files(tmp_path)
    ds = read_coco(gt_path)
    for boxed in (False, True):
        if boxed:
            for k, d in enumerate(dets):
                d["bbox"] = [k, 1.5, 2.0, k + 0.25]
        path = tmp_path / f"dt{boxed}.json"
        path.write_text(json.dumps(dets))
        anns = json.loads(path.read_text())
        cols = bulk.segm_columns(anns, False, *_image_columns(ds), box_kind=boxed)
        assert cols is not None
        fast = read_coco_results(ds, path, task="segm")
        slow = results_entries.read_entries(
            path, anns, "bbox" if boxed else "segm", "segm", False, ds
        )
        a, b = fast.data(CocoResults), slow.data(CocoResults)
        for name in ("det_id", "image_id", "category_id", "bbox", "area"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), name
        assert np.array_equal(a.bbox, cols.xywh)
        for name in ("counts", "offsets", "height", "width"):
            assert np.array_equal(getattr(a.masks, name), getattr(b.masks, name)), name
        if boxed:
            assert a.area.tolist() == [d["bbox"][2] * d["bbox"][3] for d in dets]


def _image_columns(ds: Any) -> tuple[np.ndarray, ...]:
    gt = ds.data(CocoAnnotations)
    return (
        gt.image_id,
        gt.category_id,
        ds.images.height.astype(np.int64),
        ds.images.width.astype(np.int64),
    )
