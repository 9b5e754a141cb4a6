"""``vocviewer.evaluate``: the doctested examples of ``families.api``, the same payload as
``vocviewer eval --json`` for paths and for already-read objects, the numbers of the official
peer (pycocotools), and clear errors."""

from __future__ import annotations

import contextlib
import doctest
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import vocviewer
from vocviewer.cli import main
from vocviewer.core.errors import FormatError
from vocviewer.families import api, registry


def test_docstring_examples_run() -> None:
    """The module's examples (on the embedded demo) are part of the suite."""
    result = doctest.testmod(api, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 20 and result.failed == 0


def test_lazy_and_cheap_import() -> None:
    """``import vocviewer`` loads no benchmark, format or numpy module; ``vocviewer.evaluate``
    then resolves to the API."""
    code = (
        "import sys, vocviewer\n"
        "heavy = [m for m in sys.modules if m.startswith(('vocviewer.', 'numpy'))]\n"
        "assert not heavy, heavy\n"
        "from vocviewer.families.api import evaluate\n"
        "assert vocviewer.evaluate is evaluate and vocviewer.Evaluation.__name__ == 'Evaluation'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    with pytest.raises(AttributeError):
        _ = vocviewer.no_such_thing  # type: ignore[attr-defined]


def _cli_json(tmp_path: Path, *argv: str) -> str:
    out = tmp_path / "cli.json"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["eval", *argv, "--json", str(out)]) == 0
    return out.read_text()


def test_paths_and_read_objects_give_the_cli_payload(demo, tmp_path: Path) -> None:
    want = _cli_json(tmp_path, str(demo.year_dir), "--results", str(demo.results_dir))
    by_path = vocviewer.evaluate(demo.year_dir, demo.results_dir)
    assert by_path.to_json() == want
    dataset = registry.open_dataset(demo.year_dir)
    results = registry.open_results(dataset, demo.results_dir)
    by_object = vocviewer.evaluate(dataset, results)
    assert by_object.to_json() == want
    assert by_object.summary == json.loads(want)["summary"]
    assert set(by_object.per_class) == set(dataset.classes)
    layout = vocviewer.evaluate(str(demo.year_dir), [demo.results_dir], task="layout")
    want = _cli_json(
        tmp_path, str(demo.year_dir), "--results", str(demo.results_dir), "--task", "layout"
    )
    assert layout.to_json() == want and layout.task == "layout"


def test_coco_numbers_are_pycocotools(tmp_path: Path) -> None:
    pytest.importorskip("pycocotools")
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    from tests.parity.test_cocoapi import synthetic_gt, synthetic_results

    (tmp_path / "data").mkdir()
    gt, res = tmp_path / "data" / "gt.json", tmp_path / "res.json"
    gt.write_text(json.dumps(synthetic_gt(3)))
    res.write_text(json.dumps(synthetic_results(json.loads(gt.read_text()), "segm", 4)))
    ours = vocviewer.evaluate(gt, res, task="segm")
    with contextlib.redirect_stdout(io.StringIO()):
        coco = COCO(str(gt))
        ev = COCOeval(coco, coco.loadRes(str(res)), "segm")
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    assert ours.benchmark == "coco" and ours.official
    np.testing.assert_array_equal(list(ours.summary.values()), ev.stats)
    assert _cli_json(tmp_path, str(gt), "--results", str(res), "--task", "segm") == ours.to_json()


def test_errors_name_what_is_wrong(demo, tmp_path: Path) -> None:
    with pytest.raises(TypeError, match=r"unknown option.*image_sets"):
        vocviewer.evaluate(demo.year_dir, demo.results_dir, image_sets="val")
    with pytest.raises(ValueError, match="unknown benchmark 'nope'"):
        vocviewer.evaluate(demo.year_dir, demo.results_dir, benchmark="nope")
    with pytest.raises(FormatError, match="offers tasks"):
        vocviewer.evaluate(demo.year_dir, demo.results_dir, task="keypoints")
    with pytest.raises(FormatError, match="does not exist"):
        vocviewer.evaluate(tmp_path / "missing", demo.results_dir)
