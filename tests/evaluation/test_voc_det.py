"""VOC detection: hand-worked cases (expected values derived in the comments) and edge cases
from PROTOCOLS.md §10, checked against both the hand derivation and the loop oracle."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.evaluation import oracles
from tests.evaluation.builders import make_dataset, make_results
from vocviewer.core.errors import FormatError
from vocviewer.evaluation.result import Verdict
from vocviewer.families.voc.evaluate import evaluate_voc_det

A = (1, 1, 100, 100)
B = (201, 1, 300, 100)
FAR = (400, 300, 450, 350)
V = Verdict


def run(objects, dets, *, ap_rule="allpoints", cls="car", image_set=None, **kw):
    ids = image_set or sorted(objects)
    ds = make_dataset(objects, {"Main/val": ids}, **kw)
    rs = make_results(ds, [(cls, *d) for d in dets])
    res = evaluate_voc_det(ds, rs, image_set="val", ap_rule=ap_rule, classes=[ds.class_index(cls)])
    return ds, res.classes[0]


def oracle(objects, dets, *, ap_rule="allpoints", cls="car", image_set=None):
    gt = {i: [(b, d) for c, b, d in objs if c == cls] for i, objs in objects.items()}
    return oracles.voc_det_class(gt, list(dets), image_set or sorted(objects), ap_rule)


def verdict_names(ce):
    names = {V.TP: "tp", V.FP: "fp", V.DUPLICATE: "dup", V.IGNORED: "ign"}
    return [names[V(v)] for v in ce.verdict]


def test_basic_tp_duplicate_fp():
    # GT A, B. Ranked: A exact (TP), A shifted (dup), B exact (TP), far (FP); npos = 2
    # rec .5 .5 1 1 ; prec 1 .5 2/3 .5 ; envelope at the recall steps: 1 (0→.5), 2/3 (.5→1)
    objects = {"im1": [("car", A, False), ("car", B, False)]}
    dets = [("im1", 0.9, A), ("im1", 0.8, (5, 1, 104, 100)), ("im1", 0.7, B), ("im1", 0.6, FAR)]
    _, ce = run(objects, dets)
    assert verdict_names(ce) == ["tp", "dup", "tp", "fp"]
    assert ce.duplicate_of.tolist() == [-1, 0, -1, -1]
    assert ce.recall.tolist() == [0.5, 0.5, 1.0, 1.0]
    assert ce.precision.tolist() == [1.0, 0.5, 2 / 3, 0.5]
    assert ce.ap == 0.5 * 1.0 + 0.5 * (2 / 3)
    assert ce.ap == oracle(objects, dets)["ap"]
    # 11-point: levels 0..0.5 see max precision 1, levels 0.6..1 see 2/3
    expected = 0.0
    for p in [1.0] * 6 + [2 / 3] * 5:
        expected += p / 11
    _, ce11 = run(objects, dets, ap_rule="11point")
    assert ce11.ap == expected == oracle(objects, dets, ap_rule="11point")["ap"]


def test_iou_exactly_half_is_tp():
    # inter 100*100 = 10000, union 100*200 + 100*100 - 10000 = 20000 → IoU 0.5 ≥ 0.5
    _, ce = run({"im1": [("car", A, False)]}, [("im1", 1.0, (1, 1, 100, 200))])
    assert ce.best_iou[0] == 0.5
    assert verdict_names(ce) == ["tp"]
    assert ce.ap == 1.0


def test_just_below_half_is_fp():
    # (1,1,100,201): inter 10000, union 20100 → 0.4975
    _, ce = run({"im1": [("car", A, False)]}, [("im1", 1.0, (1, 1, 100, 201))])
    assert verdict_names(ce) == ["fp"]
    assert ce.ap == 0.0


def test_duplicate_does_not_fall_back_to_second_box():
    # GT A and A' = (11,1,110,100). d1 = A → TP(A). d2 = (3,1,102,100):
    # IoU(A) = 9800/10200 = .96, IoU(A') = 9200/10800 = .85 → best is A, taken → FP (duplicate)
    a2 = (11, 1, 110, 100)
    objects = {"im1": [("car", A, False), ("car", a2, False)]}
    dets = [("im1", 0.9, A), ("im1", 0.8, (3, 1, 102, 100))]
    _, ce = run(objects, dets)
    assert verdict_names(ce) == ["tp", "dup"]
    assert ce.best_gt.tolist() == [0, 0]
    # npos 2; rec .5 .5; prec 1 .5 → AP = .5 * 1
    assert ce.ap == 0.5
    assert oracle(objects, dets)["verdicts"] == ["tp", "dup"]


def test_difficult_best_box_is_ignored_even_if_easy_box_qualifies():
    # A difficult, A' easy; det = A: IoU(A) = 1, IoU(A') = 9000/11000 → candidate A → ignored
    a2 = (11, 1, 110, 100)
    objects = {"im1": [("car", A, True), ("car", a2, False)]}
    dets = [("im1", 0.9, A)]
    _, ce = run(objects, dets)
    assert verdict_names(ce) == ["ign"]
    assert ce.npos == 1
    assert math.isnan(ce.precision[0]) and ce.recall[0] == 0.0
    # all-points: every detection ignored and npos > 0 → AP 0; 11-point → NaN (§1.7)
    assert ce.ap == 0.0
    _, ce11 = run(objects, dets, ap_rule="11point")
    assert math.isnan(ce11.ap)


def test_equal_iou_first_box_in_xml_order_wins_and_no_fallback():
    objects = {"im1": [("car", A, False), ("car", A, False)]}
    dets = [("im1", 0.9, A), ("im1", 0.8, A)]
    _, ce = run(objects, dets)
    assert ce.best_gt.tolist() == [0, 0]
    assert verdict_names(ce) == ["tp", "dup"]


def test_score_ties_keep_results_file_order():
    # equal scores: the FP written first ranks first → prec 0, .5; rec 0, 1 → AP = 1 * .5
    objects = {"im1": [("car", A, False)]}
    _, ce = run(objects, [("im1", 0.5, FAR), ("im1", 0.5, A)])
    assert verdict_names(ce) == ["fp", "tp"]
    assert ce.ap == 0.5
    _, ce = run(objects, [("im1", 0.5, A), ("im1", 0.5, FAR)])
    assert ce.ap == 1.0


def test_no_detections_gives_zero_even_without_positives():
    _, ce = run({"im1": [("car", A, False)]}, [])
    assert ce.ap == 0.0 and len(ce) == 0
    _, ce = run({"im1": [("dog", A, False)]}, [])
    assert ce.ap == 0.0 and ce.npos == 0


def test_class_without_positives_but_with_detections():
    objects = {"im1": [("dog", A, False)]}
    dets = [("im1", 0.9, A)]
    _, ce = run(objects, dets)
    assert math.isnan(ce.ap)  # NaN recalls make every step "different"
    _, ce11 = run(objects, dets, ap_rule="11point")
    assert ce11.ap == 0.0  # no entry reaches any level


def test_perfect_detector_11_point_is_not_exactly_one():
    objects = {"im1": [("car", A, False), ("car", B, False)]}
    _, ce = run(objects, [("im1", 0.9, A), ("im1", 0.8, B)], ap_rule="11point")
    assert ce.ap == 1.0000000000000002


def test_leading_ignored_gives_nan_precision():
    objects = {"im1": [("car", A, True), ("car", B, False)]}
    _, ce = run(objects, [("im1", 0.9, A), ("im1", 0.8, B)])
    assert math.isnan(ce.precision[0]) and ce.precision[1] == 1.0
    assert ce.ap == 1.0


def test_images_without_objects_and_float_boxes():
    objects = {"im1": [("car", (10.5, 10.25, 50.75, 60.5), False)], "im2": []}
    dets = [("im2", 0.9, (10, 10, 50, 60)), ("im1", 0.8, (10.5, 10.5, 50, 60))]
    _, ce = run(objects, dets)
    o = oracle(objects, dets)
    assert verdict_names(ce) == o["verdicts"] == ["fp", "tp"]
    assert ce.ap == o["ap"]


def test_nan_ground_truth_box_never_matches():
    objects = {"im1": [("car", (1, 1, float("nan"), 100), False)]}
    _, ce = run(objects, [("im1", 0.9, A)])
    assert verdict_names(ce) == ["fp"] and ce.best_gt[0] == -1


def test_detection_outside_image_set_is_an_error_naming_file_and_line():
    objects = {"im1": [("car", A, False)], "im2": []}
    ds = make_dataset(objects, {"Main/val": ["im1"]})
    rs = make_results(ds, [("car", "im1", 0.9, A), ("car", "im2", 0.8, A)])
    with pytest.raises(FormatError, match=r"im2.*not in image set") as e:
        evaluate_voc_det(ds, rs, image_set="val")
    assert e.value.line == 2 and e.value.path.name == "comp4_det_val_car.txt"
    lenient = evaluate_voc_det(ds, rs, image_set="val", strict=False)
    assert not lenient.official and "dropped" in lenient.notes[0]
    assert lenient.by_name("car").ap == 1.0


def test_image_listed_twice_counts_twice_and_rejects_its_detections():
    objects = {"im1": [("car", A, False)], "im2": [("car", B, False)]}
    ds = make_dataset(objects, {"Main/val": ["im1", "im2", "im2"]})
    car = [ds.class_index("car")]
    res = evaluate_voc_det(
        ds, make_results(ds, [("car", "im1", 0.9, A)]), image_set="val", classes=car
    )
    assert res.classes[0].npos == 3  # the official code loads im2's objects once per list entry
    with pytest.raises(FormatError, match="more than once"):
        evaluate_voc_det(ds, make_results(ds, [("car", "im2", 0.9, B)]), image_set="val")


def test_mean_ap_rule_excludes_nan_and_unsubmitted_classes():
    objects = {"im1": [("car", A, False), ("dog", B, False)]}
    ds = make_dataset(objects, {"Main/val": ["im1"]})
    dets = [("car", "im1", 0.9, A), ("cat", "im1", 0.5, B)]
    rs = make_results(ds, dets, det_classes=["car", "cat", "dog"])
    res = evaluate_voc_det(ds, rs, image_set="val")
    assert res.by_name("car").ap == 1.0
    assert math.isnan(res.by_name("cat").ap)  # detections, no positives
    assert res.by_name("dog").ap == 0.0  # submitted, no detections
    assert res.mean_ap() == (1.0 + 0.0) / 2
    excluded = res.mean_ap_excluded()
    assert excluded["nan_ap"] == ["cat"] and "person" in excluded["no_results"]


def test_default_ap_rule_follows_year():
    objects = {"im1": [("car", A, False), ("car", B, False)]}
    ds07 = make_dataset(objects, {"Main/test": ["im1"]}, year=2007)
    rs = make_results(ds07, [("car", "im1", 0.9, A), ("car", "im1", 0.8, B)])
    assert evaluate_voc_det(ds07, rs, image_set="test").ap_rule == "11point"
    ds12 = make_dataset(objects, {"Main/test": ["im1"]}, year=2012)
    assert evaluate_voc_det(ds12, rs, image_set="test").by_name("car").ap == 1.0


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("ap_rule", ["allpoints", "11point"])
def test_random_sets_match_the_loop_oracle(seed, ap_rule):
    rng = np.random.default_rng(seed)
    n_img = int(rng.integers(1, 8))
    ids = [f"{i:06d}" for i in range(n_img)]
    objects = {}
    for i in ids:
        objs = []
        for _ in range(int(rng.integers(0, 5))):
            x, y = rng.integers(1, 60, size=2)
            w, h = rng.integers(1, 40, size=2)
            objs.append(("car", (x, y, x + w, y + h), bool(rng.random() < 0.25)))
        objects[i] = objs
    dets = []
    for _ in range(int(rng.integers(0, 30))):
        i = ids[int(rng.integers(n_img))]
        if objects[i] and rng.random() < 0.7:  # near a GT box, often a duplicate
            b = np.array(objects[i][int(rng.integers(len(objects[i])))][1], float)
            b = b + rng.integers(-6, 7, size=4) * (rng.random() < 0.7)
            if rng.random() < 0.3:
                b = b + rng.random(4).round(2)
        else:
            x, y = rng.integers(1, 60, size=2)
            b = np.array([x, y, x + rng.integers(1, 40), y + rng.integers(1, 40)], float)
        score = float(rng.integers(0, 5)) / 4  # many ties
        dets.append((i, score, tuple(b.tolist())))
    _, ce = run(objects, dets, ap_rule=ap_rule)
    o = oracle(objects, dets, ap_rule=ap_rule)
    assert verdict_names(ce) == o["verdicts"]
    assert ce.npos == o["npos"]
    np.testing.assert_array_equal(ce.recall, np.array(o["rec"]))
    np.testing.assert_array_equal(ce.precision, np.array(o["prec"]))
    if math.isnan(o["ap"]):
        assert math.isnan(ce.ap)
    else:
        assert abs(ce.ap - o["ap"]) <= 1e-12
