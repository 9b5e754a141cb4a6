"""VOC person layout (PROTOCOLS.md §4): hand-worked cases, a loop reference, the demo."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from tests.evaluation.builders import make_dataset
from vocviewer.core.dataset import VOC_PARTS, PartTable, PersonSet
from vocviewer.core.errors import FormatError
from vocviewer.evaluation.result import Verdict
from vocviewer.families.voc.layout_evaluate import (
    LAYOUT_DUPLICATE,
    LAYOUT_UNKNOWN_PERSON,
    LAYOUT_USED,
    LayoutResults,
    evaluate_voc_layout,
)


def build(persons, listed=None):
    """persons: {image_id: [[(part, box), ...] per person object]}; listed: [(id, object no.)]
    (default: every person). Returns a Dataset with a ``Layout/val`` person list."""
    objects = {i: [("person", (1, 1, 200, 200), False)] * len(ps) for i, ps in persons.items()}
    ds = make_dataset(objects, {"Main/val": list(persons)})
    obj_rows, kinds, boxes = [], [], []
    for i, ps in persons.items():
        first = ds.objects_of(ds.image_index(i)).start
        for k, parts in enumerate(ps):
            for kind, box in parts:
                obj_rows.append(first + k)
                kinds.append(VOC_PARTS.index(kind))
                boxes.append(box)
    listed = listed or [(i, k + 1) for i, ps in persons.items() for k in range(len(ps))]
    image_rows = [ds.image_index(i) for i, _ in listed]
    rows = [ds.objects_of(ds.image_index(i)).start + k - 1 for i, k in listed]
    return dataclasses.replace(
        ds,
        parts=PartTable(obj_rows, kinds, np.array(boxes, float).reshape(-1, 4)),
        person_sets={"Layout/val": PersonSet(image_rows, rows)},
    )


def layouts_of(rows):
    """rows: [(image_id, object no., confidence, [(part, box), ...])] in XML order."""
    parts = [(n, VOC_PARTS.index(k), b) for n, (_, _, _, ps) in enumerate(rows) for k, b in ps]
    return LayoutResults(
        image_id=np.array([r[0] for r in rows], dtype=str),
        object_number=[r[1] for r in rows],
        confidence=[r[2] for r in rows],
        part_layout=[p[0] for p in parts],
        part_class=[p[1] for p in parts],
        part_box=np.array([p[2] for p in parts], float).reshape(-1, 4),
    )


BOX = (1, 1, 10, 10)


def test_hand_worked_duplicates_unknown_pairs_ties_and_extra_hands():
    ds = build(
        {
            "a": [[("head", BOX), ("hand", BOX), ("hand", (2, 1, 11, 10))]],
            "b": [[("head", BOX)]],
        }
    )
    lay = layouts_of(
        [
            ("a", 1, 0.9, [("hand", BOX), ("hand", BOX), ("head", BOX)]),
            ("a", 1, 0.8, [("head", BOX), ("hand", (2, 1, 11, 10))]),  # duplicate: skipped
            ("c", 1, 0.95, [("head", BOX)]),  # unknown person: skipped
            ("b", 1, 0.9, [("head", (50, 50, 60, 60))]),  # tie with the first: ranks after it
        ]
    )
    ev = evaluate_voc_layout(ds, lay, image_set="val")
    assert ev.layout_status.tolist() == [
        LAYOUT_USED,
        LAYOUT_DUPLICATE,
        LAYOUT_UNKNOWN_PERSON,
        LAYOUT_USED,
    ]
    assert len(ev.warnings) == 2 and "duplicate" in ev.warnings[1] and "c 1" in ev.warnings[0]
    head, hand, foot = ev.result.classes
    # head: TP (layout 0) then FP (layout 3); npos 2 -> prec [1, 1/2], rec [1/2, 1/2]; AP 1/2
    assert head.verdict.tolist() == [Verdict.TP, Verdict.FP] and head.npos == 2
    assert head.ap == 0.5 and head.order.tolist() == [2, 6]
    # hand: the second hand's best GT hand (IoU 1) is taken although the other GT hand has
    # IoU 90/110 >= 0.5: FP, no fallback
    assert hand.verdict.tolist() == [Verdict.TP, Verdict.DUPLICATE] and hand.npos == 2
    assert hand.duplicate_of.tolist() == [-1, 0] and hand.ap == 0.5
    assert hand.best_iou.tolist() == [1.0, 1.0]
    assert foot.npos == 0 and foot.ndet == 0 and foot.ap == 0.0
    assert ev.result.official and ev.mean_ap() == pytest.approx(1 / 3, abs=1e-15)


def test_part_order_within_a_layout_changes_the_curve():
    ds = build({"a": [[("hand", BOX)]], "b": [[("hand", BOX)]]})
    far = (100, 100, 110, 110)
    first = evaluate_voc_layout(
        ds,
        layouts_of([("a", 1, 1.0, [("hand", BOX), ("hand", far)]), ("b", 1, 0.5, [("hand", BOX)])]),
        image_set="val",
    )
    second = evaluate_voc_layout(
        ds,
        layouts_of([("a", 1, 1.0, [("hand", far), ("hand", BOX)]), ("b", 1, 0.5, [("hand", BOX)])]),
        image_set="val",
    )
    # TP FP TP: prec 1, 1/2, 2/3 at rec 1/2, 1/2, 1 -> 1/2 + 1/2 * 2/3
    assert first.result.classes[1].ap == pytest.approx(0.5 + 1 / 3, abs=1e-15)
    # FP TP TP: prec 0, 1/2, 2/3 -> envelope 2/3 over both steps
    assert second.result.classes[1].ap == pytest.approx(2 / 3, abs=1e-15)


def test_iou_exactly_half_with_plus_one_is_a_tp_and_no_positives_gives_nan():
    ds = build({"a": [[("head", (1, 1, 100, 100))]]})
    ev = evaluate_voc_layout(
        ds,
        layouts_of([("a", 1, 0.3, [("head", (1, 1, 100, 200)), ("foot", BOX)])]),
        image_set="val",
    )
    head, _, foot = ev.result.classes
    assert head.best_iou[0] == 0.5 and head.verdict[0] == Verdict.TP and head.ap == 1.0
    assert foot.npos == 0 and math.isnan(foot.ap) and foot.verdict[0] == Verdict.FP


def test_people_without_layout_lower_recall_and_missing_list_is_an_error():
    ds = build({"a": [[("head", BOX)], [("head", BOX)]]})
    ev = evaluate_voc_layout(ds, layouts_of([("a", 2, 0.3, [("head", BOX)])]), image_set="val")
    assert ev.result.classes[0].recall.tolist() == [0.5] and ev.result.classes[0].ap == 0.5
    with pytest.raises(FormatError, match="Layout/test"):
        evaluate_voc_layout(ds, layouts_of([]), image_set="test")


# --- a loop reference written from the rules ------------------------------------------------
def _iou(a, b):
    iw = min(a[2], b[2]) - max(a[0], b[0]) + 1
    ih = min(a[3], b[3]) - max(a[1], b[1]) + 1
    if iw > 0 and ih > 0:
        ua = (a[2] - a[0] + 1) * (a[3] - a[1] + 1) + (b[2] - b[0] + 1) * (b[3] - b[1] + 1) - iw * ih
        return iw * ih / ua
    return None


def _vocap(rec, prec):
    mrec, mpre = [0.0, *rec, 1.0], [0.0, *prec, 0.0]
    for i in range(len(mpre) - 2, -1, -1):
        a, b = mpre[i], mpre[i + 1]
        mpre[i] = b if math.isnan(a) else a if math.isnan(b) else max(a, b)
    return sum(
        (mrec[i] - mrec[i - 1]) * mpre[i] for i in range(1, len(mrec)) if mrec[i] != mrec[i - 1]
    )


def reference_layout_ap(gt, rows):
    """gt: {(id, obj): [(part, box)]} in list order; rows as ``layouts_of``."""
    npos = {t: sum(1 for ps in gt.values() for k, _ in ps if k == t) for t in VOC_PARTS}
    ranked = sorted(range(len(rows)), key=lambda i: -rows[i][2])  # stable
    seen = set()
    marks = {t: [] for t in VOC_PARTS}
    for i in ranked:
        key = (rows[i][0], rows[i][1])
        if key not in gt or key in seen:
            continue
        seen.add(key)
        assigned = set()
        for kind, box in rows[i][3]:
            best, jbest = -math.inf, None
            for j, (gk, gbox) in enumerate(gt[key]):
                if gk == kind:
                    ov = _iou(box, gbox)
                    if ov is not None and ov > best:
                        best, jbest = ov, j
            ok = best >= 0.5 and jbest not in assigned
            if ok:
                assigned.add(jbest)
            marks[kind].append(ok)
    aps = {}
    for t in VOC_PARTS:
        tp = fp = 0
        rec, prec = [], []
        for ok in marks[t]:
            tp, fp = tp + ok, fp + (not ok)
            rec.append(tp / npos[t] if npos[t] else math.nan)
            prec.append(tp / (tp + fp))
        aps[t] = _vocap(rec, prec)
    return aps


def test_random_cases_against_the_loop_reference():
    rng = np.random.default_rng(11)

    def box():
        x, y = (int(v) for v in rng.integers(1, 8, 2))
        return (x, y, x + int(rng.integers(0, 6)), y + int(rng.integers(0, 6)))

    for _ in range(60):
        persons = {
            f"i{n}": [
                [(str(rng.choice(VOC_PARTS)), box()) for _ in range(int(rng.integers(0, 4)))]
                for _ in range(int(rng.integers(1, 3)))
            ]
            for n in range(int(rng.integers(1, 4)))
        }
        ds = build(persons)
        gt = {(i, k + 1): ps for i, pp in persons.items() for k, ps in enumerate(pp)}
        keys = [*gt, ("nobody", 1)]
        rows = [
            (
                *keys[int(rng.integers(len(keys)))],
                float(rng.integers(0, 4)),
                [(str(rng.choice(VOC_PARTS)), box()) for _ in range(int(rng.integers(0, 4)))],
            )
            for _ in range(int(rng.integers(0, 8)))
        ]
        ev = evaluate_voc_layout(ds, layouts_of(rows), image_set="val")
        ref = reference_layout_ap(gt, rows)
        for c in ev.result.classes:
            want = ref[c.class_name]
            assert (math.isnan(c.ap) and math.isnan(want)) or abs(c.ap - want) <= 1e-12


def test_demo_layout(demo):
    from vocviewer.families.voc.layout_reader import find_layout_results, read_layout_results
    from vocviewer.families.voc.reader import read_voc

    ds = read_voc(demo.year_dir)
    lay, problems = read_layout_results(find_layout_results(demo.results_dir, "val"))
    assert not problems and len(lay) > 0
    ev = evaluate_voc_layout(ds, lay, image_set="val")
    persons = ds.person_sets["Layout/val"]
    gt = {}
    for image, obj in zip(persons.image_index.tolist(), persons.object_index.tolist(), strict=True):
        rows = np.flatnonzero(ds.parts.object_index == obj)
        key = (str(ds.images.id[image]), int(ds.objects.order_in_image[obj]) + 1)
        gt[key] = [(VOC_PARTS[ds.parts.part[r]], tuple(ds.parts.box[r])) for r in rows]
    rows = [
        (
            str(lay.image_id[i]),
            int(lay.object_number[i]),
            float(lay.confidence[i]),
            [(VOC_PARTS[lay.part_class[p]], tuple(lay.part_box[p])) for p in lay.parts_of(i)],
        )
        for i in range(len(lay))
    ]
    ref = reference_layout_ap(gt, rows)
    for c in ev.result.classes:
        assert abs(c.ap - ref[c.class_name]) <= 1e-12 and c.npos > 0
    assert ev.result.official
