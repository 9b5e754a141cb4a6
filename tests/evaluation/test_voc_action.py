"""VOC action (PROTOCOLS.md §5): hand-worked cases, a loop reference, the demo."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from tests.evaluation.builders import make_dataset
from tests.evaluation.test_voc_layout import _vocap
from vocviewer.core.dataset import VOC_ACTIONS, PersonSet
from vocviewer.core.errors import FormatError
from vocviewer.evaluation.result import Verdict
from vocviewer.families.voc.action_evaluate import (
    ActionScores,
    action_mean_ap,
    evaluate_action_class,
    evaluate_voc_action,
)


def build(listed, action="phoning"):
    """listed: [(image_id, object no., label)] in list order (each image has 3 persons)."""
    ids = sorted({i for i, _, _ in listed})
    ds = make_dataset({i: [("person", (1, 1, 9, 9), False)] * 3 for i in ids}, {"Main/val": ids})
    rows = [ds.objects_of(ds.image_index(i)).start + k - 1 for i, k, _ in listed]
    persons = PersonSet(
        [ds.image_index(i) for i, _, _ in listed], rows, [lab for *_, lab in listed]
    )
    return dataclasses.replace(
        ds, actions=VOC_ACTIONS, person_sets={f"Action/{action}_val": persons}
    )


def scores(rows, action="phoning"):
    return ActionScores(
        action,
        np.array([r[0] for r in rows], dtype=str),
        [r[1] for r in rows],
        [r[2] for r in rows],
        line=list(range(1, len(rows) + 1)),
    )


def test_hand_worked_missing_scores_last_line_wins_label_zero_and_ties():
    ds = build([("a", 1, 1), ("a", 2, -1), ("b", 1, 0), ("b", 2, 1), ("b", 3, -1)])
    sc = scores([("a", 1, 0.1), ("a", 2, 0.5), ("b", 1, 0.9), ("a", 1, 0.5)])  # a/1: last wins
    c = evaluate_action_class(ds, "phoning", sc, image_set="val")
    # ranking: b/1 0.9, then a/1 and a/2 tie at 0.5 in list order, then b/2, b/3 at -inf
    assert c.order.tolist() == [2, 0, 1, 3, 4]
    assert c.verdict.tolist() == [Verdict.IGNORED, Verdict.TP, Verdict.FP, Verdict.TP, Verdict.FP]
    assert c.ndet == 3 and c.npos == 2 and c.score[-1] == -np.inf
    # prec [NaN, 1, 1/2, 2/3, 1/2], rec [0, 1/2, 1/2, 1, 1] -> 1/2*1 + 1/2*2/3
    assert c.ap == pytest.approx(0.5 + 1 / 3, abs=1e-15)


def test_unknown_person_and_duplicated_gt_key_are_errors():
    ds = build([("a", 1, 1), ("a", 1, -1), ("a", 2, 1)])
    with pytest.raises(FormatError, match="not in ImageSets/Action/phoning_val") as e:
        evaluate_action_class(ds, "phoning", scores([("a", 3, 1.0)]), image_set="val")
    assert e.value.line == 1
    with pytest.raises(FormatError, match="listed twice"):
        evaluate_action_class(
            ds, "phoning", scores([("a", 2, 1.0), ("a", 1, 0.2)]), image_set="val"
        )
    notes: list[str] = []
    c = evaluate_action_class(
        ds, "phoning", scores([("a", 3, 1.0)]), image_set="val", strict=False, notes=notes
    )
    assert c.ndet == 0 and "1 result lines skipped" in notes[0]


def test_other_is_left_out_of_the_action_mean():
    ds = build([("a", 1, 1), ("a", 2, -1)])
    ds = dataclasses.replace(
        ds,
        person_sets={**ds.person_sets, "Action/other_val": ds.person_sets["Action/phoning_val"]},
    )
    res = evaluate_voc_action(
        ds,
        {
            "phoning": scores([("a", 1, 0.9)]),
            "other": scores([("a", 1, 0.1), ("a", 2, 0.9)], "other"),
        },
        image_set="val",
    )
    assert [c.class_name for c in res] == ["other", "phoning"]
    assert res.by_name("other").ap == 0.5 and res.by_name("phoning").ap == 1.0
    mean, used, left_out = action_mean_ap(res)
    assert mean == 1.0 and used == ["phoning"] and left_out[0].startswith("other")


def reference_action_ap(listed, rows):
    score = {}
    for i, k, s in rows:
        score[(i, k)] = s
    ranked = sorted(range(len(listed)), key=lambda n: -score.get(listed[n][:2], -math.inf))
    npos = sum(1 for *_, lab in listed if lab > 0)
    tp = fp = 0
    rec, prec = [], []
    for n in ranked:
        lab = listed[n][2]
        tp, fp = tp + (lab > 0), fp + (lab < 0)
        rec.append(tp / npos if npos else math.nan)
        prec.append(tp / (tp + fp) if tp + fp else math.nan)
    return _vocap(rec, prec)


def test_random_cases_against_the_loop_reference():
    rng = np.random.default_rng(3)
    for _ in range(80):
        keys = [(i, k) for i in ("a", "b", "c") for k in (1, 2, 3)]
        chosen = [keys[j] for j in rng.permutation(9)[: int(rng.integers(1, 10))]]
        listed = [(i, k, int(rng.choice([-1, 0, 1]))) for i, k in chosen]
        rows = [
            (*chosen[int(rng.integers(len(chosen)))], float(rng.integers(0, 3)))
            for _ in range(int(rng.integers(0, 12)))
        ]
        c = evaluate_action_class(build(listed), "phoning", scores(rows), image_set="val")
        want = reference_action_ap(listed, rows)
        assert (math.isnan(c.ap) and math.isnan(want)) or abs(c.ap - want) <= 1e-12


def test_demo_action(demo):
    from vocviewer.families.voc.action_reader import find_action_results, read_action_results
    from vocviewer.families.voc.reader import read_voc

    ds = read_voc(demo.year_dir)
    files = find_action_results([demo.results_dir], "val")
    assert set(files) == set(VOC_ACTIONS[1:])
    sc = {a: read_action_results(f)[0] for a, f in files.items()}
    res = evaluate_voc_action(ds, sc, image_set="val")
    assert [c.class_name for c in res] == list(VOC_ACTIONS[1:]) and res.official
    for c in res:
        persons = ds.person_sets[f"Action/{c.class_name}_val"]
        listed = [
            (str(ds.images.id[i]), int(ds.objects.order_in_image[o]) + 1, int(lab))
            for i, o, lab in zip(
                persons.image_index.tolist(),
                persons.object_index.tolist(),
                persons.label.tolist(),
                strict=True,
            )
        ]
        s = sc[c.class_name]
        rows = list(
            zip(s.image_id.tolist(), s.object_number.tolist(), s.score.tolist(), strict=True)
        )
        want = reference_action_ap(listed, rows)
        assert (math.isnan(c.ap) and math.isnan(want)) or abs(c.ap - want) <= 1e-12
    assert not math.isnan(action_mean_ap(res)[0])


def test_a_listed_person_without_an_annotated_object_keeps_its_number():
    """VOCevalaction keys persons by the list's (id, object index) and never reads the
    annotation: a person listed as object 7 of an image with 3 objects is still scored."""
    ds = build([("a", 1, 1), ("a", 2, -1)])
    listed = ds.person_sets["Action/phoning_val"]
    persons = PersonSet(
        np.r_[listed.image_index, listed.image_index[:1]],
        np.r_[listed.object_index, -1],
        np.r_[listed.label, 1],
        object_number=[1, 2, 7],
    )
    ds = dataclasses.replace(ds, person_sets={"Action/phoning_val": persons})
    c = evaluate_action_class(
        ds, "phoning", scores([("a", 7, 0.9), ("a", 2, 0.5), ("a", 1, 0.1)]), image_set="val"
    )
    # ranked a/7 (TP), a/2 (FP), a/1 (TP): prec 1, 1/2, 2/3; rec 1/2, 1/2, 1 -> 1/2 + 1/2 * 2/3
    assert c.order.tolist() == [2, 1, 0] and c.ndet == 3
    assert c.ap == pytest.approx(0.5 + 1 / 3, abs=1e-15)
