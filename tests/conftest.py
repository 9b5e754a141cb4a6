"""Shared fixtures. Qt runs offscreen; the demo dataset is generated once per session."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

SHARED_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


@pytest.fixture(scope="session")
def demo_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A freshly generated demo VOCdevkit (``<root>/VOC2012``-style year folder)."""
    from vocviewer.demo import write_demo

    return write_demo(tmp_path_factory.mktemp("demo"))
