"""Open Images against the official challenge tools, run whole (``bench/check_openimages_official``).

Skipped unless ``VOCVIEWER_TF_MODELS`` names a tensorflow/models checkout (or its ``research``
folder, or the ``tf-models-research-object-detection`` sdist); the tools run under
``VOCVIEWER_TF_PYTHON`` (default: this Python), which needs numpy, pandas < 3, six, absl-py and
protobuf. Every trap of ``openimages_data`` is on each generated folder.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

TF_MODELS = os.environ.get("VOCVIEWER_TF_MODELS")
pytestmark = pytest.mark.skipif(not TF_MODELS, reason="VOCVIEWER_TF_MODELS is not set")
SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "check_openimages_official.py"


def _check_module():
    spec = importlib.util.spec_from_file_location("check_openimages_official", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equals_the_official_challenge_evaluation(seed: int, tmp_path: Path) -> None:
    check = _check_module()
    research = check.research_folder(Path(str(TF_MODELS)))
    python = os.environ.get("VOCVIEWER_TF_PYTHON", sys.executable)
    official, layouts = check.check(python, research, seed, 50, tmp_path)
    assert official <= 1e-9
    assert layouts == 0.0
