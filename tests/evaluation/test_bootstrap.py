"""Bootstrap over images: the vectorised replicates against vocviewer's own VOC evaluation.

The independent check is the plain loop: evaluate the explicitly resampled image list (every
drawn copy of an image a new image with its objects and detections) with ``evaluate_voc_det`` /
``evaluate_voc_cls`` and compare with the weighted replicate of the same draw.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from tests.evaluation.builders import make_dataset, make_results
from tests.evaluation.synthetic_voc import make_synthetic, resample
from vocviewer.core.dataset import VOC_CLASSES
from vocviewer.evaluation.ap import VOC07_RECALL_LEVELS
from vocviewer.evaluation.bootstrap import (
    BootstrapCancelled,
    EvidenceSet,
    bootstrap,
    iter_bootstrap,
    replicate_images,
)
from vocviewer.evaluation.bootstrap_stats import A_BETTER, B_BETTER, NO_DIFFERENCE
from vocviewer.evaluation.result import Verdict
from vocviewer.families.voc.bootstrap import voc_cls_evidence, voc_det_evidence
from vocviewer.families.voc.evaluate import evaluate_voc_cls, evaluate_voc_det

RULES = ("allpoints", "11point")


def det_evidence(ds, rs, rule, name="A"):
    ev = evaluate_voc_det(ds, rs, image_set="test", ap_rule=rule)
    return ev, voc_det_evidence(ds, ev, name)


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_identity_replicate_is_the_official_ap_bit_for_bit(rule, seed):
    # ties in scores (2 decimals) and difficult objects included
    ds, rs = make_synthetic(120, 2500, seed, score_decimals=2 if seed else None)
    ev, es = det_evidence(ds, rs, rule)
    res = bootstrap([es], 5, seed=seed)
    official = np.array([c.ap for c in ev.classes])
    assert np.array_equal(res.point_ap[0], official, equal_nan=True)
    assert res.point_map[0] == ev.mean_ap()
    assert np.all(np.abs(res.point_ap[0] - official) <= 1e-12)


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize(("seed", "n_images", "n_dets"), [(3, 150, 3000), (4, 60, 900), (5, 8, 60)])
def test_replicate_equals_evaluating_the_resampled_image_list(rule, seed, n_images, n_dets):
    ds, rs = make_synthetic(n_images, n_dets, seed)
    _, es = det_evidence(ds, rs, rule)
    n_rep = 6
    res = bootstrap([es], n_rep, seed=seed, recall_grid=VOC07_RECALL_LEVELS, chunk=4)
    undefined = 0
    for r in range(n_rep):
        ds2, rs2 = resample(ds, rs, replicate_images(seed, r, es.n_units))
        ev2 = evaluate_voc_det(ds2, rs2, image_set="test", ap_rule=rule)
        ref = np.array([c.ap for c in ev2.classes])
        got = res.ap[0, r]
        assert np.array_equal(np.isnan(ref), np.isnan(got))
        ok = ~np.isnan(ref)
        # all points: one weighted step vs w equal steps, so equal up to the last bits
        assert np.all(np.abs(ref[ok] - got[ok]) <= 1e-12)
        if rule == "11point":
            assert np.array_equal(ref, got, equal_nan=True)
        assert math.isclose(ev2.mean_ap(), res.map[0, r], abs_tol=1e-12)
        undefined += int(np.isnan(ref).sum())
        for k, c in enumerate(ev2.classes):  # the PR band samples: the official 11-point samples
            for i, t in enumerate(VOC07_RECALL_LEVELS):
                sel = c.precision[c.recall >= t]
                p = float(np.fmax.reduce(sel)) if len(sel) else 0.0
                assert np.array_equal(p, res.precision[0, k, r, i], equal_nan=True)
    if n_images == 8:  # the tiny case reaches classes without positives in a replicate
        assert rule == "11point" or undefined > 0


@pytest.mark.parametrize("rule", RULES)
def test_tiny_samples_with_empty_and_ignored_classes_match_the_resampled_list(rule):
    """Few images, many difficult objects: replicates without positives, without detections,
    or starting with ignored detections — every official edge case (PROTOCOLS.md §10)."""
    edges = dict.fromkeys(("no positives", "no detections", "ignored first"), 0)
    for seed in range(8):
        ds, rs = make_synthetic(5, 40, 50 + seed, difficult=0.4, quality=0.7)
        _, es = det_evidence(ds, rs, rule)
        res = bootstrap([es], 12, seed=seed)
        for r in range(12):
            ds2, rs2 = resample(ds, rs, replicate_images(seed, r, es.n_units))
            ev2 = evaluate_voc_det(ds2, rs2, image_set="test", ap_rule=rule)
            ref = np.array([c.ap for c in ev2.classes])
            assert np.allclose(ref, res.ap[0, r], rtol=0, atol=1e-12, equal_nan=True), (seed, r)
            assert math.isclose(ev2.mean_ap(), res.map[0, r], abs_tol=1e-12)
            for c in ev2.classes:
                edges["no positives"] += c.npos == 0 and len(c) > 0
                edges["no detections"] += len(c) == 0
                edges["ignored first"] += len(c) > 0 and c.verdict[0] == Verdict.IGNORED
    assert min(edges.values()) > 0, edges


def test_classification_replicate_equals_the_resampled_image_list():
    rng = np.random.default_rng(7)
    ids = [f"im{i}" for i in range(40)]
    objects = {
        i: [
            (VOC_CLASSES[int(c)], (1, 1, 50, 50), bool(rng.random() < 0.2))
            for c in rng.integers(0, 3, rng.integers(0, 3))
        ]
        for i in ids
    }
    classes = VOC_CLASSES[:3]
    scores = [(c, i, float(rng.random())) for c in classes for i in ids]
    ds = make_dataset(objects, {"Main/test": ids})
    rs = make_results(ds, scores=scores, cls_classes=classes)
    ks = [ds.class_index(c) for c in classes]
    for rule in RULES:
        ev = evaluate_voc_cls(ds, rs, image_set="test", ap_rule=rule, classes=ks)
        es = voc_cls_evidence(ds, ev, "A")
        res = bootstrap([es], 4, seed=11)
        assert np.array_equal(res.point_ap[0], [c.ap for c in ev.classes], equal_nan=True)
        for r in range(4):
            draw = replicate_images(11, r, es.n_units)
            new = [f"{ids[u]}#{j}" for j, u in enumerate(draw)]
            ds2 = make_dataset(
                {n: objects[ids[u]] for n, u in zip(new, draw, strict=True)}, {"Main/test": new}
            )
            s2 = [
                (c, n, s)
                for c, i, s in scores
                for n, u in zip(new, draw, strict=True)
                if ids[u] == i
            ]
            rs2 = make_results(ds2, scores=s2, cls_classes=classes)
            ev2 = evaluate_voc_cls(ds2, rs2, image_set="test", ap_rule=rule, classes=ks)
            ref = np.array([c.ap for c in ev2.classes])
            assert np.allclose(ref, res.ap[0, r], rtol=0, atol=1e-12, equal_nan=True)


def test_seeded_replicates_reproduce_and_do_not_depend_on_the_chunk_size():
    ds, rs = make_synthetic(100, 2000, 8)
    _, es = det_evidence(ds, rs, "allpoints")
    a = bootstrap([es], 50, seed=42)
    b = bootstrap([es], 50, seed=42, chunk=7)
    c = bootstrap([es], 50, seed=43)
    assert np.array_equal(a.ap, b.ap, equal_nan=True) and np.array_equal(a.map, b.map)
    assert not np.array_equal(a.map, c.map)
    assert np.array_equal(replicate_images(42, 3, 100), replicate_images(42, 3, 100))


def test_interval_contains_the_point_and_narrows_as_images_are_added():
    widths = []
    for n in (150, 1200):
        ds, rs = make_synthetic(n, 20 * n, 9)
        _, es = det_evidence(ds, rs, "allpoints")
        res = bootstrap([es], 300, seed=1)
        i = res.interval("A")
        assert i.low <= i.point <= i.high and i.replicates == 300 and i.level == 0.95
        widths.append(i.high - i.low)
    assert widths[1] < 0.6 * widths[0]  # ~ 1/sqrt(8) expected


def test_interval_coverage_and_width_on_independent_samples():
    """Across independent samples of one synthetic detector, the bootstrap's spread matches the
    spread of the point estimates, and the 95% intervals cover their mean in most samples (the
    AP envelope is biased upwards on small samples, so coverage is a bit below nominal)."""
    points, intervals, spreads = [], [], []
    for s in range(40):
        ds, rs = make_synthetic(200, 4000, 100 + s)
        _, es = det_evidence(ds, rs, "allpoints")
        res = bootstrap([es], 200, seed=s)
        i = res.interval("A")
        points.append(i.point)
        intervals.append((i.low, i.high))
        spreads.append(np.std(res.map[0]))
    truth = np.mean(points)
    coverage = np.mean([lo <= truth <= hi for lo, hi in intervals])
    assert 0.75 <= coverage <= 1.0
    assert 0.7 < np.mean(spreads) / np.std(points) < 1.4


def test_paired_difference_of_a_set_with_itself_is_exactly_zero():
    ds, rs = make_synthetic(100, 2000, 10)
    _, es = det_evidence(ds, rs, "11point")
    twin = EvidenceSet("B", es.ap_rule, es.classes, es.unit_key)
    res = bootstrap([es, twin], 200, seed=0)
    for cls in (None, "car"):
        p = res.paired("A", "B", cls)
        d = p.difference
        assert (d.point, d.low, d.median, d.high) == (0.0, 0.0, 0.0, 0.0)
        assert p.verdict == NO_DIFFERENCE
    assert np.all(res.map[0] == res.map[1])


def three_detectors(rule="allpoints"):
    sets = []
    for name, quality in (("good", 0.8), ("fair", 0.5), ("poor", 0.2)):
        ds, rs = make_synthetic(300, 6000, 12, quality=quality)
        sets.append(det_evidence(ds, rs, rule, name)[1])
    return sets


def test_paired_verdicts_and_rank_ranges_of_clearly_separated_sets():
    res = bootstrap(three_detectors(), 300, seed=5)
    assert res.point_map[0] > res.point_map[1] > res.point_map[2]
    assert res.paired("good", "poor").verdict == A_BETTER
    assert res.paired("poor", "fair").verdict == B_BETTER
    ranks = {r.name: (r.rank, r.low, r.high) for r in res.rank_ranges()}
    assert ranks == {"good": (1, 1, 1), "fair": (2, 2, 2), "poor": (3, 3, 3)}
    assert res.leaders() == ["good"]
    summary = res.summary()
    assert summary["replicates"] == 300 and summary["seed"] == 5
    assert [p["verdict"] for p in summary["paired"]] == [A_BETTER, A_BETTER, A_BETTER]
    assert summary["ranks"]["poor"] == {"rank": 3, "range": [3, 3]}
    m = summary["sets"]["good"]["mAP"]
    assert m["point"] == res.point_map[0] and m["replicates"] == 300 and m["level"] == 0.95
    assert json.loads(json.dumps(summary)) == summary


def test_rank_ranges_overlap_for_equal_sets():
    ds, rs = make_synthetic(100, 2000, 13)
    _, a = det_evidence(ds, rs, "allpoints", "a")
    _, rs_b = make_synthetic(100, 2000, 13, quality=0.5)  # the same detector, same data
    _, b = det_evidence(ds, rs_b, "allpoints", "b")
    res = bootstrap([a, b], 100, seed=0)
    assert [(r.rank, r.low, r.high) for r in res.rank_ranges()] == [(1, 1, 1), (1, 1, 1)]
    assert res.leaders() == ["a", "b"] and res.leaders("car") == ["a", "b"]


def test_pr_bands_bracket_the_point_curve_and_match_the_11_point_ap():
    ds, rs = make_synthetic(200, 4000, 14)
    ev, es = det_evidence(ds, rs, "11point")
    res = bootstrap([es], 200, seed=0, recall_grid=VOC07_RECALL_LEVELS)
    for k, c in enumerate(ev.classes):
        ap = 0.0
        for p in res.point_precision[0, k]:
            ap = ap + p / 11
        assert ap == c.ap
    grid, point, lo, hi = res.pr_band("A", "car")
    assert grid.tolist() == list(VOC07_RECALL_LEVELS)
    assert np.all(lo <= hi) and np.mean((lo <= point) & (point <= hi)) >= 0.8


def test_progress_and_cancel_between_chunks():
    ds, rs = make_synthetic(60, 800, 15)
    _, es = det_evidence(ds, rs, "allpoints")
    seen = []
    bootstrap([es], 25, seed=0, chunk=10, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(10, 25), (20, 25), (25, 25)]
    polls = []

    def cancelled():
        polls.append(1)
        return len(polls) > 1

    with pytest.raises(BootstrapCancelled, match="after 10 of 25"):
        bootstrap([es], 25, seed=0, chunk=10, cancelled=cancelled)
    chunks = list(iter_bootstrap([es], 25, seed=0, chunk=10))
    assert [(c.first, c.count, c.ap.shape) for c in chunks] == [
        (0, 10, (1, 10, 20)),
        (10, 10, (1, 10, 20)),
        (20, 5, (1, 5, 20)),
    ]


def test_sets_on_other_images_are_refused():
    ds, rs = make_synthetic(50, 500, 16)
    _, a = det_evidence(ds, rs, "allpoints", "a")
    ds2, rs2 = make_synthetic(51, 500, 16)
    _, b = det_evidence(ds2, rs2, "allpoints", "b")
    with pytest.raises(ValueError, match="other images"):
        bootstrap([a, b], 10)
