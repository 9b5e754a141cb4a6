"""AppState: signals, filters, navigation, evaluation jobs and detection selection."""

from __future__ import annotations

import dataclasses

import pytest

from vocviewer.core.dataset import VOC_CLASSES
from vocviewer.evaluation.result import Verdict
from vocviewer.gui.models.state import AppState
from vocviewer.gui.models.tasks import LoadedResults, guess_image_set, image_set_choices

DOG, CAT, PERSON = (VOC_CLASSES.index(c) for c in ("dog", "cat", "person"))


@pytest.fixture
def state(qtbot):
    st = AppState()
    yield st
    st.shutdown()
    qtbot.wait(10)


def evaluated(qtbot, state, tiny):
    dataset, results = tiny
    state.set_dataset(dataset)
    with qtbot.waitSignal(state.evaluation.finished, timeout=10_000):
        state.add_result_set(results)
    qtbot.waitUntil(state.is_idle, timeout=10_000)  # (the diagnosis follows the numbers)
    return dataset, results


def test_set_dataset_emits_and_selects_the_first_image(qtbot, state, tiny):
    dataset, _ = tiny
    with qtbot.waitSignals(
        [
            state.dataset_loaded,
            state.image_set_changed,
            state.visible_images_changed,
            state.image_changed,
        ],
        order="strict",
    ):
        state.set_dataset(dataset)
    assert state.image_set == state.eval_set == "val"
    assert state.visible_images.tolist() == [0, 1, 2]
    assert state.current_image == 0
    assert image_set_choices(dataset) == [("val", "val"), ("train", "train"), ("All images", None)]


def test_class_filter_and_navigation(qtbot, state, tiny):
    state.set_dataset(tiny[0])
    with qtbot.waitSignal(state.class_changed, check_params_cb=lambda k: k == DOG):
        state.select_class(DOG)
    assert state.visible_images.tolist() == [0, 2]  # images containing a dog
    state.step_image(+1)
    assert state.current_image == 2
    state.step_image(+1)  # clamped at the end
    assert state.current_image == 2
    state.step_image(-5)
    assert state.current_image == 0
    state.select_class(CAT)
    assert state.visible_images.tolist() == [1]
    assert state.current_image == 1  # the old image is filtered out: first visible one
    state.set_image_set("train")
    assert state.visible_images.tolist() == []
    assert state.current_image == -1


def test_threshold_and_display_toggles(qtbot, state):
    with qtbot.waitSignal(state.threshold_changed, check_params_cb=lambda v: v == 0.25):
        state.set_threshold(0.25)
    with qtbot.waitSignal(state.display_changed):
        state.set_display("only_tp", True)
    assert state.only_tp
    with qtbot.assertNotEmitted(state.display_changed):
        state.set_display("only_tp", True)
    with pytest.raises(ValueError, match="unknown display toggle"):
        state.set_display("show_everything", True)


def test_evaluation_runs_per_class_in_a_worker(qtbot, state, tiny):
    dataset, results = tiny
    state.set_dataset(dataset)
    arrived: list[int] = []
    state.evaluation.class_evaluated.connect(lambda i, ev: arrived.append(ev.class_index))
    progress: list[tuple[int, int]] = []
    state.evaluation.progress.connect(lambda d, t: progress.append((d, t)))
    with qtbot.waitSignal(state.evaluation.finished, timeout=10_000):
        state.add_result_set(results)
    assert arrived == list(range(20))
    assert progress[0] == (0, 20) and progress[-1] == (20, 20)
    qtbot.waitUntil(state.is_idle, timeout=10_000)  # (the diagnosis follows the numbers)
    assert state.current_results == 0
    dog = state.class_evaluation(DOG)
    assert dog is not None and dog.ap == pytest.approx(5 / 6)
    ev = state.evaluations[0]
    assert ev.verdict_by_row.tolist() == [
        Verdict.TP,
        Verdict.DUPLICATE,
        Verdict.FP,
        Verdict.TP,
        Verdict.TP,
        Verdict.IGNORED,
    ]
    assert ev.rank_by_row.tolist() == [0, 1, 3, 2, 0, 0]


def test_select_detection_opens_its_image(qtbot, state, tiny):
    evaluated(qtbot, state, tiny)
    state.set_current_image(0)
    fp_rank = 3  # the dog FP on img2
    with qtbot.waitSignals([state.class_changed, state.image_changed, state.selection_changed]):
        state.select_detection(DOG, fp_rank)
    assert state.selected_class == DOG
    assert state.current_image == 1
    assert state.selected_detection == (DOG, fp_rank)
    assert state.selected_detection_row() == 2
    state.select_class(CAT)  # another class drops the selection
    assert state.selected_detection is None
    state.select_detection(DOG, 99)  # out of range: ignored
    assert state.selected_detection is None


def unnamed(tiny):
    """The tiny results under a file name that names no image set (so any Main set applies)."""
    dataset, results = tiny
    return dataset, dataclasses.replace(results, files=(dataset.root / "detections.txt",))


def test_switching_main_set_reevaluates_and_reports_rejected_rows(qtbot, state, tiny):
    evaluated(qtbot, state, unnamed(tiny))
    messages: list = []
    state.messages_posted.connect(messages.extend)
    with qtbot.waitSignal(state.evaluation.finished, timeout=10_000):
        state.set_image_set("train")
    assert state.eval_set == "train"
    assert any(m.level == "error" and "not in image set 'train'" in m.text for m in messages)
    dog = state.class_evaluation(DOG)
    assert dog is not None and len(dog) == 2  # only img1's detections remain


def test_results_naming_a_set_stay_evaluated_on_it(qtbot, state, tiny):
    evaluated(qtbot, state, tiny)  # comp4_det_val_all.txt: val results
    state.set_image_set("train")
    assert state.image_set == "train" and state.eval_set == "val" and state.is_idle()
    assert len(state.class_evaluation(DOG)) == 4


def test_stale_evaluation_is_dropped(qtbot, state, tiny):
    dataset, results = unnamed(tiny)
    state.set_dataset(dataset)
    state.add_result_set(results)  # evaluation on val starts ...
    state.set_image_set("train")  # ... and is superseded at once
    with qtbot.waitSignal(state.evaluation.finished, timeout=10_000):
        pass
    qtbot.wait(50)
    assert state.is_idle()
    assert len(state.class_evaluation(DOG)) == 2  # train, not val (4)


def test_load_errors_are_posted_not_raised(qtbot, state, tmp_path):
    messages: list = []
    state.messages_posted.connect(messages.extend)
    with qtbot.waitSignal(state.load_failed, timeout=10_000):
        state.open_dataset(tmp_path / "nowhere")
    assert messages and messages[0].level == "error"
    assert "nowhere" in messages[0].text
    assert state.dataset is None


def test_guess_image_set_and_detection_index(tiny):
    dataset, results = tiny
    assert guess_image_set(results, dataset) == "val"
    loaded = LoadedResults.build(dataset, results)
    assert loaded.detections_of(0).tolist() == [0, 1, 5]
    assert loaded.detections_of(2).tolist() == [3]
