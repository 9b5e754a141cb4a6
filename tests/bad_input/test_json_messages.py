"""Issue 20 item 13 (JSON part), through the real CLI on real broken files: a truncated or
invalid JSON names line and column and says when the file ends early; a results file of another
family says what it is and what the open dataset expects."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bad_input.test_coco_missing_fields import make_coco
from tests.parity.lvis_data import write_lvis
from vocviewer.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _files(tmp: Path) -> tuple[Path, Path]:
    """A COCO annotation file (indented: many lines) and box results for it."""
    gt, dets = make_coco()
    for d in dets:
        del d["segmentation"], d["keypoints"]
    (tmp / "annotations").mkdir()
    ann, res = tmp / "annotations" / "instances_val.json", tmp / "results.json"
    ann.write_text(json.dumps(gt, indent=1))
    res.write_text(json.dumps(dets, indent=1))
    return ann, res


def _end(text: str) -> tuple[int, int]:
    """Line and column (1-based) just past the last non-blank character."""
    body = text.rstrip()
    return body.count("\n") + 1, len(body) - body.rfind("\n")


def _err(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["eval", *args]) == 1
    return capsys.readouterr().err


@pytest.mark.parametrize("which", ["annotations", "results"])
@pytest.mark.parametrize("cut", [0.5, 0.77])
def test_truncated_json_says_where_it_ends(
    which: str, cut: float, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ann, res = _files(tmp_path)
    target = ann if which == "annotations" else res
    text = target.read_text()
    target.write_text(text[: int(len(text) * cut)])
    line, column = _end(target.read_text())
    err = _err(capsys, str(ann), "--results", str(res))
    assert f"{target}:{line}: not valid JSON: it ends early at line {line}, column {column}" in err
    assert "the file looks truncated" in err
    assert "Unterminated string starting at" not in err.split("(")[0]


def test_unterminated_string_is_a_truncated_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's case: cut inside a string (json says "Unterminated string starting at")."""
    ann, res = _files(tmp_path)
    text = res.read_text()
    cut = text.index('"score"', len(text) // 2) + 3
    res.write_text(text[:cut])
    err = _err(capsys, str(ann), "--results", str(res))
    line, column = _end(text[:cut])
    assert f"it ends early at line {line}, column {column} (Unterminated string" in err
    assert "the file looks truncated" in err


def test_invalid_json_names_line_and_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ann, res = _files(tmp_path)
    lines = res.read_text().splitlines()
    k = next(i for i, s in enumerate(lines) if '"score"' in s and i > 20)
    lines[k] = lines[k].replace(":", ": abc,", 1)
    res.write_text("\n".join(lines))
    column = lines[k].index("abc") + 1
    err = _err(capsys, str(ann), "--results", str(res))
    assert f"{res}:{k + 1}: not valid JSON at line {k + 1}, column {column}: Expecting value" in err
    assert "truncated" not in err


def test_empty_json_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ann, res = _files(tmp_path)
    res.write_text("\n")
    assert f"{res}: not valid JSON: the file is empty" in _err(
        capsys, str(ann), "--results", str(res)
    )


def test_voc_results_for_a_coco_dataset(
    demo: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A VOC ``comp4_det_val_cat.txt`` given to a COCO (and an LVIS) file says what it is."""
    voc_det = sorted((Path(demo.results_dir) / "Main").glob("comp*_det_val_*.txt"))[0]  # type: ignore[attr-defined]
    voc_cls = sorted((Path(demo.results_dir) / "Main").glob("comp*_cls_val_*.txt"))[0]  # type: ignore[attr-defined]
    ann, _ = _files(tmp_path)
    err = _err(capsys, str(ann), "--results", str(voc_det))
    assert f"{voc_det}:1: a VOC detection results file (image, score, box per line)" in err
    assert "the open COCO dataset expects a COCO results JSON" in err
    assert "Extra data" not in err
    err = _err(capsys, str(ann), "--results", str(voc_cls))
    assert "a VOC classification results file" in err
    lvis, _ = write_lvis(tmp_path / "lvis", 3, crowded=0)
    err = _err(capsys, str(lvis), "--results", str(voc_det))
    assert "a VOC detection results file" in err and "the open LVIS dataset expects" in err


def test_coco_results_for_a_voc_devkit(demo: object, tmp_path: Path) -> None:
    """A COCO results JSON given to a VOC devkit: said so, and what VOC reads (not "pass
    --image-set"); ``eval`` and ``analyze`` alike (a subprocess: the real command)."""
    _, res = _files(tmp_path)
    year = str(demo.year_dir)  # type: ignore[attr-defined]
    for cmd in ("eval", "analyze"):
        run = subprocess.run(
            [sys.executable, "-m", "vocviewer", cmd, year, "--results", str(res)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
        )
        assert run.returncode == 1
        assert f"{res}: a COCO results JSON (for a COCO or LVIS annotation file)" in run.stderr
        assert "the open VOC dataset expects comp<N>_det_<image set>_<class>.txt" in run.stderr
        assert "--image-set" not in run.stderr
