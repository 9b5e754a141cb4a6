"""LVIS analysis under the federated rules: TIDE on ``LVISEval``'s verdicts (hand-worked cases),
the bootstrap of LVIS AP (properties, and a replicate equal to ``evaluate_lvis`` on the explicitly
resampled file) and ``analyze()``'s nested curves (C75 / C50 are ``LVISEval``'s precision)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.parity.lvis_data import make_lvis, make_results, write_lvis
from vocviewer.evaluation.bootstrap import replicate_images
from vocviewer.evaluation.tide_evidence import BKG, CLS, NOT_EVALUATED, TRUE_POSITIVE
from vocviewer.families.coco.bootstrap import coco_bootstrap
from vocviewer.families.coco.columns import CocoAnnotations
from vocviewer.families.lvis.analyze_curves import analyze_lvis
from vocviewer.families.lvis.bootstrap import lvis_bootstrap, lvis_evidence
from vocviewer.families.lvis.evaluate import UNVERIFIED, evaluate_lvis, select
from vocviewer.families.lvis.reader import read_lvis, read_lvis_results
from vocviewer.families.lvis.tide import lvis_tide

A = [20.0, 20.0, 100.0, 100.0]
B = [130.0, 130.0, 50.0, 50.0]
E = [150.0, 5.0, 40.0, 40.0]  # touches neither A nor B


def write_case(
    tmp: Path,
    anns: list[tuple[int, int, list[float]]],
    dets: list[tuple[int, int, list[float], float]],
    neg: dict[int, list[int]],
    not_exhaustive: dict[int, list[int]],
) -> tuple[Path, Path]:
    """Images 1-3 (200 x 200), categories 1 (frequent) and 2 (rare); ``anns``: (image, category,
    xywh); ``dets``: (image, category, xywh, score); per image its federated lists."""
    images = [
        {
            "id": i,
            "width": 200,
            "height": 200,
            "coco_url": f"http://x/{i:012d}.jpg",
            "neg_category_ids": neg.get(i, []),
            "not_exhaustive_category_ids": not_exhaustive.get(i, []),
        }
        for i in (1, 2, 3)
    ]
    doc = {
        "images": images,
        "annotations": [
            {
                "id": j + 1,
                "image_id": i,
                "category_id": c,
                "bbox": b,
                "area": b[2] * b[3],
                "segmentation": [
                    [b[0], b[1], b[0] + b[2], b[1], b[0] + b[2], b[1] + b[3], b[0], b[1] + b[3]]
                ],
            }
            for j, (i, c, b) in enumerate(anns)
        ],
        "categories": [
            {"id": 1, "name": "one", "synset": "one.n.01", "frequency": "f"},
            {"id": 2, "name": "two", "synset": "two.n.01", "frequency": "r"},
        ],
    }
    res = [{"image_id": i, "category_id": c, "bbox": b, "score": s} for i, c, b, s in dets]
    ann, out = tmp / "lvis.json", tmp / "res.json"
    ann.write_text(json.dumps(doc))
    out.write_text(json.dumps(res))
    return ann, out


def run(ann: Path, res: Path, task: str = "bbox") -> tuple[Any, Any, Any]:
    ds = read_lvis(ann, masks=task == "segm")
    results = read_lvis_results(ds, res, task=task)
    return ds, results, evaluate_lvis(ds, results, task)


# a true positive on image 1, a box on nothing (E) and a true positive on image 2 (2 positives):
# ranks TP (0.9), E (0.8), TP (0.5). E a false positive: precision 1 up to recall .5, then 2/3.
WITH_FP = (51 + 50 * 2 / 3) / 101
CASES = {  # name: (image of E, neg lists, not-exhaustive lists, E's TIDE kind, AP50)
    "present": (2, {}, {}, BKG, WITH_FP),  # category 1 is annotated on image 2
    "not exhaustive": (2, {}, {2: [1]}, NOT_EVALUATED, 1.0),  # ignored there: not an error
    "unlisted": (3, {}, {}, NOT_EVALUATED, 1.0),  # neither on image 3 nor negative: not evaluated
    "negative": (3, {3: [1]}, {}, BKG, WITH_FP),  # verified absent: a false positive
}


@pytest.mark.parametrize("name", list(CASES))
def test_federated_rules_decide_what_is_an_error(tmp_path: Path, name: str) -> None:
    image, neg, ne, kind, ap50 = CASES[name]
    ann, res = write_case(
        tmp_path,
        [(1, 1, A), (2, 1, B)],
        [(1, 1, A, 0.9), (image, 1, E, 0.8), (2, 1, B, 0.5)],
        neg,
        ne,
    )
    ds, results, ev = run(ann, res)
    assert ev.ap(0.5) == pytest.approx(ap50, abs=1e-12)
    t = lvis_tide(ds, results, ev)
    e_row = 1  # detection rows are in file order
    assert t.evidence.kind[e_row] == kind
    assert t.evidence.kind[[0, 2]].tolist() == [TRUE_POSITIVE, TRUE_POSITIVE]
    assert t.ap == pytest.approx(ap50 * 100, abs=1e-9)  # one class with positives: TIDE's AP
    errors = 1 if kind == BKG else 0
    assert t.counts() == {"Cls": 0, "Loc": 0, "Both": 0, "Dupe": 0, "Bkg": errors, "Miss": 0}
    assert t.main["Bkg"] == pytest.approx((1 - ap50) * 100, abs=1e-9)
    assert sum(v for k, v in t.main.items() if k != "Bkg") == 0
    assert t.evidence.ignored[e_row] == (name == "not exhaustive")
    assert (t.evidence.position[e_row] < 0) == (name == "unlisted")
    sel = select(ds, results)
    assert (sel.status[e_row] == UNVERIFIED) == (name == "unlisted")


@pytest.mark.parametrize("listed", [True, False])
def test_a_wrong_category_is_cls_only_where_lvis_evaluates_it(tmp_path: Path, listed: bool) -> None:
    """Category 2 boxed on category 1's object: a Cls error when image 1 lists 2 as absent,
    nothing when it does not; fixing it gives category 1 its true positive (a missed object)."""
    ann, res = write_case(
        tmp_path,
        [(1, 1, A), (1, 1, B)],
        [(1, 2, A, 0.9), (1, 1, B, 0.8)],
        {1: [2]} if listed else {},
        {},
    )
    ds, results, ev = run(ann, res)
    t = lvis_tide(ds, results, ev)
    assert t.evidence.kind[0] == (CLS if listed else NOT_EVALUATED)
    assert t.counts()["Cls"] == int(listed) and t.counts()["Miss"] == int(not listed)
    # category 1: one TP of two positives -> recall .5 at precision 1 -> 51/101; category 2 (no
    # positives, a data point when listed) counts with AP 0 in TIDE's mean, as in tidecv
    one = 51 / 101 * 100
    assert t.ap == pytest.approx(one / 2 if listed else one)
    if listed:  # A recovered for category 1 (2 of 2, precision 1); category 2 keeps no point
        assert t.main["Cls"] == pytest.approx(100 - one / 2)
    else:
        assert t.main["Miss"] == pytest.approx(100 - one)


def test_an_ignore_annotation_hit_is_not_an_error(tmp_path: Path) -> None:
    ann, res = write_case(tmp_path, [(1, 1, A), (1, 1, B)], [(1, 1, A, 0.9)], {}, {})
    doc = json.loads(ann.read_text())
    doc["annotations"][0]["ignore"] = 1  # A: neither a positive nor an error's target
    ann.write_text(json.dumps(doc))
    ds, results, ev = run(ann, res)
    t = lvis_tide(ds, results, ev)
    assert t.evidence.ignored[0] and t.evidence.kind[0] == NOT_EVALUATED
    assert t.counts()["Miss"] == 1 and not t.evidence.gt_counted[0]


# --- the bootstrap ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, ...]:
    ann, res = write_lvis(tmp_path_factory.mktemp("lvis"), 5, ignore=True)
    ds, results, ev = run(ann, res)
    return ann, res, ds, results, ev


def test_bootstrap_points_are_lviseval_and_reproduce(generated: tuple[Any, ...]) -> None:
    pytest.importorskip("lvis")
    from tests.parity.lvis_data import lvis_eval

    ann, res, ds, results, ev = generated
    ref = lvis_eval(ann, res, "bbox").results
    evidence = lvis_evidence(ds, results, ev, "a")
    boot = lvis_bootstrap([evidence], 300, 11)
    got = {
        "AP": boot.ap.point_map[0],
        "AP50": boot.ap50.point_map[0],
        **{g: b.point_map[0] for g, b in boot.groups.items()},
    }
    assert got == {k: ev.summary()[k] for k in got}  # exactly the numbers ``eval`` prints
    assert got == pytest.approx({k: float(ref[k]) for k in got}, abs=1e-12)  # the lvis package
    plain = coco_bootstrap([evidence.coco], 1, 0)  # the engine's own unresampled estimate
    assert abs(plain.ap.point_map[0] - got["AP"]) < 1e-12
    assert abs(plain.ap50.point_map[0] - got["AP50"]) < 1e-12
    for result in (boot.ap, boot.ap50, *boot.groups.values()):
        m = result.interval("a")
        assert m.low <= m.point <= m.high and m.replicates == 300
    again = lvis_bootstrap([evidence], 300, 11)
    assert np.array_equal(again.ap.map, boot.ap.map, equal_nan=True)
    assert not np.array_equal(lvis_bootstrap([evidence], 300, 12).ap.map, boot.ap.map)
    lean = lvis_bootstrap([evidence], 300, 11, bands=False)  # no PR bands: the same intervals
    assert len(lean.ap50.recall_grid) == 0 and len(boot.ap50.recall_grid) == 101
    assert np.array_equal(lean.ap50.map, boot.ap50.map, equal_nan=True)


def test_a_set_against_itself_differs_by_exactly_zero(generated: tuple[Any, ...]) -> None:
    _, _, ds, results, ev = generated
    e = lvis_evidence(ds, results, ev, "a")
    f = lvis_evidence(ds, results, ev, "b")
    boot = lvis_bootstrap([e, f], 100, 3)
    d = boot.ap.paired("a", "b").difference
    assert (d.point, d.low, d.high) == (0.0, 0.0, 0.0)
    assert [r.rank for r in boot.ap.rank_ranges()] == [1, 1]


def test_a_replicate_is_lviseval_on_the_resampled_file(tmp_path: Path) -> None:
    """Replicate 4 of seed 9 equals ``evaluate_lvis`` on a file holding the drawn images (each
    copy a new image with its annotations, federated lists and results); scores made distinct
    so that copies of a detection rank next to each other, as the bootstrap assumes."""
    gt = make_lvis(8)
    found = make_results(gt, 8, crowded=0)
    rng = np.random.default_rng(0)
    for r, s in zip(found, rng.permutation(len(found)), strict=True):
        r["score"] = float(s + 1) / (len(found) + 1)
    ann, res = tmp_path / "a.json", tmp_path / "r.json"
    ann.write_text(json.dumps(gt))
    res.write_text(json.dumps(found))
    ds, results, ev = run(ann, res)
    boot = lvis_bootstrap([lvis_evidence(ds, results, ev, "a")], 5, 9)
    picks = replicate_images(9, 4, len(ds.images)).tolist()
    ids = ds.data(CocoAnnotations).image_id.tolist()
    by_id = {im["id"]: im for im in gt["images"]}
    images, anns, dets = [], [], []
    for j, p in enumerate(picks):
        old, new = ids[p], j + 1
        images.append({**by_id[old], "id": new})
        anns += [
            {**a, "id": len(anns) + 1 + i, "image_id": new}
            for i, a in enumerate(a for a in gt["annotations"] if a["image_id"] == old)
        ]
        dets += [{**d, "image_id": new} for d in found if d["image_id"] == old]
    ann2, res2 = tmp_path / "b.json", tmp_path / "s.json"
    ann2.write_text(json.dumps({**gt, "images": images, "annotations": anns}))
    res2.write_text(json.dumps(dets))
    explicit = run(ann2, res2)[2]
    assert boot.ap.map[0, 4] == pytest.approx(explicit.ap(), abs=1e-12)
    assert boot.ap50.map[0, 4] == pytest.approx(explicit.ap(0.5), abs=1e-12)
    assert boot.groups["APc"].map[0, 4] == pytest.approx(explicit.ap(frequency="c"), abs=1e-12)


# --- analyze()'s curves -------------------------------------------------------------------------
@pytest.mark.parametrize("task", ["bbox", "segm"])
def test_curves_nest_and_c50_is_lviseval(tmp_path: Path, task: str) -> None:
    ann, res = write_lvis(tmp_path, 6, kind=task, ignore=True)
    ds, results, ev = run(ann, res, task)
    a = analyze_lvis(ds, results, task)
    p = np.where(ev.precision == -1, np.nan, ev.precision)
    np.testing.assert_array_equal(a.precision[0], p[5])  # C75: LVISEval at IoU .75
    np.testing.assert_array_equal(a.precision[1], p[0])  # C50: at IoU .50
    d = np.nan_to_num(a.precision)
    assert np.all(d[3:] >= d[2:-1])  # Loc <= Sim <= Oth <= BG <= FN (C50 <= Loc is not sure:
    # the greedy matching at IoU .1 may pair differently, as COCO's ``test_loc_can_fall_below_c50``)
    assert a.overall().areas["C50"] == pytest.approx(ev.ap(0.5), abs=1e-12)
    for f in ("r", "c", "f"):
        assert a.frequency_group(f).areas["C50"] == pytest.approx(ev.ap(0.5, frequency=f))
    assert not a.similar and a.supercategory_names == ()
    np.testing.assert_array_equal(a.precision[3], a.precision[4])  # no groups: Sim = Oth


def test_sim_follows_supercategories_when_the_file_has_them(tmp_path: Path) -> None:
    """Category 2 boxed on category 1's object (listed absent): a similar-class confusion when
    both share a supercategory (Sim recovers it), an other-class one when not (only Oth)."""
    areas = {}
    for same in (True, False):
        ann, res = write_case(
            tmp_path, [(1, 2, B), (1, 1, A)], [(1, 2, A, 0.9), (1, 2, B, 0.5)], {1: []}, {}
        )
        doc = json.loads(ann.read_text())
        for c, s in zip(doc["categories"], ("animal", "animal" if same else "tool"), strict=True):
            c["supercategory"] = s
        ann.write_text(json.dumps(doc))
        ds, results, _ = run(ann, res)
        a = analyze_lvis(ds, results)
        assert a.similar
        areas[same] = a.category(2).areas
    # category 2: FP on A (0.9) then TP on B: precision 1/2 at recall 1; without the FP, 1
    assert areas[True]["Loc"] == pytest.approx(0.5) and areas[False]["Loc"] == pytest.approx(0.5)
    assert areas[True]["Sim"] == pytest.approx(1.0) and areas[False]["Sim"] == pytest.approx(0.5)
    assert areas[True]["Oth"] == areas[False]["Oth"] == pytest.approx(1.0)
