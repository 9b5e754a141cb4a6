"""``vocviewer export``: PR figures, annotated images and AP tables, written atomically through
the guarded writer; every target checked before anything is evaluated."""

from __future__ import annotations

import csv
import io
import os

import pytest

from vocviewer.cli import main


@pytest.fixture
def demo_paths(demo):
    return demo


def test_export_figures_images_and_table(demo_paths, tmp_path, capsys, qapp):
    out = tmp_path / "out"
    code = main(
        [
            "export",
            str(demo_paths.year_dir),
            "--results",
            str(demo_paths.results_dir),
            "--pr-curves",
            str(out),
            "--format",
            "svg",
            "--classes",
            "dog",
            "car",
            "--images",
            str(out),
            "--ids",
            "2012_000002",
            "--table",
            str(out / "ap.csv"),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out.split()
    assert {p.split("/")[-1] for p in printed} == {
        "ap.csv",
        "pr_dog.svg",
        "pr_car.svg",
        "2012_000002.png",
    }
    assert (out / "pr_dog.svg").read_text().lstrip().startswith("<?xml")
    assert (out / "2012_000002.png").read_bytes().startswith(b"\x89PNG")
    rows = list(csv.reader(io.StringIO((out / "ap.csv").read_text())))
    assert rows[0][0] == "class" and rows[-1][0] == "mean" and len(rows) == 22
    assert not list(out.glob(".*"))  # temp files renamed away


@pytest.mark.parametrize(("fmt", "magic"), [("png", b"\x89PNG"), ("pdf", b"%PDF")])
def test_export_raster_and_pdf(demo_paths, tmp_path, fmt, magic, qapp):
    code = main(
        [
            "export",
            str(demo_paths.year_dir),
            "--results",
            str(demo_paths.results_dir),
            "--pr-curves",
            str(tmp_path),
            "--format",
            fmt,
            "--classes",
            "cat",
        ]
    )
    assert code == 0
    assert (tmp_path / f"pr_cat.{fmt}").read_bytes().startswith(magic)


def test_export_refuses_the_dataset_folder_and_bad_requests(demo_paths, capsys, qapp):
    inside = demo_paths.year_dir / "ap.md"
    code = main(
        [
            "export",
            str(demo_paths.year_dir),
            "--results",
            str(demo_paths.results_dir),
            "--table",
            str(inside),
        ]
    )
    assert code == 1 and not inside.exists()
    assert "inside the opened dataset folder" in capsys.readouterr().err
    assert main(["export", str(demo_paths.year_dir), "--results", "x"]) == 2
    assert main(["export", str(demo_paths.year_dir), "--results", "x", "--table", "a.xls"]) == 2


def test_export_checks_every_target_before_evaluating(demo_paths, tmp_path, capsys, qapp):
    base = ["export", str(demo_paths.year_dir), "--results", str(demo_paths.results_dir)]
    (tmp_path / "file").write_text("x")
    cases = {
        (
            "--pr-curves",
            str(tmp_path / "f"),
            "--classes",
            "dog",
            "unicorn",
        ): "export: --classes: no class 'unicorn' in VOC2012",
        (
            "--images",
            str(tmp_path / "i"),
            "--ids",
            "2012_000002",
            "nope",
        ): "export: --ids: no image 'nope' in VOC2012",
        ("--pr-curves", str(tmp_path / "file")): f"{tmp_path / 'file'}: is not a folder",
        (
            "--table",
            str(demo_paths.results_dir / "Main" / "comp4_det_val_car.txt.md"),
        ): "refusing to write inside the opened dataset folder",
    }
    for extra, message in cases.items():
        assert main([*base, *extra]) == 1
        assert message in capsys.readouterr().err
    assert sorted(os.listdir(tmp_path)) == ["file"]  # nothing written, not even a folder
