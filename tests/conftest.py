"""Shared fixtures. Qt runs offscreen; the demo dataset is generated once per session."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

SHARED_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


@pytest.fixture(scope="session", autouse=True)
def private_settings(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Keep the recent-files list and other settings of tests (and of the programs they start)
    out of the user's configuration folder."""
    folder = tmp_path_factory.mktemp("config")
    os.environ["XDG_CONFIG_HOME"] = str(folder)
    return folder


@pytest.fixture(autouse=True)
def _collect_garbage_between_tests() -> Iterator[None]:
    """Collect Python's cyclic garbage after each test (after pytest-qt closed its widgets),
    at a safe point: left to the collector, a finished test's window could be destroyed inside a
    later Qt call holding one of QObject's pooled signal-slot mutexes, which deadlocks (seen:
    QObject::disconnect -> gc -> ~QMenu -> QBasicMutex::lockInternal). The survivors are then
    frozen (``gc.freeze``), so each collection only walks what the last test made."""
    yield
    gc.collect()
    gc.freeze()


@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory):
    """A freshly generated demo VOCdevkit: ``DemoPaths(devkit, year_dir, results_dir)``."""
    from vocviewer.demo import write_demo

    return write_demo(tmp_path_factory.mktemp("demo"))
