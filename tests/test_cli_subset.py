"""``vocviewer subset``: images chosen by id, id file, class, image set or session tag written as a
new dataset folder; refusals (inside the dataset, a non-empty folder, an unknown id) exit 1 with
a message, before anything is written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vocviewer.cli import main
from vocviewer.core.tags import Tags, Target
from vocviewer.families.registry import open_dataset
from vocviewer.formats.session import Session, write_session


def run(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[int, str, str]:
    code = main(["subset", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def _ids(folder: Path) -> list[str]:
    return sorted(open_dataset(folder).images.id.tolist())


def test_ids_file_class_and_image_set(demo, tmp_path: Path, capsys) -> None:
    ds = open_dataset(demo.year_dir)
    listing = tmp_path / "ids.txt"
    listing.write_text(f"# chosen\n{ds.images.id[3]}\n\n{ds.images.id[5]}\n")
    code, out, err = run(
        capsys,
        demo.year_dir,
        "--to",
        "voc",
        "--out",
        tmp_path / "a",
        "--ids",
        listing,
        ds.images.id[8],
    )
    assert code == 0, err
    assert out.splitlines()[0] == f"3 of {len(ds.images)} images chosen"
    assert _ids(tmp_path / "a") == sorted(ds.images.id[[3, 5, 8]].tolist())
    dog = ds.class_index("dog")
    val = ds.image_sets["Main/val"]
    expected = sorted(
        set(ds.images.id[ds.objects.image_index[ds.objects.label == dog]]) & set(ds.images.id[val])
    )
    code, _, err = run(
        capsys,
        demo.year_dir,
        "--to",
        "voc",
        "--out",
        tmp_path / "b",
        "--class",
        "dog",
        "--image-set",
        "val",
        "--results",
        demo.results_dir / "Main",
    )
    assert code == 0, err
    assert _ids(tmp_path / "b") == expected and expected
    assert (tmp_path / "b" / "results").is_dir()


def test_tagged_images_of_a_session(demo, tmp_path: Path, capsys) -> None:
    ds = open_dataset(demo.year_dir)
    a, b, c = ds.images.id[[2, 6, 9]].tolist()
    tags = Tags().toggle(Target("image", a), "label error")
    tags = tags.toggle(Target("object", b, 0), "label error").toggle(Target("image", c), "other")
    session = tmp_path / "s.json"
    write_session(session, Session(dataset=demo.year_dir, tags=tags))
    code, _, err = run(
        capsys,
        demo.year_dir,
        "--to",
        "coco",
        "--out",
        tmp_path / "t",
        "--tag",
        "label error",
        "--session",
        session,
    )
    assert code == 0, err
    doc = open_dataset(tmp_path / "t" / "annotations" / "instances_subset.json")
    assert sorted(p.stem for p in doc.images.path) == sorted([a, b])
    code, _, err = run(capsys, demo.year_dir, "--to", "coco", "--out", tmp_path / "u", "--tag", "x")
    assert code == 1 and "--tag needs --session" in err


def test_refusals_exit_1_and_write_nothing(demo, tmp_path: Path, capsys) -> None:
    ds = open_dataset(demo.year_dir)
    before = sorted(p for p in demo.devkit.rglob("*"))
    code, _, err = run(capsys, demo.year_dir, "--to", "coco", "--out", demo.year_dir / "sub")
    assert code == 1 and "refusing to write inside" in err
    code, _, err = run(capsys, demo.year_dir, "--to", "yolo", "--out", demo.year_dir)
    assert code == 1 and "refusing to write inside" in err
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("mine")
    code, _, err = run(capsys, demo.year_dir, "--to", "voc", "--out", tmp_path / "full")
    assert code == 1 and "exists and is not empty" in err
    assert [p.name for p in (tmp_path / "full").iterdir()] == ["x"]
    listing = tmp_path / "ids.txt"
    listing.write_text(f"{ds.images.id[0]}\nnot_an_image\n")
    code, _, err = run(
        capsys, demo.year_dir, "--to", "voc", "--out", tmp_path / "n", "--ids", listing
    )
    assert code == 1 and f"{listing}:2: no image 'not_an_image'" in err
    code, _, err = run(
        capsys, demo.year_dir, "--to", "voc", "--out", tmp_path / "n", "--class", "unicorn"
    )
    assert code == 1 and "no class 'unicorn'" in err
    assert not (tmp_path / "n").exists()
    assert sorted(p for p in demo.devkit.rglob("*")) == before
    assert np.array_equal(open_dataset(demo.year_dir).objects.box, ds.objects.box)
