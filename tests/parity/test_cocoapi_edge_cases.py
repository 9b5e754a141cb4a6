"""``vocviewer.cocoapi`` where pycocotools raises or prints something unusual (issue 20 item 16).

The experiments of detectron2's ``tests/data/test_coco_evaluation.py::test_fast_eval`` (which
requires a pycocotools replacement to match pycocotools exactly), on our own small data: the full
set, empty results or ground truth, ``useCats=0``, empty ``iouThrs`` / ``recThrs`` / ``maxDets``,
``maxDets=[1]``, empty ``areaRng``, and every annotation field omitted from the ground truth or
from the results; each for bbox, segm and keypoints (the ground truth has no keypoints). Each is
run live through both APIs (``COCO(file)``, ``loadRes``, ``COCOeval``, params set,
``evaluate`` / ``accumulate`` / ``summarize``): the same exception type, or the same
``precision`` / ``recall`` / ``stats``; and the same printed text (timings aside) either way.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pycocotools")
from pycocotools import coco as ref_coco
from pycocotools import cocoeval as ref_eval
from pycocotools import mask as ref_mask

from vocviewer import cocoapi


def _outline(x: float, y: float, w: float, h: float) -> list[float]:
    return [x, y + h * 0.1, x + w * 0.6, y, x + w, y + h * 0.4, x + w * 0.8, y + h, x, y + h * 0.9]


def _rle(box: list[float], h: int, w: int) -> dict[str, Any]:
    rle = ref_mask.merge(ref_mask.frPyObjects([_outline(*box)], h, w))
    return {"size": rle["size"], "counts": rle["counts"].decode()}


def _data() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Two categories, two images (one without objects), two people as polygons; three
    detections as compressed RLEs (two near the people, one small false positive)."""
    h, w = 426, 640
    gt_boxes = [[412.8, 157.61, 53.05, 138.01], [384.43, 172.21, 15.12, 35.74]]
    anns = []
    for i, b in enumerate(gt_boxes):
        area = float(ref_mask.area(ref_mask.merge(ref_mask.frPyObjects([_outline(*b)], h, w))))
        anns.append(
            {
                "segmentation": [_outline(*b)],
                "area": area,
                "iscrowd": 0,
                "image_id": 139,
                "bbox": b,
                "category_id": 1,
                "id": 230831 + i,
            }
        )
    gt = {
        "categories": [
            {"supercategory": "person", "id": 1, "name": "person"},
            {"supercategory": "furniture", "id": 65, "name": "bed"},
        ],
        "images": [
            {"file_name": "a.jpg", "height": 640, "width": 586, "id": 285},
            {"file_name": "b.jpg", "height": h, "width": w, "id": 139},
        ],
        "annotations": anns,
    }
    dets = [
        {"image_id": 139, "category_id": 1, "bbox": b, "score": s, "segmentation": _rle(b, h, w)}
        for b, s in (
            ([417.33, 159.27, 47.66, 143.0], 0.995),
            ([383.59, 172.08, 17.96, 36.95], 0.769),
            ([457.84, 158.88, 9.9, 8.77], 0.071),
        )
    ]
    return dets, gt


def _experiments() -> dict[str, tuple[list[Any], dict[str, Any], dict[str, Any]]]:
    dets, gt = _data()
    out = {"full": (dets, gt, {}), "empty_dt": ([], gt, {})}
    out["empty_gt"] = (dets, {**gt, "annotations": []}, {})
    out["no_categories"] = (dets, gt, {"useCats": 0})
    out["no_ious"] = (dets, gt, {"iouThrs": []})
    out["no_rec_thrs"] = (dets, gt, {"recThrs": []})
    out["no_max_dets"] = (dets, gt, {"maxDets": []})
    out["one_max_det"] = (dets, gt, {"maxDets": [1]})
    out["no_area"] = (dets, gt, {"areaRng": [], "areaRngLbl": []})
    fields = (
        "id",
        "image_id",
        "category_id",
        "score",
        "area",
        "iscrowd",
        "ignore",
        "bbox",
        "segmentation",
    )
    for f in fields:
        g = copy.deepcopy(gt)
        for a in g["annotations"]:
            a.pop(f, None)
        d = [{k: v for k, v in e.items() if k != f} for e in dets]
        out[f"omit_gt_{f}"] = (dets, g, {})
        out[f"omit_dt_{f}"] = (d, gt, {})
    return out


EXPERIMENTS = _experiments()


def _run(api: Any, gt_file: Path, dets: list[Any], params: dict[str, Any], iou_type: str) -> Any:
    """(exception or None, printed text with timings masked, the evaluator)."""
    ev, error = None, None
    with contextlib.redirect_stdout(io.StringIO()) as out:
        try:
            coco_cls, eval_cls = api
            gt = coco_cls(str(gt_file))
            ev = eval_cls(gt, gt.loadRes(copy.deepcopy(dets)), iou_type)
            for name, value in params.items():
                setattr(ev.params, name, value)
            ev.evaluate()
            ev.accumulate()
            ev.summarize()
        except Exception as e:  # what is raised is what is compared
            error = e
    return error, re.sub(r"t=\d+\.\d+s", "t=?s", out.getvalue()), ev


@pytest.mark.parametrize("iou_type", ["bbox", "segm", "keypoints"])
@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_same_outcome_as_pycocotools(name: str, iou_type: str, tmp_path: Path) -> None:
    dets, gt, params = EXPERIMENTS[name]
    gt_file = tmp_path / "gt.json"
    gt_file.write_text(json.dumps(gt))
    ref_error, ref_text, ref = _run(
        (ref_coco.COCO, ref_eval.COCOeval), gt_file, dets, params, iou_type
    )
    error, text, ours = _run((cocoapi.COCO, cocoapi.COCOeval), gt_file, dets, params, iou_type)
    assert type(error) is type(ref_error), f"pycocotools {ref_error!r}, ours {error!r}"
    assert text == ref_text
    if ref_error is None:
        for key in ("precision", "recall", "scores"):
            np.testing.assert_array_equal(ours.eval[key], ref.eval[key], err_msg=key)
        np.testing.assert_array_equal(np.asarray(ours.stats), np.asarray(ref.stats))


def test_the_experiments_cover_what_pycocotools_rejects(tmp_path: Path) -> None:
    """The cases issue 20 names raise in pycocotools (so the test above compares exceptions):
    keypoints on ground truth without them, ``iouThrs=[]``, omitted ``iscrowd`` / ``bbox`` /
    ``segmentation``; and ``areaRng=[]`` prints "Please run evaluate() first"."""
    gt_file = tmp_path / "gt.json"
    api = (ref_coco.COCO, ref_eval.COCOeval)
    expect = {
        ("full", "keypoints"): KeyError,
        ("no_categories", "keypoints"): KeyError,
        ("no_ious", "bbox"): IndexError,
        ("omit_gt_iscrowd", "bbox"): KeyError,
        ("omit_gt_bbox", "bbox"): KeyError,
        ("omit_gt_segmentation", "segm"): KeyError,
    }
    for (name, iou_type), kind in expect.items():
        dets, gt, params = EXPERIMENTS[name]
        gt_file.write_text(json.dumps(gt))
        assert isinstance(_run(api, gt_file, dets, params, iou_type)[0], kind), name
    dets, gt, params = EXPERIMENTS["no_area"]
    gt_file.write_text(json.dumps(gt))
    assert "Please run evaluate() first" in _run(api, gt_file, dets, params, "bbox")[1]


@pytest.mark.parametrize(
    "text",
    [
        b'{"a": 1, "a": [2.5, -0, 1e-7, 123456789012345678901234567890, "\\u00e9"]}',
        b"[NaN, Infinity, 1e400]",
        b"\xef\xbb\xbf[1]",
        b"[1,]",
        b"\xff",
    ],
)
def test_files_read_as_json_load_reads_them(tmp_path, text):
    """``COCO`` / ``loadRes`` read a file as ``json.load`` of it opened as text does: the same
    value, or the same exception."""
    import json

    from vocviewer.cocoapi.coco import load_json_file

    path = tmp_path / "x.json"
    path.write_bytes(text)
    try:
        with open(path, encoding="utf-8") as f:
            expected: object = json.load(f)
    except ValueError as e:
        expected = (type(e), str(e))
    try:
        got: object = load_json_file(path)
    except ValueError as e:
        got = (type(e), str(e))
    assert repr(got) == repr(expected)
