"""``pair_overlaps.remembered_best`` answers every call as a fresh ``BestOverlaps`` search of
the needed ranks would, however the calls' needed ranks overlap (the first search kept as it
came, later ones appended; ``Bests.take`` reads any subset by position)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.evaluation.test_diagnosis_random import _case
from vocviewer.evaluation.pair_overlaps import BestOverlaps, remembered_best


@pytest.mark.parametrize("seed", range(4))
def test_remembered_best_equals_a_fresh_search_whatever_was_searched_before(seed):
    ds, rs, evs = _case(seed)
    rng = np.random.default_rng(seed)
    for ev in evs:
        n = len(ev)
        if n == 0:
            continue
        label, similar = ev.class_index, [(ev.class_index + 1) % len(ds.classes)]
        for _ in range(4):  # needed sets overlapping the ones before, then a repeat
            needed = np.flatnonzero(rng.random(n) < 0.5).astype(np.int64)
            got = remembered_best(ds, rs, ev.order, ev.image_index, needed, True, label, similar)
            box = rs.detections.box[ev.order[needed]]
            best, iou = BestOverlaps(ds, ev.image_index[needed], box, True, label, similar).all()
            at = np.flatnonzero(rng.random(len(needed)) < 0.7)
            for which in range(3):
                b, o = got.take(which, at)
                np.testing.assert_array_equal(b, best[which][at])
                np.testing.assert_array_equal(o, iou[which][at])


def test_a_detection_asked_under_another_similar_set_is_searched_again():
    """The store is by detection row: a row kept under one (class, similar classes) asked
    under another is searched afresh, and what the first caller holds stays as it was."""
    ds, rs, evs = _case(0)
    ev = max(evs, key=len)
    label, n = ev.class_index, len(ds.classes)
    needed = np.arange(len(ev), dtype=np.int64)
    box = rs.detections.box[ev.order]
    first = remembered_best(ds, rs, ev.order, ev.image_index, needed, True, label, [])
    held = [first.take(w, needed) for w in range(3)]
    for similar in ([(label + 1) % n, (label + 2) % n], []):
        got = remembered_best(ds, rs, ev.order, ev.image_index, needed, True, label, similar)
        best, iou = BestOverlaps(ds, ev.image_index, box, True, label, similar).all()
        for w in range(3):
            np.testing.assert_array_equal(got.take(w, needed)[0], best[w])
            np.testing.assert_array_equal(got.take(w, needed)[1], iou[w])
    for w, (b, o) in enumerate(held):
        np.testing.assert_array_equal(first.take(w, needed)[0], b)
        np.testing.assert_array_equal(first.take(w, needed)[1], o)
