"""``vocviewer open GT.json --results R.json`` starts the dataset, its results and their evaluation
before the window exists (``tasks.prefetch_open``: in a thread of the window's process where the
compiled JSON kernel is built, else in the helper process); the window must show exactly what it
computes itself, take every prefetched answer, and fall back where they do not fit (another IoU
chosen) or the helper dies mid-stream."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

from tests.gui.test_protocol_window import INSTANCES, write_coco_results
from vocviewer.families.registry import benchmark_of, open_dataset
from vocviewer.families.views import ClassView, Summary
from vocviewer.gui.models import helper_process, open_ahead
from vocviewer.gui.models.tasks import load_results, prefetch_open


def _open(qtbot, window, path, res):
    st = window.state
    window.open_dataset(path, (res,))
    qtbot.waitUntil(
        lambda: (
            st.dataset is not None
            and len(st.results) == 1
            and st.is_idle()
            and st.evaluation.sets[0].summary is not None
        ),
        timeout=60_000,
    )
    return st


def _plain(res, iou):
    """What the family computes in this process, read and evaluated without the window."""
    from vocviewer.families.views import ViewChoice

    ds = open_dataset(INSTANCES)
    ds = benchmark_of(ds).prepare_view(ds, INSTANCES)
    rs = load_results(ds, [res]).results
    return list(benchmark_of(ds).evaluate_views(ds, rs, ViewChoice(iou)))


def _same(evals, plain):
    views = [v for v in plain if isinstance(v, ClassView)]
    assert len(evals.views) == len(views) > 0
    for v in views:
        got = evals.views[v.class_index]
        for name in ("order", "verdict", "best_gt", "score"):
            np.testing.assert_array_equal(
                getattr(got.evaluation, name), getattr(v.evaluation, name)
            )
        np.testing.assert_array_equal(got.missed, v.missed)
        np.testing.assert_array_equal(got.false_positives.kind, v.false_positives.kind)
        np.testing.assert_array_equal(got.curve_precision, v.curve_precision)
        assert got.ap_at == v.ap_at or (np.isnan(got.ap_at) and np.isnan(v.ap_at))
    summary = next(v for v in plain if isinstance(v, Summary))
    assert evals.summary == summary


@pytest.fixture
def coco_results(tmp_path):
    if not INSTANCES.is_file():
        pytest.skip("coco-mini is not available")
    return write_coco_results(open_dataset(INSTANCES), tmp_path / "boxes.json")


@pytest.mark.parametrize("kernel", ["1", "0"])
def test_prefetched_open_shows_what_the_window_computes_and_takes_every_answer(
    qtbot, make_window, coco_results, monkeypatch, kernel
):
    monkeypatch.setenv("VOCVIEWER_KERNEL", kernel)  # "0": no JSON kernel, the helper process
    where = helper_process.prefetched if kernel == "0" else open_ahead.pending
    prefetch_open(INSTANCES, (coco_results,))
    assert where() == 3  # dataset, results, evaluation under way
    window = make_window()
    st = _open(qtbot, window, INSTANCES, coco_results)
    assert where() == 0  # all three taken
    assert helper_process.prefetched() == open_ahead.pending() == 0
    assert st.evaluation.iou == 0.5
    _same(st.evaluation.sets[0], _plain(coco_results, 0.5))


def test_a_window_built_after_the_evaluation_takes_the_results_index_made_ahead(
    qtbot, make_window, coco_results
):
    """Where the evaluation ahead is sent before the window takes the results (its window is
    still being built), the read-ahead thread makes the window's index of them next
    (``LoadedResults``): the results' loading job takes it, the same rows and offsets."""
    from vocviewer.gui.models.tasks import LoadedResults

    if helper_process.needed():
        pytest.skip("no compiled JSON kernel: the helper process reads ahead")
    prefetch_open(INSTANCES, (coco_results,))
    ahead = open_ahead._CURRENT
    assert ahead is not None
    qtbot.waitUntil(ahead.index.done, timeout=60_000)
    st = _open(qtbot, make_window(), INSTANCES, coco_results)
    loaded = st.results[0]
    assert loaded is ahead.index.result()
    fresh = LoadedResults.build(st.dataset, loaded.results)
    np.testing.assert_array_equal(loaded.det_rows, fresh.det_rows)
    np.testing.assert_array_equal(loaded.det_offsets, fresh.det_offsets)
    _same(st.evaluation.sets[0], _plain(coco_results, 0.5))


def test_a_prefetched_evaluation_at_another_choice_is_not_used(qtbot, make_window, coco_results):
    window = make_window()
    window.state.evaluation.choose_next(0.75)  # a saved session's deviation, say
    prefetch_open(INSTANCES, (coco_results,))  # evaluates at the family's default, 0.5
    st = _open(qtbot, window, INSTANCES, coco_results)
    assert st.evaluation.iou == 0.75
    _same(st.evaluation.sets[0], _plain(coco_results, 0.75))


def test_the_results_are_parsed_while_the_dataset_is_read(
    qtbot, make_window, coco_results, monkeypatch
):
    """As ``eval`` does: the family parses the results file (``box_columns``) in a thread of
    its own from the start (``parse_results_ahead``), once; the window shows the same."""
    from vocviewer.families.coco import view as coco_view

    monkeypatch.setenv("VOCVIEWER_KERNEL", "1")
    if helper_process.needed():
        pytest.skip("the compiled JSON kernel is not built: the helper process reads")
    real, threads = coco_view.box_columns, []

    def recorded(path):
        threads.append(threading.current_thread().name)
        return real(path)

    monkeypatch.setattr(coco_view, "box_columns", recorded)
    prefetch_open(INSTANCES, (coco_results,))
    st = _open(qtbot, make_window(), INSTANCES, coco_results)
    assert threads == ["vocviewer-parse"]
    _same(st.evaluation.sets[0], _plain(coco_results, 0.5))


def test_a_parse_started_ahead_answers_its_own_call_once_and_raises_what_it_raised():
    from vocviewer.families.eval_sets import ParsedAhead

    calls = []

    def parse(x):
        calls.append(x)
        if x == "bad":
            raise MemoryError(x)
        return x * 2

    ahead = ParsedAhead(parse, "ab")
    assert ahead(parse, "ab") == "abab"  # the one started
    assert ahead(parse, "ab") == "abab" and ahead(parse, "cd") == "cdcd"  # others: here
    assert calls == ["ab", "ab", "cd"]
    failing = ParsedAhead(parse, "bad")
    with pytest.raises(MemoryError):
        failing(parse, "bad")


def _send_two_then_die(key):
    helper_process.send(key, "first")
    helper_process.send(key, "second")
    import time

    time.sleep(0.5)  # the queue's feeder thread sends them
    os._exit(3)


def test_a_stream_ends_where_the_helper_died_and_the_next_job_gets_a_new_helper():
    helper_process.forget_prefetched()
    helper_process.prefetch("job", _send_two_then_die, "job")
    stream = helper_process.take_stream("job")
    assert stream is not None
    assert list(stream) == ["first", "second"]
    assert helper_process.take_stream("job") is None  # taken once
    assert helper_process.in_process(os.getpid) != os.getpid()  # a new helper, not this process


def test_a_prefetched_unreadable_results_file_is_reported_as_the_window_reports_it(
    qtbot, make_window, tmp_path
):
    if not INSTANCES.is_file():
        pytest.skip("coco-mini is not available")
    bad = tmp_path / "boxes.json"
    bad.write_text('[{"image_id": 1, "category_id": 1, "bbox": [1, 2, 3, 4], "score": "x"}]')
    texts = []
    for prefetched in (False, True):
        if prefetched:
            prefetch_open(INSTANCES, (bad,))
        window = make_window()
        st = window.state
        with qtbot.waitSignal(st.load_failed, timeout=60_000) as failed:
            window.open_dataset(INSTANCES, (bad,))
        qtbot.waitUntil(st.is_idle, timeout=60_000)
        texts.append(failed.args[0])
        assert st.dataset is not None and not st.results
    assert "image_id 1 is not an image" in texts[0] and texts[1] == texts[0]


#: a fresh ``vocviewer open GT --results R`` window (``argv[1:3]``) until its evaluation is done,
#: then every family benchmark module it imported
OPEN_CHILD = """
import sys, time
from pathlib import Path
from vocviewer.gui.models.tasks import prefetch_open
gt, res = Path(sys.argv[1]), Path(sys.argv[2])
prefetch_open(gt, (res,))
from vocviewer.gui.window.app import make_app
from vocviewer.gui.window.main_window import MainWindow
app = make_app()
win = MainWindow()
win.show()
win.open_dataset(gt, (res,))
st, end = win.state, time.time() + 120
while not (st.dataset is not None and len(st.results) == 1 and st.is_idle()) and time.time() < end:
    app.processEvents()
    time.sleep(0.005)
assert st.evaluation.sets[0].summary is not None
print(" ".join(sorted(m for m in sys.modules if m.endswith(".benchmark"))))
print(" ".join(sorted(m for m in LATER if m in sys.modules)) or "-")
win.close()
"""
#: what a window that opened and evaluated a dataset, its Analysis tab never shown, has not
#: imported: the tab, the analyses' models, the operating point (the hidden Confusion tab's
#: shares), lxml (Tags export)
LATER = (
    "vocviewer.gui.panes.analysis.pane",
    "vocviewer.gui.models.analysis_tasks",
    "vocviewer.evaluation.analyses.operating_point",
    "lxml.etree",
)


def test_opening_a_coco_file_imports_no_other_family_nor_hidden_panes(coco_results, tmp_path):
    """As ``eval`` (``test_cli_imports``): the read-ahead and the window ask only the family
    that read the dataset (``registry.benchmark_of``), not every family (~55 ms of imports
    under the interpreter lock the read-ahead and the window's start-up want)."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(tmp_path)}
    env["PYTHONPATH"] = str(root)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            f"LATER = {LATER!r}\n{OPEN_CHILD}",
            str(INSTANCES),
            str(coco_results),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    families, later = done.stdout.splitlines()[-2:]
    assert families.split() == ["vocviewer.families.coco.benchmark"], done.stdout
    assert later == "-", later  # nor what only the panes not shown need
