"""COCO ``analyze()``: the seven nested curves, derived independently through pycocotools.

No Python ``analyze()`` installs from PyPI (the official one is MATLAB only), so each curve is
re-derived here with pycocotools' ``COCOeval`` following ``CocoEval.m``: C75 / C50 / Loc are one
run at IoU .75 / .5 / .1 with 100 detections; Sim / Oth are runs with ``useCats`` off at IoU .1 on
one category's detections, the other classes' objects (same supercategory / all) flagged
``ignore`` after ``_prepare`` (pycocotools would overwrite a JSON ``ignore`` with ``iscrowd``).
"""

from __future__ import annotations

import contextlib
import io
import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pycocotools import mask as mask_utils
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval

from tests.evaluation.test_tide import gen_results
from vocviewer.evaluation.analysis_curves import CURVE_NAMES
from vocviewer.families.coco.analyze_curves import CocoAnalysis, analyze_coco
from vocviewer.families.coco.evaluate import CocoParams
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results

ROOT = Path(__file__).resolve().parents[2]
MINI = ROOT / ".." / "shared" / "data" / "coco-mini" / "annotations" / "instances_val2017.json"
CATS = [
    {"id": 1, "name": "cat", "supercategory": "animal"},
    {"id": 2, "name": "dog", "supercategory": "animal"},
    {"id": 3, "name": "car", "supercategory": "vehicle"},
]


def write_case(tmp: Path, gts: list[tuple[Any, ...]], dets: list[tuple[Any, ...]]) -> Path:
    """``gts``: (category, [x, y, w, h], iscrowd) on image 1; ``dets``: (category, box, score).
    Writes gt.json and res.json into ``tmp``; returns ``tmp``."""
    anns = [
        {"id": i + 1, "image_id": 1, "category_id": c, "bbox": b, "area": b[2] * b[3]}
        for i, (c, b, _) in enumerate(gts)
    ]
    for a, (_, _, crowd) in zip(anns, gts, strict=True):
        a["iscrowd"] = crowd
    gt = {
        "images": [{"id": 1, "file_name": "1.jpg", "width": 300, "height": 300}],
        "annotations": anns,
        "categories": CATS,
    }
    res = [{"image_id": 1, "category_id": c, "bbox": b, "score": s} for c, b, s in dets]
    (tmp / "gt.json").write_text(json.dumps(gt))
    (tmp / "res.json").write_text(json.dumps(res))
    return tmp


def ours(gt_path: Path, res_path: Path) -> CocoAnalysis:
    ds = read_coco(gt_path, masks=False)
    return analyze_coco(ds, read_coco_results(ds, res_path))


class _OneCategory(COCOeval):  # type: ignore[misc]
    """COCOeval over one category's detections and the GT of ``keep`` categories, every GT of
    another category flagged ``ignore`` (CocoEval.m's Sim / Oth runs)."""

    def __init__(self, gt: COCO, dt: COCO, cat: int, keep: set[int], kind: str) -> None:
        super().__init__(gt, dt, kind)
        self.cat, self.keep = cat, keep

    def _prepare(self) -> None:
        super()._prepare()
        for key in list(self._gts):
            g = [a for a in self._gts[key] if a["category_id"] in self.keep]
            for a in g:
                a["ignore"] = a["ignore"] or a["category_id"] != self.cat
            self._gts[key] = g
        for key in list(self._dts):
            self._dts[key] = [d for d in self._dts[key] if d["category_id"] == self.cat]


def _run(ev: COCOeval, ious: list[float], use_cats: int) -> Any:
    ev.params.iouThrs = np.array(ious)
    ev.params.maxDets = [100]
    ev.params.useCats = use_cats
    with contextlib.redirect_stdout(io.StringIO()):
        ev.evaluate()
        ev.accumulate()
    return ev.eval["precision"][..., 0]


def pycocotools_analysis(gt_path: Path, res_path: Path, kind: str = "bbox") -> np.ndarray:
    """The seven curves (7, R, K, A) as CocoEval.m's ``analyze`` builds them."""
    with contextlib.redirect_stdout(io.StringIO()):
        gt = COCO(str(gt_path))
        dt = gt.loadRes(str(res_path))
    cat_ids = sorted(gt.getCatIds())
    ps = np.zeros((7, 101, len(cat_ids), 4))
    ps[:3] = _run(COCOeval(gt, dt, kind), [0.75, 0.5, 0.1], 1)
    sup = {c: gt.loadCats(c)[0]["supercategory"] for c in cat_ids}
    for k, c in enumerate(cat_ids):
        same = {o for o in cat_ids if sup[o] == sup[c]}
        ps[3, :, k] = _run(_OneCategory(gt, dt, c, same, kind), [0.1], 0)[0, :, 0]
        ps[4, :, k] = _run(_OneCategory(gt, dt, c, set(cat_ids), kind), [0.1], 0)[0, :, 0]
    ps[ps == -1] = 0
    ps[5] = ps[4] > 0
    ps[6] = 1
    return ps


EPS = 1e-15  # pycocotools divides by tp + fp + np.spacing(1): 1/1 is 1 - 2e-16
A = [20.0, 20.0, 100.0, 100.0]
B = [150.0, 150.0, 80.0, 80.0]
NEAR_B = [160.0, 160.0, 80.0, 80.0]


def test_similar_class_confusion_is_ignored_in_sim_but_not_loc(tmp_path: Path) -> None:
    """A cat detection on a dog (same supercategory) is an FP for Loc and ignored from Sim on."""
    d = write_case(tmp_path, [(1, A, 0), (2, B, 0)], [(1, NEAR_B, 0.9), (1, A, 0.8)])
    an = ours(d / "gt.json", d / "res.json")
    cat = an.category(1)
    assert cat.loc[0] == pytest.approx(0.5) and cat.loc[-1] == pytest.approx(0.5)
    np.testing.assert_allclose(cat.sim, 1.0, rtol=EPS)
    np.testing.assert_allclose(cat.oth, 1.0, rtol=EPS)
    assert cat.areas["Loc"] == pytest.approx(0.5) and cat.areas["Sim"] == pytest.approx(1.0)
    np.testing.assert_array_equal(an.precision, pycocotools_analysis(d / "gt.json", d / "res.json"))


def test_other_class_confusion_is_ignored_only_in_oth(tmp_path: Path) -> None:
    """A cat detection on a car (other supercategory) stays an FP in Sim, ignored in Oth."""
    d = write_case(tmp_path, [(1, A, 0), (3, B, 0)], [(1, NEAR_B, 0.9), (1, A, 0.8)])
    cat = ours(d / "gt.json", d / "res.json").category(1)
    assert cat.areas["Loc"] == cat.areas["Sim"] == pytest.approx(0.5)
    assert cat.areas["Oth"] == pytest.approx(1.0)
    # the dog category: no ground truth, so every curve but FN is 0 (-1 -> 0 as in CocoEval.m)
    dog = ours(d / "gt.json", d / "res.json").category(2)
    assert [dog.areas[n] for n in CURVE_NAMES] == [0, 0, 0, 0, 0, 0, 1]


def test_loc_keeps_duplicates_and_bg_is_a_step(tmp_path: Path) -> None:
    """Loc (IoU .1) forgives a poor box but not a duplicate; BG is 1 up to the recall reached."""
    shifted = [60.0, 20.0, 100.0, 100.0]  # IoU 0.43 with A
    d = write_case(
        tmp_path,
        [(1, A, 0), (1, B, 0)],
        [(1, shifted, 0.9), (1, [22.0, 22.0, 100.0, 100.0], 0.8)],
    )
    cat = ours(d / "gt.json", d / "res.json").category(1)
    np.testing.assert_allclose(cat.c50[:51], 0.5, rtol=EPS)  # FP, TP: precision 1/2 to recall .5
    np.testing.assert_allclose(cat.loc[:51], 1.0, rtol=EPS)  # the shifted box is a TP at IoU .1 ...
    np.testing.assert_array_equal(cat.c50[51:], 0.0)
    assert cat.areas["Loc"] == pytest.approx(51 / 101)  # ... and the second box a duplicate FP
    np.testing.assert_array_equal(cat.bg, (np.arange(101) <= 50).astype(float))
    np.testing.assert_array_equal(cat.fn, 1.0)


def test_perfect_detections_give_one_everywhere(tmp_path: Path) -> None:
    d = write_case(tmp_path, [(1, A, 0), (3, B, 0)], [(1, A, 0.9), (3, B, 0.8)])
    an = ours(d / "gt.json", d / "res.json")
    for c in (1, 3):
        assert all(v == pytest.approx(1.0) for v in an.category(c).areas.values())
    assert an.supercategory("vehicle").areas["C75"] == pytest.approx(1.0)
    assert an.supercategory("animal").areas["C75"] == pytest.approx(0.5)  # dog: no GT, 0
    assert an.overall().areas["C75"] == pytest.approx(2 / 3)
    assert an.overall("small").areas["FN"] == 1.0


@pytest.fixture(scope="module", params=[1])
def mini(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    if not MINI.is_file():
        pytest.skip("coco-mini not available")
    res = tmp_path_factory.mktemp("analyze") / "res.json"
    res.write_text(json.dumps(gen_results(json.loads(MINI.read_text()), request.param)))
    return ours(MINI, res), res


def test_coco_mini_equals_the_pycocotools_derivation(mini: Any) -> None:
    an, res = mini
    ref = pycocotools_analysis(MINI, res)
    np.testing.assert_array_equal(an.precision, ref)
    # C75 / C50: COCOeval's AP at .75 / .5 per category for area 'all' and 100 detections
    with contextlib.redirect_stdout(io.StringIO()):
        gt = COCO(str(MINI))
        ev = COCOeval(gt, gt.loadRes(str(res)), "bbox")
        ev.evaluate()
        ev.accumulate()
    p = ev.eval["precision"][:, :, :, 0, 2]  # (T, R, K) area all, maxDets 100
    for t, curve in ((5, 0), (0, 1)):
        has_gt = p[t, 0] > -1
        np.testing.assert_array_equal(an.precision[curve][:, has_gt, 0], p[t][:, has_gt])
        for k in np.flatnonzero(has_gt)[:5]:
            c = an.category(int(an.category_ids[k]))
            assert c.areas[CURVE_NAMES[curve]] == float(np.mean(p[t, :, k]))


@pytest.mark.skipif(not MINI.is_file(), reason="coco-mini not available")
@pytest.mark.parametrize("seed", [1, 2, 4, 5])
def test_coco_mini_curves_are_nested_where_the_definition_says(tmp_path: Path, seed: int) -> None:
    """Guaranteed: Loc <= Sim <= Oth (the same TPs; extra ignored objects only absorb FPs),
    Oth <= BG <= FN (by construction). C75 <= C50 <= Loc is not (see the crowd case below; seed
    5 breaks C50 <= Loc for ovens, area medium, the same way pycocotools does)."""
    res = tmp_path / "res.json"
    res.write_text(json.dumps(gen_results(json.loads(MINI.read_text()), seed)))
    ps = ours(MINI, res).precision
    assert np.all(np.diff(ps[2:], axis=0) >= 0)
    assert np.any(ps[3] > ps[2]) and np.any(ps[4] > ps[3])  # both confusions occur


def test_loc_can_fall_below_c50(tmp_path: Path) -> None:
    """The page calls the curves nested, but COCOeval's greedy matching is not monotone in the
    IoU threshold: a box ignored on a crowd at IoU .5 takes a regular object at .1 and the box
    that matched it there becomes an FP."""
    g1, g2 = [20.0, 20.0, 100.0, 100.0], [20.0, 180.0, 60.0, 60.0]
    crowd = [120.0, 0.0, 150.0, 170.0]
    det = [100.0, 20.0, 100.0, 100.0]  # IoU 1/9 with g1, 0.8 of it inside the crowd
    d = write_case(
        tmp_path,
        [(1, g1, 0), (1, g2, 0), (1, crowd, 1)],
        [(1, det, 0.9), (1, g1, 0.8), (1, g2, 0.7)],
    )
    cat = ours(d / "gt.json", d / "res.json").category(1)
    np.testing.assert_allclose(cat.c50, 1.0, rtol=EPS)
    np.testing.assert_allclose(cat.loc[:51], 1.0, rtol=EPS)
    np.testing.assert_allclose(cat.loc[51:], 2 / 3, rtol=EPS)
    ref = pycocotools_analysis(d / "gt.json", d / "res.json")
    np.testing.assert_array_equal(ours(d / "gt.json", d / "res.json").precision, ref)


@pytest.mark.parametrize("rival", [1, 2])
def test_the_cap_is_100_per_image_and_category(tmp_path: Path, rival: int) -> None:
    """100 higher-scoring background boxes of class ``rival`` before the one hit of class 1: the
    hit is cut from every run when they are class 1, kept in every run when they are class 2."""
    junk = [(rival, [200.0 + i % 10, 200.0 + i // 10, 5.0, 5.0], 0.9) for i in range(100)]
    d = write_case(tmp_path, [(1, A, 0)], [*junk, (1, A, 0.5)])
    areas = ours(d / "gt.json", d / "res.json").category(1).areas
    want = [0.0] * 6 if rival == 1 else [1.0] * 6
    assert [areas[n] for n in CURVE_NAMES] == pytest.approx([*want, 1.0])


@pytest.mark.skipif(not MINI.is_file(), reason="coco-mini not available")
def test_segm_equals_the_pycocotools_derivation(tmp_path: Path) -> None:
    """The same on masks: the generated boxes as polygon results, mask IoU throughout."""
    gt = json.loads(MINI.read_text())
    size = {im["id"]: (im["height"], im["width"]) for im in gt["images"]}
    res = gen_results(gt, 3)
    for r in res:
        x, y, w, h = r.pop("bbox")
        rle = mask_utils.frPyObjects(
            [[x, y, x + w, y, x + w, y + h, x, y + h]], *size[r["image_id"]]
        )
        r["segmentation"] = {"size": rle[0]["size"], "counts": rle[0]["counts"].decode()}
    path = tmp_path / "segm.json"
    path.write_text(json.dumps(res))
    ds = read_coco(MINI)
    an = analyze_coco(ds, read_coco_results(ds, path, task="segm"), CocoParams(iou_type="segm"))
    np.testing.assert_array_equal(an.precision, pycocotools_analysis(MINI, path, "segm"))
    assert np.any(an.precision[3] > an.precision[2]) and np.any(an.precision[4] > an.precision[3])


def test_keypoints_are_refused(tmp_path: Path) -> None:
    d = write_case(tmp_path, [(1, A, 0)], [(1, A, 0.9)])
    ds = read_coco(d / "gt.json", masks=False)
    results = read_coco_results(ds, d / "res.json")
    with pytest.raises(ValueError, match="bbox and segm"):
        analyze_coco(ds, results, CocoParams(iou_type="keypoints"))


def test_json_has_every_setting(mini: Any) -> None:
    an, _ = mini
    out = json.loads(json.dumps(an.to_json()))
    assert out["curves"] == list(CURVE_NAMES) and len(out["recall"]) == 101
    assert set(out["overall"]) == {"all", "small", "medium", "large"}
    assert set(out["supercategories"]) == set(an.supercategory_names)
    assert len(out["categories"]) == len(an.category_ids)
    person = next(c for c in out["categories"] if c["name"] == "person")
    assert person["areas"]["all"]["ap"] == an.category(1).areas
    assert out["overall"]["all"]["ap"]["FN"] == 1.0
    assert len(out["overall"]["all"]["precision"]["Sim"]) == 101


def test_a_non_finite_box_is_evaluated_as_pycocotools_does(tmp_path: Path) -> None:
    """No numpy warnings; a NaN IoU passes pycocotools' comparison, so the NaN box takes the
    object (coco_matching's ``_nan_scan``) and the good box is the duplicate."""
    d = write_case(
        tmp_path, [(1, A, 0)], [(1, [20.0, 20.0, float("nan"), 100.0], 0.9), (1, A, 0.5)]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        an = ours(d / "gt.json", d / "res.json")
    np.testing.assert_array_equal(an.precision, pycocotools_analysis(d / "gt.json", d / "res.json"))
    assert an.category(1).areas["Oth"] == pytest.approx(1.0)
