"""The detection walk (viewdet's, and more): 20 steps of a class in every mode, each checked
against the verdicts themselves — the image shown, the selection, the Ranks tab and the
inspector — then the end of the walk, the same-verdict keys and the walk over all classes."""

from __future__ import annotations

import numpy as np
import pytest

from vocviewer.evaluation.result import Verdict
from vocviewer.gui.models.walk import WALK_MODES


@pytest.fixture
def demo_window(qtbot, make_window, demo):
    win = make_window()
    win.open_dataset(demo.year_dir, (demo.results_dir / "Main",))
    st = win.state
    qtbot.waitUntil(lambda: st.current_results >= 0 and st.is_idle(), timeout=60_000)
    return win


def expected_ranks(st, k, key):
    """The ranks a mode visits, from the verdicts and FP kinds (not from the walk's code)."""
    ev, evals = st.class_evaluation(k), st.evaluations[st.current_results]
    ranks = np.arange(len(ev))
    if key == "tp":
        return ranks[ev.verdict == Verdict.TP]
    if key == "fp":
        return ranks[(ev.verdict == Verdict.FP) | (ev.verdict == Verdict.DUPLICATE)]
    if key.startswith("kind:"):
        kinds = evals.fp_kind_by_row[ev.order]
        fp = (ev.verdict == Verdict.FP) | (ev.verdict == Verdict.DUPLICATE)
        wanted = [int(k) for k in key[5:].split(",")]  # one kind, or several ("kind:3,4")
        return ranks[fp & np.isin(kinds, wanted)]
    return ranks


@pytest.mark.parametrize("mode", [m.key for m in WALK_MODES])
def test_walk_twenty_steps_in_each_mode(qtbot, demo_window, mode):
    win, st = demo_window, demo_window.state
    person = st.dataset.classes.index("person")
    st.select_class(person)
    walk = win.walk
    walk.walk.set_mode(mode)
    assert walk.mode_actions[mode].isChecked()
    if mode == "missed":
        missed = st.evaluations[0].missed_at(st.dataset, st.score_threshold)
        want = np.flatnonzero(missed & (st.dataset.objects.label == person))[:20]
    else:
        want = expected_ranks(st, person, mode)[:20]
    for target in want.tolist():
        assert walk.step(1)
        qtbot.waitUntil(lambda: win.view.shown_image == st.current_image, timeout=10_000)
        why = win.side.why.text()
        if mode == "missed":
            assert st.selected_object == target
            assert st.current_image == int(st.dataset.objects.image_index[target])
            assert "Missed" in why or "Matched by" in why  # missed at the drawn threshold
        else:
            ev = st.class_evaluation(person)
            assert st.selected_detection == (person, target)
            assert st.current_image == int(ev.image_index[target])
            assert why.startswith(f"Rank {target + 1} of {len(ev)}")
            assert win.side.ranks.current_key() == target
            assert win.view.highlighted_item() is not None  # drawn whatever the filters
    if mode == "missed":
        missed = st.evaluations[0].missed_at(st.dataset, st.score_threshold)
        total = int(np.count_nonzero(missed & (st.dataset.objects.label == person)))
    else:
        total = len(expected_ranks(st, person, mode))
    if total <= 20:  # the walk ends, and says so
        assert not walk.step(1)
        assert "the walk ends here" in win.status.label.text() or total == 0
    assert len(want) > 0 or mode.startswith("kind:")


def test_same_verdict_keys_and_the_start_of_the_walk(qtbot, demo_window):
    win, st = demo_window, demo_window.state
    person = st.dataset.classes.index("person")
    st.select_class(person)
    ev = st.class_evaluation(person)
    tps = np.flatnonzero(ev.verdict == Verdict.TP)
    st.select_detection(person, int(tps[0]))
    win.walk.act_next_same.trigger()
    assert st.selected_detection == (person, int(tps[1]))
    win.walk.act_previous_same.trigger()
    assert st.selected_detection == (person, int(tps[0]))
    st.select_detection(person, 0)
    assert not win.walk.step(-1)
    assert "First of" in win.status.label.text()


def test_walk_over_all_classes_goes_by_score(qtbot, demo_window):
    win, st = demo_window, demo_window.state
    st.select_class(-1)
    scores = []
    for _ in range(20):
        assert win.walk.step(1)
        k, r = st.selected_detection
        scores.append(float(st.class_evaluation(k).score[r]))
        assert st.selected_class == -1  # the walk keeps every class listed
    assert scores == sorted(scores, reverse=True)
    det = st.results[0].results.detections
    assert scores[0] == float(np.max(det.score))
    win.walk.act_previous.trigger()
    k, r = st.selected_detection
    assert float(st.class_evaluation(k).score[r]) == scores[-2]
