"""Which objects each bin of a characteristic holds and whether each was found (the window's
click-through on a bin): hand-worked on a toy ranking, and on the demo against the protocol's
own verdicts (a counted object is found exactly when a true positive matched it)."""

from __future__ import annotations

import numpy as np

from vocviewer.evaluation.characteristics import ClassRanking, characteristic
from vocviewer.evaluation.normalised_ap import default_normalisers
from vocviewer.evaluation.result import Verdict
from vocviewer.families.registry import open_dataset, open_results
from vocviewer.families.voc.analyze import voc_characteristics
from vocviewer.families.voc.evaluate import evaluate_voc_det


def test_toy_objects_bins_and_found() -> None:
    # class 0: objects 0, 1 (bin 0), 2 (bin 1), 3 (no bin); class 1: object 4 (bin 1), object 5
    # of class 2, which has no ranking. Class 0's ranks: TP on 0, FP, ignored on 3, TP on 2
    # (hit by a second, ignored detection too); class 1: an FP only.
    tp, fp = np.array([1, 0, 0, 1, 0], bool), np.array([0, 1, 0, 0, 0], bool)
    r0 = ClassRanking("a", 0, tp, fp, np.array([0, -1, 3, 2, 2], np.int64))
    r1 = ClassRanking("b", 1, np.array([0], bool), np.array([1], bool), np.array([-1], np.int64))
    label = np.array([0, 0, 0, 0, 1, 2])
    bins = np.array([0, 0, 1, -1, 1, 0])
    c = characteristic("x", ("p", "q"), bins, [r0, r1], label, np.ones(6, bool), 1.0)
    assert c.obj_bin.tolist() == [0, 0, 1, -1, 1, -1]  # class 2 is ranked by no one
    assert c.found.tolist() == [True, False, True, True, False, False]
    assert c.objects_in(0).tolist() == [0, 1]
    assert c.objects_in(1).tolist() == [2, 4]
    assert c.objects_in(1, label, 1).tolist() == [4]
    assert c.objects_in(1, label, 0).tolist() == [2]
    for k in (0, 1):  # the listed objects are the ones AP_N counts as positives
        for b in (0, 1):
            assert len(c.objects_in(b, label, k)) == c.npos[k, b]


def test_demo_objects_of_each_bin_are_the_counted_ones_and_found_means_matched(demo) -> None:
    ds = open_dataset(demo.year_dir)
    ev = evaluate_voc_det(
        ds, open_results(ds, [demo.results_dir], image_set="val"), image_set="val"
    )
    chars = voc_characteristics(ds, ev, default_normalisers(ev)[0])
    obj = ds.objects
    in_val = np.isin(obj.image_index, ds.image_sets["Main/val"])
    matched = np.zeros(len(obj), bool)
    for c in ev.classes:
        matched[c.best_gt[c.verdict == Verdict.TP]] = True
    t = chars["truncated"]
    # the truncated bin: non-difficult truncated objects of the val images, by the annotations
    yes = np.flatnonzero(in_val & ~obj.difficult & obj.truncated)
    assert t.objects_in(1).tolist() == yes.tolist()
    assert t.found[yes].tolist() == matched[yes].tolist()
    assert 0 < np.count_nonzero(t.found[yes]) < len(yes)  # some found, some missed
    size = chars["size"]
    counted = np.flatnonzero(in_val & ~obj.difficult)
    assert sorted(np.flatnonzero(size.obj_bin >= 0).tolist()) == counted.tolist()
    assert size.npos.sum() == len(counted)
