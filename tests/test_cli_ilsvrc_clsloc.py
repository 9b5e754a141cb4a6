"""``vocviewer eval --protocol ilsvrc --task clsloc`` end to end on small fixture files."""

from __future__ import annotations

import json

from tests.evaluation.test_ilsvrc_clsloc import BOX, hand_case, write_fixture
from vocviewer.cli import main


def _args(gt, pred, devkit):
    return [
        "eval",
        str(gt),
        "--results",
        str(pred),
        "--protocol",
        "ilsvrc",
        "--task",
        "clsloc",
        "--devkit",
        str(devkit),
    ]


def test_eval_clsloc_prints_and_writes_json(tmp_path, capsys):
    images, preds, black = hand_case()
    gt, devkit, pred = write_fixture(tmp_path, images, preds, black)
    out = tmp_path / "o.json"
    assert main([*_args(gt, pred, devkit), "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "CLASSIFICATION WITH LOCALIZATION TASK" in text
    assert "    3.0000    0.3333    0.2500" in text
    payload = json.loads(out.read_text())
    assert payload["task"] == "clsloc" and payload["official"] is True
    assert payload["summary"]["cls_error"] == [0.5, 0.5, 0.25, 0.25, 0.25]
    assert payload["summary"]["loc_error"] == [2 / 3, 2 / 3, 1 / 3, 1 / 3, 1 / 3]
    assert payload["n_blacklisted"] == 1


def test_bad_submission_line_fails_unless_keep_going(tmp_path, capsys):
    gt, devkit, pred = write_fixture(tmp_path, [(1, [(1, *BOX)])] * 2, [[(1, *BOX)]] * 2)
    pred.write_text("1 1 1 100 100\nx 1 1 100 100\n")
    out = tmp_path / "o.json"
    assert main(_args(gt, pred, devkit)) == 1
    assert "pred.txt:2" in capsys.readouterr().err
    assert main([*_args(gt, pred, devkit), "--keep-going", "--json", str(out)]) == 0
    assert "NOT OFFICIAL" in capsys.readouterr().out
    payload = json.loads(out.read_text())
    assert payload["official"] is False
    assert payload["summary"]["cls_error"] == [0.5] * 5


def test_labels_file_only_gives_null_loc_error(tmp_path):
    images, preds, black = hand_case()
    _, devkit, pred = write_fixture(tmp_path, images, preds, black)
    labels = tmp_path / "gt" / "labels.txt"  # its folder is the dataset's: o.json goes beside
    labels.parent.mkdir()
    labels.write_text("1\n2\n3\n4\n")
    out = tmp_path / "o.json"
    assert main([*_args(labels, pred, devkit), "--json", str(out)]) == 0
    payload = json.loads(out.read_text())
    assert payload["summary"]["loc_error"] == [None] * 5
    assert payload["summary"]["cls_error"] == [0.5, 0.5, 0.25, 0.25, 0.25]
