"""VOC classification: hand-worked cases and the loop oracle."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.evaluation import oracles
from tests.evaluation.builders import make_dataset, make_results
from vocviewer.core.dataset import ImageLabels
from vocviewer.core.errors import FormatError
from vocviewer.evaluation.result import Verdict
from vocviewer.families.voc.evaluate import evaluate_voc_cls

BOX = (1, 1, 10, 10)


def dataset_with_labels(labels):
    """labels: [(id, label)] for class 'car' in list order (stored as Main/car_val.txt)."""
    ids = [i for i, _ in labels]
    ds = make_dataset({}, {"Main/val": ids})
    rows = [ds.image_index(i) for i in ids]
    lab = ImageLabels(np.array(rows), np.array([x for _, x in labels], dtype=np.int8))
    object.__setattr__(ds, "class_labels", {("val", "car"): lab})
    return ds


def evaluate(labels, scores, ap_rule="allpoints"):
    ds = dataset_with_labels(labels)
    rs = make_results(ds, scores=[("car", i, s) for i, s in scores])
    res = evaluate_voc_cls(
        ds, rs, image_set="val", ap_rule=ap_rule, classes=[ds.class_index("car")]
    )
    return ds, res.classes[0]


def test_missing_score_ranked_last_duplicate_line_last_wins_label_zero_neither():
    labels = [("a", 1), ("b", -1), ("c", 0), ("d", 1)]
    # b first scored .9 then .1 (last wins); d has no line → -inf, ranked last
    scores = [("b", 0.9), ("a", 0.8), ("c", 0.7), ("b", 0.1)]
    ds, ce = evaluate(labels, scores)
    assert [str(ds.images.id[i]) for i in ce.order] == ["a", "c", "b", "d"]
    assert ce.verdict.tolist() == [Verdict.TP, Verdict.IGNORED, Verdict.FP, Verdict.TP]
    # npos 2: rec .5 .5 .5 1; prec 1 1 .5 2/3 → AP = .5 * 1 + .5 * 2/3
    assert ce.recall.tolist() == [0.5, 0.5, 0.5, 1.0]
    assert ce.ap == 0.5 * 1.0 + 0.5 * (2 / 3)
    assert ce.ndet == 3


def test_ties_keep_ground_truth_list_order():
    labels = [("a", -1), ("b", 1)]
    _, ce = evaluate(labels, [("b", 0.5), ("a", 0.5)])
    assert ce.verdict.tolist() == [Verdict.FP, Verdict.TP]  # list order, not results order
    assert ce.ap == 0.5


def test_derived_labels_when_no_class_file():
    objects = {"x": [("car", BOX, False)], "y": [("car", BOX, True)], "z": [("dog", BOX, False)]}
    ds = make_dataset(objects, {"Main/val": ["x", "y", "z"]})
    gt = ds.image_class_labels("val", "car")
    assert gt.label.tolist() == [1, 0, -1]


def test_unknown_image_is_an_error():
    ds = dataset_with_labels([("a", 1)])
    ds2 = make_dataset({}, {"Main/val": ["a"]}, image_ids=["a", "zz"])
    object.__setattr__(ds2, "class_labels", ds.class_labels)
    rs = make_results(ds2, scores=[("car", "zz", 0.5)])
    with pytest.raises(FormatError, match="'zz' is not in image set 'car_val'"):
        evaluate_voc_cls(ds2, rs, image_set="val")


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("ap_rule", ["allpoints", "11point"])
def test_random_against_oracle(seed, ap_rule):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 25))
    labels = [(f"i{j:03d}", int(rng.choice([-1, 0, 1]))) for j in range(n)]
    scores = [
        (labels[int(rng.integers(n))][0], float(rng.integers(0, 6)) / 5)
        for _ in range(int(rng.integers(0, 2 * n)))
    ]
    _, ce = evaluate(labels, scores, ap_rule)
    o = oracles.voc_cls_class(labels, scores, ap_rule)
    names = {Verdict.TP: "tp", Verdict.FP: "fp", Verdict.IGNORED: "ign"}
    assert [names[Verdict(v)] for v in ce.verdict] == o["verdicts"]
    np.testing.assert_array_equal(ce.precision, np.array(o["prec"]))
    assert (math.isnan(ce.ap) and math.isnan(o["ap"])) or abs(ce.ap - o["ap"]) <= 1e-12
