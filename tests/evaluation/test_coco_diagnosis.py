"""False-positive kinds for COCO, whose evaluation has no duplicate verdict and records no
overlap for false positives: the diagnosis measures the same-class overlap itself, calls an
overlap reaching the IoU threshold a duplicate, and takes COCO's supercategories as the
similarity groups. One image, every kind once; the IoUs are worked out in the comments (COCO
boxes are ``x, y, w, h`` in continuous pixels, no +1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vocviewer.evaluation.analysis import FPKind, explain
from vocviewer.evaluation.result import Verdict
from vocviewer.families.coco.view import coco_rules, evaluate_coco_views
from vocviewer.families.registry import open_dataset, open_results
from vocviewer.families.views import ClassView, ViewChoice

CATEGORIES = [
    {"id": 1, "name": "person", "supercategory": "person"},
    {"id": 17, "name": "cat", "supercategory": "animal"},
    {"id": 18, "name": "dog", "supercategory": "animal"},
]
OBJECTS = [(18, [10, 10, 40, 40]), (17, [60, 10, 30, 30]), (1, [10, 60, 30, 30])]
#: dog detections by descending score, with the expected kind and same-class IoU
DOG_DETECTIONS = [
    ([10, 10, 40, 40], FPKind.NOT_FP, 1.0),  # the dog itself: TP
    ([11, 11, 40, 40], FPKind.DUPLICATE, 39 * 39 / (1600 + 1600 - 39 * 39)),  # .906, dog taken
    ([10, 10, 40, 12], FPKind.LOCALIZATION, 480 / 1600),  # IoU .3 with the dog
    ([60, 10, 30, 30], FPKind.SIMILAR, None),  # exactly on the cat (an animal)
    ([10, 60, 30, 30], FPKind.OTHER, None),  # exactly on the person
    ([70, 70, 20, 20], FPKind.BACKGROUND, None),  # on nothing
]


@pytest.fixture
def dog(tmp_path: Path) -> tuple[object, object, ClassView]:
    ann = {
        "images": [{"id": 7, "file_name": "7.jpg", "width": 100, "height": 100}],
        "categories": CATEGORIES,
        "annotations": [
            {
                "id": i + 1,
                "image_id": 7,
                "category_id": c,
                "bbox": b,
                "area": b[2] * b[3],
                "iscrowd": 0,
                "segmentation": [
                    [b[0], b[1], b[0] + b[2], b[1], b[0] + b[2], b[1] + b[3], b[0], b[1] + b[3]]
                ],
            }
            for i, (c, b) in enumerate(OBJECTS)
        ],
    }
    (tmp_path / "instances_val.json").write_text(json.dumps(ann))
    dets = [
        {"image_id": 7, "category_id": 18, "bbox": b, "score": 0.9 - 0.1 * i}
        for i, (b, _, _) in enumerate(DOG_DETECTIONS)
    ]
    (tmp_path / "results.json").write_text(json.dumps(dets))
    ds = open_dataset(tmp_path / "instances_val.json", images=tmp_path)
    rs = open_results(ds, [tmp_path / "results.json"])
    classes = [c for c in evaluate_coco_views(ds, rs, ViewChoice(0.5)) if isinstance(c, ClassView)]
    return ds, rs, classes[ds.classes.index("dog")]


def test_every_kind_from_cocos_own_verdicts(dog):
    _, _, pc = dog
    ev, fa = pc.evaluation, pc.false_positives
    assert fa is not None
    assert ev.verdict.tolist() == [Verdict.TP] + [Verdict.FP] * 5  # COCO has no duplicate verdict
    assert [FPKind(k) for k in fa.kind] == [k for _, k, _ in DOG_DETECTIONS]
    for rank, (_, _, iou) in enumerate(DOG_DETECTIONS):
        if iou is not None:
            assert fa.same_gt[rank] == 0 and fa.same_iou[rank] == pytest.approx(iou, abs=1e-12)
    assert fa.same_gt[3:].tolist() == [-1, -1, -1]  # the only dog is far from these
    assert fa.confused_gt[3:5].tolist() == [1, 2]  # the cat, the person
    assert fa.confused_iou[3] == pytest.approx(1.0)


def test_supercategories_are_the_similarity_groups(dog):
    ds, _, _ = dog
    assert coco_rules(ds).groups == {"person": {"person"}, "animal": {"cat", "dog"}}


def test_explanations_name_the_measured_overlap_and_the_threshold(dog):
    ds, rs, pc = dog
    ev, fa = pc.evaluation, pc.false_positives
    dup = explain(ds, rs, ev, 1, iou_threshold=0.5, analysis=fa)
    assert "False positive: duplicate. Best-overlapping dog: dog #1, IoU 0.906 ≥ 0.5." in dup
    assert "already matched by a higher-ranked detection" in dup
    loc = explain(ds, rs, ev, 2, iou_threshold=0.75, analysis=fa)
    assert (
        "False positive: poor localisation. Best-overlapping dog: dog #1, IoU 0.300 < 0.75" in loc
    )
    similar = explain(ds, rs, ev, 3, analysis=fa, rules=coco_rules(ds))
    assert "confusion with a similar class (animal), cat" in similar
