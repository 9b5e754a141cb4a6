"""COCO schema checks (messages name the JSON path) and the inputs pycocotools accepts: NaN /
infinite result rows evaluated as it evaluates them, keypoint results that also carry a bbox."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vocviewer.core.errors import FormatError
from vocviewer.families.coco.columns import CocoAnnotations, CocoResults
from vocviewer.families.coco.evaluate import CocoParams, evaluate_coco
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results

_HERE = Path(__file__).resolve()
MINI = next(
    (
        _HERE.parents[k] / "shared" / "data" / "coco-mini" / "annotations"
        for k in (3, 4)
        if (_HERE.parents[k] / "shared" / "data" / "coco-mini").is_dir()
    ),
    None,
)
NAN, INF = float("nan"), float("inf")

GT: dict[str, Any] = {
    "images": [{"id": 9, "width": 40, "height": 30}, {"id": 4, "width": 40, "height": 30}],
    "categories": [{"id": 5, "name": "cat"}, {"id": 2, "name": "dog"}],
    "annotations": [
        {
            "id": 1,
            "image_id": 9,
            "category_id": 5,
            "bbox": [1, 2, 10, 5],
            "area": 50,
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


def _gt(tmp: Path, edit: Any = None) -> Path:
    gt = copy.deepcopy(GT)
    if edit is not None:
        edit(gt)
    p = tmp / "instances.json"
    p.write_text(json.dumps(gt))
    return p


ANNOTATION_CASES = {
    "width_abc": (
        lambda g: g["images"][1].update(width="abc"),
        "images[1].width",
        'expected a positive integer, got "abc"',
    ),
    "image_too_big": (
        lambda g: g["images"][1].update(width=100000, height=100000),
        "images[1]",
        "over the 178,956,970-pixel limit",
    ),
    "image_id_list": (
        lambda g: g["annotations"][0].update(image_id=[1]),
        "annotations[0].image_id",
        "expected an integer image id, got [1]",
    ),
    "category_id_dict": (
        lambda g: g["annotations"][0].update(category_id={}),
        "annotations[0].category_id",
        "expected an integer id, got {}",
    ),
    "id_2_70": (
        lambda g: g["annotations"][0].update(id=2**70),
        "annotations[0].id",
        "within 64 bits, got 1180591620717411303424",
    ),
    "keypoints_text": (
        lambda g: g["annotations"][0].update(keypoints=[1, "a", 2]),
        "annotations[0].keypoints[1]",
        'expected a number, got "a"',
    ),
    "keypoints_not_triples": (
        lambda g: g["annotations"][0].update(keypoints=[1, 2]),
        "annotations[0].keypoints",
        "multiple of 3",
    ),
    "bbox_nan": (
        lambda g: g["annotations"][0].update(bbox=[1, NAN, 3, 4]),
        "annotations[0].bbox[1]",
        "expected a finite number, got NaN",
    ),
    "bbox_three": (
        lambda g: g["annotations"][0].update(bbox=[1, 2, 3]),
        "annotations[0].bbox",
        "expected 4 numbers, got 3",
    ),
    "polygon_text": (
        lambda g: g["annotations"][0].update(segmentation=[[1, 2, "x", 4, 5, 6]]),
        "annotations[0].segmentation[0][2]",
        'expected a number, got "x"',
    ),
    "polygon_odd": (
        lambda g: g["annotations"][0].update(segmentation=[[1, 2, 3, 4, 5]]),
        "annotations[0].segmentation[0]",
        "multiple of 2",
    ),
    "polygon_huge": (
        lambda g: g["annotations"][0].update(segmentation=[[0, 0, 3e6, 1, 0, 2, 3e6, 3, 0, 4]]),
        "annotations[0].segmentation",
        "too costly to rasterise",
    ),
    "rle_size_text": (
        lambda g: g["annotations"][1]["segmentation"].update(size=["a", "b"]),
        "annotations[1].segmentation.size",
        'got ["a", "b"]',
    ),
    "rle_size_huge": (
        lambda g: g["annotations"][1]["segmentation"].update(
            size=[100000, 100000], counts=[0, 10**10]
        ),
        "annotations[1].segmentation.size",
        "over the 178,956,970-pixel limit",
    ),
    "rle_negative": (
        lambda g: g["annotations"][1]["segmentation"].update(counts=[0, -4, 30, 4, 1170]),
        "annotations[1].segmentation.counts",
        "negative run length -4",
    ),
    "rle_short": (
        lambda g: g["annotations"][1]["segmentation"].update(counts=[0, 4, 26]),
        "annotations[1].segmentation.counts",
        "runs sum to 30, not 30 x 40 = 1200",
    ),
    "rle_string_short": (
        lambda g: g["annotations"][1]["segmentation"].update(counts="04"),
        "annotations[1].segmentation.counts",
        "runs sum to 4, not",
    ),
    "rle_other_size": (
        lambda g: g["annotations"][1]["segmentation"].update(
            size=[20, 40], counts=[0, 4, 16, 4, 776]
        ),
        "annotations[1].segmentation.size",
        "differs from its image's [30, 40]",
    ),
}


@pytest.mark.parametrize("case", sorted(ANNOTATION_CASES))
def test_bad_annotation_field_is_a_problem_naming_its_path(case: str, tmp_path: Path) -> None:
    edit, where, text = ANNOTATION_CASES[case]
    ds = read_coco(_gt(tmp_path, edit), masks=True)
    hits = [p for p in ds.problems if p.element == where]
    assert hits, [str(p) for p in ds.problems]
    assert text in hits[0].message and hits[0].path == tmp_path / "instances.json"
    assert str(hits[0]).startswith(f"{tmp_path / 'instances.json'} ({where}): ")
    assert len(ds.images) == 2  # the rest loads


def test_left_out_and_kept_rows(tmp_path: Path) -> None:
    ds = read_coco(_gt(tmp_path, ANNOTATION_CASES["bbox_nan"][0]))
    assert ds.data(CocoAnnotations).ann_id.tolist() == [2]  # the NaN box is left out
    ds = read_coco(_gt(tmp_path, ANNOTATION_CASES["width_abc"][0]))
    assert ds.images.width.tolist() == [40, 0] and len(ds.objects) == 2  # kept, without a size
    ds = read_coco(_gt(tmp_path, ANNOTATION_CASES["rle_other_size"][0]))
    co = ds.data(CocoAnnotations)
    assert co.masks.height.tolist() == [30, 20] and co.masks.areas().tolist() == [50, 8]


@pytest.mark.parametrize(
    ("edit", "where", "text"),
    [
        (lambda g: g.pop("categories"), "categories", "missing"),
        (lambda g: g.update(categories={"id": 1}), "categories", "expected a list"),
        (lambda g: g["categories"][0].update(id="5"), "categories[0].id", 'got "5"'),
        (lambda g: g["categories"].append({"id": 5, "name": "x"}), "categories", "duplicate"),
        (lambda g: g["images"][0].update(id=2**70), "images[0].id", "within 64 bits"),
        (lambda g: g["images"][1].update(id=9), "images[1].id", "duplicate image id 9"),
        (lambda g: g.update(annotations={}), "annotations", "expected a list"),
    ],
)
def test_broken_tables_are_errors(edit: Any, where: str, text: str, tmp_path: Path) -> None:
    with pytest.raises(FormatError) as e:
        read_coco(_gt(tmp_path, edit))
    assert e.value.element == where and text in e.value.message


def test_captions_need_no_categories(tmp_path: Path) -> None:
    p = tmp_path / "captions.json"
    p.write_text(
        json.dumps(
            {"images": GT["images"], "annotations": [{"id": 1, "image_id": 4, "caption": "a dog"}]}
        )
    )
    assert read_coco(p).data(CocoAnnotations).captions == ((), ("a dog",))


def test_deep_nesting_and_special_files(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text('{"images": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(FormatError, match="nested too deeply"):
        read_coco(deep)
    with pytest.raises(FormatError, match="expected a regular file, found a folder"):
        read_coco(tmp_path)


D = {"image_id": 9, "category_id": 5, "bbox": [1, 2, 3, 4], "score": 0.5}
RLE = {"size": [30, 40], "counts": [0, 4, 26, 4, 1166]}
RESULT_CASES = [
    ([D, 7], "bbox", "[1]", "expected an object, got 7"),
    ([D, {**D, "image_id": True}], "bbox", "[1].image_id", "got true"),
    ([D, {**D, "image_id": 2.5}], "bbox", "[1].image_id", "got 2.5"),
    ([D, {**D, "image_id": 2**63}], "bbox", "[1].image_id", "within 64 bits"),
    ([D, {**D, "category_id": None}], "bbox", "[1].category_id", "got null"),
    ([D, {**D, "score": [0.5]}], "bbox", "[1].score", "got [0.5]"),
    ([D, {**D, "bbox": [1, 2, 3, "4"]}], "bbox", "[1].bbox[3]", 'got "4"'),
    ([D, {**D, "bbox": [1, 2, 3, 10**400]}], "bbox", "[1].bbox[3]", "expected a number"),
    ([D, {**D, "bbox": [0, 0, 1e7, 1e7]}], "segm", "[1].bbox", "box too large to rasterise"),
    (
        [{**D, "segmentation": {"size": [30, 40], "counts": "!!"}}],
        "segm",
        "[0].segmentation.counts",
        "not a compressed RLE string",
    ),
    (
        [{**D, "segmentation": [[0, 0, 3e6, 1, 0, 2, 3e6, 3]]}],
        "segm",
        "[0].segmentation",
        "too costly to rasterise",
    ),
    (
        [{"image_id": 9, "category_id": 5, "score": 1, "segmentation": {**RLE, "counts": [5, -5]}}],
        "segm",
        "[0].segmentation.counts",
        "negative run length -5",
    ),
    (
        [{"image_id": 9, "category_id": 5, "score": 1, "keypoints": [1, 2]}],
        "keypoints",
        "[0].keypoints",
        "multiple of 3",
    ),
    (
        [{"image_id": 9, "category_id": 5, "score": 1, "keypoints": [1, 2, 1]}],
        "segm",
        "[0]",
        "cannot be evaluated as segm",
    ),
]


@pytest.mark.parametrize(("dets", "task", "where", "text"), RESULT_CASES)
def test_bad_result_entry_names_its_path(
    dets: list[Any], task: str, where: str, text: str, tmp_path: Path
) -> None:
    ds = read_coco(_gt(tmp_path), masks=task == "segm")
    res = tmp_path / "r.json"
    res.write_text(json.dumps(dets))
    with pytest.raises(FormatError) as e:
        read_coco_results(ds, res, task=task)
    assert (e.value.path, e.value.element) == (res, where) and text in e.value.message, e.value
    if "cannot be evaluated" not in text:  # the file's kind: no entry to skip
        kept = read_coco_results(ds, res, task=task, keep_going=True)
        assert len(kept.detections) == len(dets) - 1 and kept.problems[0].element == where


def test_result_rle_of_another_size_is_kept_with_one_warning(tmp_path: Path) -> None:
    ds = read_coco(_gt(tmp_path))
    res = tmp_path / "r.json"
    seg = {
        "image_id": 4,
        "category_id": 2,
        "score": 1.0,
        "segmentation": {"size": [20, 40], "counts": [0, 4, 16, 4, 776]},
    }
    res.write_text(json.dumps([seg, seg]))
    rs = read_coco_results(ds, res, task="segm")
    assert len(rs.detections) == 2 and len(rs.warnings) == 1
    assert rs.warnings[0].element == "[0].segmentation.size" and "2 RLE(s)" in str(rs.warnings[0])


# --- results: what pycocotools accepts, evaluated as it evaluates it --------------------------
pytest.importorskip("pycocotools")
from pycocotools.coco import COCO  # noqa: E402
from pycocotools.cocoeval import COCOeval  # noqa: E402


def _both(ann: Path, dets: list[dict[str, Any]], task: str, tmp: Path) -> Any:
    res = tmp / "res.json"
    res.write_text(json.dumps(dets))
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pycocotools' own numpy warnings on NaN
        gt = COCO(str(ann))
        ev = COCOeval(gt, gt.loadRes(copy.deepcopy(dets)), task)
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # ours: no RuntimeWarning
        ds = read_coco(ann, masks=task == "segm")
        rs = read_coco_results(ds, res, task=task)
        ours = evaluate_coco(ds, rs, CocoParams.for_task(task))
    for name in ("precision", "recall", "scores"):
        np.testing.assert_allclose(
            getattr(ours, name), ev.eval[name], rtol=0, atol=1e-12, err_msg=name
        )
    np.testing.assert_allclose(list(ours.stats().values()), ev.stats, rtol=0, atol=1e-12)
    return rs, ours


@pytest.mark.parametrize("seed", range(12))
def test_nonfinite_box_rows_are_evaluated_as_pycocotools_does(seed: int, tmp_path: Path) -> None:
    rng = np.random.default_rng(seed)
    anns = [
        {
            "id": i + 1,
            "image_id": int(rng.choice([9, 4])),
            "category_id": 5,
            "bbox": [float(v) for v in rng.uniform(0, 20, 2)] + [8.0, 8.0],
            "area": 64.0,
            "iscrowd": int(rng.random() < 0.2),
        }
        for i in range(6)
    ]
    ann = _gt(tmp_path, lambda g: g.update(annotations=anns))
    odd = [NAN, INF, -INF]
    dets = []
    for a in anns * 2:
        box = [v + float(rng.normal(0, 1)) for v in a["bbox"]]
        score = round(float(rng.random()), 2)
        if rng.random() < 0.4:
            box[int(rng.integers(4))] = odd[int(rng.integers(3))]
        if rng.random() < 0.2:
            score = odd[int(rng.integers(3))]
        dets.append({"image_id": a["image_id"], "category_id": 5, "bbox": box, "score": score})
    dets[0]["bbox"][2] = NAN  # at least one
    rs, ours = _both(ann, dets, "bbox", tmp_path)
    warn = rs.data(CocoResults).warnings
    assert len(warn) == 1 and warn[0].element.startswith("[0].") and "NaN or infinite" in str(warn)
    assert not ours.notes  # kept rows: still official


def _kp_results(gt: dict[str, Any], seed: int, with_bbox: bool) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    out = []
    for a in gt["annotations"]:
        kp = np.array(a["keypoints"], float).reshape(-1, 3)
        x, y, w, h = a["bbox"]
        kp[:, 0] = np.where(kp[:, 2] > 0, kp[:, 0], x + rng.random(len(kp)) * w)
        kp[:, 1] = np.where(kp[:, 2] > 0, kp[:, 1], y + rng.random(len(kp)) * h)
        kp[:, :2] += rng.normal(0, 0.05, (len(kp), 2)) * [max(w, 1), max(h, 1)]
        kp[:, 2] = 1
        e = {
            "image_id": a["image_id"],
            "category_id": a["category_id"],
            "keypoints": [round(float(v), 2) for v in kp.reshape(-1)],
            "score": round(float(rng.random()), 2),
        }
        if with_bbox:  # as mmpose / detectron2 write it: the person box
            e["bbox"] = [round(float(v + rng.normal(0, 3)), 2) for v in a["bbox"]]
        out.append(e)
    return out


def _person_gt(tmp: Path) -> Path:
    if MINI is not None:
        return MINI / "person_keypoints_val2017.json"
    rng = np.random.default_rng(0)
    images = [{"id": i, "width": 640, "height": 480} for i in range(1, 6)]
    anns = []
    for k in range(25):
        x, y, w, h = (float(v) for v in (*rng.uniform(0, 400, 2), *rng.uniform(20, 200, 2)))
        kp = np.column_stack(
            (x + rng.random(17) * w, y + rng.random(17) * h, rng.choice([0, 1, 2], 17))
        ).reshape(-1)
        kp[np.repeat(kp[2::3] == 0, 3)] = 0
        anns.append(
            {
                "id": k + 1,
                "image_id": int(rng.integers(1, 6)),
                "category_id": 1,
                "bbox": [x, y, w, h],
                "area": w * h * 0.6,
                "iscrowd": 0,
                "keypoints": kp.tolist(),
                "num_keypoints": int((kp[2::3] > 0).sum()),
            }
        )
    p = tmp / "person_keypoints.json"
    p.write_text(
        json.dumps(
            {"images": images, "annotations": anns, "categories": [{"id": 1, "name": "person"}]}
        )
    )
    return p


@pytest.mark.parametrize("with_bbox", [True, False])
def test_keypoint_results_with_bbox_equal_pycocotools(with_bbox: bool, tmp_path: Path) -> None:
    """loadRes takes its bbox branch for keypoint results that carry a bbox: keypoints kept,
    area = w * h (which moves detections between area ranges)."""
    ann = _person_gt(tmp_path)
    dets = _kp_results(json.loads(ann.read_text()), 4, with_bbox)
    rs, ours = _both(ann, dets, "keypoints", tmp_path)
    ex = rs.data(CocoResults)
    assert ex.kind == ("bbox" if with_bbox else "keypoints") and ex.keypoints.shape[1] == 17
    if with_bbox:
        b = np.array([d["bbox"] for d in dets])
        np.testing.assert_array_equal(ex.area, b[:, 2] * b[:, 3])
    assert len(ours.stats()) == 10


@pytest.mark.parametrize("seed", range(6))
def test_nonfinite_keypoint_rows_are_evaluated_as_pycocotools_does(
    seed: int, tmp_path: Path
) -> None:
    """A NaN keypoint makes OKS NaN; ``evaluateImg`` then takes that GT and the next available
    one whatever its OKS (``coco_matching._nan_scan``)."""
    ann = _person_gt(tmp_path)
    dets = _kp_results(json.loads(ann.read_text()), seed, seed % 2 == 0)
    rng = np.random.default_rng(seed)
    for e in dets:
        if rng.random() < 0.3:
            e["keypoints"][int(rng.integers(len(e["keypoints"])))] = [NAN, INF, -INF][seed % 3]
        if rng.random() < 0.1:
            e["score"] = NAN
    rs, _ = _both(ann, dets, "keypoints", tmp_path)
    assert len(rs.data(CocoResults).warnings) == 1


def test_results_of_other_categories_are_left_out_as_cocoeval_does(tmp_path: Path) -> None:
    ann = _gt(tmp_path)
    dets = [
        {"image_id": 9, "category_id": c, "bbox": [1, 2, 10, 5], "score": s}
        for c, s in ((5, 0.9), (77, 0.95), (2, 0.5), (77, NAN))
    ]
    rs, ours = _both(ann, dets, "bbox", tmp_path)
    assert rs.data(CocoResults).det_id.tolist() == [1, 3] and not ours.notes
    assert [p.element for p in rs.warnings] == ["[1].category_id"]
