"""VisDrone-DET rules on hand-made cases (PROTOCOLS.md §6, §10)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.evaluation.test_visdrone_reference import evaluate_dirs, reference, write_split
from vocviewer.families.visdrone.evaluate import VISDRONE_IOU_THRESHOLDS
from vocviewer.families.visdrone.matching import overlaps
from vocviewer.families.visdrone.regions import keep_outside_regions, matlab_round

CAR = 4


def run(tmp_path, images):
    split, res = write_split(tmp_path, images)
    got = evaluate_dirs(split, res)
    _, _, ref = reference(images)
    for k, v in ref.items():
        assert (math.isnan(v) and math.isnan(got.summary[k])) or got.summary[k] == pytest.approx(
            v, abs=1e-12
        )
    return got


def test_thresholds_are_matlab_doubles_bit_for_bit():
    expected = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.7999999999999999, 0.85, 0.8999999999999999]
    assert [x.hex() for x in VISDRONE_IOU_THRESHOLDS[:9]] == [x.hex() for x in expected]
    assert VISDRONE_IOU_THRESHOLDS[9] == 0.95
    assert VISDRONE_IOU_THRESHOLDS[6] == np.nextafter(0.8, 0)
    assert VISDRONE_IOU_THRESHOLDS[8] == np.nextafter(0.9, 0)


def test_iou_exactly_085_passes_threshold_8(tmp_path):
    # GT 20x20 = 400; det 17x20 inside: IoU = 340/400 = 0.85 exactly
    _, ov = overlaps(np.array([[0.0, 0, 17, 20]]), np.array([[0.0, 0, 20, 20]]), np.array([False]))
    assert ov[0] == 0.85
    got = run(tmp_path, [([(0, 0, 20, 20, 1, CAR)], [(0, 0, 17, 20, 0.9, CAR)], 0, 0)])
    k = CAR - 1
    assert got.ar[k, 7, 3] == 100.0 and got.ar[k, 8, 3] == 0.0
    assert got.ap[k, 7] == 100.0


@pytest.mark.parametrize(("t", "level"), [(6, 0.8), (8, 0.9)])
def test_one_ulp_below_08_and_09_pass(t, level):
    from vocviewer.families.visdrone.matching import Matcher, PairTable

    ov = float(np.nextafter(level, 0))
    pairs = PairTable(np.array([0]), np.array([0]), np.array([ov]), np.array([False]))
    m = Matcher.create(pairs, np.array([0]), 1)
    assert m.match(VISDRONE_IOU_THRESHOLDS[t], np.array([True]))[0][0] == 1
    assert m.match(level, np.array([True]))[0][0] == 0


def test_cap_one_counts_another_class_row_first(tmp_path):
    gt = [(0, 0, 10, 10, 1, CAR)]
    dets = [(50, 50, 5, 5, 0.1, 1), (0, 0, 10, 10, 0.9, CAR)]  # pedestrian row first in file
    got = run(tmp_path, [(gt, dets, 0, 0)])
    assert got.ar[CAR - 1, :, 0].tolist() == [0.0] * 10  # maxDets=1: the car row is cut
    assert got.ar[CAR - 1, :, 1].tolist() == [100.0] * 10


def test_region_fraction_exactly_half_is_dropped():
    regions = np.array([[1.0, 1, 9, 19]])  # mask rows 1..20, cols 1..10
    # box x=1 → query cols 2..21 (20 wide), rows 2..11: 9 of 20 columns masked → 0.45 kept
    # box x=0.5 rounds to 1 (MATLAB) — same as above
    boxes = np.array([[1.0, 1, 20, 10], [-9.0, 1, 20, 10], [0.5, 1, 20, 10]])
    keep = keep_outside_regions(regions, boxes, 40, 40)
    # second: X=max(1,-9)=1 too; all three identical after clamping/rounding
    assert keep.tolist() == [True, True, True]
    half = np.array([[1.0, 1, 18, 10]])  # cols 2..19 (18), masked 2..10 = 9 → exactly 0.5
    assert keep_outside_regions(regions, half, 40, 40).tolist() == [False]


def test_matlab_rounding_of_half_coordinates():
    assert matlab_round([2.5, 3.5, -2.5]).tolist() == [3.0, 4.0, -3.0]
    regions = np.array([[1.0, 1, 10, 10]])  # mask rows/cols 1..11
    # x = 9.5 → 10 (MATLAB) → cols 11..14: 1 of 4 masked, rows 2..5 → 4/16 kept;
    # w = 1.5 → 2; with np.round (half to even) w would be 2 as well, x 10: same; use 10.5
    # x = 10.5 → 11 → cols 12..: 0 masked; banker's rounding would give 10 → 4/16
    keep = keep_outside_regions(regions, np.array([[10.5, 0.5, 1.5, 1.5]]), 30, 30)
    # X=11, Y=1, w=h=2 → rows 2..3, cols 12..13: nothing masked → kept
    assert keep.tolist() == [True]
    keep = keep_outside_regions(regions, np.array([[8.5, 0.5, 2.5, 2.5]]), 30, 30)
    # X=9, w=h=3 → cols 10..12 (10, 11 masked), rows 2..4 → 6/9 ≥ 0.5 → dropped
    assert keep.tolist() == [False]


def test_region_filter_and_dropped_det_does_not_use_cap(tmp_path):
    gt = [(0, 0, 10, 10, 1, CAR), (30, 30, 10, 10, 0, 0)]
    dets = [(31, 31, 5, 5, 0.99, CAR), (0, 0, 10, 10, 0.5, CAR)]  # first row inside the region
    got = run(tmp_path, [(gt, dets, 60, 60)])
    assert got.det_kept.tolist() == [False, True]
    assert got.ar[CAR - 1, 0, 0] == 100.0  # the dropped row did not use up maxDets=1


def test_score0_gt_in_denominator_and_absorbs_many(tmp_path):
    gt = [(0, 0, 10, 10, 1, CAR), (40, 40, 20, 20, 0, CAR)]
    dets = [(0, 0, 10, 10, 0.9, CAR)] + [(41 + i, 41, 5, 5, 0.8, CAR) for i in range(3)]
    got = run(tmp_path, [(gt, dets, 0, 0)])
    assert got.npos[CAR - 1] == 2
    assert got.ar[CAR - 1, 0, 3] == 50.0  # 1 TP / max(1, 2 GT rows incl. the ignored one)
    assert (got.verdict[1:, 0] == -1).all()
    assert (got.matched_gt[1:, 0] == 1).all()


def test_ignore_and_evaluated_gt_both_qualifying_prefers_evaluated(tmp_path):
    gt = [(0, 0, 10, 10, 0, CAR), (0, 0, 10, 10, 1, CAR)]  # ignore first in the file
    got = run(tmp_path, [(gt, [(0, 0, 10, 10, 0.9, CAR), (0, 0, 10, 10, 0.8, CAR)], 0, 0)])
    assert got.verdict[:, 0].tolist() == [1, -1]
    assert got.matched_gt[:, 0].tolist() == [1, 0]


def test_equal_overlap_goes_to_later_gt(tmp_path):
    gt = [(0, 0, 10, 10, 1, CAR), (0, 0, 10, 10, 1, CAR)]
    got = run(tmp_path, [(gt, [(0, 0, 10, 10, 0.9, CAR)], 0, 0)])
    assert got.matched_gt[0, 0] == 1


def test_det_on_others_box_is_fp(tmp_path):
    gt = [(0, 0, 10, 10, 1, 11), (50, 50, 10, 10, 1, CAR)]
    got = run(tmp_path, [(gt, [(0, 0, 10, 10, 0.9, CAR)], 0, 0)])
    assert got.verdict[0, 0] == 0
    assert got.images_with_class[10 - 1] == 0  # class 11 never evaluated


def test_image_count_weighting_and_classes_without_gt_or_dets(tmp_path):
    # car in 2 images (perfect), pedestrian in 1 image (missed); bus has dets but no GT
    images = [
        ([(0, 0, 10, 10, 1, CAR), (20, 20, 10, 10, 1, 1)], [(0, 0, 10, 10, 0.9, CAR)], 0, 0),
        ([(0, 0, 10, 10, 1, CAR)], [(0, 0, 10, 10, 0.9, CAR), (5, 5, 5, 5, 0.5, 9)], 0, 0),
    ]
    got = run(tmp_path, images)
    assert got.images_with_class.tolist() == [1, 0, 0, 2, 0, 0, 0, 0, 1 - 1, 0]
    assert got.summary["AP"] == pytest.approx((100 * 2 + 0) / 3, abs=1e-12)
    assert got.class_ap()["pedestrian"] == 0.0
    assert got.ndet[9 - 1] == 1 and got.npos[9 - 1] == 0


def test_empty_result_file_means_no_detections(tmp_path):
    images = [([(0, 0, 10, 10, 1, CAR)], [], 0, 0)]
    got = run(tmp_path, images)
    assert got.summary["AP"] == 0.0 and got.official


def test_no_gt_at_all_gives_nan(tmp_path):
    got = run(tmp_path, [([], [(0, 0, 10, 10, 0.9, CAR)], 0, 0)])
    assert math.isnan(got.summary["AP"])


def test_missing_result_file_is_listed_and_not_official(tmp_path):
    split, res = write_split(tmp_path, [([(0, 0, 10, 10, 1, CAR)], None, 0, 0)])
    got = evaluate_dirs(split, res)
    assert not got.official and "missing" in got.notes[0]
    assert got.summary["AP"] == 0.0
