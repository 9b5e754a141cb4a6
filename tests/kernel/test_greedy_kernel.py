"""The compiled VisDrone / ILSVRC DET matching (``vocviewer/kernel/_greedy.c``) against numpy.

Every array of the evaluation (verdicts at every threshold and cap, the object each detection
took or was absorbed by, AP / AR, the region filter's flags) must be equal, dtype included,
between the kernel and ``VOCVIEWER_KERNEL=0``: on generated splits with ignored regions, empty
images, score and overlap ties, NaN / infinite / degenerate boxes and blacklisted detections,
and on raw columns with groups out of every order. (The official numbers are checked by the
parity and reference tests, on whichever path is built.)
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.evaluation.test_ilsvrc import write_fixture
from tests.evaluation.test_visdrone_reference import evaluate_dirs, random_images, write_split
from tests.kernel.switch import numpy_path
from tests.kernel.test_match_kernel import assert_same
from vocviewer import kernel
from vocviewer.families.ilsvrc.evaluate import evaluate_ilsvrc_det
from vocviewer.families.ilsvrc.reader import read_ilsvrc_det, read_ilsvrc_det_results
from vocviewer.families.visdrone.evaluate import VISDRONE_IOU_THRESHOLDS, VISDRONE_MAX_DETS
from vocviewer.families.visdrone.matching import match_all
from vocviewer.families.visdrone.regions import keep_outside_many, keep_outside_regions

_greedy = kernel.load("_greedy")
pytestmark = pytest.mark.skipif(_greedy is None, reason="the _greedy kernel is not built here")

INF, NAN = math.inf, math.nan
#: boxes no reader refuses that overlap nothing (or NaN): ltwh / xyxy alike
ODD_BOXES = [
    (NAN, NAN, NAN, NAN),
    (1.0, 2.0, NAN, 5.0),
    (NAN, 2.0, 10.0, 10.0),
    (-INF, -INF, INF, INF),
    (INF, INF, INF, INF),
    (3.0, 3.0, 0.0, 4.0),  # zero width
    (3.0, 3.0, -2.0, 4.0),  # negative width
    (1e308, 1e308, 1e308, 1e308),
]


def both(run):
    """``run()`` on the kernel, then on the numpy path."""
    got = run()
    with numpy_path():
        want = run()
    return got, want


# ---------------------------------------------------------------------------------------------
# VisDrone


def visdrone_columns(rng: np.random.Generator, n_groups: int):
    """Raw ``match_all`` arguments: boxes on a coarse grid (exact overlap ties), duplicated GT
    and detections, ignore-flagged GT, odd boxes, caps hit in the middle of groups."""
    d_group, d_box, d_score, d_pos, g_group, g_box, g_ign = [], [], [], [], [], [], []
    for grp in rng.permutation(n_groups):
        base = [rng.integers(0, 6, 4).astype(float) * [4, 4, 1, 1] + [0, 0, 4, 4]]
        for _ in range(int(rng.integers(0, 6))):
            base.append(base[-1] if rng.random() < 0.3 else base[0] + rng.integers(-2, 3, 4))
        for b in base[: int(rng.integers(0, len(base) + 1))]:
            g_group.append(grp)
            g_box.append(b if rng.random() > 0.05 else ODD_BOXES[rng.integers(len(ODD_BOXES))])
            g_ign.append(rng.random() < 0.25)
        for _ in range(int(rng.integers(0, 12))):
            b = base[rng.integers(len(base))] + rng.choice([0, 0, 0.5, 1, -1], 4)
            if rng.random() < 0.05:
                b = np.asarray(ODD_BOXES[rng.integers(len(ODD_BOXES))])
            d_group.append(grp)
            d_box.append(b)
            d_score.append(rng.choice([0.25, 0.5, NAN]) if rng.random() < 0.4 else rng.random())
            d_pos.append(int(rng.choice([0, 1, 5, 9, 10, 50, 99, 100, 400])))
    f = np.asarray
    return (
        f(d_group, np.int64),
        f(d_box, float).reshape(-1, 4),
        f(d_score, float),
        f(d_pos, np.int64),
        f(g_group, np.int64),
        f(g_box, float).reshape(-1, 4),
        f(g_ign, bool),
        np.asarray(VISDRONE_IOU_THRESHOLDS),
        np.asarray(VISDRONE_MAX_DETS, dtype=np.int64),
    )


@pytest.mark.parametrize("seed", range(6))
def test_visdrone_match_all_both_paths(seed):
    args = visdrone_columns(np.random.default_rng(seed), 60)
    got, want = both(lambda: match_all(*args))
    assert_same(got, want)
    verdict, taken = got
    assert (verdict == 1).any() and (verdict == -1).any() and (verdict == 0).any()
    assert (taken >= 0).sum() > 20  # not vacuous


def test_visdrone_match_all_empty_inputs():
    rng = np.random.default_rng(0)
    args = list(visdrone_columns(rng, 5))
    for cut in ("det", "gt", "both"):
        a = list(args)
        if cut in ("det", "both"):
            a[0], a[1], a[2], a[3] = a[0][:0], a[1][:0], a[2][:0], a[3][:0]
        if cut in ("gt", "both"):
            a[4], a[5], a[6] = a[4][:0], a[5][:0], a[6][:0]
        got, want = both(lambda a=a: match_all(*a))
        assert_same(got, want, cut)


@pytest.mark.parametrize("seed", range(4))
def test_visdrone_evaluation_both_paths(tmp_path, seed):
    """Ignored regions, 'others', empty images, ties and odd rows through the whole toolkit."""
    rng = np.random.default_rng(100 + seed)
    images = random_images(rng, 25)
    images.append(([], [], 30, 30))  # no objects, no detections
    images.append(([], [(1.0, 1.0, 5.0, 5.0, 0.5, 1)], 30, 30))  # detections only
    for g, d, _, _ in images[:10]:
        for box in ODD_BOXES[: int(rng.integers(0, 4))]:
            d.append((*box, float(rng.random()), int(rng.integers(1, 4))))
        if g and d:
            d.append((*g[0][:4], d[0][4], g[0][5]))  # a score tie on an exact box
    split, res = write_split(tmp_path, images)
    got, want = both(lambda: evaluate_dirs(split, res))
    assert_same(got, want)
    assert (got.verdict == 1).any() and (got.verdict == -1).any() and not got.det_kept.all()


@pytest.mark.parametrize("seed", range(4))
def test_visdrone_region_filter_both_paths(seed):
    """Regions and boxes on half-pixel coordinates (MATLAB rounding), past the image's edges,
    huge, negative, non-finite (a region: that image left to numpy; a box: kept)."""
    rng = np.random.default_rng(seed)
    n_img = 40
    n_reg = rng.integers(1, 5, n_img)
    n_box = rng.integers(0, 30, n_img)
    heights, widths = rng.integers(1, 80, n_img), rng.integers(1, 80, n_img)
    regions = rng.integers(-5, 90, (int(n_reg.sum()), 4)) / rng.choice(
        [1, 2], (int(n_reg.sum()), 4)
    )
    boxes = rng.integers(-5, 90, (int(n_box.sum()), 4)) / rng.choice(
        [1, 2, 4], (int(n_box.sum()), 4)
    )
    regions[rng.random(len(regions)) < 0.05] = (NAN, 1.0, 5.0, 5.0)
    regions[rng.random(len(regions)) < 0.05] = (1.0, 1.0, 1e308, 1e308)
    for b in ODD_BOXES:
        boxes[int(rng.integers(len(boxes)))] = b
    r_off = np.concatenate(([0], np.cumsum(n_reg))).astype(np.int64)
    b_off = np.concatenate(([0], np.cumsum(n_box))).astype(np.int64)
    args = (regions, r_off, boxes, b_off, heights, widths)
    got, want = both(lambda: keep_outside_many(*args))
    assert_same(got, want)
    assert 0 < got.sum() < len(got)
    one = [
        keep_outside_regions(
            regions[r_off[j] : r_off[j + 1]],
            boxes[b_off[j] : b_off[j + 1]],
            int(heights[j]),
            int(widths[j]),
        )
        for j in range(n_img)
    ]
    assert_same(got, np.concatenate(one))


def test_visdrone_kernel_refuses_unsorted_groups_and_bad_indices():
    d_group, d_box, d_score, d_pos, g_group, g_box, g_ign, thr, caps = visdrone_columns(
        np.random.default_rng(1), 8
    )
    order = np.argsort(d_group, kind="stable")
    g_order = np.argsort(g_group, kind="stable")

    def call(order, g_order):
        ign = g_ign.view(np.uint8)
        args = (order, d_group, d_box, d_pos, g_order, g_group, g_box, ign, thr, caps, d_score)
        return _greedy.visdrone_match(*args, 0.5, 1)  # type: ignore[union-attr]

    call(order, g_order)
    with pytest.raises(ValueError, match="out of order"):
        call(order[::-1].copy(), g_order)
    with pytest.raises(ValueError, match="out of order"):
        call(order, g_order[::-1].copy())
    with pytest.raises(ValueError, match="out of range"):
        call(order + len(order), g_order)


# ---------------------------------------------------------------------------------------------
# ILSVRC DET


def ilsvrc_case(rng: np.random.Generator):
    """Images (some empty) with stacked same-class objects (overlap ties, fallbacks), small
    objects (per-object thresholds below 0.5), tied and NaN confidences, odd boxes and a
    blacklist."""
    images, preds = [], []
    for i in range(30):
        objs = []
        for _ in range(int(rng.choice([0, 1, 2, 3, 5]))):
            if objs and rng.random() < 0.3:
                objs.append(objs[-1])  # an exact duplicate object
                continue
            a, b = int(rng.integers(1, 60)), int(rng.integers(1, 60))
            w, h = int(rng.choice([2, 5, 12, 40])), int(rng.choice([3, 8, 30]))
            objs.append((int(rng.integers(0, 3)), a, b, a + w, b + h))
        images.append(objs)
        for _ in range(int(rng.integers(0, 10))):
            score = float(rng.choice([0.5, 0.25])) if rng.random() < 0.4 else rng.random()
            if rng.random() < 0.05:
                score = NAN
            if objs and rng.random() < 0.75:
                c, a, b, x, y = objs[int(rng.integers(len(objs)))]
                j = rng.choice([0, 0, 1, -1, 2], 4)
                box = (a + j[0], b + j[1], x + j[2], y + j[3])
                label = c + 1 if rng.random() < 0.85 else int(rng.integers(1, 5))
            else:
                box = tuple(int(v) for v in rng.integers(1, 80, 4))
                label = int(rng.integers(1, 5))
            if rng.random() < 0.06:
                box = ODD_BOXES[int(rng.integers(len(ODD_BOXES)))]
            preds.append((i + 1, label, score, *box))
    blacklist = [(int(i), int(rng.integers(0, 3))) for i in rng.integers(1, 31, 4)]
    return images, preds, sorted(set(blacklist))


def fmt_row(row):
    return tuple(repr(float(v)) if isinstance(v, float) else v for v in row)


@pytest.mark.parametrize("seed", range(6))
def test_ilsvrc_evaluation_both_paths(tmp_path, seed):
    images, preds, blacklist = ilsvrc_case(np.random.default_rng(seed))
    gt, devkit, pred = write_fixture(tmp_path, images, [fmt_row(p) for p in preds], blacklist)
    ds = read_ilsvrc_det(gt, devkit)
    rs = read_ilsvrc_det_results(ds, pred)
    assert len(rs.detections) == len(preds)
    got, want = both(lambda: evaluate_ilsvrc_det(ds, rs))
    assert_same(got, want)
    assert (got.verdict == 1).any() and (got.verdict == 0).any()


def test_ilsvrc_fallback_and_ties_on_the_kernel(tmp_path):
    """Two identical objects: the first detection takes the first (strict '>'), the second
    falls back to the other one; a third finds none free."""
    images = [[(0, 10, 10, 50, 50), (0, 10, 10, 50, 50)]]
    preds = [(1, 1, 0.9, 10, 10, 50, 50), (1, 1, 0.8, 10, 10, 50, 50), (1, 1, 0.7, 10, 10, 50, 50)]
    gt, devkit, pred = write_fixture(tmp_path, images, preds)
    ds = read_ilsvrc_det(gt, devkit)
    got = evaluate_ilsvrc_det(ds, read_ilsvrc_det_results(ds, pred))
    assert got.matched_gt.tolist() == [0, 1, -1] and got.verdict.tolist() == [1, 1, 0]


def test_ilsvrc_kernel_refuses_bad_offsets():
    box = np.zeros((1, 4))
    one = np.zeros(1, np.int64)
    call = _greedy.ilsvrc_match  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="out of range"):
        call(
            one, one + 3, [0.5], one, box, np.zeros(1, np.uint8), np.array([0, 1]), one, box, [0.5]
        )
    with pytest.raises(ValueError, match="inconsistent"):
        call(
            one, one, [0.5], one, box, np.zeros(1, np.uint8), np.array([0, 1]), one, box, [0.5, 0.5]
        )
    order, image = np.array([0, 1]), np.array([1, 0])  # image 1's detection first
    with pytest.raises(ValueError, match="not by image"):
        call(
            order,
            image,
            [0.5, 0.5],
            order,
            np.zeros((2, 4)),
            np.zeros(2, np.uint8),
            [0, 1, 2],
            order,
            np.zeros((2, 4)),
            [0.5, 0.5],
        )
