"""An option of another family is refused with a message, never silently ignored."""

from __future__ import annotations

from tests.gui.test_protocol_window import INSTANCES
from vocviewer.cli import main


def test_vocs_iou_on_a_coco_file_is_refused(tmp_path, capsys):
    import pytest

    if not INSTANCES.is_file():
        pytest.skip("coco-mini is not available")
    results = tmp_path / "r.json"
    results.write_text("[]")
    assert main(["eval", str(INSTANCES), "--results", str(results), "--iou", "0.7"]) == 1
    err = capsys.readouterr().err
    assert "eval: --iou is not an option of COCO (it applies to VOC)" in err
    assert "<input>" not in err


def test_analyze_refuses_iou(demo, capsys):
    results = demo.results_dir / "Main"
    assert main(["analyze", str(demo.year_dir), "--results", str(results), "--iou", "0.7"]) == 1
    assert "analyze: --iou is for eval" in capsys.readouterr().err
