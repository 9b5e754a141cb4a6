"""Per-class drawing thresholds (``evaluation.drawn``): the rule ``score >= threshold[class]``
as every consumer asks it, and the confusion matrix at per-class thresholds against the loop
oracle of ``test_confusion`` run one class at a time at that class's threshold."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.evaluation.test_confusion import RCLASSES, evaluate, oracle, random_case
from vocviewer.evaluation.confusion import confusion_matrix, missed_at
from vocviewer.evaluation.drawn import (
    class_threshold,
    detection_threshold,
    is_drawn,
    per_class_thresholds,
    threshold_key,
)


def test_per_detection_thresholds_keep_at_or_above_their_own():
    t = np.array([0.3, 0.6, 0.9])
    labels = np.array([0, 1, 2, 1, 0, 2])
    score = np.array([0.3, np.nextafter(0.6, 0), 0.9, 0.6, np.nan, 1.0])
    got = is_drawn(score, detection_threshold(t, labels))
    assert got.tolist() == [True, False, True, True, False, True]
    # one number stays one number; per class reads the class's entry
    assert detection_threshold(0.5, labels) == 0.5 and class_threshold(0.5, 2) == 0.5
    assert class_threshold(t, 1) == 0.6
    assert threshold_key(t) == (0.3, 0.6, 0.9) and threshold_key(0.5) == 0.5


def test_offset_is_added_and_clamped_to_zero_one():
    base = np.array([0.2, 0.5, 0.95])
    assert per_class_thresholds(base, 0.1).tolist() == [0.2 + 0.1, 0.5 + 0.1, 1.0]
    assert per_class_thresholds(base, -0.3).tolist() == [0.0, 0.5 - 0.3, 0.95 - 0.3]
    assert per_class_thresholds(base, 0.0).tolist() == base.tolist()


@pytest.mark.parametrize("seed", range(20))
def test_confusion_at_per_class_thresholds_is_each_class_at_its_own(seed):
    rng = np.random.default_rng(seed)
    ds, rs = random_case(rng)
    set_rows = ds.image_sets["Main/val"]
    in_set = np.zeros(len(ds.images), bool)
    in_set[set_rows] = True
    classes = sorted(rng.choice(4, size=int(rng.integers(1, 5)), replace=False).tolist())
    evs, missed = evaluate(ds, rs, set_rows, classes=classes)
    per_class = rng.choice([0.0, 0.2, 0.4, 0.5, 0.7, 0.9, 1.0], size=len(RCLASSES))
    plus_one = bool(rng.random() < 0.5)
    cm = confusion_matrix(
        ds, rs, evs, missed, score_threshold=per_class, iou_threshold=0.5, plus_one=plus_one
    )
    want = np.zeros_like(cm.counts)
    want_missed = []
    for k in classes:
        counts, _members, missed_rows = oracle(
            ds, rs, {k: evs[k]}, in_set, float(per_class[k]), 0.5, plus_one
        )
        want[k] = counts[k]
        want_missed += missed_rows
        rows = cm.rank[cm.class_index == k]
        assert np.all(evs[k].score[rows] >= per_class[k])
    assert cm.counts.tolist() == want.tolist()
    assert sorted(cm.missed_object.tolist()) == sorted(o for o, _ in want_missed)
    got_missed = missed_at(ds, evs, missed, per_class)
    assert sorted(np.flatnonzero(got_missed).tolist()) == sorted(o for o, _ in want_missed)
    assert cm.to_dict()["score_threshold"] == per_class.tolist()
    assert cm.class_threshold(classes[0]) == per_class[classes[0]]
    # one threshold for all equals the same threshold repeated per class
    t = float(rng.choice([0.2, 0.5, 0.7]))
    one = confusion_matrix(ds, rs, evs, missed, score_threshold=t, iou_threshold=0.5, plus_one=True)
    rep = confusion_matrix(
        ds, rs, evs, missed, score_threshold=np.full(4, t), iou_threshold=0.5, plus_one=True
    )
    assert np.array_equal(one.counts, rep.counts) and not math.isnan(one.class_threshold(0))
