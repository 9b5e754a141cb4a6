"""The YOLO reader's layouts and conventions: a bare ``images/`` + ``labels/`` folder, ``names``
as a list or a mapping, splits as folders or list files, EXIF-rotated image sizes, class-index
``predictions.json`` and an empty prediction folder — each against the same data read the
ordinary way."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from PIL import Image

from tests.parity.yolo_data import NAMES, make_yolo
from vocviewer.cli import main
from vocviewer.families import registry
from vocviewer.families.registry import open_dataset
from vocviewer.families.yolo.reader import image_size


def _summary(path: Path, results: Path, tmp: Path, *extra: str) -> dict:
    out = tmp / f"s{len(list(tmp.glob('s*.json')))}.json"
    assert main(["eval", str(path), "--results", str(results), "--json", str(out), *extra]) == 0
    return dict(json.loads(out.read_text())["summary"])


@pytest.fixture
def case(tmp_path):
    return make_yolo(tmp_path, "detect", seed=9, n_images=12)


def test_the_registry_picks_yolo(case):
    _, b = registry.sniff(case.yaml)
    assert b is not None and b.name == "yolo"
    assert registry.sniff(case.yaml.parent)[1].name == "yolo"  # type: ignore[union-attr]
    ds = open_dataset(case.yaml)
    assert ds.classes == NAMES and len(ds.images) == 12


def test_a_bare_folder_reads_as_its_yaml(case, tmp_path):
    bare = tmp_path / "bare"
    shutil.copytree(case.yaml.parent, bare)
    (bare / "data.yaml").unlink()
    (bare / "classes.txt").write_text("".join(f"{n}\n" for n in NAMES))
    assert open_dataset(bare).classes == NAMES
    assert _summary(bare, case.pred_txt, tmp_path) == _summary(case.yaml, case.pred_txt, tmp_path)


def test_a_folder_with_its_dataset_yaml_takes_the_names_from_it(case, tmp_path):
    """Opening the folder (not its ``data.yaml``) still names the classes as the YAML does, and
    a ``classes.txt`` beside it does not override them."""
    (case.yaml.parent / "classes.txt").write_text("".join(f"x{k}\n" for k in range(len(NAMES))))
    assert open_dataset(case.yaml.parent).classes == NAMES == open_dataset(case.yaml).classes


def test_names_list_and_list_file_splits(case, tmp_path):
    root = case.yaml.parent
    ids = open_dataset(case.yaml).images.id.tolist()
    before = _summary(case.yaml, case.pred_txt, tmp_path)
    images = sorted((root / "images" / "val").glob("*.png"))
    (root / "half.txt").write_text("".join(f"./images/val/{p.name}\n" for p in images[:6]))
    rest = root / "rest"
    (rest / "images").mkdir(parents=True)
    (rest / "labels").mkdir()
    for p in images[6:]:
        shutil.move(p, rest / "images" / p.name)
        shutil.move(root / "labels" / "val" / f"{p.stem}.txt", rest / "labels" / f"{p.stem}.txt")
    other = tmp_path / "cfg" / "other.yaml"
    other.parent.mkdir()
    other.write_text(f"path: {root}\nval: [half.txt, rest/images]\nnames: {list(NAMES)}\n")
    assert open_dataset(other).images.id.tolist() == ids
    assert _summary(other, case.pred_txt, tmp_path) == before


def test_exif_rotated_sizes_are_swapped(tmp_path):
    """EXIF orientation 6 (rotate 90°): Ultralytics' ``exif_size`` reports the rotated size."""
    im = Image.new("RGB", (40, 30))
    exif = Image.Exif()
    exif[0x0112] = 6
    im.save(tmp_path / "r.jpg", exif=exif)
    im.save(tmp_path / "p.jpg")
    assert image_size(tmp_path / "r.jpg") == (30, 40)
    assert image_size(tmp_path / "p.jpg") == (40, 30)


def test_predictions_json_with_class_indices(case, tmp_path):
    doc = json.loads(case.pred_json.read_text())
    for d in doc:
        d["category_id"] -= 1  # older Ultralytics: class indices
    indexed = tmp_path / "indexed.json"
    indexed.write_text(json.dumps(doc))
    assert _summary(case.yaml, indexed, tmp_path) == _summary(case.yaml, case.pred_json, tmp_path)


def test_an_empty_prediction_folder_is_no_detections(case, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    s = _summary(case.yaml, empty, tmp_path)
    assert s["AP"] == 0.0 and s["AR100"] == 0.0


def test_the_analysis_tab_is_cocos_on_the_converted_files(case, tmp_path, capsys):
    """The window's Analysis tab on a YOLO split gives what ``vocviewer analyze`` prints for
    the same data converted to COCO JSON (TIDE's breakdown, per-class characteristics)."""
    from vocviewer.families.registry import open_results
    from vocviewer.families.view_analysis import view_analysis

    out = tmp_path / "coco"
    assert (
        main(["convert", str(case.yaml), "--to", "coco", str(out), "--results", str(case.pred_txt)])
        == 0
    )
    report = tmp_path / "analyze.json"
    argv = ["analyze", str(out / "instances_val.json"), "--results", str(out / "pred_txt.json")]
    images = case.yaml.parent / "images" / "val"
    assert main([*argv, "--images", str(images), "--json", str(report)]) == 0
    capsys.readouterr()
    entry = json.loads(report.read_text())["sets"]["pred_txt.json"]
    ds = open_dataset(case.yaml)
    got = view_analysis(ds, open_results(ds, case.pred_txt), None)
    assert got is not None
    assert got.tide.main == pytest.approx(entry["tide"]["main"], abs=1e-12)
    assert got.tide.special == pytest.approx(entry["tide"]["special"], abs=1e-12)


def test_analyze_is_cocos_on_the_converted_files(case, tmp_path, capsys):
    out = tmp_path / "coco"
    argv = ["convert", str(case.yaml), "--to", "coco", str(out), "--results", str(case.pred_txt)]
    assert main(argv) == 0
    images = case.yaml.parent / "images" / "val"
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    coco = ["analyze", str(out / "instances_val.json"), "--results", str(out / "pred_txt.json")]
    assert main([*coco, "--images", str(images), "--json", str(a)]) == 0
    assert main(["analyze", str(case.yaml), "--results", str(case.pred_txt), "--json", str(b)]) == 0
    capsys.readouterr()
    ja, jb = json.loads(a.read_text()), json.loads(b.read_text())
    assert ja["sets"]["pred_txt.json"] == jb["sets"]["pred_txt"]
