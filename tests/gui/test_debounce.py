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
