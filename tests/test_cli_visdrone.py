"""``vocviewer eval --protocol visdrone`` end to end on small fixture files."""

from __future__ import annotations

import json

from tests.evaluation.test_visdrone_reference import reference, write_split
from vocviewer.cli import main


def test_eval_visdrone_prints_summary_and_writes_json(tmp_path, capsys):
    images = [
        ([(0, 0, 10, 10, 1, 4), (20, 20, 10, 10, 1, 1)], [(0, 0, 10, 10, 0.9, 4)], 0, 0),
        ([(0, 0, 10, 10, 1, 4)], [(0, 0, 10, 12, 0.9, 4), (5, 5, 5, 5, 0.5, 9)], 0, 0),
    ]
    split, res = write_split(tmp_path, images)
    out = tmp_path / "out.json"
    code = main(
        ["eval", str(split), "--results", str(res), "--protocol", "visdrone", "--json", str(out)]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "Average Precision  (AP) @[ IoU=0.50:0.95 | maxDets=500 ] =" in text
    assert "pedestrian" in text
    payload = json.loads(out.read_text())
    assert payload["protocol"] == "visdrone" and payload["task"] == "det"
    _, _, ref = reference(images)
    for k, v in ref.items():
        assert abs(payload["summary"][k] - v) <= 1e-12
    assert payload["per_class"]["car"]["ap"] > 0


def test_eval_visdrone_bad_row_fails_unless_keep_going(tmp_path, capsys):
    split, res = write_split(tmp_path, [([(0, 0, 10, 10, 1, 4)], [(0, 0, 10, 10, 0.9, 4)], 0, 0)])
    (res / "0000.txt").write_text("0,0,10,10,0.9,4,-1,-1\n1,2,3\n")
    assert main(["eval", str(split), "--results", str(res), "--protocol", "visdrone"]) == 1
    assert "0000.txt:2" in capsys.readouterr().err
    assert (
        main(["eval", str(split), "--results", str(res), "--protocol", "visdrone", "--keep-going"])
        == 0
    )
    captured = capsys.readouterr()
    assert "NOT OFFICIAL" in captured.out


def test_missing_result_file_warns(tmp_path, capsys):
    split, res = write_split(tmp_path, [([(0, 0, 10, 10, 1, 4)], None, 0, 0)])
    assert main(["eval", str(split), "--results", str(res), "--protocol", "visdrone"]) == 0
    assert "missing" in capsys.readouterr().err
