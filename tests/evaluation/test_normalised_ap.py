"""Normalised AP (IJCV 2015 eq. 5-6): hand-derived cases and the paper's default constants."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.evaluation.builders import make_dataset, make_results
from tests.evaluation.synthetic_voc import make_synthetic
from vocviewer.evaluation.normalised_ap import (
    default_normalisers,
    normalised_ap,
    normalised_aps,
    normalised_precision_cls,
)
from vocviewer.families.voc.evaluate import evaluate_voc_cls, evaluate_voc_det

BOX = (1, 1, 50, 50)
FAR = (200, 200, 250, 250)


def det_case(ap_rule):
    """car: 2 positives in images a, b; ranked: TP (a), FP (c), TP (b)."""
    ds = make_dataset(
        {"a": [("car", BOX, False)], "b": [("car", BOX, False)]}, {"Main/test": ["a", "b", "c"]}
    )
    rs = make_results(
        ds, dets=[("car", "a", 0.9, BOX), ("car", "c", 0.8, FAR), ("car", "b", 0.7, BOX)]
    )
    k = ds.class_index("car")
    return evaluate_voc_det(ds, rs, image_set="test", ap_rule=ap_rule, classes=[k])


def test_detection_hand_derived():
    """N = 4: recall .5, .5, 1 and FP 0, 1, 1 give normalised precision
    .5·4/(2+0) = 1, 2/(2+1) = 2/3, 4/(4+1) = 0.8 (eq. 6).
    All points: envelope 1, .8, .8 → .5·1 + .5·.8 = 0.9 (plain AP: .5·1 + .5·2/3 = 5/6).
    11 points: levels 0…0.5 → 1, levels 0.6…1 → 0.8 → (6·1 + 5·0.8)/11 = 10/11."""
    ev = det_case("allpoints").classes[0]
    assert math.isclose(ev.ap, 5 / 6, abs_tol=1e-15)
    assert math.isclose(normalised_ap(ev, "allpoints", n_pos=4), 0.9, abs_tol=1e-15)
    assert math.isclose(normalised_ap(ev, "11point", n_pos=4), 10 / 11, abs_tol=1e-15)
    # N equal to the class's own npos gives back plain precision, so plain AP
    assert math.isclose(normalised_ap(ev, "allpoints", n_pos=2), ev.ap, abs_tol=1e-15)
    # a larger N forgives false positives more; N → 0 weighs them fully
    assert normalised_ap(ev, "allpoints", n_pos=100) > 0.9 > normalised_ap(ev, "allpoints", 1)


def test_classification_hand_derived():
    """2 positives, 2 negatives ranked P, N, P, N; N̄pos = 1, N̄neg = 3 (eq. 5):
    TPR .5, .5, 1, 1; FPR 0, .5, .5, 1 → 1, .5/(.5+1.5) = .25, 1/(1+1.5) = .4, 1/(1+3) = .25;
    all points: .5·1 + .5·.4 = 0.7."""
    prec, rec = normalised_precision_cls([1, 0, 1, 0], [0, 1, 0, 1], 2, 2, 1.0, 3.0)
    assert np.allclose(prec, [1, 0.25, 0.4, 0.25]) and rec.tolist() == [0.5, 0.5, 1, 1]
    ds = make_dataset(
        {"p1": [("car", BOX, False)], "p2": [("car", BOX, False)]},
        {"Main/test": ["p1", "n1", "p2", "n2"]},
    )
    scores = [("car", "p1", 0.9), ("car", "n1", 0.8), ("car", "p2", 0.7), ("car", "n2", 0.6)]
    rs = make_results(ds, scores=scores)
    k = ds.class_index("car")
    ev = evaluate_voc_cls(ds, rs, image_set="test", ap_rule="allpoints", classes=[k])
    assert math.isclose(normalised_ap(ev.classes[0], "allpoints", 1.0, 3.0), 0.7, abs_tol=1e-15)
    with pytest.raises(ValueError, match="n_neg"):
        normalised_ap(ev.classes[0], "allpoints", 1.0)


def test_default_constants_are_the_class_averages():
    ds, rs = make_synthetic(200, 3000, 3)
    det = evaluate_voc_det(ds, rs, image_set="test", ap_rule="allpoints")
    n_pos, n_neg = default_normalisers(det)
    assert n_pos == np.mean([c.npos for c in det.classes if c.npos]) and math.isnan(n_neg)
    aps = normalised_aps(det)
    assert list(aps) == [c.class_name for c in det.classes]
    assert aps["car"] == normalised_ap(det.by_name("car"), "allpoints", n_pos)
    # overriding N: the class's own npos gives its plain AP back
    car = det.by_name("car")
    assert math.isclose(normalised_aps(det, n_pos=car.npos)["car"], car.ap, abs_tol=1e-12)
    # classification: negatives are the label -1 images of each class
    ds_c = make_dataset(
        {"a": [("car", BOX, False)], "b": [("dog", BOX, False)]}, {"Main/test": ["a", "b", "c"]}
    )
    rs_c = make_results(ds_c, scores=[("car", "a", 1.0), ("dog", "b", 1.0)])
    cls = evaluate_voc_cls(ds_c, rs_c, image_set="test", ap_rule="allpoints")
    # only car and dog have positives (one image each); each has the 2 other images as negatives
    assert default_normalisers(cls) == (1.0, 2.0)
