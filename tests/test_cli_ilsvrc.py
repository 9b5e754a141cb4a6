"""``vocviewer eval --protocol ilsvrc --task det`` end to end on small fixture files."""

from __future__ import annotations

import json

from tests.evaluation.test_ilsvrc import reference, write_fixture
from vocviewer.cli import main


def test_eval_ilsvrc_det_prints_and_writes_json(tmp_path, capsys):
    images = [[(0, 1, 1, 50, 50), (1, 5, 5, 30, 30)], [(0, 1, 1, 40, 40)]]
    preds = [(1, 1, 0.9, 1, 1, 50, 50), (2, 1, 0.8, 1, 1, 10, 10), (1, 2, 0.7, 5, 5, 30, 30)]
    gt, devkit, pred = write_fixture(tmp_path, images, preds)
    out = tmp_path / "o.json"
    code = main(
        [
            "eval",
            str(gt),
            "--results",
            str(pred),
            "--protocol",
            "ilsvrc",
            "--task",
            "det",
            "--devkit",
            str(devkit),
            "--json",
            str(out),
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "Category        AP" in text and "Mean AP:" in text and "Median AP:" in text
    payload = json.loads(out.read_text())
    ref = reference(images, preds)
    assert payload["per_class"]["name 1"]["ap"] == ref[0]
    assert payload["summary"]["mAP"] == sum(ref) / 2


def test_unlisted_image_fails_unless_keep_going(tmp_path, capsys):
    gt, devkit, pred = write_fixture(tmp_path, [[(0, 1, 1, 5, 5)]], [(9, 1, 0.9, 1, 1, 5, 5)])
    args = [
        "eval",
        str(gt),
        "--results",
        str(pred),
        "--protocol",
        "ilsvrc",
        "--devkit",
        str(devkit),
    ]
    assert main(args) == 1
    assert "not in the eval list" in capsys.readouterr().err
    assert main([*args, "--keep-going"]) == 0
    assert "NOT OFFICIAL" in capsys.readouterr().err
