"""``vocviewer convert --to cvat|voc``: COCO ground truth (coco-mini, drawn as CVAT / LabelMe
would hold it: ``tests/parity/cvat_data.py``) written as CVAT XML evaluates as the COCO file under
pycocotools (all 12 stats), and written as a VOC folder with its results as ``comp4_det`` files
evaluates as the equivalent VOC devkit built independently; what the targets cannot hold is said."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tests.parity import cvat_data as cd
from tests.parity.test_cvat_parity import _pycocotools, _summary
from vocviewer.cli import main
from vocviewer.families.base import EvalRequest
from vocviewer.families.registry import choose, conversion_targets, convert

pytestmark = pytest.mark.skipif(not cd.INSTANCES.is_file(), reason="coco-mini is not available")


def _coco(tmp: Path, voc: bool) -> tuple[Path, dict, Path, list]:
    """The COCO file of the sample (polygons, boxes, crowd boxes) and its results file."""
    classes, images = cd.sample(voc=voc, multi=False)
    coco = cd.reference_coco(classes, images, [im.coco_id for im in images])
    rows = cd.coco_results(coco, seed=7)
    (tmp / "coco").mkdir()
    ann = tmp / "coco" / "instances_val2017.json"
    ann.write_text(json.dumps(coco))
    res = tmp / "dets.json"
    res.write_text(json.dumps(rows))
    return ann, coco, res, rows


def test_the_targets_are_offered() -> None:
    assert {"coco", "voc", "yolo", "cvat"} <= set(conversion_targets())


def _gapped(path: Path, doc: dict | list) -> None:
    """Category ids 2, 4, 6, ... (COCO's have gaps) written to ``path``."""
    for x in doc["categories"] + doc["annotations"] if isinstance(doc, dict) else doc:
        x["category_id" if "category_id" in x else "id"] *= 2
    path.write_text(json.dumps(doc))


def test_coco_to_cvat_evaluates_as_the_coco_file(tmp_path: Path, capsys) -> None:
    """COCO ids with gaps: the converted results carry the ids the XML's labels are read as."""
    ann, coco, res, rows = _coco(tmp_path, voc=False)
    _gapped(ann, json.loads(ann.read_text()))
    _gapped(res, json.loads(res.read_text()))
    args = ["convert", str(ann), "--to", "cvat", str(tmp_path / "out"), "--results", str(res)]
    assert main(args) == 0
    res = tmp_path / "out" / "dets.json"
    printed = capsys.readouterr().out
    assert "COCO's 'area' is not kept" in printed
    xml = tmp_path / "out" / "instances_val2017.xml"
    assert b"<polygon " in xml.read_bytes() and b'name="iscrowd"' in xml.read_bytes()
    ref = _pycocotools(coco, rows, "bbox", tmp_path)
    assert (
        main(
            [
                "eval",
                str(xml),
                "--results",
                str(res),
                "--protocol",
                "coco",
                "--json",
                str(tmp_path / "e.json"),
            ]
        )
        == 0
    )
    ours = _summary(json.loads((tmp_path / "e.json").read_text()))
    assert ours.shape == (12,)
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-12)
    bench = choose(xml, "segm", "coco")  # polygons kept: segm too
    segm_rows = cd.coco_results(coco, seed=7, segm=True)
    seg = tmp_path / "segm.json"
    seg.write_text(json.dumps(segm_rows))
    payload = bench.evaluate(EvalRequest(xml, (seg,), "segm", "coco")).payload
    np.testing.assert_allclose(
        _summary(payload), _pycocotools(coco, segm_rows, "segm", tmp_path), rtol=0, atol=1e-12
    )


def test_coco_to_cvat_says_what_it_cannot_hold(tmp_path: Path) -> None:
    doc = {
        "images": [{"id": 1, "file_name": "a.jpg", "width": 20, "height": 10}],
        "annotations": [
            {
                "id": 1,
                "image_id": 1,
                "category_id": 1,
                "bbox": [1, 1, 4, 4],
                "area": 3,
                "iscrowd": 1,
                "segmentation": {"size": [10, 20], "counts": "0k1"},
            },
            {
                "id": 2,
                "image_id": 1,
                "category_id": 1,
                "bbox": [1, 1, 4, 4],
                "area": 3,
                "iscrowd": 0,
                "segmentation": [[1, 1, 5, 1, 5, 5], [6, 6, 7, 6, 7, 7]],
                "keypoints": [2, 2, 2],
                "num_keypoints": 1,
            },
        ],
        "categories": [{"id": 1, "name": "person"}],
    }
    (tmp_path / "gt").mkdir()
    ann = tmp_path / "gt" / "instances_x.json"
    ann.write_text(json.dumps(doc))
    msgs = convert(ann, "cvat", tmp_path / "out")
    assert sum("RLE" in m for m in msgs) == 1
    assert sum("several polygons" in m for m in msgs) == 1
    assert sum("keypoints" in m for m in msgs) == 1
    from vocviewer.core.errors import OutputError

    with pytest.raises(OutputError):
        convert(ann, "cvat", tmp_path / "gt" / "inside")


def _voc_reference(tmp: Path, coco: dict, rows: list) -> tuple[Path, list[Path]]:
    """The VOC devkit the COCO file stands for, built from the sample: boxes in VOC's 1-based
    inclusive pixels (``x + 1 .. x + w``: ``cvat_data.write_voc``), crowd as difficult, results
    likewise (``cvat_data.write_voc_results``)."""
    classes, images = cd.sample(voc=True, multi=False)
    extents = []
    for im in images:
        objs = []
        for o in im.objects:
            pts = list(o.box) if o.box is not None else [v for p in o.polygons for v in p]
            box = (min(pts[0::2]), min(pts[1::2]), max(pts[0::2]), max(pts[1::2]))
            objs.append(replace(o, box=box, polygons=[], difficult=False))
        extents.append(replace(im, objects=objs))
    year = cd.write_voc(tmp / "ref", classes, extents)
    stems = {im.coco_id: Path(im.name).stem for im in images}
    return year, cd.write_voc_results(tmp / "ref_res", classes, rows, stems)


def test_coco_to_voc_evaluates_as_the_equivalent_voc_devkit(tmp_path: Path, capsys) -> None:
    ann, coco, res, rows = _coco(tmp_path, voc=True)
    out = tmp_path / "voc"
    assert main(["convert", str(ann), "--to", "voc", str(out), "--results", str(res)]) == 0
    printed = capsys.readouterr().out
    assert "crowd region(s) written as difficult" in printed
    assert "mask(s) not kept" in printed
    files = sorted((out / "results" / "dets" / "Main").glob("comp4_det_val2017_*.txt"))
    assert len(files) == len(coco["categories"])
    assert (out / "ImageSets" / "Main" / "val2017.txt").read_text().split() == [
        Path(im["file_name"]).stem for im in coco["images"]
    ]
    year, ref_files = _voc_reference(tmp_path, coco, rows)
    for protocol in ("voc2012", "voc2007"):
        ours = choose(out, "det", protocol).evaluate(
            EvalRequest(out, tuple(files), "det", protocol)
        )
        ref = choose(year, "det", protocol).evaluate(
            EvalRequest(year, tuple(ref_files), "det", protocol)
        )
        mine = {c: v["ap"] for c, v in ours.payload["per_class"].items()}
        theirs = {c: v["ap"] for c, v in ref.payload["per_class"].items()}
        assert mine.keys() == theirs.keys()
        np.testing.assert_allclose(list(mine.values()), list(theirs.values()), rtol=0, atol=1e-12)
        assert sum(v > 0 for v in mine.values()) >= 5


def test_cvat_to_voc_keeps_the_flags(tmp_path: Path) -> None:
    """A CVAT source through its COCO dict: difficult (or crowd) and occluded reach the XMLs."""
    from vocviewer.families.voc.reader import read_voc

    classes, images = cd.sample(voc=True, multi=False)
    (tmp_path / "gt").mkdir()
    xml = cd.write_cvat(tmp_path / "gt" / "annotations.xml", classes, images)
    msgs = convert(xml, "voc", tmp_path / "out")
    assert msgs[0].startswith("wrote ")
    ds = read_voc(tmp_path / "out", year=2012)
    objs = [o for im in images for o in im.objects]
    assert len(ds.objects) == len(objs)
    assert int(ds.objects.difficult.sum()) == sum(o.difficult or o.crowd for o in objs)
    assert int(ds.objects.occluded.sum()) == sum(o.occluded for o in objs) > 0


def test_yolo_to_voc_goes_through_its_coco_document(tmp_path: Path, capsys) -> None:
    """YOLO → VOC equals YOLO → COCO → VOC (the same document and results), files and AP; the
    classes VOC's evaluation does not know are named."""
    from tests.parity.yolo_data import make_yolo

    case = make_yolo(tmp_path, "detect", seed=6)
    direct, coco, via = tmp_path / "direct", tmp_path / "coco", tmp_path / "via"
    cmd = ["convert", str(case.yaml), "--results", str(case.pred_txt), "--image-set", "val"]
    assert main([*cmd, "--to", "voc", str(direct)]) == 0
    assert "not among VOC's 20 (fox, owl)" in capsys.readouterr().out
    assert main([*cmd, "--to", "coco", str(coco)]) == 0
    ann, res = coco / "instances_val.json", coco / f"{case.pred_txt.name}.json"
    assert main(["convert", str(ann), "--to", "voc", str(via), "--results", str(res)]) == 0
    for sub in ("Annotations", "ImageSets/Main", f"results/{case.pred_txt.name}/Main"):
        a, b = sorted((direct / sub).iterdir()), sorted((via / sub).iterdir())
        assert [p.name for p in a] == [p.name for p in b] and a
        assert [p.read_bytes() for p in a] == [p.read_bytes() for p in b]
    files = sorted((direct / "results" / case.pred_txt.name / "Main").glob("*_[cd][ao][tg].txt"))
    assert [f.name for f in files] == ["comp4_det_val_cat.txt", "comp4_det_val_dog.txt"]
    payload = (
        choose(direct, "det", "voc2012")
        .evaluate(EvalRequest(direct, tuple(files), "det", "voc2012"))
        .payload
    )
    assert {c for c, v in payload["per_class"].items() if v["ap"] > 0} == {"cat", "dog"}


@pytest.mark.parametrize("to", ["voc", "cvat"])
def test_a_bad_coco_file_is_named_not_a_traceback(tmp_path: Path, capsys, to: str) -> None:
    doc = {
        "images": [{"id": 1, "file_name": "a.jpg", "width": 20, "height": 10}],
        "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [1, 1, "4"]}],
        "categories": [{"id": 1, "name": "cat"}],
    }
    (tmp_path / "gt").mkdir()
    ann = tmp_path / "gt" / "instances_x.json"
    ann.write_text(json.dumps(doc))
    assert main(["convert", str(ann), "--to", to, str(tmp_path / "out")]) != 0
    err = capsys.readouterr().err
    assert str(ann) in err and "annotations[0]" in err and "bbox of 4 numbers" in err
    assert "Traceback" not in err
