"""``Debounced``: bursts coalesce, due callbacks run in request order, ``flush`` runs one now,
and a callback whose owner was deleted while it waited is dropped."""

from __future__ import annotations

from PySide6.QtCore import QObject
from shiboken6 import delete

from vocviewer.gui.models.debounce import Debounced


def test_bursts_coalesce_and_run_in_order(qtbot):
    owner, calls = QObject(), []
    a = Debounced(lambda: calls.append("a"), 0, owner)
    b = Debounced(lambda: calls.append("b"), 5, owner)
    for _ in range(3):
        a.request()
        b.request()
    qtbot.waitUntil(lambda: len(calls) == 2, timeout=2000)
    qtbot.wait(30)
    assert calls == ["a", "b"]


def test_flush_runs_a_pending_or_queued_call_once(qtbot):
    owner, calls = QObject(), []
    job = Debounced(lambda: calls.append(1), 10_000, owner)
    job.flush()
    assert calls == []  # nothing pending
    job.request()
    job.flush()
    assert calls == [1]
    job.request()
    job._due()  # as if its delay ran out: now waiting for its turn
    job.flush()
    qtbot.wait(30)
    assert calls == [1, 1]


def test_a_deleted_owner_drops_its_queued_call(qtbot):
    owner, other, calls = QObject(), QObject(), []
    gone = Debounced(lambda: calls.append("gone"), 0, owner)
    kept = Debounced(lambda: calls.append("kept"), 0, other)
    gone._due()
    kept._due()
    delete(owner)
    qtbot.waitUntil(lambda: calls == ["kept"], timeout=2000)


def test_a_slow_callback_waits_longer_before_it_runs_again(qtbot):
    """A burst waits ``BUSY_FACTOR`` times the callback's last duration (never less than its
    delay): a redraw that takes 40 ms runs again no sooner than ~120 ms after it ended."""
    import time

    from vocviewer.gui.models.debounce import BUSY_FACTOR

    owner, ran = QObject(), []

    def slow():
        ran.append(time.perf_counter())
        time.sleep(0.04)

    job = Debounced(slow, 0, owner)
    job.request()
    qtbot.waitUntil(lambda: len(ran) == 1, timeout=2000)
    ended = time.perf_counter()
    job.request()
    qtbot.waitUntil(lambda: len(ran) == 2, timeout=2000)
    assert ran[1] - ended >= BUSY_FACTOR * 0.04 - 0.01  # a timer never fires early
    quick = Debounced(lambda: ran.append(time.perf_counter()), 0, owner)
    quick.request()
    qtbot.waitUntil(lambda: len(ran) == 3, timeout=2000)
    asked = time.perf_counter()
    quick.request()
    qtbot.waitUntil(lambda: len(ran) == 4, timeout=2000)
    assert ran[3] - asked < 0.5  # a quick one keeps its own (zero) delay


def test_request_now_runs_on_the_next_turn_without_the_delay(qtbot):
    """One change (a re-derived evidence) is not a burst: ``request_now`` skips the delay and
    a pending burst's wait."""
    owner, calls = QObject(), []
    job = Debounced(lambda: calls.append(1), 10_000, owner)
    job.request()  # would wait 10 s
    job.request_now()
    qtbot.waitUntil(lambda: calls == [1], timeout=2000)
    assert not job._timer.isActive()


def test_flushes_soon_of_one_turn_stop_at_the_budget_and_queue_the_rest(qtbot):
    """Every view flushes when the evaluation finishes (``flush_soon``): they run at once until
    they took ``FLUSH_BUDGET_MS`` in that event-loop turn, or would (by how long each took last
    time); the rest run in the next turns, one each (the longest stall is one redraw, not their
    sum), and none is lost. ``flush`` itself always runs at once (a caller may act on it: hide
    what it shows)."""
    import time

    from vocviewer.gui.models import debounce

    owner, ran = QObject(), []

    def slow(name: str) -> None:
        ran.append(name)
        time.sleep(debounce.FLUSH_BUDGET_MS / 1e3 * 0.6)

    jobs = [Debounced(lambda n=n: slow(n), 10_000, owner) for n in "abcd"]
    for job in jobs:  # each ran once: how long it takes is known
        job.run_now()
    ran.clear()
    qtbot.wait(10)  # (a new turn: nothing flushed in it yet)
    for job in jobs:
        job.request()
    for job in jobs:  # as the views' slots connected to ``finished`` do, in one turn
        job.flush_soon()
    assert ran == ["a"]  # the second would take the turn past the budget
    qtbot.waitUntil(lambda: len(ran) == 4, timeout=2000)
    assert ran == ["a", "b", "c", "d"]
    qtbot.wait(20)
    jobs[0].request()
    jobs[0].flush_soon()  # a later turn: runs at once again
    assert ran[-1] == "a" and len(ran) == 5
    for job in jobs[1:]:
        job.request()
        job.flush()  # past the budget, and still at once
    assert ran[-3:] == ["b", "c", "d"]


def test_a_flush_soon_that_would_overrun_the_turns_budget_waits_for_the_next_turn(qtbot):
    """``flush_soon`` after a quick flush of the same turn: a callback that took longer than
    the rest of ``FLUSH_BUDGET_MS`` last time, or never ran (its cost unknown), runs in the next
    turn, not in this one (the evaluation's end: the image view's quick redraw and the PR plot's
    ~20 ms refresh were one stall with its paint); a quick one still runs at once."""
    import time

    from vocviewer.gui.models import debounce

    owner, ran = QObject(), []

    def run(name: str, ms: float) -> None:
        ran.append(name)
        time.sleep(ms / 1e3)

    quick = Debounced(lambda: run("quick", 0), 10_000, owner)
    slow = Debounced(lambda: run("slow", 1.2 * debounce.FLUSH_BUDGET_MS), 10_000, owner)
    fresh = Debounced(lambda: run("fresh", 0), 10_000, owner)
    quick2 = Debounced(lambda: run("quick2", 0), 10_000, owner)
    for job in (quick, slow, quick2):
        job.run_now()
    ran.clear()
    qtbot.wait(10)  # (a new turn)
    for job in (quick, slow, fresh, quick2):
        job.request()
        job.flush_soon()
    assert ran == ["quick", "quick2"]
    qtbot.waitUntil(lambda: len(ran) == 4, timeout=2000)
    assert ran == ["quick", "quick2", "slow", "fresh"]
