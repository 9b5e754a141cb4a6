"""Bad-input matrix, Open Images part, through the real CLI: ``vocviewer eval FOLDER --results
predictions.csv``. Each broken copy of one file gives exit 1 and a message naming that file, its
line (or the hierarchy node) and what was expected; never a traceback. ``--keep-going`` skips
bad prediction rows and marks the numbers NOT OFFICIAL."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.bad_input.cli_run import eval_cli
from tests.families.test_openimages import B, write_folder

BOXES = "validation-annotations-bbox.csv"
LABELS = "validation-annotations-human-imagelabels-boxable.csv"
CLASSES = "class-descriptions-boxable.csv"
HIERARCHY = "bbox_labels_600_hierarchy.json"
PRED = "ImageID,LabelName,Score,XMin,XMax,YMin,YMax\nimg1,/m/dog,0.9,0,0.5,0,0.5\n"


def _line(name: str, n: int, edit: Callable[[str], str]) -> Callable[[Path], None]:
    """Replace line ``n`` (1-based) of ``name`` by ``edit(line)``."""

    def apply(root: Path) -> None:
        p = root / name
        lines = p.read_text().splitlines()
        lines[n - 1] = edit(lines[n - 1])
        p.write_text("\n".join(lines) + "\n")

    return apply


def _write(name: str, text: str) -> Callable[[Path], None]:
    return lambda root: (root / name).write_text(text)


#: (case, edit of the folder, file named, where, text)
GROUND_TRUTH = [
    (
        "xmin-text",
        _line(BOXES, 2, lambda s: s.replace(",0.0,", ",abc,", 1)),
        BOXES,
        ":2:",
        "XMin 'abc' is not a finite number",
    ),
    (
        "no-groupof-column",
        _line(BOXES, 1, lambda s: s.replace("IsGroupOf", "Group")),
        BOXES,
        ":1:",
        "the header has no IsGroupOf column",
    ),
    (
        "short-row",
        _line(BOXES, 2, lambda s: s.split(",xclick")[0]),
        BOXES,
        ":2:",
        "column LabelName (field 3) is missing",
    ),
    (
        "unknown-class",
        _line(BOXES, 2, lambda s: s.replace("/m/dog", "/m/zzz")),
        BOXES,
        ":2:",
        "'/m/zzz' is not in the class descriptions",
    ),
    (
        "groupof-2",
        _line(BOXES, 2, lambda s: s.replace(",0,0,0,0,0", ",0,0,2,0,0")),
        BOXES,
        ":2:",
        "IsGroupOf '2' is not 0 or 1",
    ),
    (
        "confidence-half",
        _line(LABELS, 2, lambda s: s.rsplit(",", 1)[0] + ",0.5"),
        LABELS,
        ":2:",
        "Confidence '0.5' is not 0 or 1",
    ),
    (
        "mid-twice",
        _line(CLASSES, 2, lambda s: "/m/animal,Again"),
        CLASSES,
        ":2:",
        "/m/animal is listed twice (first at line 1)",
    ),
    (
        "hierarchy-syntax",
        _write(HIERARCHY, '{"LabelName": "/m/root", '),
        HIERARCHY,
        HIERARCHY,
        "JSON",
    ),
    (
        "hierarchy-node",
        _write(HIERARCHY, json.dumps({"LabelName": "/m/root", "Subcategory": [{"Name": 1}]})),
        HIERARCHY,
        "under root",
        'expected an object with a "LabelName" string',
    ),
    (
        "hierarchy-unknown",
        _write(
            HIERARCHY,
            json.dumps({"LabelName": "/m/root", "Subcategory": [{"LabelName": "/m/zzz"}]}),
        ),
        HIERARCHY,
        "/m/zzz",
        f"is not in {CLASSES}",
    ),
]


def _folder(tmp: Path) -> Path:
    return write_folder(tmp, [("img1", "/m/dog", B, 0)], [("img1", "/m/dog", 1)])


def _eval(
    capsys: pytest.CaptureFixture[str], root: Path, pred: Path, *extra: str
) -> tuple[int, str, str]:
    return eval_cli(capsys, root, pred, *extra)


@pytest.mark.parametrize(
    ("case", "edit", "name", "where", "text"), GROUND_TRUTH, ids=[c[0] for c in GROUND_TRUTH]
)
def test_bad_ground_truth_names_file_and_line(
    case: str,
    edit: Callable[[Path], None],
    name: str,
    where: str,
    text: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = _folder(tmp_path)
    edit(root)
    (tmp_path / "pred.csv").write_text(PRED)
    code, _, err = _eval(capsys, root, tmp_path / "pred.csv")
    assert code == 1, err
    assert name in err and where in err and text in err, err


#: (case, predictions text, where, text)
PREDICTIONS = [
    ("score-nan", PRED.replace("0.9", "nan"), ":2:", "Score 'nan' is not a finite number"),
    ("unknown-class", PRED.replace("/m/dog", "/m/zzz"), ":2:", "LabelName '/m/zzz' is not a class"),
    ("short-row", PRED.replace(",0.9,0,0.5,0,0.5", ""), ":2:", "column Score (field 3) is missing"),
    (
        "neither-layout",
        "ImageID,Label,Conf\nimg1,/m/dog,1\n",
        ":1:",
        "the header names neither layout",
    ),
    (
        "prediction-string",
        "ImageID,PredictionString\nimg1,/m/dog 0.9 0 0\n",
        ":2:",
        "PredictionString has 4 values, not a multiple of 6",
    ),
]


@pytest.mark.parametrize(
    ("case", "text_in", "where", "text"), PREDICTIONS, ids=[c[0] for c in PREDICTIONS]
)
def test_bad_predictions_name_file_and_line(
    case: str,
    text_in: str,
    where: str,
    text: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = _folder(tmp_path)
    (tmp_path / "pred.csv").write_text(text_in)
    code, _, err = _eval(capsys, root, tmp_path / "pred.csv")
    assert code == 1, err
    assert f"pred.csv{where}" in err and text in err, err


def test_keep_going_skips_a_bad_row_and_says_not_official(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _folder(tmp_path)
    (tmp_path / "pred.csv").write_text(PRED + "img1,/m/dog,inf,0,1,0,1\n")
    code, out, err = _eval(capsys, root, tmp_path / "pred.csv", "--keep-going")
    assert code == 0, err
    assert out.startswith("# NOT OFFICIAL") and "pred.csv:3: Score 'inf'" in err


def test_a_json_results_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _folder(tmp_path)
    (tmp_path / "r.json").write_text("[]")
    code, _, err = _eval(capsys, root, tmp_path / "r.json")
    assert code == 1 and "r.json" in err and "a predictions CSV" in err, err
