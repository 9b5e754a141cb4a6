"""The LVIS reader: federated columns, image names from ``coco_url``, results beside COCO's reader,
the sniff, and every refusal naming its JSON path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vocviewer.core.errors import FormatError
from vocviewer.families.coco.columns import CocoAnnotations, CocoResults
from vocviewer.families.lvis.columns import LvisAnnotations, LvisResults
from vocviewer.families.lvis.reader import (
    SNIFF_WINDOW,
    looks_like_lvis,
    read_lvis,
    read_lvis_results,
)


def doc() -> dict[str, Any]:
    """Three categories (ids 9, 2, 4 in file order), two images, four annotations."""
    return {
        "info": {"description": "LVIS v1"},
        "annotations": [
            {"id": 11, "image_id": 70, "category_id": 9, "bbox": [1, 2, 10, 20], "area": 150.0},
            {
                "id": 12,
                "image_id": 70,
                "category_id": 2,
                "bbox": [5, 5, 10, 10],
                "area": 100,
                "ignore": 1,
            },
            {
                "id": 13,
                "image_id": 31,
                "category_id": 4,
                "bbox": [0, 0, 4, 4],
                "area": 16,
                "ignore": 0,
                "iscrowd": 1,
            },
            {
                "id": 14,
                "image_id": 31,
                "category_id": 4,
                "bbox": [9, 9, 4, 4],
                "area": 16,
                "ignore": [0],
            },
        ],
        "images": [
            {
                "id": 70,
                "width": 64,
                "height": 48,
                "coco_url": "http://images.cocodataset.org/val2017/000000000070.jpg",
                "neg_category_ids": [4, 77],
                "not_exhaustive_category_ids": [2],
            },
            {
                "id": 31,
                "width": 64,
                "height": 48,
                "file_name": "own.jpg",
                "coco_url": "http://images.cocodataset.org/train2017/000000000031.jpg",
                "neg_category_ids": [],
                "not_exhaustive_category_ids": [9.0, 4],
            },
        ],
        "categories": [
            {"id": 9, "name": "zebra", "frequency": "f"},
            {"id": 2, "name": "aardvark", "frequency": "r"},
            {"id": 4, "name": "cat", "frequency": "c"},
        ],
    }


def write(tmp_path: Path, d: dict[str, Any], name: str = "lvis_v1_val.json") -> Path:
    folder = tmp_path / "annotations"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(d))
    return path


def test_federated_columns_and_names(tmp_path: Path) -> None:
    ds = read_lvis(write(tmp_path, doc()), tmp_path / "imgs")
    assert ds.classes == ("aardvark", "cat", "zebra")  # ascending category id
    assert [p.name for p in ds.images.path] == ["000000000070.jpg", "own.jpg"]
    assert all(p.parent == tmp_path / "imgs" for p in ds.images.path)
    lv = ds.data(LvisAnnotations)
    assert lv.frequency.tolist() == ["r", "c", "f"]
    # image 70: neg [cat] (77 has no category); image 31: none
    assert lv.neg_offsets.tolist() == [0, 1, 1] and lv.neg_label.tolist() == [1]
    # image 70: not exhaustive [aardvark]; image 31: [zebra, cat] (9.0 is the id 9)
    assert lv.not_exhaustive_offsets.tolist() == [0, 1, 3]
    assert lv.not_exhaustive_label.tolist() == [0, 2, 1]
    assert lv.neg_pairs().tolist() == [0 * 3 + 1]
    assert lv.not_exhaustive_pairs().tolist() == [0, 1 * 3 + 1, 1 * 3 + 2]
    ann_id = ds.data(CocoAnnotations).ann_id.tolist()
    assert dict(zip(ann_id, lv.ignore.tolist(), strict=True)) == {
        11: False,
        12: True,
        13: False,
        14: True,  # [0] is a non-empty list: true, as LVISEval's ``if g["ignore"]`` reads it
    }


def test_default_image_folder_is_cocos(tmp_path: Path) -> None:
    ds = read_lvis(write(tmp_path, doc()))
    assert ds.images.path[0] == tmp_path / "val" / "000000000070.jpg"


@pytest.mark.parametrize(
    ("edit", "element", "message"),
    [
        (
            lambda d: d["images"][1].pop("neg_category_ids"),
            "images[1]",
            "missing 'neg_category_ids'",
        ),
        (
            lambda d: d["images"][0].update(not_exhaustive_category_ids=3),
            "images[0].not_exhaustive_category_ids",
            "expected a list of category ids, got 3",
        ),
        (
            lambda d: d["images"][0].update(neg_category_ids=[4, "x"]),
            "images[0].neg_category_ids[1]",
            'expected a category id, got "x"',
        ),
        (
            lambda d: d["categories"][1].update(frequency="rare"),
            "categories[1].frequency",
            "expected the frequency group 'r', 'c' or 'f'; got \"rare\"",
        ),
        (lambda d: d["categories"][2].pop("frequency"), "categories[2].frequency", "it is missing"),
        (
            lambda d: d["annotations"][3].update(id=12),
            "annotations[3].id",
            "duplicate annotation id 12",
        ),
        (lambda d: d.pop("categories"), "categories", "missing"),
        (lambda d: d["images"].append(7), "images[2]", "expected an object, got 7"),
    ],
)
def test_bad_annotation_files(tmp_path: Path, edit: Any, element: str, message: str) -> None:
    d = doc()
    edit(d)
    path = write(tmp_path, d)
    with pytest.raises(FormatError) as err:
        read_lvis(path)
    assert err.value.path == path
    assert err.value.element == element
    assert message in err.value.message


def _results(tmp_path: Path, entries: list[dict[str, Any]]) -> Path:
    path = tmp_path / "res.json"
    path.write_text(json.dumps(entries))
    return path


def test_results_of_other_categories_are_kept_aside(tmp_path: Path) -> None:
    ds = read_lvis(write(tmp_path, doc()), masks=False)
    res = _results(
        tmp_path,
        [
            {"image_id": 70, "category_id": 9, "bbox": [1, 2, 10, 20], "score": 0.5},
            {"image_id": 31, "category_id": 5, "bbox": [1, 2, 10, 20], "score": 0.7},
            {"image_id": 70, "category_id": 2, "bbox": [1, 2, 10, 20], "score": 0.25},
            {"image_id": 70.0, "category_id": 6.0, "bbox": [1, 2, 10, 20], "score": 1},
        ],
    )
    rs = read_lvis_results(ds, res)
    assert rs.data(CocoResults).det_id.tolist() == [1, 3]
    other = rs.data(LvisResults)
    assert other.entry.tolist() == [1, 3]
    assert other.image_index.tolist() == [1, 0]
    assert other.score.tolist() == [0.7, 1.0]
    (w,) = rs.warnings
    assert w.element == "[1].category_id"
    assert "2 result(s) of a category not in the annotation file" in w.message
    assert "counted toward the image's 300 detections" in w.message


def test_results_without_other_categories(tmp_path: Path) -> None:
    ds = read_lvis(write(tmp_path, doc()), masks=False)
    res = _results(tmp_path, [{"image_id": 31, "category_id": 4, "bbox": [0, 0, 4, 4], "score": 1}])
    rs = read_lvis_results(ds, res)
    assert len(rs.detections) == 1 and len(rs.data(LvisResults).entry) == 0 and not rs.warnings


def test_keypoint_results_and_tasks_are_refused(tmp_path: Path) -> None:
    ds = read_lvis(write(tmp_path, doc()), masks=False)
    res = _results(
        tmp_path, [{"image_id": 31, "category_id": 4, "keypoints": [1, 2, 2], "score": 1}]
    )
    with pytest.raises(FormatError, match="LVIS evaluates boxes and masks") as err:
        read_lvis_results(ds, res)
    assert err.value.element == "[0]"
    with pytest.raises(FormatError, match="LVIS evaluates bbox and segm results, not keypoints"):
        read_lvis_results(ds, res, task="keypoints")
    bad = _results(tmp_path, [{"image_id": 8, "category_id": 4, "bbox": [0, 0, 4, 4], "score": 1}])
    with pytest.raises(FormatError, match="image_id 8 is not an image of the annotation file"):
        read_lvis_results(ds, bad)


def test_sniff_sees_the_keys_at_either_end(tmp_path: Path) -> None:
    d = doc()
    filler = [
        {"id": 100 + i, "image_id": 70, "category_id": 9, "bbox": [1, 2, 3, 4], "area": 12}
        for i in range(3000)
    ]
    d["annotations"] += filler
    text = json.dumps(d)  # info, annotations (over the window), images, categories
    assert text.index('"neg_category_ids"') > SNIFF_WINDOW
    tail_only = write(tmp_path, d, "tail.json")
    assert looks_like_lvis(tail_only)  # the categories' frequency, at the end
    head_first = {"images": d["images"], "annotations": d["annotations"], "categories": []}
    for c in head_first["images"]:
        c.pop("coco_url")
    assert looks_like_lvis(write(tmp_path, head_first, "head.json"))
    coco = doc()
    for im in coco["images"]:
        del im["neg_category_ids"], im["not_exhaustive_category_ids"]
    for c in coco["categories"]:
        del c["frequency"]
    coco["categories"][0]["name"] = '"frequency": "f"'  # the key's text inside a string
    coco["annotations"] += filler
    assert not looks_like_lvis(write(tmp_path, coco, "coco.json"))
    assert not looks_like_lvis(_results(tmp_path, [{"frequency": "f"}]))  # results: a list
    other = tmp_path / "lvis.txt"
    other.write_text(json.dumps(doc()))
    assert not looks_like_lvis(other)
    assert not looks_like_lvis(tmp_path)
    assert np.all(read_lvis(tail_only, masks=False).data(LvisAnnotations).frequency != "")
