"""The real ``vocviewer`` process: ``--json -`` and ``--json /dev/stdout`` put the JSON on stdout
(the text on stderr) while folders and the dataset stay refused; ``--dpi`` is checked when the
arguments are parsed; ``analyze --figures`` names a set's figures without the results file's
extension and draws the PR legend below the axes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.test_cli_result_sets import write_coco

ROOT = Path(__file__).resolve().parents[1]


def cli(*argv: Any, stdout: Any = subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run(
        [sys.executable, "-m", "vocviewer", *map(str, argv)],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )


def test_json_dash_is_stdout_and_the_text_goes_to_stderr(demo, tmp_path) -> None:
    main_dir = demo.results_dir / "Main"
    file = tmp_path / "out.json"
    ref = cli("eval", demo.year_dir, "--results", main_dir, "--json", file)
    assert ref.returncode == 0, ref.stderr
    done = cli("eval", demo.year_dir, "--results", main_dir, "--json", "-")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == json.loads(file.read_text())
    assert ref.stdout in done.stderr and "mAP" in done.stderr  # the printed table, on stderr
    two = cli("eval", demo.year_dir, "--results", main_dir, main_dir, "--json", "-")
    assert two.returncode == 0, two.stderr
    assert list(json.loads(two.stdout)["sets"]) == ["Main", "Main-2"]
    assert "summary of 2 result sets" in two.stderr
    args = ("--results", main_dir, "--bootstrap", 5, "--json", "-")
    analysed = cli("analyze", demo.year_dir, *args)
    assert analysed.returncode == 0, analysed.stderr
    assert list(json.loads(analysed.stdout)["sets"]) == ["Main"]
    assert "bootstrap over images" in analysed.stderr


def test_json_dev_stdout_to_a_pipe_and_to_a_redirected_file(demo, tmp_path) -> None:
    main_dir = demo.results_dir / "Main"
    piped = cli("eval", demo.year_dir, "--results", main_dir, "--json", "/dev/stdout")
    assert piped.returncode == 0, piped.stderr  # was: refusing to replace not a regular file
    payload = json.loads(piped.stdout)
    assert payload["summary"]["mAP"] > 0 and "mAP" in piped.stderr
    redirected = tmp_path / "redirected.txt"
    with redirected.open("w") as f:  # ``> redirected.txt``: /dev/stdout is that very file
        done = cli("eval", demo.year_dir, "--results", main_dir, "--json", "/dev/stdout", stdout=f)
    assert done.returncode == 0, done.stderr
    assert json.loads(redirected.read_text()) == payload


def test_json_still_refuses_folders_and_the_dataset(demo, tmp_path) -> None:
    main_dir = demo.results_dir / "Main"
    done = cli("eval", demo.year_dir, "--results", main_dir, "--json", tmp_path)
    assert done.returncode == 1 and "refusing to replace a folder" in done.stderr
    inside = demo.year_dir / "out.json"
    done = cli("eval", demo.year_dir, "--results", main_dir, "--json", inside)
    assert done.returncode == 1 and "refusing to write inside" in done.stderr
    assert not inside.exists()


@pytest.mark.parametrize("value", ["100000", "-5", "0", "1201", "abc"])
def test_dpi_is_checked_when_the_arguments_are_parsed(demo, tmp_path, value: str) -> None:
    main_dir = demo.results_dir / "Main"
    out = tmp_path / "pr"
    done = cli("export", demo.year_dir, "--results", main_dir, "--pr-curves", out, "--dpi", value)
    expected = f"argument --dpi: expected an integer from 1 to 1200, got '{value}'"
    assert done.returncode == 2 and expected in done.stderr  # was: "Qt could not encode"
    assert not out.exists()
    figs = tmp_path / "figs"
    done = cli("analyze", demo.year_dir, "--results", main_dir, "--figures", figs, "--dpi", value)
    assert done.returncode == 2 and expected in done.stderr and not figs.exists()


def test_figures_carry_the_set_name_without_extension(tmp_path) -> None:
    ann, _, dets = write_coco(tmp_path / "coco")
    a = tmp_path / "detA.json"
    a.write_text(json.dumps(dets))
    (tmp_path / "other").mkdir()
    again = tmp_path / "other" / "detA.json"  # the same stem: told apart
    again.write_text(json.dumps(dets[::2]))
    figs = tmp_path / "figs"
    done = cli("analyze", ann, "--results", a, again, "--bootstrap", 5, "--figures", figs)
    assert done.returncode == 0, done.stderr
    names = {p.name for p in figs.iterdir()}
    assert {"tide_detA.svg", "tide_detA-2.svg", "characteristics_detA.svg"} <= names
    assert {"characteristics_detA-2.svg", "analyze_detA.svg", "analyze_detA-2_animal.svg"} <= names
    assert not any(".json" in n for n in names)  # was: tide_detA.json.svg
    assert all(str(figs / n) in done.stdout for n in names)
    # the PR legend lies below the axes and their "Recall" label, never over a curve
    pr = (figs / "pr_cat.svg").read_text()
    axes_bottom = float(re.search(r'y="([\d.]+)"[^>]*>Recall</text>', pr)[1])  # type: ignore[index]
    rows = re.findall(r'<text x="[\d.]+" y="([\d.]+)"[^>]*>(detA\.json(?:-2)?)  AP \d', pr)
    assert [n for _, n in rows] == ["detA.json", "detA.json-2"]
    assert min(float(y) for y, _ in rows) > axes_bottom
    height = float(re.search(r'<svg [^>]*height="(\d+)"', pr)[1])  # type: ignore[index]
    assert max(float(y) for y, _ in rows) < height  # inside the (grown) figure
