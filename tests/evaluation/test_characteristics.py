"""Object characteristics (Hoiem et al.): hand-worked normalised AP per bin, the bin rules, and
cross-checks against the independent normalised-AP and AP code."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from vocviewer.evaluation.characteristics import (
    ClassRanking,
    aspect_bins,
    bin_ap_n,
    characteristic,
    flag_bins,
    percentile_bins,
    range_bins,
    size_bins,
)
from vocviewer.evaluation.normalised_ap import default_normalisers, normalised_aps
from vocviewer.families.registry import open_dataset, open_results
from vocviewer.families.voc.analyze import voc_characteristics
from vocviewer.families.voc.evaluate import evaluate_voc_det


def ranking(tp: list[int], fp: list[int], obj: list[int], label: int = 0) -> ClassRanking:
    return ClassRanking(
        "c", label, np.array(tp, bool), np.array(fp, bool), np.array(obj, dtype=np.int64)
    )


# objects 0, 1 small (bin 0), 2, 3 large (bin 1); ranks: TP on 0, FP, TP on 2, TP on 1
TOY = ranking([1, 0, 1, 1], [0, 1, 0, 0], [0, -1, 2, 1])
TOY_BINS = np.array([0, 0, 1, 1])


def test_hand_worked_bins_sensitivity_and_impact() -> None:
    # N = 2. Small bin: ranks TP(rec .5, P_N = 1), FP (.5·2/(1+1) = .5), ignored, TP (rec 1,
    # 2/(2+1) = 2/3) -> envelope 1, 2/3 -> AP_N = .5·1 + .5·2/3 = 5/6.
    # Large bin: ignored, FP, TP (rec .5: 1/(1+1) = .5), ignored; object 3 missed -> .5·.5 = .25.
    # Overall (4 positives): 1, 1/3, .5, .6 at recalls .25, .25, .5, .75 -> .25·(1 + .6 + .6).
    c = characteristic(
        "size", ("S", "L"), TOY_BINS, [TOY], np.zeros(4, np.int64), np.ones(4, bool), 2.0
    )
    assert c.ap_n[0] == pytest.approx([5 / 6, 0.25], abs=1e-15)
    assert c.npos.tolist() == [[2, 2]]
    assert c.overall == pytest.approx(0.55, abs=1e-15)
    assert c.sensitivity == pytest.approx(5 / 6 - 0.25, abs=1e-15)
    assert c.impact == pytest.approx(5 / 6 - 0.55, abs=1e-15)
    assert np.isnan(c.se).all()  # one class: no standard error
    js = c.to_json()
    assert js["bins"] == ["S", "L"] and js["objects"] == [2, 2] and js["se"] == [None, None]
    assert js["per_class"]["c"]["L"] == {"ap_n": 0.25, "npos": 2}


def test_eleven_point_rule_and_empty_bin() -> None:
    in_small = TOY_BINS == 0
    # 11-point on the small bin: precision 1 up to recall .5 (6 levels), 2/3 after (5 levels)
    assert bin_ap_n(TOY, in_small, 2.0, "11point")[0] == pytest.approx((6 + 5 * 2 / 3) / 11)
    ap, n = bin_ap_n(TOY, np.zeros(4, bool), 2.0)
    assert math.isnan(ap) and n == 0
    with pytest.raises(ValueError, match="AP rule"):
        bin_ap_n(TOY, in_small, 2.0, "101")


def test_ignore_objects_count_once_and_mean_with_standard_error() -> None:
    # class 0: object 0 is an ignore object (difficult) hit by two ignored detections, then a FP:
    # in its bin the first hit is a TP (AP_N 1 at rec 1), the second stays ignored.
    a = ranking([0, 0, 0], [0, 0, 1], [0, 0, -1], label=0)
    # class 1: one object in the bin, found after one FP: P_N = 1·2/(2 + 1) = 2/3
    b = ranking([0, 1], [1, 0], [-1, 1], label=1)
    c = characteristic(
        "difficult",
        ("no", "yes"),
        [1, 1],
        [a, b],
        [0, 1],
        [False, True],
        2.0,
    )
    assert c.ap_n[:, 1].tolist() == pytest.approx([1.0, 2 / 3])
    assert c.mean[1] == pytest.approx(5 / 6)
    assert c.se[1] == pytest.approx(np.std([1.0, 2 / 3], ddof=1) / math.sqrt(2))
    assert np.isnan(c.mean[0])  # "no" holds no object
    assert c.overall == pytest.approx(2 / 3)  # only class 1 has a counted object


def test_percentile_bins_split_10_30_70_90() -> None:
    # np.percentile(1..10, [10, 30, 70, 90]) = 1.9, 3.7, 7.3, 9.1
    v = np.arange(1.0, 11.0)
    b = percentile_bins(np.r_[v, v * 100, np.nan], np.r_[np.zeros(10), np.ones(10), 0], np.ones(21))
    assert b[:10].tolist() == [0, 1, 1, 2, 2, 2, 2, 3, 3, 4]
    assert b[10:20].tolist() == b[:10].tolist()  # within class: the scale does not matter
    assert b[20] == -1  # not finite


def test_size_aspect_flag_and_range_bins() -> None:
    side = np.arange(1.0, 11.0)
    boxes = np.column_stack([np.zeros(10), np.zeros(10), side, side])  # squares
    label = np.zeros(10, dtype=np.int64)
    assert size_bins(boxes, label, np.ones(10, bool)).tolist() == [0, 1, 1, 2, 2, 2, 2, 3, 3, 4]
    wide = np.column_stack([np.zeros(10), np.zeros(10), side, np.full(10, 5.0)])
    assert aspect_bins(wide, label, np.ones(10, bool))[[0, 9]].tolist() == [0, 4]  # tall → wide
    mask = np.array([True, True, False])
    assert flag_bins([True, False, True], mask).tolist() == [1, 0, -1]
    area = [10.0, 32.0**2, 5000.0, 1e11]
    edges = (0.0, 32.0**2, 96.0**2, 1e10)
    assert range_bins(area, edges, np.ones(4, bool)).tolist() == [0, 1, 1, -1]


@pytest.fixture(scope="module")
def voc(demo: Any) -> Any:
    ds = open_dataset(demo.year_dir)
    res = open_results(ds, [demo.results_dir], image_set="val")
    return ds, evaluate_voc_det(ds, res, image_set="val")


def test_voc_overall_equals_the_normalised_ap_module(voc: Any) -> None:
    """The overall AP_N (every non-difficult object) is ``normalised_ap``'s, computed apart."""
    ds, ev = voc
    n_pos, _ = default_normalisers(ev)
    chars = voc_characteristics(ds, ev, n_pos)
    apn = normalised_aps(ev, n_pos=n_pos)
    expected = np.nanmean([apn[c.class_name] for c in ev.classes if c.has_results])
    for c in chars.values():
        assert c.overall == pytest.approx(expected, abs=1e-12)
    # "difficult: no" is every counted object again, class by class
    no = chars["difficult"].ap_n[:, 0]
    names = chars["difficult"].class_names
    assert no == pytest.approx([apn[n] for n in names], abs=1e-12, nan_ok=True)
    # the bins partition the counted objects
    counted = chars["size"].npos.sum(axis=1)
    assert (chars["aspect"].npos.sum(axis=1) == counted).all()
    assert (chars["truncated"].npos.sum(axis=1) == counted).all()


def test_n_equal_to_the_class_positives_gives_plain_ap(voc: Any) -> None:
    """Eq. 6 with N = npos is precision itself, so the one-bin AP_N is VOC's AP."""
    ds, ev = voc
    for c in ev.classes:
        if not c.has_results or c.npos == 0:
            continue
        chars = voc_characteristics(ds, ev, float(c.npos))
        k = chars["difficult"].class_names.index(c.class_name)
        assert chars["difficult"].ap_n[k, 0] == pytest.approx(c.ap, abs=1e-12)
