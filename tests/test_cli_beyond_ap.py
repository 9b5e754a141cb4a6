"""``vocviewer analyze --operating-point --calibration --lrp`` through the real CLI: the JSON equals
the library's ``beyond_ap`` on the same evidence (demo, coco-mini bbox), ``--deploy-thresholds``
writes the best threshold per class, the figures are written, and what cannot be honoured is
refused (an option without its analysis, a bad value) or said (LRP on masks)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.evaluation.test_tide import gen_results
from tests.test_cli_analyze import GT, needs_mini, run
from vocviewer.families.beyond_ap import BeyondOptions, beyond_ap, evidence_for
from vocviewer.families.registry import open_dataset, open_results


def test_demo_json_equals_the_library(demo: Any, tmp_path: Path, capsys) -> None:
    out, deploy, figs = tmp_path / "a.json", tmp_path / "t.json", tmp_path / "figs"
    code, text, _ = run(
        capsys,
        demo.year_dir,
        "--results",
        demo.results_dir,
        "--bootstrap",
        2,
        "--operating-point",
        "--calibration",
        "--lrp",
        "--beta",
        2,
        "--bins",
        5,
        "--json",
        out,
        "--deploy-thresholds",
        deploy,
        "--figures",
        figs,
    )
    assert code == 0
    (entry,) = json.loads(out.read_text())["sets"].values()
    ds = open_dataset(demo.year_dir)
    res = open_results(ds, [demo.results_dir], image_set="val")
    b = beyond_ap(ds, res, evidence_for(ds, res, "val"), BeyondOptions(beta=2, bins=5))
    want = b.to_dict()
    for key in ("operating_point", "confusion", "calibration", "lrp"):
        assert entry[key] == want[key], key
    assert entry["beyond_iou"] == 0.5 and entry["operating_point"]["rule"] == "f2"
    assert json.loads(deploy.read_text()) == b["operating_point"].op.thresholds()
    assert "optimal LRP at IoU 0.50" in text and f"moLRP {b['lrp'].lrp.molrp:.4f}" in text
    names = {p.name for p in figs.iterdir()}
    stem = Path(next(iter(json.loads(out.read_text())["sets"]))).stem
    assert {f"threshold_{stem}.svg", f"reliability_{stem}.svg"} <= names


def test_only_what_is_asked(demo: Any, tmp_path: Path, capsys) -> None:
    out = tmp_path / "a.json"
    code, _, _ = run(
        capsys,
        demo.year_dir,
        "--results",
        demo.results_dir,
        "--bootstrap",
        2,
        "--lrp",
        "--json",
        out,
    )
    assert code == 0
    (entry,) = json.loads(out.read_text())["sets"].values()
    assert "lrp" in entry and "operating_point" not in entry and "calibration" not in entry


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--bins", "5"], "--bins needs --calibration"),
        (["--beta", "2"], "--beta needs --operating-point"),
        (["--operating-point", "--beta", "0"], "--beta must be positive"),
        (["--operating-point", "--target-precision", "1.5"], "--target-precision must lie"),
        (
            ["--operating-point", "--target-precision", ".5", "--target-recall", ".5"],
            "not both",
        ),
        (["--calibration", "--bins", "0"], "--bins needs at least 1"),
        (["--task", "cls", "--bootstrap", "2", "--lrp"], "read detections, not cls"),
    ],
)
def test_bad_options_are_refused(demo: Any, capsys, argv: list[str], words: str) -> None:
    code, _, err = run(capsys, demo.year_dir, "--results", demo.results_dir, *argv)
    assert code == 1 and words in err


@needs_mini
def test_coco_mini_bbox(tmp_path: Path, capsys) -> None:
    gt = json.loads(GT.read_text())
    dt = tmp_path / "dt.json"
    dt.write_text(json.dumps(gen_results(gt, 5)))
    out = tmp_path / "a.json"
    code, _, _ = run(
        capsys, GT, "--results", dt, "--bootstrap", 2, "--lrp", "--calibration", "--json", out
    )
    assert code == 0
    (entry,) = json.loads(out.read_text())["sets"].values()
    ds = open_dataset(GT)
    res = open_results(ds, [dt])
    want = beyond_ap(ds, res, evidence_for(ds, res)).to_dict()
    assert entry["lrp"] == want["lrp"] and entry["calibration"] == want["calibration"]
    assert entry["lrp"]["tau"] == 0.5
