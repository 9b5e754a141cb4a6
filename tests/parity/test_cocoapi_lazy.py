"""``vocviewer.cocoapi`` objects read from files keep the scanner's columns and decode their dicts
on first read (``cocoapi/compact.py``): every view equals pycocotools', edits made through the
views are evaluated as pycocotools evaluates them, and evaluations on the columns (``params``
changed between them, ``evalImgs``, integer scores) equal pycocotools'.
"""

from __future__ import annotations

import json
import pickle
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pycocotools")
from pycocotools import coco as ref_coco
from pycocotools import mask as ref_mask

from tests.parity.test_cocoapi import assert_same, run, synthetic_gt, synthetic_results
from vocviewer import cocoapi, kernel

needs_scanner = pytest.mark.skipif(
    kernel.load("_json") is None, reason="the compiled JSON scanner is not built"
)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("cocoapi_lazy")
    gt = synthetic_gt()
    res = synthetic_results(gt, "bbox")
    res[3]["category_id"] = res[10]["category_id"] = 77  # no such category: never evaluated
    out = {}
    for name, data in (("gt", gt), ("bbox", res)):
        (tmp / f"{name}.json").write_text(json.dumps(data))
        out[name] = str(tmp / f"{name}.json")
    masks = synthetic_results(gt, "segm")
    for e in masks:  # boxes too: loadRes' box branch (area = w * h), masks as given
        box = ref_mask.toBbox({**e["segmentation"], "counts": e["segmentation"]["counts"]})
        e["bbox"] = [round(float(v), 2) for v in box]
    masks[4]["category_id"] = 77
    (tmp / "segm_boxes.json").write_text(json.dumps(masks))
    out["segm_boxes"] = str(tmp / "segm_boxes.json")
    for e in masks:  # the masks as polygons (the boxes' outlines): not read by the scanner
        x, y, w, h = e["bbox"]
        e["segmentation"] = [[x, y, x + w, y, x + w, y + h, x, y + h]]
    (tmp / "poly_boxes.json").write_text(json.dumps(masks))
    out["poly_boxes"] = str(tmp / "poly_boxes.json")
    points = synthetic_results(gt, "keypoints")
    for e in points:  # boxes too (the box branch: area = w * h), keypoints as given
        xs, ys = e["keypoints"][0::3], e["keypoints"][1::3]
        e["bbox"] = [min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)]
    points[2]["category_id"] = 77
    (tmp / "kp_boxes.json").write_text(json.dumps(points))
    out["kp_boxes"] = str(tmp / "kp_boxes.json")
    for e in res[::3]:  # integer scores: json.load makes ints of them, evalImgs keeps them
        e["score"] = int(e["score"] * 10)
    (tmp / "int_scores.json").write_text(json.dumps(res))
    out["int_scores"] = str(tmp / "int_scores.json")
    return out


def same_tree(a: Any, b: Any, where: str = "") -> None:
    """Equal values of equal types, recursively (dicts in the same key order)."""
    assert type(a) is type(b), f"{where}: {type(a)} vs {type(b)}"
    if isinstance(a, dict):
        assert list(a) == list(b), f"{where}: keys"
        for k in a:
            same_tree(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, list | tuple):
        assert len(a) == len(b), f"{where}: length"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same_tree(x, y, f"{where}[{i}]")
    else:
        assert a == b, f"{where}: {a!r} vs {b!r}"


VIEWS = ("dataset", "anns", "imgs", "cats", "imgToAnns", "catToImgs")


def loaded(coco_cls: type, files: dict[str, str], res: str = "bbox") -> tuple[Any, Any]:
    gt = coco_cls(files["gt"])
    return gt, gt.loadRes(files[res])


@needs_scanner
@pytest.mark.parametrize("first", VIEWS)
def test_views_equal_pycocotools(files: dict[str, str], first: str) -> None:
    """Whichever view is read first, every view of the ground truth and of the results equals
    pycocotools' (values, types, key order) and holds the same objects where pycocotools'
    views share them."""
    ref_gt, ref_dt = loaded(ref_coco.COCO, files)
    gt, dt = loaded(cocoapi.COCO, files)
    assert gt._lazy is not None and dt._lazy is not None  # nothing decoded yet
    for ours, ref in ((gt, ref_gt), (dt, ref_dt)):
        getattr(ours, first)
        for view in VIEWS:
            same_tree(getattr(ref, view), getattr(ours, view), f"{view}")
        assert isinstance(ours.imgToAnns, defaultdict) and isinstance(ours.catToImgs, defaultdict)
        for ann in ours.dataset["annotations"]:
            assert ours.anns[ann["id"]] is ann
            assert any(a is ann for a in ours.imgToAnns[ann["image_id"]])
        for img in ours.dataset["images"]:
            assert ours.imgs[img["id"]] is img
    assert gt._lazy is None and dt._lazy is None


@needs_scanner
def test_lookups_leave_the_columns(files: dict[str, str]) -> None:
    """``getImgIds``, ``getCatIds``, ``loadImgs``, ``loadCats``, ``loadRes`` and a box
    evaluation need no annotation dict: the files stay undecoded; ``getAnnIds`` decodes."""
    with run_quietly():
        gt, dt = loaded(cocoapi.COCO, files)
        ref_gt = ref_coco.COCO(files["gt"])
        assert gt.getImgIds() == ref_gt.getImgIds() and gt.getCatIds() == ref_gt.getCatIds()
        assert gt.getCatIds(catNms=["dog"]) == ref_gt.getCatIds(catNms=["dog"])
        assert gt.loadImgs(gt.getImgIds()[:3]) == ref_gt.loadImgs(ref_gt.getImgIds()[:3])
        ev = cocoapi.COCOeval(gt, dt, "bbox")
        ev.evaluate()
        ev.accumulate()
        assert gt._lazy is not None and dt._lazy is not None
        assert len(ev.evalImgs) > 0  # float scores: built from the columns
        assert dt._lazy is not None
        assert gt.getAnnIds(imgIds=[100]) == ref_gt.getAnnIds(imgIds=[100])
        assert gt._lazy is None


def run_quietly() -> Any:
    import contextlib
    import io

    return contextlib.redirect_stdout(io.StringIO())


@pytest.mark.parametrize("crowd", [False, True])
def test_edits_through_the_views_are_evaluated(files: dict[str, str], crowd: bool) -> None:
    """Results and ground truth edited through ``anns`` / ``imgs`` before ``evaluate()`` (an
    image dropped while the annotations are still undecoded, a score and a box changed, with
    ``crowd`` a ground-truth crowd flag set): evaluated as pycocotools evaluates the edited
    dicts."""

    def sequence(coco_cls: type, eval_cls: type) -> Any:
        gt, dt = loaded(coco_cls, files)
        del gt.imgs[gt.getImgIds()[1]]
        ann = dt.anns[7]
        ann["score"], ann["bbox"] = 0.999, [1.0, 2.0, 30.0, 40.0]
        if crowd:
            next(iter(gt.anns.values()))["iscrowd"] = 1
        ev = eval_cls(gt, dt, "bbox")
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
        return ev

    assert_same(sequence)


@pytest.mark.parametrize("iou_type", ["bbox", "segm"])
def test_params_changed_between_evaluations(files: dict[str, str], iou_type: str) -> None:
    """One evaluator evaluated again and again with other ``imgIds``, ``catIds``, ``maxDets``,
    ``areaRng``, ``iouThrs`` and ``useCats`` (segm: the undecoded files decoded on the way):
    every round's arrays and the last round's ``evalImgs`` equal pycocotools'."""
    changes = [
        {},
        {"imgIds": [128, 100, 121], "catIds": [5, 1]},
        {"maxDets": [3, 1, 20], "iouThrs": np.array([0.3, 0.5, 0.9])},
        {"areaRng": [[0, 1e10], [0, 40**2], [40**2, 1e10]], "areaRngLbl": ["all", "s", "l"]},
        {"useCats": 0, "catIds": [2, 5]},
        {"useCats": 1},
    ]

    def sequence(coco_cls: type, eval_cls: type) -> Any:
        gt, dt = loaded(coco_cls, files)
        ev = eval_cls(gt, dt, iou_type)
        rounds = []
        for change in changes:
            for name, value in change.items():
                setattr(ev.params, name, value)
            ev.evaluate()
            ev.accumulate()
            rounds.append({k: ev.eval[k].copy() for k in ("precision", "recall", "scores")})
        ev.summarize()
        ev.rounds = rounds
        return ev

    ref, _, ours, _ = run(sequence)
    for i, (a, b) in enumerate(zip(ref.rounds, ours.rounds, strict=True)):
        for k in a:
            np.testing.assert_array_equal(b[k], a[k], err_msg=f"round {i} {k}")
    assert_same(sequence)


@pytest.mark.parametrize(
    ("res", "iou_type"),
    [
        ("segm_boxes", "segm"),
        ("segm_boxes", "bbox"),
        ("poly_boxes", "segm"),
        ("poly_boxes", "bbox"),
        ("kp_boxes", "keypoints"),
        ("kp_boxes", "bbox"),
    ],
)
def test_boxes_with_masks_or_keypoints_read_from_the_columns(
    files: dict[str, str], iou_type: str, res: str
) -> None:
    """Results with a box and a mask or keypoints each (what detectors write): compressed RLEs
    and keypoints come from the scanner (the file stays undecoded), polygons from the dicts
    (decoded for a segm evaluation); every array and ``evalImgs`` equal pycocotools'."""

    def sequence(coco_cls: type, eval_cls: type) -> Any:
        gt, dt = loaded(coco_cls, files, res)
        ev = eval_cls(gt, dt, iou_type)
        if iou_type == "keypoints":
            ev.params.kpt_oks_sigmas = np.array([0.3, 0.5, 0.7, 0.9, 1.1]) / 10  # 5 points
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
        ev.dt = dt
        return ev

    ours = assert_same(sequence)
    if kernel.load("_json") is not None:
        assert (ours.dt._lazy is not None) == (res != "poly_boxes" or iou_type == "bbox")


def test_integer_scores_in_eval_imgs(files: dict[str, str]) -> None:
    """Scores written as integers stay ints in ``evalImgs['dtScores']``, as ``json.load``
    reads them."""
    seq = lambda c, e: _evaluated(c, e, files, "int_scores")  # noqa: E731
    ours = assert_same(seq)
    assert any(type(s) is int for e in ours.evalImgs if e for s in e["dtScores"])


def _evaluated(coco_cls: type, eval_cls: type, files: dict[str, str], res: str) -> Any:
    gt, dt = loaded(coco_cls, files, res)
    ev = eval_cls(gt, dt, "bbox")
    ev.evaluate()
    ev.accumulate()
    ev.summarize()
    return ev


def test_pickled_and_restored(files: dict[str, str]) -> None:
    """A pickled ``COCO`` (multiprocessing hands them to workers) comes back whole."""
    with run_quietly():
        gt, dt = loaded(cocoapi.COCO, files)
        ref_gt, ref_dt = loaded(ref_coco.COCO, files)
    for ours, ref in ((gt, ref_gt), (dt, ref_dt)):
        back = pickle.loads(pickle.dumps(ours))
        for view in VIEWS:
            same_tree(getattr(ref, view), getattr(back, view), view)


def test_without_the_scanner_the_dicts_are_built(
    files: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``VOCVIEWER_KERNEL=0``: the dicts are built at once and the numbers are the same."""
    monkeypatch.setenv("VOCVIEWER_KERNEL", "0")
    with run_quietly():
        gt, dt = loaded(cocoapi.COCO, files)
    assert gt._lazy is None and dt._lazy is None
    assert_same(lambda c, e: _evaluated(c, e, files, "bbox"))


def test_pickled_before_the_views_were_decoded_lazily(files: dict[str, str]) -> None:
    """A ``COCO`` pickled by an earlier version (its views plain attributes) loads whole."""
    with run_quietly():
        ref = ref_coco.COCO(files["gt"])
    old = cocoapi.COCO.__new__(cocoapi.COCO)
    old.__setstate__(
        {**ref.__dict__, "_columns": {}, "decoded_rles": None}
    )  # (pycocotools' attribute names: what the earlier version pickled)
    for view in VIEWS:
        same_tree(getattr(ref, view), getattr(old, view), view)


def test_results_on_an_unknown_image_refused(files: dict[str, str], tmp_path: Path) -> None:
    """``loadRes`` of a file with a result on an image the ground truth lacks fails as
    pycocotools' does (its assertion and message)."""
    entries = json.loads(Path(files["bbox"]).read_text())
    entries[5]["image_id"] = 987654
    path = tmp_path / "unknown.json"
    path.write_text(json.dumps(entries))
    errors = []
    for coco_cls in (ref_coco.COCO, cocoapi.COCO):
        with run_quietly():
            gt = coco_cls(files["gt"])
            with pytest.raises(AssertionError) as info:
                gt.loadRes(str(path))
        errors.append(str(info.value))
    assert errors[0] == errors[1] == "Results do not correspond to current coco set"


@needs_scanner
@pytest.mark.parametrize("odd", [False, True])
def test_ground_truth_masks_of_every_shape_from_the_columns(
    files: dict[str, str], tmp_path: Path, odd: bool
) -> None:
    """Ground-truth masks built from the scanner's columns (the file stays undecoded): objects
    of several polygons, compressed and uncompressed RLE crowds, and
    (``odd``) a polygon with an odd coordinate count (``frPyObjects`` drops the last number);
    every array, ``evalImgs`` and ``ious`` equal pycocotools'."""
    gt = json.loads(Path(files["gt"]).read_text())
    anns = gt["annotations"]
    polygons = [a for a in anns if isinstance(a["segmentation"], list)]
    first, second = polygons[0]["segmentation"][0], polygons[1]["segmentation"][0]
    polygons[0]["segmentation"] = [first, [v + 3 for v in second]]  # two parts, overlapping
    polygons[1]["segmentation"] = [second, first, [v * 0.5 for v in second]]
    crowd = next(a for a in polygons[4:] if a["id"])
    size = {i["id"]: (i["height"], i["width"]) for i in gt["images"]}
    rle = ref_mask.merge(ref_mask.frPyObjects(crowd["segmentation"], *size[crowd["image_id"]]))
    crowd["segmentation"] = {"size": rle["size"], "counts": rle["counts"].decode()}
    crowd["iscrowd"] = 1
    if odd:
        polygons[3]["segmentation"] = [polygons[3]["segmentation"][0] + [17.5]]
    path = tmp_path / "shapes.json"
    path.write_text(json.dumps(gt))

    def sequence(coco_cls: type, eval_cls: type) -> Any:
        g = coco_cls(str(path))
        ev = eval_cls(g, g.loadRes(files["segm_boxes"]), "segm")
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
        ev.gt = g
        return ev

    ours = assert_same(sequence)
    assert ours.gt._lazy is not None  # the masks came from the columns
