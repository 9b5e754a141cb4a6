"""COCO ``analyze()``'s nested curves on VOC detection: a hand-worked devkit (real XML and result
files) whose every area is derived by hand, VOC's verdicts at .75 / .1 equal to the evaluation's
own at those thresholds, the nesting, and C50 against VOC's precision/recall sampled
independently."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from tests.evaluation.synthetic_voc import make_synthetic
from vocviewer.evaluation.analysis_curves import COCO_RECALL
from vocviewer.families.registry import open_dataset, open_results
from vocviewer.families.voc.analyze_curves import voc_curves, voc_verdicts_at
from vocviewer.families.voc.evaluate import evaluate_voc_det

A = (1, 1, 100, 100)  # 100 x 100 inclusive pixels
B = (201, 1, 300, 100)
C = (1, 201, 100, 300)
E = (1, 401, 100, 500)

#: image -> [(class, box, difficult)], in XML order
OBJECTS = {
    "im1": [("car", A, False), ("car", B, False), ("car", C, True), ("car", E, False)],
    "im2": [("dog", A, False), ("cat", B, False), ("person", C, False)],
    "im3": [("dog", A, False)],
}
#: (class, image, score, box) in file order
DETECTIONS = [
    ("car", "im1", 0.95, A),  # TP at every IoU
    ("car", "im1", 0.9, C),  # the difficult car: ignored at every IoU
    ("car", "im1", 0.85, A),  # duplicate of A: a false positive even at IoU .1
    ("car", "im1", 0.8, (221, 1, 320, 100)),  # B at IoU 8000/12000 = 2/3: FP at .75, TP at .5
    ("car", "im1", 0.7, (51, 401, 150, 500)),  # E at IoU 5000/15000 = 1/3: TP only at .1
    ("dog", "im2", 0.9, B),  # on the cat (similar): ignored in Sim and Oth
    ("dog", "im2", 0.8, C),  # on the person (not similar): ignored in Oth only
    ("dog", "im2", 0.7, A),  # TP; the dog of im3 is missed
    ("bus", "im1", 0.5, A),  # a bus file, but no bus object: no defined AP, left out
]


def write_devkit(root: Path, objects=OBJECTS, sets=None, year: int = 2012) -> tuple[Path, Path]:
    """``root/VOCdevkit/VOC<year>`` (Annotations, ``Main/val``) and one results folder per set
    (``comp4_det_val_<class>.txt``); returns (year folder, results folder of the first set)."""
    sets = sets or {"res": DETECTIONS}
    year_dir = root / "VOCdevkit" / f"VOC{year}"
    (year_dir / "Annotations").mkdir(parents=True)
    (year_dir / "ImageSets" / "Main").mkdir(parents=True)
    for image_id, objs in objects.items():
        body = "".join(
            f"<object><name>{c}</name><difficult>{int(d)}</difficult><bndbox>"
            f"<xmin>{b[0]}</xmin><ymin>{b[1]}</ymin><xmax>{b[2]}</xmax><ymax>{b[3]}</ymax>"
            "</bndbox></object>"
            for c, b, d in objs
        )
        (year_dir / "Annotations" / f"{image_id}.xml").write_text(
            f"<annotation><filename>{image_id}.jpg</filename><size><width>500</width>"
            f"<height>600</height><depth>3</depth></size>{body}</annotation>"
        )
    (year_dir / "ImageSets" / "Main" / "val.txt").write_text("".join(f"{i}\n" for i in objects))
    folders = []
    for name, dets in sets.items():
        main = root / name / "Main"
        main.mkdir(parents=True)
        for cls in dict.fromkeys(d[0] for d in dets):
            lines = [f"{i} {s} {' '.join(map(str, b))}\n" for c, i, s, b in dets if c == cls]
            (main / f"comp4_det_val_{cls}.txt").write_text("".join(lines))
        folders.append(root / name)
    return year_dir, folders[0]


def hand_worked() -> dict[str, dict[str, float]]:
    """The expected areas (mean over COCO's 101 recall levels 0, .01, ..., 1).

    car, npos 3 (the difficult car does not count), ranks TP, ignored, dup, B, E:
      C75  TP ig FP FP FP: precision 1 up to recall 1/3 (34 levels), then nothing
      C50  TP ig FP TP FP: 1 up to 1/3 (34 levels), 2/3 up to 2/3 (33 levels)
      Loc  TP ig FP TP TP: 1 up to 1/3, then 3/4 up to recall 1 (67 levels)
      Sim = Oth = Loc (the duplicate lies on no other class); BG 1 up to recall 1.
    dog, npos 2, ranks on-cat, on-person, TP:
      C75 = C50 = Loc  FP FP TP: 1/3 up to recall 1/2 (51 levels)
      Sim  ig FP TP: 1/2;  Oth  ig ig TP: 1;  BG 1 up to recall 1/2."""
    car = {"C75": 34, "C50": 34 + 33 * 2 / 3, "Loc": 34 + 67 * 0.75}
    car = {k: v / 101 for k, v in car.items()}
    car |= {"Sim": car["Loc"], "Oth": car["Loc"], "BG": 1.0, "FN": 1.0}
    dog = {"C75": 17 / 101, "C50": 17 / 101, "Loc": 17 / 101, "Sim": 25.5 / 101}
    dog |= {"Oth": 51 / 101, "BG": 51 / 101, "FN": 1.0}
    return {"car": car, "dog": dog}


def assert_nested(got: dict, expected: dict) -> None:
    """``{name: {curve: value}}`` equal to 1e-12."""
    assert set(got) == set(expected)
    for k, v in expected.items():
        assert got[k] == pytest.approx(v, abs=1e-12), k


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory):
    year_dir, res = write_devkit(tmp_path_factory.mktemp("voccurves"))
    ds = open_dataset(year_dir)
    rs = open_results(ds, [res], image_set="val")
    ev = evaluate_voc_det(ds, rs, image_set="val")
    return ds, rs, ev


def test_hand_worked_areas(toy) -> None:
    ds, rs, ev = toy
    c = voc_curves(ds, rs, ev)
    expected = hand_worked()
    assert c.class_names == ("car", "dog")  # bus has a file but no object: AP undefined
    got = c.to_json()
    assert_nested(got["categories"], expected)
    # groups: means over their classes with a defined AP (no furniture here)
    assert_nested(got["groups"], {"animals": expected["dog"], "vehicles": expected["car"]})
    # overall: the mean of the two; BG is averaged per class (1 and 51/101), not Oth's mean > 0
    overall = {k: (expected["car"][k] + expected["dog"][k]) / 2 for k in expected["car"]}
    assert got["overall"]["all"] == pytest.approx(overall, abs=1e-12)
    assert overall["BG"] == pytest.approx((1 + 51 / 101) / 2)


def test_hand_worked_protocol_ap(toy) -> None:
    """The same lists under VOC2012's all-points rule: car C75 1/3, C50 1/3 + 1/3 * 2/3,
    Loc 1/3 + 2/3 * 3/4; dog C50 1/2 * 1/3, Sim 1/2 * 1/2, Oth 1/2. C50 is VOC's AP."""
    ds, rs, ev = toy
    c = voc_curves(ds, rs, ev)
    ap = c.to_json()["protocol_ap"]
    assert ap["rule"] == "allpoints"
    car = {"C75": 1 / 3, "C50": 5 / 9, "Loc": 5 / 6, "Sim": 5 / 6, "Oth": 5 / 6}
    dog = {"C75": 1 / 6, "C50": 1 / 6, "Loc": 1 / 6, "Sim": 1 / 4, "Oth": 1 / 2}
    assert_nested(ap["categories"], {"car": car, "dog": dog})
    assert ap["categories"]["car"]["C50"] == ev.by_name("car").ap
    assert ap["overall"]["C50"] == ev.mean_ap()


def test_voc2007_takes_the_11_point_rule(tmp_path: Path) -> None:
    """VOC2007: car's C50 by the 11-point rule is (4 * 1 + 3 * 2/3) / 11; the 101-level areas
    stay the same."""
    year_dir, res = write_devkit(tmp_path, year=2007)
    ds = open_dataset(year_dir)
    rs = open_results(ds, [res], image_set="val")
    ev = evaluate_voc_det(ds, rs, image_set="val")
    c = voc_curves(ds, rs, ev)
    assert c.ap_rule == "11point"
    assert c.protocol_ap(["car"])["C50"] == pytest.approx(6 / 11, abs=1e-12)
    assert c.protocol_ap(["car"])["C50"] == ev.by_name("car").ap
    assert c.curves(["car"]).areas == pytest.approx(hand_worked()["car"], abs=1e-12)


def _sampled_101(prec: np.ndarray, rec: np.ndarray) -> np.ndarray:
    """The highest precision at recall >= each level (0 if none), one level at a time."""
    prec = np.nan_to_num(prec)
    return np.array([prec[rec >= t].max() if np.any(rec >= t) else 0.0 for t in COCO_RECALL])


@pytest.mark.parametrize(("seed", "year"), [(0, 2012), (1, 2007), (2, 2012)])
def test_properties_on_synthetic_sets(seed: int, year: int) -> None:
    """Nested pointwise per class; C75 / Loc verdicts are VOC's at .75 / .1; C50 equals VOC's own
    precision/recall sampled independently, and its protocol AP is VOC's AP."""
    ds, rs = make_synthetic(120, 2500, seed, year=year, score_decimals=2)
    ev = evaluate_voc_det(ds, rs, image_set="test")
    for t in (0.75, 0.1):
        again = evaluate_voc_det(ds, rs, image_set="test", iou_threshold=t)
        for a, b in zip(ev.classes, again.classes, strict=True):
            assert voc_verdicts_at(ds, a, t).tolist() == b.verdict.tolist()
    c = voc_curves(ds, rs, ev)
    assert len(c.class_names) == 20
    for name, v in c.per_class().items():
        stack = list(v.curves().values())
        for low, high in itertools.pairwise(stack):
            assert np.all(low <= high), name
        e = ev.by_name(name)
        assert v.c50 == pytest.approx(_sampled_101(e.precision, e.recall), abs=1e-15)
        assert c.protocol_ap([name])["C50"] == e.ap
    assert c.protocol_ap()["C50"] == ev.mean_ap()
    # the Sim / Oth steps are not empty on this detector
    areas = c.curves().areas
    assert areas["C75"] < areas["C50"] < areas["Loc"] < areas["Sim"] < areas["Oth"] < 1
