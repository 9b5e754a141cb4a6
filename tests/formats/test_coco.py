"""COCO reader: annotation JSON → Dataset, results JSON → ResultSet (loadRes rules, errors)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vocviewer.core.errors import FormatError
from vocviewer.families.coco.columns import CocoAnnotations, CocoResults
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results

_HERE = Path(__file__).resolve()
MINI = next(
    (
        _HERE.parents[k] / "shared" / "data" / "coco-mini"
        for k in (3, 4)
        if (_HERE.parents[k] / "shared" / "data" / "coco-mini").is_dir()
    ),
    _HERE.parents[3] / "shared" / "data" / "coco-mini",
)
needs_mini = pytest.mark.skipif(not MINI.is_dir(), reason="coco-mini not available")

GT = {
    "images": [
        {"id": 9, "width": 40, "height": 30, "file_name": "a.jpg"},
        {"id": 4, "width": 40, "height": 30, "file_name": "b.jpg"},
    ],
    "categories": [
        {"id": 5, "name": "cat", "supercategory": "animal"},
        {"id": 2, "name": "dog", "supercategory": "animal"},
    ],
    "annotations": [
        {
            "id": 1,
            "image_id": 9,
            "category_id": 5,
            "bbox": [1, 2, 10, 5],
            "area": 40.5,
            "iscrowd": 0,
            "segmentation": [[1, 2, 11, 2, 11, 7, 1, 7]],
        },
        {
            "id": 2,
            "image_id": 4,
            "category_id": 2,
            "bbox": [0, 0, 4, 4],
            "area": 16,
            "iscrowd": 1,
            "segmentation": {"size": [30, 40], "counts": [0, 4, 26, 4, 1166]},
        },
    ],
}


def _write(tmp: Path, obj: Any, name: str) -> Path:
    p = tmp / name
    p.write_text(json.dumps(obj))
    return p


def test_read_annotations(tmp_path: Path) -> None:
    ds = read_coco(_write(tmp_path, GT, "gt.json"))
    assert ds.classes == ("dog", "cat")  # ascending category id
    assert ds.box_convention == "continuous"
    co: CocoAnnotations = ds.data(CocoAnnotations)
    assert co.category_id.tolist() == [2, 5]
    # objects sorted by image row (JSON image order)
    assert co.ann_id.tolist() == [1, 2]
    assert ds.objects.box[0].tolist() == [1, 2, 11, 7]
    assert co.bbox[0].tolist() == [1, 2, 10, 5]
    assert co.area.tolist() == [40.5, 16.0]
    assert co.iscrowd.tolist() == [False, True]
    assert co.masks is not None and co.masks.areas().tolist() == [50, 8]


def test_results_bbox_and_errors(tmp_path: Path) -> None:
    ds = read_coco(_write(tmp_path, GT, "gt.json"))
    dets = [
        {"image_id": 9, "category_id": 5, "bbox": [1, 2, 3, 4], "score": 0.5},
        {"image_id": 4, "category_id": 2, "bbox": [0, 0, 2, 2], "score": 0.25},
    ]
    rs = read_coco_results(ds, _write(tmp_path, dets, "r.json"))
    ex: CocoResults = rs.data(CocoResults)
    assert ex.kind == "bbox"
    assert ex.area.tolist() == [12.0, 4.0]
    assert ex.det_id.tolist() == [1, 2]
    assert rs.detections.box[0].tolist() == [1, 2, 4, 6]
    assert rs.detections.label.tolist() == [1, 0]
    bad = [*dets, {"image_id": 77, "category_id": 5, "bbox": [1, 2, 3, 4], "score": 0.5}]
    with pytest.raises(FormatError) as e:
        read_coco_results(ds, _write(tmp_path, bad, "bad.json"))
    assert e.value.element == "[2].image_id" and "77" in e.value.message
    rs = read_coco_results(ds, tmp_path / "bad.json", keep_going=True)
    assert len(rs.detections) == 2 and len(rs.problems) == 1
    for entry, where in (
        ({"image_id": 9, "category_id": 5, "bbox": [1, 2, 3, 4], "score": "0.5"}, "[1].score"),
        ({"image_id": 9, "category_id": 8, "bbox": [1, 2, "x", 4], "score": 1}, "[1].bbox[2]"),
        ({"image_id": 9, "category_id": 5, "score": 1}, "[1].bbox"),
        ({"image_id": 9, "category_id": 5, "bbox": [1, 2, 3, 4]}, "[1]"),
    ):
        with pytest.raises(FormatError) as e:
            read_coco_results(ds, _write(tmp_path, [dets[0], entry], "x.json"))
        assert e.value.element == where
    with pytest.raises(FormatError):
        read_coco_results(ds, _write(tmp_path, {"a": 1}, "y.json"))
    # a category the annotation file lacks: loadRes takes it, COCOeval ignores it; so do we
    other = {"image_id": 9, "category_id": 8, "bbox": [1, 2, 3, 4], "score": 1}
    rs = read_coco_results(ds, _write(tmp_path, [dets[0], other, other], "o.json"))
    assert rs.data(CocoResults).det_id.tolist() == [1] and len(rs.warnings) == 1
    assert rs.warnings[0].element == "[1].category_id" and "2 result(s)" in str(rs.warnings[0])


def test_results_segm_and_keypoints(tmp_path: Path) -> None:
    ds = read_coco(_write(tmp_path, GT, "gt.json"))
    seg = [
        {
            "image_id": 4,
            "category_id": 2,
            "score": 0.3,
            "segmentation": {"size": [30, 40], "counts": [0, 4, 26, 4, 1166]},
        }
    ]
    rs = read_coco_results(ds, _write(tmp_path, seg, "s.json"), task="segm")
    ex: CocoResults = rs.data(CocoResults)
    assert ex.kind == "segm" and ex.area.tolist() == [8.0]
    assert ex.bbox[0].tolist() == [0, 0, 2, 4]
    kp = [{"image_id": 4, "category_id": 2, "score": 0.3, "keypoints": [1, 2, 1, 5, 9, 1]}]
    ex = read_coco_results(ds, _write(tmp_path, kp, "k.json"), task="keypoints").data(CocoResults)
    assert ex.kind == "keypoints" and ex.area.tolist() == [28.0]
    assert ex.bbox[0].tolist() == [1, 2, 4, 7]
    assert ex.keypoints.shape == (1, 2, 3)


@needs_mini
def test_coco_mini_all_files() -> None:
    ann = MINI / "annotations"
    ds = read_coco(ann / "instances_val2017.json")
    assert len(ds.images) == 79 and len(ds.classes) == 80
    assert ds.images.path[0].parent == MINI / "val2017"
    assert ds.images.path[0].is_file()
    co = ds.data(CocoAnnotations)
    assert co.masks is not None and len(co.masks) == len(ds.objects)
    np.testing.assert_allclose(
        co.bbox[:, 2:], ds.objects.box[:, 2:] - ds.objects.box[:, :2], atol=1e-9
    )
    np.testing.assert_array_equal(co.bbox[:, :2], ds.objects.box[:, :2])
    kp = read_coco(ann / "person_keypoints_val2017.json").data(CocoAnnotations)
    assert kp.keypoints.shape[1:] == (17, 3) and len(kp.keypoint_names[0]) == 17
    caps = read_coco(ann / "captions_val2017.json", masks=False)
    assert len(caps.objects) == 0
    assert all(len(c) >= 5 for c in caps.data(CocoAnnotations).captions)


def test_bulk_and_per_entry_box_paths_agree(tmp_path):
    """Box results go through a bulk path; one odd entry sends the file through the per-entry
    path, which must give the same columns for the other entries."""
    import json

    import numpy as np

    from vocviewer.families.coco.reader import read_coco
    from vocviewer.families.coco.results_reader import read_coco_results

    ann = tmp_path / "gt.json"
    ann.write_text(
        json.dumps(
            {
                "images": [
                    {"id": 3, "width": 50, "height": 40},
                    {"id": 1, "width": 50, "height": 40},
                ],
                "categories": [{"id": 7, "name": "a"}, {"id": 2, "name": "b"}],
                "annotations": [
                    {
                        "id": 1,
                        "image_id": 1,
                        "category_id": 2,
                        "bbox": [1, 2, 3, 4],
                        "area": 12,
                        "iscrowd": 0,
                    }
                ],
            }
        )
    )
    good = [
        {"image_id": 1, "category_id": 2, "bbox": [1.5, 2, 3, 4.25], "score": 0.5},
        {"image_id": 3, "category_id": 7, "bbox": [0, 0, 10, 10], "score": 1},
    ]
    ds = read_coco(ann)
    (tmp_path / "a.json").write_text(json.dumps(good))
    bulk = read_coco_results(ds, tmp_path / "a.json")
    (tmp_path / "b.json").write_text(
        json.dumps([*good, {"image_id": 99, "category_id": 2, "bbox": [0, 0, 1, 1], "score": 0.1}])
    )
    slow = read_coco_results(ds, tmp_path / "b.json", keep_going=True)
    assert len(slow.problems) == 1 and slow.problems[0].element == "[2].image_id"
    for name in ("image_index", "label", "score", "box", "line"):
        np.testing.assert_array_equal(
            getattr(bulk.detections, name), getattr(slow.detections, name)
        )
    a, b = bulk.data(CocoResults), slow.data(CocoResults)
    np.testing.assert_array_equal(a.area, b.area)
    np.testing.assert_array_equal(a.bbox, b.bbox)
    assert a.keypoints.shape == b.keypoints.shape


def test_box_columns_parsed_elsewhere_give_the_same_result_set(tmp_path):
    """``box_columns`` (run in a helper process by the window) + ``read_coco_results(boxes=)``
    equals reading the file directly; odd files give ``None`` and are read (and named) as usual."""
    from vocviewer.families.coco.results_reader import box_columns

    ds = read_coco(_write(tmp_path, GT, "gt.json"))
    good = [
        {"image_id": 4, "category_id": 2, "bbox": [0, 1, 4, 4.5], "score": 0.75},
        {"image_id": 9, "category_id": 5, "bbox": [1, 2, 10, 5], "score": 0.25},
    ]
    path = _write(tmp_path, good, "good.json")
    cols = box_columns(path)
    assert cols is not None and cols.image_id.tolist() == [4, 9] and cols.xywh.shape == (2, 4)
    direct, given = read_coco_results(ds, path), read_coco_results(ds, path, boxes=cols)
    for name in ("image_index", "label", "score", "box", "line"):
        np.testing.assert_array_equal(
            getattr(direct.detections, name), getattr(given.detections, name)
        )
    np.testing.assert_array_equal(direct.data(CocoResults).area, given.data(CocoResults).area)
    # an unknown image id: the columns parse, but the file is re-read so that entry is named
    odd = _write(tmp_path, [*good, {**good[0], "image_id": 77}], "odd.json")
    odd_cols = box_columns(odd)
    assert odd_cols is not None
    with pytest.raises(FormatError, match=r"odd\.json.*\[2\]"):
        read_coco_results(ds, odd, boxes=odd_cols)
    segm = _write(
        tmp_path,
        [
            {
                "image_id": 9,
                "category_id": 5,
                "score": 1.0,
                "segmentation": GT["annotations"][1]["segmentation"],
            }
        ],
        "s.json",
    )
    broken = tmp_path / "broken.json"
    broken.write_text('[{"image_id": 9,')
    assert box_columns(segm) is None and box_columns(broken) is None
    assert box_columns(_write(tmp_path, [{**good[0], "score": True}], "bool.json")) is None
