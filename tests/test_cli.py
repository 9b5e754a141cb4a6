"""The command line, run for real (in-process for eval, subprocesses for the GUI commands)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest

from vocviewer.cli import main
from vocviewer.families.voc.evaluate import evaluate_voc_det
from vocviewer.families.voc.reader import read_voc, read_voc_results


def test_eval_prints_table_and_writes_json(demo, tmp_path, capsys):
    out = tmp_path / "r.json"
    code = main(
        ["eval", str(demo.year_dir), "--results", str(demo.results_dir), "--json", str(out)]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "image set 'val'" in text and "all points" in text
    for cls in ("aeroplane", "tvmonitor", "mAP"):
        assert cls in text
    payload = json.loads(out.read_text())
    assert payload["protocol"] == "voc2012" and payload["task"] == "det"
    ds = read_voc(demo.year_dir)
    ref = evaluate_voc_det(
        ds, read_voc_results(ds, [demo.results_dir], image_set="val"), image_set="val"
    )
    assert payload["summary"]["mAP"] == ref.mean_ap()
    for c in ref.classes:
        got = payload["per_class"][c.class_name]
        assert got["npos"] == c.npos and got["ndet"] == c.ndet
        assert (math.isnan(got["ap"]) and math.isnan(c.ap)) or got["ap"] == c.ap


def test_eval_cls_and_protocol_override(demo, capsys):
    assert (
        main(
            [
                "eval",
                str(demo.year_dir),
                "--results",
                str(demo.results_dir),
                "--task",
                "cls",
                "--protocol",
                "voc2007",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "classification" in text and "11-point" in text


def test_eval_bad_line_names_file_and_line(demo, tmp_path, capsys):
    bad = tmp_path / "comp4_det_val_car.txt"
    lines = (demo.results_dir / "Main" / "comp4_det_val_car.txt").read_text().splitlines()
    lines.insert(2, f"{lines[0].split()[0]} high 1 2 3 4")
    bad.write_text("\n".join(lines) + "\n")
    code = main(["eval", str(demo.year_dir), "--results", str(bad)])
    err = capsys.readouterr().err
    assert code == 1
    assert f"{bad}:3" in err


def test_eval_unknown_image_set(demo, capsys):
    code = main(
        ["eval", str(demo.year_dir), "--results", str(demo.results_dir), "--image-set", "nosuchset"]
    )
    assert code != 0
    assert "nosuchset" in capsys.readouterr().err


def test_eval_missing_dataset(tmp_path, capsys):
    code = main(["eval", str(tmp_path / "nope"), "--results", str(tmp_path), "--image-set", "val"])
    assert code == 1
    assert "nope" in capsys.readouterr().err


def _env(**extra):
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    env.update(extra)
    return env


def test_demo_no_gui_prints_path(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "vocviewer", "demo", "--no-gui", "--dir", str(tmp_path)],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "VOCdevkit" / "VOC2012" / "Annotations").is_dir()
    assert done.stdout.strip().endswith("VOC2012")


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="display detection is Linux-specific"
)
def test_gui_without_display_says_so_instead_of_aborting(demo):
    done = subprocess.run(
        [sys.executable, "-m", "vocviewer", "open", str(demo.year_dir)],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=60,
        check=False,
    )
    assert done.returncode == 3
    assert "no display found" in done.stderr and "--screenshot" in done.stderr


def test_open_screenshot_headless(demo, tmp_path):
    shot = tmp_path / "shot.png"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "vocviewer",
            "open",
            str(demo.year_dir),
            "--results",
            str(demo.results_dir),
            "--image-set",
            "val",
            "--screenshot",
            str(shot),
        ],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    from PIL import Image

    with Image.open(shot) as im:
        assert im.width > 800 and im.height > 500
        colours = im.convert("RGB").resize((64, 64)).getcolors(maxcolors=64 * 64)
        assert len(colours) > 50  # not a blank window
