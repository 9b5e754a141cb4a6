"""AP rules and threshold lists, bit for bit."""

from __future__ import annotations

import math

import numpy as np

from tests.evaluation import oracles
from vocviewer.evaluation.ap import (
    VOC07_RECALL_LEVELS,
    voc_ap_11_point,
    voc_ap_all_points,
    voc_precision_recall,
)


def test_recall_levels_are_matlabs_colon_bit_for_bit():
    built = oracles.matlab_colon_0_01_1()
    assert [x.hex() for x in VOC07_RECALL_LEVELS] == [x.hex() for x in built]
    assert VOC07_RECALL_LEVELS[3] == math.nextafter(0.3, 1.0)
    assert VOC07_RECALL_LEVELS[6] == 0.6 and VOC07_RECALL_LEVELS[7] == 0.7
    # and they are not what arange gives
    assert list(np.arange(0, 1.1, 0.1)) != list(VOC07_RECALL_LEVELS)


def test_11_point_recall_six_tenths_reaches_level_six():
    # levels 0, .1, .2, .3+ulp, .4, .5, .6 are reached by recall 6/10 → 7 contributions of 1/11
    expected = 0.0
    for _ in range(7):
        expected += 1.0 / 11
    assert voc_ap_11_point([6 / 10], [1.0]) == expected


def test_11_point_recall_three_tenths_misses_level_four():
    expected = 0.0
    for _ in range(3):  # 0, .1, .2 only: 0.3 < 0.30000000000000004
        expected += 1.0 / 11
    assert voc_ap_11_point([3 / 10], [1.0]) == expected


def test_all_points_envelope_skips_nan():
    # prec NaN at rank 1 (ignored), rec 0 → 0 → .5 → 1
    rec = [0.0, 0.5, 1.0]
    prec = [math.nan, 1.0, 0.5]
    # mpre = [0, nan, 1, .5, 0] → envelope [1, 1, 1, .5, 0]; steps at i=2 (0→.5) and i=3 (.5→1)
    assert voc_ap_all_points(rec, prec) == 0.5 * 1.0 + 0.5 * 0.5
    assert voc_ap_all_points(rec, prec) == oracles.vocap(rec, prec)


def test_empty_curve():
    assert voc_ap_all_points([], []) == 0.0
    assert voc_ap_11_point([], []) == 0.0


def test_precision_recall_formulas():
    prec, rec = voc_precision_recall([0, 1, 0, 1], [0, 0, 1, 0], 4)
    assert math.isnan(prec[0])
    assert prec[1:].tolist() == [1.0, 0.5, 2 / 3]
    assert rec.tolist() == [0.0, 0.25, 0.25, 0.5]
    _, rec0 = voc_precision_recall([0, 0], [1, 1], 0)
    assert np.isnan(rec0).all()


def test_random_curves_match_oracle():
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(0, 40))
        tp = rng.random(n) < 0.5
        ign = rng.random(n) < 0.15
        npos = int(tp.sum() + rng.integers(0, 4))
        prec, rec = voc_precision_recall(tp & ~ign, ~tp & ~ign, npos)
        ref_all = oracles.vocap(rec.tolist(), prec.tolist())
        ref_11 = oracles.ap11(rec.tolist(), prec.tolist())
        for ours, ref in (
            (voc_ap_all_points(rec, prec), ref_all),
            (voc_ap_11_point(rec, prec), ref_11),
        ):
            assert (math.isnan(ours) and math.isnan(ref)) or abs(ours - ref) <= 1e-12
