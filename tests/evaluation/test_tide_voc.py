"""TIDE's breakdown on VOC's own verdicts: hand-worked cases (inclusive +1 pixel boxes)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.evaluation.builders import VOC_CLASSES, make_dataset, make_results
from vocviewer.evaluation.tide import KIND_NAMES
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results
from vocviewer.families.coco.tide import coco_tide
from vocviewer.families.voc.evaluate import evaluate_voc_det
from vocviewer.families.voc.tide import voc_tide

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


@pytest.mark.parametrize("seed", range(4))
def test_voc_equals_coco_where_the_protocols_agree(tmp_path, seed):
    """Objects in separate 100-pixel cells, none difficult, under 100 detections per image:
    VOC's and TIDE's matching then agree and the +1 boxes convert exactly to COCO's x, y, w, h,
    so the VOC breakdown must equal the COCO one (itself bit-identical to tidecv)."""
    rng = np.random.default_rng(seed)
    classes = VOC_CLASSES[:4]
    objects, dets = {}, []
    for i in range(12):
        name = f"im{i:02d}"
        cells = rng.choice(12, int(rng.integers(0, 6)), replace=False)
        objects[name] = []
        for cell in cells.tolist():
            x, y = (
                100 * (cell % 4) + int(rng.integers(1, 30)),
                100 * (cell // 4) + int(rng.integers(1, 30)),
            )
            box = (x, y, x + int(rng.integers(20, 70)), y + int(rng.integers(20, 70)))
            c = classes[int(rng.integers(0, 4))]
            objects[name].append((c, box, False))
            for _ in range(int(rng.integers(0, 4))):
                jitter = 6 if rng.random() < 0.6 else 26
                dx, dy = (int(v) for v in rng.integers(-jitter, jitter, 2))
                dc = c if rng.random() < 0.8 else classes[int(rng.integers(0, 4))]
                dets.append(
                    (
                        dc,
                        name,
                        round(float(rng.random()), 1),
                        (box[0] + dx, box[1] + dy, box[2] + dx, box[3] + dy),
                    )
                )
        for _ in range(int(rng.integers(0, 4))):
            x, y = (int(v) for v in rng.integers(1, 300, 2))
            dets.append(
                (
                    classes[int(rng.integers(0, 4))],
                    name,
                    round(float(rng.random()), 1),
                    (x, y, x + 40, y + 30),
                )
            )
    ds = make_dataset(objects, {"Main/val": sorted(objects)})
    rs = make_results(ds, dets)
    voc = voc_tide(ds, rs, evaluate_voc_det(ds, rs, image_set="val"), image_set="val")

    def xywh(b):
        return [float(b[0]), float(b[1]), float(b[2] - b[0] + 1), float(b[3] - b[1] + 1)]

    anns = [
        {
            "id": j + 1,
            "image_id": int(ds.objects.image_index[j]) + 1,
            "category_id": int(ds.objects.label[j]) + 1,
            "bbox": xywh(ds.objects.box[j]),
            "area": 1.0,
            "iscrowd": 0,
        }
        for j in range(len(ds.objects.label))
    ]
    gt = {
        "images": [
            {"id": k + 1, "file_name": f"{k}.jpg", "width": 500, "height": 400}
            for k in range(len(ds.images))
        ],
        "annotations": anns,
        "categories": [{"id": k + 1, "name": n} for k, n in enumerate(ds.classes)],
    }
    d = rs.detections
    res = [
        {
            "image_id": int(d.image_index[r]) + 1,
            "category_id": int(d.label[r]) + 1,
            "bbox": xywh(d.box[r]),
            "score": float(d.score[r]),
        }
        for r in range(len(d))
    ]
    (tmp_path / "gt.json").write_text(json.dumps(gt))
    (tmp_path / "res.json").write_text(json.dumps(res))
    cds = read_coco(tmp_path / "gt.json", masks=False)
    coco = coco_tide(cds, read_coco_results(cds, tmp_path / "res.json"))
    assert voc.evidence.kind.tolist() == coco.evidence.kind.tolist()
    assert voc.evidence.fixable.tolist() == coco.evidence.fixable.tolist()
    assert (voc.ap, voc.main, voc.special) == (coco.ap, coco.main, coco.special)
    assert min(voc.counts().values()) > 0
