"""The one worker pattern: generators, returns, errors, quit, and latest-wins generations."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from vocviewer.gui.models.worker import Jobs, Worker, running_workers


def count_to(n: int):
    yield from range(n)
    return "done"


def test_generator_yields_arrive_in_order_then_returned(qtbot):
    worker = Worker(count_to, 50)
    got: list[int] = []
    returned: list[object] = []
    worker.signals.yielded.connect(got.append)
    worker.signals.returned.connect(returned.append)
    with qtbot.waitSignal(worker.signals.finished, timeout=5000):
        worker.start()
    assert got == list(range(50))
    assert returned == ["done"]


def test_plain_function_returns_its_value(qtbot):
    worker = Worker(lambda a, *, b: a + b, 2, b=3)
    with qtbot.waitSignal(worker.signals.returned, timeout=5000) as blocker:
        worker.start()
    assert blocker.args == [5]
    qtbot.waitUntil(lambda: running_workers() == 0, timeout=5000)


def test_quit_stops_a_generator_between_yields(qtbot):
    def slow():
        for i in range(10_000):
            time.sleep(0.002)
            yield i

    worker = Worker(slow)
    got: list[int] = []
    returned: list[object] = []
    worker.signals.yielded.connect(got.append)
    worker.signals.returned.connect(returned.append)
    worker.signals.yielded.connect(lambda _v: worker.quit())
    with qtbot.waitSignal(worker.signals.finished, timeout=5000):
        worker.start()
    assert worker.abort_requested
    assert 1 <= len(got) < 100
    assert returned == []  # an aborted worker does not report a result


def test_errors_arrive_via_errored_with_the_exception(qtbot):
    def broken():
        yield 1
        raise ValueError("boom at line 3")

    worker = Worker(broken)
    got: list[int] = []
    worker.signals.yielded.connect(got.append)
    with qtbot.waitSignal(worker.signals.errored, timeout=5000) as blocker:
        worker.start()
    (exc,) = blocker.args
    assert isinstance(exc, ValueError)
    assert str(exc) == "boom at line 3"
    assert got == [1]
    qtbot.waitUntil(lambda: running_workers() == 0, timeout=5000)


def test_jobs_drop_results_of_a_stale_generation(qtbot):
    gate = threading.Event()

    def old_job():
        gate.wait(5)
        yield "old-yield"
        return "old-return"

    jobs = Jobs()
    delivered: list[object] = []
    first = jobs.start(
        "k", Worker(old_job), on_yielded=delivered.append, on_returned=delivered.append
    )
    with qtbot.waitSignal(jobs.running_changed, timeout=5000, check_params_cb=lambda n: n == 0):
        second = jobs.start("k", Worker(lambda: "new"), on_returned=delivered.append)
        gate.set()
    assert second > first
    assert not jobs.is_current("k", first)
    qtbot.waitUntil(lambda: running_workers() == 0, timeout=5000)
    qtbot.wait(20)
    assert delivered == ["new"]


def test_jobs_report_running_count_and_cancel(qtbot):
    gate = threading.Event()
    jobs = Jobs()
    counts: list[int] = []
    jobs.running_changed.connect(counts.append)
    jobs.start("a", Worker(gate.wait, 5))
    jobs.start("b", Worker(gate.wait, 5))
    assert sorted(jobs.running_keys()) == ["a", "b"]
    jobs.cancel_matching("a")
    assert jobs.running_keys() == ["b"]
    with qtbot.waitSignal(jobs.running_changed, timeout=5000):
        gate.set()
    assert counts == [1, 2, 1, 0]
    qtbot.waitUntil(lambda: running_workers() == 0, timeout=5000)


@pytest.fixture(autouse=True)
def _no_leftover_workers(qtbot):
    yield
    qtbot.waitUntil(lambda: running_workers() == 0, timeout=5000)


def test_in_process_runs_in_another_process_and_returns_the_value():
    import os

    from vocviewer.gui.models.helper_process import in_process

    assert in_process(os.getpid) != os.getpid()
    assert in_process(divmod, 17, 5) == (3, 2)


def test_window_loads_coco_boxes_parsed_in_a_helper_process(tmp_path):
    """The window's loader (``tasks.load_results``) gives what the plain reader gives."""
    from tests.gui.test_protocol_window import INSTANCES, write_coco_results
    from vocviewer.families.registry import open_dataset, open_results
    from vocviewer.gui.models.tasks import load_results

    if not INSTANCES.is_file():
        pytest.skip("coco-mini is not available")
    ds = open_dataset(INSTANCES)
    path = write_coco_results(ds, tmp_path / "boxes.json")
    loaded = load_results(ds, [path]).results
    plain = open_results(ds, [path])
    for name in ("image_index", "label", "score", "box", "line"):
        np.testing.assert_array_equal(
            getattr(loaded.detections, name), getattr(plain.detections, name)
        )


def test_in_process_says_so_when_the_helper_dies_and_recovers():
    """A helper killed mid-work (out of memory) is not retried in the window's own process."""
    import os

    from vocviewer.gui.models.helper_process import in_process

    with pytest.raises(ChildProcessError, match="helper process reading it stopped"):
        in_process(os._exit, 3)
    assert in_process(divmod, 17, 5) == (3, 2)  # a new helper
