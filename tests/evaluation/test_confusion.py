"""Confusion matrix: hand-worked cells, a per-detection loop oracle on random data, identities."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from tests.evaluation.builders import make_dataset, make_results
from vocviewer.core.results import Detections
from vocviewer.evaluation.analysis import missed_objects
from vocviewer.evaluation.confusion import EXTRA_COLUMNS, ConfusionMatrix, confusion_matrix
from vocviewer.evaluation.result import Verdict
from vocviewer.families.voc.evaluate import evaluate_voc_det

CLASSES = ("cat", "dog", "person")
CAT, DOG, PERSON = range(3)
DUP, BG, MISSED = 3, 4, 5  # K = 3

A = (1, 1, 100, 100)  # 100 x 100 inclusive pixels
B = (201, 1, 300, 100)
C = (1, 201, 100, 300)
D = (301, 201, 400, 300)
G = (201, 1, 300, 80)
FAR = (400, 300, 450, 350)

OBJECTS = {
    "i1": [("dog", A, False), ("cat", B, False), ("dog", D, True), ("person", C, False)],
    "i2": [("dog", A, False), ("cat", G, False), ("person", B, False)],
}
# Score threshold 0.5, IoU threshold 0.5, inclusive pixels. Rank, verdict → cell:
DETS = [
    ("dog", "i1", 0.95, A),  # 0 TP → (dog, dog)
    ("dog", "i1", 0.9, (2, 2, 100, 100)),  # 1 IoU .98 with the taken dog: DUPLICATE → (dog, dup)
    ("dog", "i1", 0.85, (201, 1, 300, 50)),  # 2 FP; on cat B: 100*50 / 100*100 = 0.5 exactly
    #                                           → (dog, cat); without +1: 99*49/99**2 ≈ .495 → bg
    ("dog", "i1", 0.8, (1, 201, 100, 240)),  # 3 FP; on person C: 100*40 / 10000 = 0.4 → (dog, bg)
    ("dog", "i1", 0.7, D),  # 4 on the difficult dog: IGNORED, not counted
    ("dog", "i2", 0.62, B),  # 5 FP; cat G IoU .8 (earlier row), person IoU 1 → (dog, person)
    ("dog", "i2", 0.5, FAR),  # 6 FP on nothing, score == threshold → (dog, bg)
    ("dog", "i2", 0.3, A),  # 7 TP below the threshold: not counted; the i2 dog → (dog, missed)
    ("cat", "i1", 0.9, B),  # 0 TP → (cat, cat)
    ("cat", "i1", 0.8, A),  # 1 FP on the i1 dog, IoU 1 → (cat, dog)
    ("cat", "i2", 0.4, G),  # 2 TP below the threshold: cat G → (cat, missed)
]
# No person detections: both persons (C in i1, B in i2) are never matched → (person, missed) 2.
EXPECTED = [
    # cat dog person dup bg missed
    [1, 1, 0, 0, 0, 1],  # cat
    [1, 1, 1, 1, 2, 1],  # dog
    [0, 0, 0, 0, 0, 2],  # person
]


def evaluate(ds, rs, set_rows, classes=None, iou=0.5):
    """Per-class evaluations and the GUI's ``missed`` array (objects no TP matched)."""
    res = evaluate_voc_det(
        ds, rs, image_set="val", classes=classes, iou_threshold=iou, strict=False
    )
    evs = {ev.class_index: ev for ev in res.classes}
    missed = np.zeros(len(ds.objects), dtype=bool)
    for ev in evs.values():
        missed[missed_objects(ds, ev, images=set_rows)] = True
    return evs, missed


@pytest.fixture
def case():
    ds = make_dataset(OBJECTS, {"Main/val": ["i1", "i2"]}, classes=CLASSES)
    rs = make_results(ds, DETS)
    evs, missed = evaluate(ds, rs, ds.image_sets["Main/val"])
    return ds, rs, evs, missed


def obj_row(ds, image_id, order):
    o = ds.objects
    return int(
        np.flatnonzero((o.image_index == ds.image_index(image_id)) & (o.order_in_image == order))[0]
    )


def test_hand_worked_cells(case):
    ds, rs, evs, missed = case
    assert evs[DOG].verdict.tolist() == [1, 3, 2, 2, 0, 2, 2, 1]  # TP DUP FP FP IGN FP FP TP
    cm = confusion_matrix(
        ds, rs, evs, missed, score_threshold=0.5, iou_threshold=0.5, plus_one=True
    )
    assert cm.counts.dtype == np.int64
    assert cm.counts.tolist() == EXPECTED
    assert cm.column_labels == (*CLASSES, "duplicate", "background", "missed")
    assert (cm.duplicate_column, cm.background_column, cm.missed_column) == (DUP, BG, MISSED)
    assert cm.detections_in(DOG, DOG).tolist() == [0]
    assert cm.detections_in(DOG, DUP).tolist() == [1]
    assert cm.detections_in(DOG, CAT).tolist() == [2]
    assert cm.detections_in(DOG, BG).tolist() == [3, 6]
    assert cm.detections_in(DOG, PERSON).tolist() == [5]
    assert cm.detections_in(CAT, DOG).tolist() == [1]
    assert cm.detections_in(DOG, MISSED).tolist() == []
    assert 4 not in cm.rank[cm.class_index == DOG] and 7 not in cm.rank[cm.class_index == DOG]
    # evidence: the object each confusion lies on, and the detection rows
    keys = zip(cm.class_index.tolist(), cm.rank.tolist(), strict=True)
    on = dict(zip(keys, cm.confused_gt.tolist(), strict=True))
    assert on[(DOG, 2)] == obj_row(ds, "i1", 1)  # cat B
    assert on[(DOG, 5)] == obj_row(ds, "i2", 2)  # the person, not the earlier cat G
    assert on[(CAT, 1)] == obj_row(ds, "i1", 0)
    assert on[(DOG, 3)] == -1 and on[(DOG, 0)] == -1
    assert np.array_equal(
        cm.detection, [evs[k].order[r] for k, r in zip(cm.class_index, cm.rank, strict=True)]
    )
    assert cm.objects_in(DOG).tolist() == [obj_row(ds, "i2", 0)]  # matched only below threshold
    assert cm.objects_in(CAT).tolist() == [obj_row(ds, "i2", 1)]
    assert cm.objects_in(PERSON).tolist() == [obj_row(ds, "i1", 3), obj_row(ds, "i2", 2)]
    assert cm.to_dict()["counts"] == EXPECTED and cm.to_dict()["columns"][-3:] == list(
        EXTRA_COLUMNS
    )


def test_iou_exactly_at_threshold_depends_on_the_pixel_rule(case):
    ds, rs, evs, missed = case
    cm = confusion_matrix(
        ds, rs, evs, missed, score_threshold=0.5, iou_threshold=0.5, plus_one=False
    )
    # rank 2's 0.5 overlap with cat B drops to 0.495 without the +1: cat → background
    assert cm.counts[DOG].tolist() == [0, 1, 1, 1, 3, 1]
    assert cm.detections_in(DOG, BG).tolist() == [2, 3, 6]


def test_score_threshold_moves_late_true_positives_to_missed(case):
    ds, rs, evs, missed = case
    everything = confusion_matrix(
        ds, rs, evs, missed, score_threshold=-math.inf, iou_threshold=0.5, plus_one=True
    )
    assert everything.counts[DOG].tolist() == [1, 2, 1, 1, 2, 0]  # rank 7 is now a TP
    assert everything.counts[CAT].tolist() == [2, 1, 0, 0, 0, 0]
    nothing = confusion_matrix(
        ds, rs, evs, missed, score_threshold=math.inf, iou_threshold=0.5, plus_one=True
    )
    assert nothing.counts[:, : BG + 1].sum() == 0
    assert nothing.counts[:, MISSED].tolist() == [2, 2, 2]  # every positive: npos per class
    assert len(nothing.rank) == 0 and nothing.rank.dtype == np.int64


def test_only_evaluated_classes_contribute(case):
    ds, rs, evs, missed = case
    some = {DOG: evs[DOG]}
    cm = confusion_matrix(
        ds, rs, some, missed, score_threshold=0.5, iou_threshold=0.5, plus_one=True
    )
    assert cm.counts.tolist() == [[0] * 6, EXPECTED[DOG], [0] * 6]  # persons flagged, not counted
    empty = confusion_matrix(
        ds, rs, {}, missed, score_threshold=0.5, iou_threshold=0.5, plus_one=True
    )
    assert empty.counts.shape == (3, 6) and not empty.counts.any()


def test_bad_inputs(case):
    ds, rs, evs, missed = case
    with pytest.raises(ValueError, match="shape"):
        confusion_matrix(
            ds, rs, evs, missed[:-1], score_threshold=0.5, iou_threshold=0.5, plus_one=True
        )
    cls_ev = dataclasses.replace(evs[DOG], task="cls")
    with pytest.raises(ValueError, match="detections"):
        confusion_matrix(
            ds, rs, {DOG: cls_ev}, missed, score_threshold=0.5, iou_threshold=0.5, plus_one=True
        )


# --- random data against a per-detection loop oracle ------------------------------------------
RCLASSES = ("a", "b", "c", "d")


def iou_by_hand(d, g, plus_one):
    """Inclusive-pixel IoU (``VOCevaldet``), or None when the boxes do not intersect."""
    one = 1.0 if plus_one else 0.0
    iw = min(d[2], g[2]) - max(d[0], g[0]) + one
    ih = min(d[3], g[3]) - max(d[1], g[1]) + one
    if not (iw > 0 and ih > 0):
        return None
    ua = (
        (d[2] - d[0] + one) * (d[3] - d[1] + one)
        + (g[2] - g[0] + one) * (g[3] - g[1] + one)
        - iw * ih
    )
    return iw * ih / ua


def oracle(ds, rs, evs, in_set, score_thr, iou_thr, plus_one):
    """One detection, one object at a time; the missed column from its definition."""
    K = len(ds.classes)
    counts = [[0] * (K + 3) for _ in range(K)]
    members = []
    obj = ds.objects
    for k in sorted(evs):
        ev = evs[k]
        for r in range(len(ev)):
            if not ev.score[r] >= score_thr:
                continue
            v = int(ev.verdict[r])
            confused = -1
            if v == Verdict.IGNORED:
                continue
            if v == Verdict.TP:
                col = k
            elif v == Verdict.DUPLICATE:
                col = K
            else:
                box = rs.detections.box[ev.order[r]].tolist()
                best, best_iou = -1, -math.inf
                for o in range(len(obj)):
                    if obj.image_index[o] != ev.image_index[r] or obj.label[o] == k:
                        continue
                    iou = iou_by_hand(box, obj.box[o].tolist(), plus_one)
                    if iou is not None and iou > best_iou:
                        best, best_iou = o, iou
                if best >= 0 and best_iou >= iou_thr:
                    col, confused = int(obj.label[best]), best
                else:
                    col = K + 1
            counts[k][col] += 1
            members.append((k, r, col, int(ev.order[r]), confused))
    missed = []
    for o in range(len(obj)):
        k = int(obj.label[o])
        if k not in evs or obj.difficult[o] or not in_set[obj.image_index[o]]:
            continue
        ev = evs[k]
        found = any(
            ev.verdict[r] == Verdict.TP and ev.best_gt[r] == o and ev.score[r] >= score_thr
            for r in range(len(ev))
        )
        if not found:
            counts[k][K + 2] += 1
            missed.append((o, k))
    return counts, members, missed


def random_case(rng):
    def box():
        x, y = rng.integers(1, 16, size=2)
        w, h = rng.integers(0, 10, size=2)
        return (int(x), int(y), int(x + w), int(y + h))

    ids = [f"i{n}" for n in range(int(rng.integers(2, 6)))]
    objects = {
        i: [
            (str(rng.choice(RCLASSES)), box(), bool(rng.random() < 0.2))
            for _ in range(int(rng.integers(0, 6)))
        ]
        for i in ids
    }
    val = ids[:-1]  # the last image is outside the set; its detections are dropped
    ds = make_dataset(objects, {"Main/val": val}, classes=RCLASSES, image_ids=ids)
    dets = []
    for _ in range(int(rng.integers(0, 25))):
        i = str(rng.choice(ids))
        if objects[i] and rng.random() < 0.6:  # near an object, often exactly on it
            b = objects[i][int(rng.integers(len(objects[i])))][1]
            b = tuple(int(c + rng.integers(-2, 3) * (rng.random() < 0.5)) for c in b)
            b = (b[0], b[1], max(b[0], b[2]), max(b[1], b[3]))
        else:
            b = box()
        dets.append((str(rng.choice(RCLASSES)), i, float(rng.choice([0.2, 0.4, 0.5, 0.7, 0.9])), b))
    rs = make_results(ds, dets)
    return ds, rs


def filtered(rs, keep):
    d = rs.detections
    det = Detections(
        d.image_index[keep],
        d.label[keep],
        d.score[keep],
        d.box[keep],
        d.file_index[keep],
        d.line[keep],
    )
    return dataclasses.replace(rs, detections=det)


@pytest.mark.parametrize("seed", range(30))
def test_random_against_loop_oracle(seed):
    rng = np.random.default_rng(seed)
    ds, rs = random_case(rng)
    set_rows = ds.image_sets["Main/val"]
    in_set = np.zeros(len(ds.images), bool)
    in_set[set_rows] = True
    eval_iou = float(rng.choice([0.3, 0.5, 0.7]))
    classes = sorted(rng.choice(4, size=int(rng.integers(1, 5)), replace=False).tolist())
    evs, missed = evaluate(ds, rs, set_rows, classes=classes, iou=eval_iou)
    score_thr = float(rng.choice([-math.inf, 0.3, 0.5, 0.7]))
    iou_thr = float(rng.choice([eval_iou, 0.1, 0.5]))
    plus_one = bool(rng.random() < 0.5)
    cm = confusion_matrix(
        ds, rs, evs, missed, score_threshold=score_thr, iou_threshold=iou_thr, plus_one=plus_one
    )
    counts, members, missed_rows = oracle(ds, rs, evs, in_set, score_thr, iou_thr, plus_one)
    assert cm.counts.tolist() == counts
    got = list(
        zip(
            *(
                a.tolist()
                for a in (cm.class_index, cm.rank, cm.column, cm.detection, cm.confused_gt)
            ),
            strict=True,
        )
    )
    assert got == members
    assert (
        list(zip(cm.missed_object.tolist(), cm.missed_class.tolist(), strict=True)) == missed_rows
    )
    for k in classes:
        for col in range(len(RCLASSES) + 2):
            want = [r for kk, r, c, *_ in members if kk == k and c == col]
            assert cm.detections_in(k, col).tolist() == want
        assert cm.objects_in(k).tolist() == [o for o, kk in missed_rows if kk == k]
    check_identities(cm, evs, score_thr)
    # Dropping the detections below the threshold and re-evaluating gives the same matrix.
    kept_rs = filtered(rs, rs.detections.score >= score_thr)
    kept_evs, kept_missed = evaluate(ds, kept_rs, set_rows, classes=classes, iou=eval_iou)
    for k in classes:
        assert kept_evs[k].verdict.tolist() == evs[k].verdict[evs[k].score >= score_thr].tolist()
    again = confusion_matrix(
        ds,
        kept_rs,
        kept_evs,
        kept_missed,
        score_threshold=-math.inf,
        iou_threshold=iou_thr,
        plus_one=plus_one,
    )
    assert np.array_equal(again.counts, cm.counts)


def check_identities(cm: ConfusionMatrix, evs, score_thr):
    K = len(cm.classes)
    for k, ev in evs.items():
        counted = (ev.score >= score_thr) & (ev.verdict != Verdict.IGNORED)
        assert cm.counts[k, : K + 2].sum() == np.count_nonzero(counted)
        assert cm.counts[k, k] + cm.counts[k, K + 2] == ev.npos  # no image listed twice
    for k in set(range(K)) - set(evs):
        assert not cm.counts[k].any()


def test_row_identities_on_the_hand_case(case):
    ds, rs, evs, missed = case
    for thr in (-math.inf, 0.3, 0.5, 0.85, 0.95, math.inf):
        cm = confusion_matrix(
            ds, rs, evs, missed, score_threshold=thr, iou_threshold=0.5, plus_one=True
        )
        check_identities(cm, evs, thr)
    assert [evs[k].npos for k in (CAT, DOG, PERSON)] == [2, 2, 2]
