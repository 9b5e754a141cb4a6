"""Memory warmed ahead of a re-derive (``gui/models/warm_memory``): kept by the process, re-used
by another thread without page faults; the window warms after an evaluation and stops warming
when a re-derive starts."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from tests.gui.test_consistency import coco_case, open_case
from vocviewer.gui.models import warm_memory

ROOT = Path(__file__).resolve().parents[2]

glibc = pytest.mark.skipif(
    not sys.platform.startswith("linux") or os.confstr("CS_GNU_LIBC_VERSION") is None,
    reason="glibc's allocator only",
)

#: a fresh process: the memory one thread warmed, filled by another (32 MB in 4 MB columns, as
#: a re-derive's per-rank columns); prints that thread's page faults
_FAULTS = textwrap.dedent(
    """
    import resource, sys, threading
    from vocviewer.gui.models import warm_memory
    if sys.argv[1] == "warm":
        assert warm_memory.keep_freed()
    import numpy as np
    if sys.argv[1] == "warm":
        t = threading.Thread(target=warm_memory.warm, args=(48 << 20,)); t.start(); t.join()
    out = []
    def fill():
        f0 = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
        cols = [np.full(1 << 19, i, np.int64) for i in range(8)]
        out.append(resource.getrusage(resource.RUSAGE_THREAD).ru_minflt - f0)
    t = threading.Thread(target=fill); t.start(); t.join()
    print(out[0])
    """
)


def _faults(mode: str) -> int:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _FAULTS, mode],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=120,
    )
    return int(done.stdout.split()[-1])


@glibc
def test_warmed_memory_is_filled_by_another_thread_without_page_faults() -> None:
    cold = _faults("cold")  # 32 MB fresh: 8,192 pages of 4 KB (fewer where some are huge)
    if cold < 2000:
        pytest.skip("transparent huge pages: few faults to save")
    warmed = _faults("warm")
    assert warmed < cold // 10


def test_warming_stops_once_asked() -> None:
    stop = threading.Event()
    stop.set()
    warm_memory.warm(1 << 30, stop)  # (returns at once: nothing allocated)


def test_nothing_wanted_without_detections() -> None:
    assert warm_memory.wanted_bytes(0) == 0


@glibc
def test_window_warms_after_a_rederive_and_stops_on_a_change(qtbot, make_window, tmp_path):  # type: ignore[no-untyped-def]
    if not warm_memory.keep_freed():
        pytest.skip("the allocator's options did not take")
    win = open_case(qtbot, make_window, coco_case(tmp_path))
    st = win.state
    qtbot.waitUntil(lambda: st.evaluation.evidence(0) is not None and st.is_idle(), timeout=60_000)
    n = len(st.evaluation.sets[0].rank_by_row)
    assert warm_memory.wanted_bytes(n) == 0  # warmed, or free already
    with qtbot.waitSignal(st.evaluation.evidence_replaced, timeout=60_000):
        st.evaluation.set_iou(0.75)
    assert st._warm_later.isActive()  # re-derived: warmed a pause later, not as a job
    assert "warm" not in st.jobs.running_keys()
    st.evaluation.set_area("small")  # a change stops what is due
    assert not st._warm_later.isActive() and st._warm_stop.is_set()
    qtbot.waitUntil(st.is_idle, timeout=60_000)
