"""False-positive diagnosis, per-image counts, comparisons and explanations on hand-made cases."""

from __future__ import annotations

import numpy as np
import pytest

from tests.evaluation.builders import make_dataset, make_results
from vocviewer.evaluation.analysis import (
    FPKind,
    classify_false_positives,
    compare_images,
    drop_cause,
    explain,
    explain_object,
    image_counts,
    missed_objects,
    next_false_positive,
    similarity_group,
)
from vocviewer.evaluation.result import Verdict
from vocviewer.families.voc.evaluate import evaluate_voc_det

A = (1, 1, 100, 100)
B = (201, 1, 300, 100)
C = (1, 201, 100, 300)
D = (301, 201, 400, 300)
FAR = (400, 300, 450, 350)
K = FPKind
V = Verdict

OBJECTS = {
    "i1": [("dog", A, False), ("cat", B, False), ("person", C, False), ("dog", D, True)],
    "i2": [("dog", A, False), ("tvmonitor", B, False)],
}
#: dog detections in rank order, with the expected verdict and kind
DOG_DETS = [
    ("i1", 0.9, A, V.TP, K.NOT_FP),
    ("i1", 0.8, (2, 2, 100, 100), V.DUPLICATE, K.DUPLICATE),  # IoU 0.98 with the taken dog
    ("i1", 0.7, (1, 1, 100, 30), V.FP, K.LOCALIZATION),  # IoU 0.3
    ("i1", 0.6, B, V.FP, K.SIMILAR),  # on the cat
    ("i1", 0.5, C, V.FP, K.OTHER),  # on the person
    ("i2", 0.4, B, V.FP, K.OTHER),  # on the tvmonitor
    ("i2", 0.3, FAR, V.FP, K.BACKGROUND),
    ("i1", 0.2, D, V.IGNORED, K.NOT_FP),  # the difficult dog
]


@pytest.fixture
def case():
    ds = make_dataset(OBJECTS, {"Main/val": ["i1", "i2"]})
    rs = make_results(ds, [("dog", i, s, b) for i, s, b, _, _ in DOG_DETS])
    ev = evaluate_voc_det(ds, rs, image_set="val", classes=[ds.class_index("dog")]).classes[0]
    return ds, rs, ev


def test_verdicts_are_the_protocols(case):
    _, _, ev = case
    assert ev.verdict.tolist() == [v for *_, v, _ in DOG_DETS]


def test_every_false_positive_kind(case):
    ds, rs, ev = case
    fa = classify_false_positives(ds, rs, ev)
    assert [K(k) for k in fa.kind] == [k for *_, k in DOG_DETS]
    names = [ds.classes[ds.objects.label[g]] if g >= 0 else None for g in fa.confused_gt]
    assert names == [None, None, None, "cat", "person", "tvmonitor", None, None]
    assert fa.confused_iou[3] == pytest.approx(1.0)
    assert np.isnan(fa.confused_iou[0])
    assert fa.counts() == {
        "duplicate": 1,
        "localization": 1,
        "similar": 1,
        "other": 2,
        "background": 1,
    }
    assert K.DUPLICATE.is_localization and K.LOCALIZATION.is_localization
    assert not K.SIMILAR.is_localization


def test_similar_class_wins_over_a_better_overlapping_other_class():
    # the detection lies mostly on a person and a little (IoU ≥ 0.1) on a horse
    objects = {"i1": [("person", (1, 1, 100, 100), False), ("horse", (61, 1, 200, 100), False)]}
    ds = make_dataset(objects, {"Main/val": ["i1"]})
    rs = make_results(ds, [("cow", "i1", 0.9, (1, 1, 100, 100))])
    ev = evaluate_voc_det(ds, rs, image_set="val", classes=[ds.class_index("cow")]).classes[0]
    fa = classify_false_positives(ds, rs, ev)
    assert fa.kind[0] == K.SIMILAR
    assert ds.classes[ds.objects.label[fa.confused_gt[0]]] == "horse"


def test_localisation_wins_over_confusion_and_below_min_overlap_is_background():
    objects = {"i1": [("car", (1, 1, 100, 100), False), ("bus", (1, 1, 100, 100), False)]}
    ds = make_dataset(objects, {"Main/val": ["i1"]})
    dets = [("car", "i1", 0.9, (1, 1, 100, 20)), ("car", "i1", 0.8, (1, 1, 100, 5))]  # IoU .2, .05
    rs = make_results(ds, dets)
    ev = evaluate_voc_det(ds, rs, image_set="val", classes=[ds.class_index("car")]).classes[0]
    fa = classify_false_positives(ds, rs, ev)
    assert [K(k) for k in fa.kind] == [K.LOCALIZATION, K.BACKGROUND]


def test_similarity_groups():
    assert similarity_group("dog") == "animals"
    assert similarity_group("train") == "vehicles"
    assert similarity_group("sofa") == "furniture"
    assert similarity_group("person") is None and similarity_group("bottle") is None


def test_per_image_counts_and_missed_objects(case):
    ds, _, ev = case
    counts = image_counts(ds, ev)
    assert counts.tp.tolist() == [1, 0]
    assert counts.fp.tolist() == [4, 2]  # duplicate, localisation, cat, person | tv, background
    assert counts.missed.tolist() == [0, 1]  # the difficult dog is never "missed"
    missed = missed_objects(ds, ev)
    assert [ds.images.id[ds.objects.image_index[m]] for m in missed] == ["i2"]
    assert len(missed_objects(ds, ev, images=np.array([0]))) == 0


def test_compare_images_sorts_by_size_of_difference():
    objects = {i: [("dog", A, False), ("dog", B, False)] for i in ("i1", "i2", "i3")}
    ds = make_dataset(objects, {"Main/val": ["i1", "i2", "i3"]})
    k = [ds.class_index("dog")]
    rs_a = make_results(ds, [("dog", "i1", 0.9, A), ("dog", "i2", 0.8, A), ("dog", "i2", 0.7, B)])
    rs_b = make_results(ds, [("dog", "i1", 0.9, A), ("dog", "i3", 0.8, A)])
    ev_a = evaluate_voc_det(ds, rs_a, image_set="val", classes=k).classes[0]
    ev_b = evaluate_voc_det(ds, rs_b, image_set="val", classes=k).classes[0]
    cmp = compare_images(ds, ev_a, ev_b)
    assert [ds.images.id[i] for i in cmp.image] == ["i2", "i3"]
    assert cmp.difference.tolist() == [2, -1]
    assert cmp.tp_a.tolist() == [2, 0] and cmp.tp_b.tolist() == [0, 1]
    assert len(compare_images(ds, ev_a, ev_a)) == 0


def test_rank_walking(case):
    _, _, ev = case
    assert next_false_positive(ev, -1) == 1
    assert next_false_positive(ev, 1) == 2
    assert next_false_positive(ev, 6) == -1
    assert next_false_positive(ev, len(ev), -1) == 6
    assert next_false_positive(ev, 1, -1) == -1
    assert drop_cause(ev, 3) == 3  # an FP itself
    assert drop_cause(ev, 0) == 1  # the nearest FP
    assert drop_cause(ev, 7) == 6


def test_explanations_name_the_evidence(case):
    ds, rs, ev = case
    text = [explain(ds, rs, ev, r) for r in range(len(ev))]
    assert text[0].startswith("Rank 1 of 8 · dog · score 0.9 · image i1")
    assert "True positive" in text[0] and "dog #1" in text[0] and "IoU 1.000 ≥ 0.5" in text[0]
    assert "duplicate" in text[1] and "already matched by rank 1 (score 0.9)" in text[1]
    assert "poor localisation" in text[2] and "IoU 0.300 < 0.5" in text[2]
    assert "similar class (animals), cat" in text[3] and "cat #2" in text[3]
    assert "another class, person" in text[4]
    assert "No dog in i2 overlaps it" in text[6] and "background" in text[6]
    assert "Ignored" in text[7] and "dog #4 (difficult)" in text[7]
    with pytest.raises(IndexError):
        explain(ds, rs, ev, len(ev))


def test_object_explanations(case):
    ds, _, ev = case
    dogs = np.flatnonzero(ds.objects.label == ds.class_index("dog"))
    first, difficult, second = (int(r) for r in dogs)
    text = explain_object(ds, ev, first)
    assert "Matched by rank 1 (score 0.9, IoU 1.000)" in text and "Duplicates on it: rank 2" in text
    assert "Difficult: not counted" in explain_object(ds, ev, difficult)
    assert "difficult" in explain_object(ds, ev, difficult).splitlines()[0]
    missed = explain_object(ds, ev, second)
    assert "Missed: no dog detection overlaps it by IoU ≥ 0.5" in missed
    cat = int(np.flatnonzero(ds.objects.label == ds.class_index("cat"))[0])
    assert "not been evaluated" in explain_object(ds, ev, cat)
