"""The Ultralytics column: its rules on cases derived by hand, and black-box against the
``ultralytics`` package where it is installed (skipped otherwise: it pulls torch, so it is not
in the test extra)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.parity.yolo_data import make_yolo
from vocviewer.cli import main
from vocviewer.families.yolo import ultralytics_rules as ur


def test_matching_is_greedy_by_confidence_best_free_object_first():
    """Objects g1, g2; detections d0, d1 (d0 more confident) with IoU g1-d1 .6, g2-d0 .9,
    g2-d1 .7. d0 takes g2 (its best) at every threshold up to .9 (the ninth, 0.8999...); at .95
    it takes nothing, so g2 stays free. d1 then takes the best free object: g1 (.6) where g2 is
    taken — true at .50, .55 and .60 (linspace's third value is exactly 0.6) — and g2 (.7) at
    .95, false there."""
    iou = np.array([[0.0, 0.6], [0.9, 0.7]])
    correct = ur.match(iou)
    assert correct.tolist() == [[True] * 9 + [False], [True] * 3 + [False] * 7]


def test_a_perfect_detector_scores_0_995():
    """The trapezoid between recall 0.99 (precision 1) and the end point (recall 1, precision
    0) halves the last 1/100: 0.99 + 0.01 / 2 = 0.995 (Ultralytics' well-known ceiling); COCO's
    step rule gives 1."""
    box = np.array([[10.0, 10.0, 50.0, 40.0], [60.0, 5.0, 90.0, 70.0]])
    gt = ur.Boxes(np.array([0, 0]), np.array([0, 1]), box)
    dets = ur.Boxes(np.array([0, 0]), np.array([0, 1]), box, np.array([0.9, 0.8]))
    m = ur.evaluate(gt, dets, 1)
    assert m.map50 == pytest.approx(0.995, abs=1e-12)
    assert m.map == pytest.approx(0.995, abs=1e-12)
    step = ur.evaluate(gt, dets, 1, coco_interpolation=True)
    assert step.map == pytest.approx(1.0, abs=1e-12)


def test_conf_threshold_and_detection_cap():
    n = 305
    dets = ur.Boxes(
        np.zeros(n, dtype=np.int64),
        np.arange(n, dtype=np.int64) % 2,
        np.tile([0.0, 0.0, 10.0, 10.0], (n, 1)),
        np.r_[np.linspace(0.9, 0.01, n - 1), 0.001],  # the last is not above 0.001
    )
    assert len(ur.kept(dets, 0.001, 300)) == 300  # 304 above the threshold, 300 kept
    assert len(ur.kept(dets, 0.001, 1000)) == n - 1
    assert len(ur.kept(dets, -np.inf, 100, per_class_cap=True)) == 200  # 100 per class


def test_the_explanation_names_the_rules_that_moved(tmp_path):
    case = make_yolo(tmp_path, "detect", seed=3)
    out = tmp_path / "o.json"
    assert main(["eval", str(case.yaml), "--results", str(case.pred_txt), "--json", str(out)]) == 0
    p = json.loads(out.read_text())
    u = p["ultralytics"]
    steps = u["steps"]
    assert [s["rule"] for s in steps] == [
        "ultralytics",
        "maxDets",
        "conf",
        "interpolation",
        "matching",
    ]
    assert steps[0]["mAP50-95"] == u["summary"]["mAP50-95"]
    assert steps[-1]["mAP50-95"] == p["summary"]["AP"]  # the chain ends at COCO's number
    assert any("interpolation" in line and "moves mAP50-95" in line for line in u["explanation"])


# --- black box against the package -------------------------------------------------------------
def test_black_box_against_ultralytics():
    """Our ``match`` and ``ap_per_class`` against the package's ``match_predictions`` and
    ``ap_per_class`` on the same generated inputs (max difference: 1e-9)."""
    pytest.importorskip("ultralytics")
    torch = pytest.importorskip("torch")
    from ultralytics.models.yolo.detect import DetectionValidator
    from ultralytics.utils.metrics import ap_per_class

    rng = np.random.default_rng(0)
    validator = DetectionValidator()
    validator.iouv = torch.linspace(0.5, 0.95, 10)
    tps, confs, pcls, tcls = [], [], [], []
    for _ in range(40):
        m, n = int(rng.integers(0, 6)), int(rng.integers(0, 8))
        g = rng.integers(0, 3, m)
        d = rng.integers(0, 3, n)
        iou = rng.uniform(0, 1, (m, n)) * (g[:, None] == d[None, :])
        theirs = validator.match_predictions(torch.tensor(d), torch.tensor(g), torch.tensor(iou))
        ours = ur.match(iou)
        assert np.array_equal(np.asarray(theirs.cpu()), ours)
        tps.append(ours)
        confs.append(rng.uniform(0, 1, n))
        pcls.append(d)
        tcls.append(g)
    tp, conf, pc, tc = map(np.concatenate, (tps, confs, pcls, tcls))
    ref = ap_per_class(tp, conf, pc, tc)
    got = ur.ap_per_class(tp, conf, pc, tc)
    p, r, ap = ref[2], ref[3], ref[5]
    np.testing.assert_allclose(got.ap, ap, atol=1e-9)
    assert abs(got.precision - float(np.mean(p))) < 1e-9
    assert abs(got.recall - float(np.mean(r))) < 1e-9


def test_oks_by_hand():
    """One labelled keypoint 3 px off (sigma 0.1, area 100 after the 0.53 factor):
    exp(-9 / (0.2² · (100 + 1e-7) · 2)); the unlabelled one does not count."""
    gt = np.array([[[10.0, 10.0, 2.0], [0.0, 0.0, 0.0]]])
    det = np.array([[[13.0, 10.0, 0.9], [50.0, 50.0, 0.9]]])
    got = ur.oks(gt, np.array([100.0]), det, np.array([0.1, 0.1]))
    want = np.exp(-9 / (0.2**2 * (100 + 1e-7) * 2)) / (1 + 1e-7)
    assert got.shape == (1, 1) and got[0, 0] == pytest.approx(want, rel=1e-15)


def test_pose_column_and_its_oks_area_step(tmp_path):
    case = make_yolo(tmp_path, "pose", seed=3)
    out = tmp_path / "o.json"
    argv = ["eval", str(case.yaml), "--results", str(case.pred_txt), "--task", "keypoints"]
    assert main([*argv, "--json", str(out)]) == 0
    p = json.loads(out.read_text())
    u = p["ultralytics"]
    assert "PoseValidator" in u["convention"]
    assert [s["rule"] for s in u["steps"]][3] == "oks area"
    assert u["steps"][-1]["mAP50-95"] == p["summary"]["AP"]
