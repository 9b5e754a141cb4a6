"""TIDE's breakdown on VOC's own verdicts: hand-worked cases (inclusive +1 pixel boxes)."""

from __future__ import annotations

import pytest

from tests.evaluation.builders import make_dataset, make_results
from vocviewer.evaluation.tide import KIND_NAMES
from vocviewer.evaluation.tide_voc import voc_tide
from vocviewer.evaluation.voc import evaluate_voc_det

A = (1, 1, 100, 100)
B = (201, 1, 300, 100)
C = (1, 201, 100, 300)


def run(objects, dets):
    ds = make_dataset(objects, {"Main/val": sorted(objects)})
    rs = make_results(ds, dets)
    res = voc_tide(ds, rs, evaluate_voc_det(ds, rs, image_set="val"), image_set="val")
    by_score = {
        float(s): KIND_NAMES[int(k)]
        for s, k in zip(rs.detections.score, res.evidence.kind, strict=True)
    }
    return res, by_score


def test_fixing_localisation_on_voc():
    # two cars, a hit (0.9) and a box overlapping A by 50 of 100 columns (IoU 1/3 -> Loc)
    res, kinds = run(
        {"im1": [("car", A, False), ("car", B, False)]},
        [("car", "im1", 0.9, B), ("car", "im1", 0.8, (51, 1, 150, 100))],
    )
    assert kinds == {0.9: "TP", 0.8: "Loc"}
    assert res.ap == pytest.approx(5100 / 101, abs=1e-12)
    assert res.main["Loc"] == pytest.approx(100 - 5100 / 101, abs=1e-12)
    assert res.counts() == {"Cls": 0, "Loc": 1, "Both": 0, "Dupe": 0, "Bkg": 0, "Miss": 0}


def test_wrong_class_difficult_duplicate_and_missed_on_voc():
    objects = {
        "im1": [("car", A, False), ("dog", B, False), ("car", C, True)],
        "im2": [("cat", A, False)],
    }
    dets = [
        ("dog", "im1", 0.9, B),
        ("dog", "im1", 0.85, (203, 1, 300, 100)),  # duplicate of B
        ("dog", "im1", 0.8, (3, 3, 100, 100)),  # a dog on the car
        ("car", "im1", 0.7, C),  # hits a difficult car: ignored
        ("car", "im2", 0.6, (400, 300, 450, 350)),  # nothing there
    ]
    res, kinds = run(objects, dets)
    assert kinds == {0.9: "TP", 0.85: "Dupe", 0.8: "Cls", 0.7: "Bkg", 0.6: "Bkg"}
    assert int(res.evidence.ignored.sum()) == 1
    assert res.counts()["Miss"] == 1  # the cat; the car is the Cls error's target
    assert res.evidence.fixable.sum() == 1
    assert res.main["Cls"] > 0 and res.main["Miss"] > 0
    assert res.main["Dupe"] == 0.0  # it ranks after the dog class reached full recall
