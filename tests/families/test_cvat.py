"""CVAT / LabelMe readers: what reaches the protocols' models (flags, groups, ids, the summary
line), beside the parity tests (``tests/parity/test_cvat_parity.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from tests.bad_input.test_cvat import CVAT, _labelme
from vocviewer.families.base import ConvertRequest
from vocviewer.families.registry import open_dataset, sniff


def test_cvat_flags_reach_both_models(tmp_path: Path) -> None:
    from vocviewer.families.cvat.benchmark import read_annotated
    from vocviewer.families.cvat.convert import voc_model

    xml = tmp_path / "annotations.xml"
    xml.write_text(CVAT.replace('difficult">false', 'difficult">true'))
    assert sniff(xml)[1].name == "cvat"
    ds = open_dataset(xml)  # the window's model: COCO's
    assert ds.classes == ("car", "dog")
    assert ds.images.id.tolist() == ["1"]
    assert ds.objects.occluded.tolist() == [True, False]
    np.testing.assert_array_equal(ds.objects.box, [[10, 10, 50, 40], [60, 10, 90, 50]])
    annotated, problems = read_annotated(xml)
    assert not problems
    voc = voc_model(annotated, problems, "val")
    assert voc.box_convention == "voc" and voc.images.id.tolist() == ["a"]
    assert voc.objects.difficult.tolist() == [True, False]
    assert voc.images_in_set("val").tolist() == [0]


def test_labelme_groups_join_shapes_and_crowd_is_difficult_under_voc(tmp_path: Path) -> None:
    from vocviewer.families.cvat.benchmark import read_annotated
    from vocviewer.families.cvat.convert import coco_dict, voc_model

    folder = tmp_path / "lm"
    folder.mkdir()
    tri = [[0, 0], [10, 0], [5, 10]]
    shapes = [
        {"label": "dog", "points": tri, "group_id": 3, "shape_type": "polygon", "flags": {}},
        {"label": "dog", "points": [[p[0] + 20, p[1]] for p in tri], "group_id": 3, "flags": {}},
        {
            "label": "car",
            "points": [[50, 40], [10, 10]],
            "shape_type": "rectangle",
            "flags": {"iscrowd": True},
        },
    ]
    (folder / "x.json").write_text(json.dumps(_labelme(shapes)))
    annotated, problems = read_annotated(folder)
    assert not problems
    assert "LabelMe JSON, 1 images, 3 shapes in 2 objects, 2 classes" in annotated.summary()
    coco = coco_dict(annotated)
    dog, car = coco["annotations"]
    assert dog["bbox"] == [0.0, 0.0, 30.0, 10.0] and len(dog["segmentation"]) == 2
    assert car["bbox"] == [10.0, 10.0, 40.0, 30.0] and car["area"] == 1200.0
    assert (car["iscrowd"], dog["iscrowd"]) == (1, 0)
    voc = voc_model(annotated, problems, "all")
    assert voc.objects.difficult.tolist() == [False, True]


def test_analyze_reads_cvat_by_coco_rules(tmp_path: Path, capsys) -> None:
    """``vocviewer analyze`` on a CVAT XML: COCO's analysis, its mAP the eval's AP."""
    from vocviewer.cli import main

    (tmp_path / "gt").mkdir()  # nothing is written beside the dataset
    xml = tmp_path / "gt" / "annotations.xml"
    xml.write_text(CVAT)
    res = tmp_path / "r.json"
    rows = [
        {"image_id": 1, "category_id": 1, "bbox": [12, 10, 38, 30], "score": 0.9},
        {"image_id": 1, "category_id": 2, "bbox": [60, 12, 30, 36], "score": 0.8},
        {"image_id": 1, "category_id": 2, "bbox": [0, 0, 20, 20], "score": 0.95},
    ]
    res.write_text(json.dumps(rows))
    assert main(["eval", str(xml), "--results", str(res), "--json", str(tmp_path / "e.json")]) == 0
    assert (
        main(
            [
                "analyze",
                str(xml),
                "--results",
                str(res),
                "--bootstrap",
                "10",
                "--json",
                str(tmp_path / "a.json"),
            ]
        )
        == 0
    )
    capsys.readouterr()
    ev = json.loads((tmp_path / "e.json").read_text())
    an = json.loads((tmp_path / "a.json").read_text())
    assert an["sets"]["r.json"]["mAP"] == ev["summary"]["AP"] > 0


def test_convert_to_coco_writes_what_the_evaluation_reads(tmp_path: Path) -> None:
    """``convert --to coco``: the written JSON is the conversion the evaluation uses; the flags
    COCO cannot hold are named; nothing is written beside the annotations."""
    import pytest

    from vocviewer.core.errors import OutputError
    from vocviewer.families.cvat.benchmark import CvatBenchmark, read_annotated
    from vocviewer.families.cvat.convert import coco_dict

    (tmp_path / "gt").mkdir()
    xml = tmp_path / "gt" / "annotations.xml"
    xml.write_text(CVAT)
    bench = CvatBenchmark()
    assert ("cvat", "coco") in bench.conversions
    msgs = bench.convert(ConvertRequest("cvat", xml, "coco", tmp_path / "out"))
    written = json.loads((tmp_path / "out" / "instances_annotations.json").read_text())
    assert written == coco_dict(read_annotated(xml)[0])
    assert "not written: 1 occluded objects" in msgs[-1]
    with pytest.raises(OutputError):
        bench.convert(ConvertRequest("cvat", xml, "coco", tmp_path / "gt" / "inside"))
