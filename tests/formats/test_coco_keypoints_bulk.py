"""Keypoint results read in bulk: a clean file is taken by the bulk path and gives what the
per-entry path and pycocotools' ``loadRes`` give (keypoints' extent as bbox and area, or a given
bbox kept with area ``w * h``); a file with an odd entry is left to the per-entry path, which
names it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vocviewer.core.errors import FormatError
from vocviewer.families.coco import results_bulk as bulk
from vocviewer.families.coco import results_entries
from vocviewer.families.coco import results_reader as cr
from vocviewer.families.coco.columns import CocoAnnotations, CocoResults
from vocviewer.families.coco.reader import read_coco
from vocviewer.formats.json_input import parse_json

coco_api = pytest.importorskip("pycocotools.coco")


def _files(tmp: Path, boxed: bool, n: int = 40) -> tuple[Path, Path]:
    rng = np.random.default_rng(3)
    images = [{"id": 5 + i, "height": 60, "width": 80, "file_name": f"{i}.jpg"} for i in range(4)]
    cats = [{"id": 1, "name": "person", "keypoints": ["a", "b", "c"], "skeleton": []}]
    gt = {"images": images, "categories": cats, "annotations": []}
    (tmp / "gt.json").write_text(json.dumps(gt))
    dets = []
    for k in range(n):
        kp = np.column_stack((rng.uniform(0, 80, 3), rng.uniform(0, 60, 3), rng.integers(0, 3, 3)))
        d: dict[str, Any] = {"image_id": 5 + k % 4, "category_id": 1, "score": float(rng.random())}
        d["keypoints"] = [int(v) if j % 3 == 2 else float(v) for j, v in enumerate(kp.ravel())]
        if boxed:
            d["bbox"] = [float(v) for v in rng.uniform(1, 30, 4)]
        dets.append(d)
    if not boxed:
        dets[0]["bbox"] = []  # an empty bbox: still loadRes' keypoints branch
    (tmp / "r.json").write_text(json.dumps(dets))
    return tmp / "gt.json", tmp / "r.json"


@pytest.mark.parametrize("boxed", [False, True], ids=["extent", "with-bbox"])
def test_a_clean_keypoint_file_is_read_in_bulk_as_load_res_reads_it(
    tmp_path: Path, boxed: bool
) -> None:
    gt_path, path = _files(tmp_path, boxed)
    ds = read_coco(gt_path, masks=False)
    gt = ds.data(CocoAnnotations)
    anns = parse_json(path, path.read_bytes())
    cols = bulk.keypoint_columns(anns, False, gt.image_id, gt.category_id, box_kind=boxed)
    assert cols is not None  # the bulk path takes it
    fast = cr.read_coco_results(ds, path, task="keypoints")
    kind = "bbox" if boxed else "keypoints"
    slow = results_entries.read_entries(path, anns, kind, "keypoints", False, ds)
    a, b = fast.data(CocoResults), slow.data(CocoResults)
    assert a.kind == b.kind == kind and not fast.warnings and not fast.problems
    for name in ("det_id", "image_id", "category_id", "bbox", "area", "keypoints"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    np.testing.assert_array_equal(a.keypoints, cols.keypoints)
    np.testing.assert_array_equal(fast.detections.box, slow.detections.box)
    np.testing.assert_array_equal(fast.detections.score, slow.detections.score)
    coco = coco_api.COCO(str(gt_path))
    res = coco.loadRes(str(path))
    official = [res.anns[i] for i in sorted(res.anns)]
    np.testing.assert_array_equal(a.bbox, [o["bbox"] for o in official])
    np.testing.assert_array_equal(a.area, [o["area"] for o in official])
    np.testing.assert_array_equal(a.det_id, [o["id"] for o in official])
    flat = a.keypoints.reshape(len(official), -1)
    np.testing.assert_array_equal(flat, [o["keypoints"] for o in official])


@pytest.mark.parametrize(
    ("change", "element", "words"),
    [
        (lambda d: d["keypoints"].__setitem__(2, True), "[3].keypoints[2]", "got true"),
        (lambda d: d["keypoints"].__setitem__(1, "2"), "[3].keypoints[1]", 'got "2"'),
        (lambda d: d["keypoints"].__setitem__(5, 10**400), "[3].keypoints[5]", "got 1000"),
        (lambda d: d.update(keypoints=[1, 2, 1, 3]), "[3].keypoints", "multiple of 3"),
        (lambda d: d.update(keypoints=[]), "[3].keypoints", "got []"),
        (lambda d: d.pop("keypoints"), "[3]", "missing 'keypoints'"),
        (lambda d: d.update(score=[0.5]), "[3].score", "expected a number"),
    ],
    ids=["bool", "string", "huge", "length", "empty", "missing", "score-list"],
)
def test_an_odd_keypoint_entry_is_named_by_its_path(
    tmp_path: Path, change: Any, element: str, words: str
) -> None:
    gt_path, path = _files(tmp_path, False)
    ds = read_coco(gt_path, masks=False)
    dets = json.loads(path.read_text())
    change(dets[3])
    path.write_text(json.dumps(dets))
    with pytest.raises(FormatError) as e:
        cr.read_coco_results(ds, path, task="keypoints")
    assert e.value.element == element and words in e.value.message, str(e.value)
    kept = cr.read_coco_results(ds, path, task="keypoints", keep_going=True)
    assert len(kept.detections.score) == len(dets) - 1 and len(kept.problems) == 1


def test_a_nan_keypoint_is_kept_with_one_warning(tmp_path: Path) -> None:
    gt_path, path = _files(tmp_path, False)
    ds = read_coco(gt_path, masks=False)
    dets = json.loads(path.read_text())
    dets[1]["keypoints"][3] = float("nan")
    dets[2]["keypoints"][4] = float("inf")
    path.write_text(json.dumps(dets))
    rs = cr.read_coco_results(ds, path, task="keypoints")
    assert len(rs.detections.score) == len(dets) and len(rs.warnings) == 1
    ex = rs.data(CocoResults)  # a NaN x: NaN x0 and width, as np.min gives it in loadRes
    assert rs.warnings[0].message.startswith("2 ") and np.isnan(ex.bbox[1, [0, 2]]).all()
    assert rs.warnings[0].element == "[1].keypoints" and not rs.problems
