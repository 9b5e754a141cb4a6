"""``vocviewer eval`` with one NaN/inf result row: exit 0, the numbers official, and exactly one
``vocviewer: warning:`` line naming the file and line (COCO: the JSON path), for every family
(``ResultSet.warnings``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from vocviewer.cli import main

COCO_ANN = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "coco-mini"


def _one_warning(capsys: pytest.CaptureFixture[str], args: list[str], needle: str) -> None:
    assert main(args) == 0
    err = capsys.readouterr().err.splitlines()
    warned = [e for e in err if e.startswith("vocviewer: warning: ") and "NaN" in e]
    assert len(warned) == 1 and needle in warned[0], err
    assert not [e for e in err if "NOT OFFICIAL" in e], err


def test_voc_det(demo, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = Path(shutil.copytree(demo.devkit, tmp_path / "devkit"))
    res = tmp_path / "comp4_det_val_car.txt"
    res.write_text("2012_000002 0.9 1 1 50 50\n2012_000002 0.5 -inf -inf inf inf\n")
    year = root / demo.year_dir.name
    _one_warning(capsys, ["eval", str(year), "--results", str(res)], f"{res}:2:")


def test_coco(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ann = COCO_ANN / "annotations" / "instances_val2017.json"
    if not ann.is_file():
        pytest.skip("coco-mini is not available")
    a = json.loads(ann.read_text())["annotations"][:5]
    dets = [
        {
            "image_id": x["image_id"],
            "category_id": x["category_id"],
            "bbox": x["bbox"],
            "score": 0.5,
        }
        for x in a
    ]
    dets[2]["score"] = float("nan")
    res = tmp_path / "res.json"
    res.write_text(json.dumps(dets))
    _one_warning(capsys, ["eval", str(ann), "--results", str(res), "--task", "bbox"], "[2].score")


def test_visdrone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.evaluation.test_visdrone_reference import write_split

    gt = [(10, 10, 20, 20, 1, 4)]
    det = [(11, 11, 20, 19, 0.9, 4), (5, 5, float("inf"), 10, 0.5, 4)]
    split, res = write_split(tmp_path, [(gt, det, 80, 100)])
    args = ["eval", str(split), "--results", str(res), "--protocol", "visdrone"]
    _one_warning(capsys, args, f"{res / '0000.txt'}:2:")


def test_ilsvrc_det(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.evaluation.test_ilsvrc import write_fixture

    images = [[(0, 1, 1, 40, 30)], [(1, 5, 5, 20, 20)]]
    preds = [(1, 1, 0.9, 1, 1, 40, 30), (2, 2, float("nan"), 5, 5, 20, 20)]
    gt, devkit, pred = write_fixture(tmp_path, images, preds)
    args = [
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
    ]
    _one_warning(capsys, args, f"{pred}:2:")


def test_ilsvrc_clsloc(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.evaluation.test_ilsvrc_clsloc import BOX, write_fixture

    images = [(1, [(1, *BOX)]), (2, [(2, *BOX)])]
    preds = [[(1, *BOX)], [(2, 1, 1, float("nan"), 100)]]
    gt, devkit, pred = write_fixture(tmp_path, images, preds)
    args = [
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
    _one_warning(capsys, args, f"{pred}:2:")
