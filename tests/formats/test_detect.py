"""Format sniffing: a path goes to the right reader, or gets a message saying what was expected."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.evaluation.test_visdrone_reference import write_split
from vocviewer.core.errors import FormatError
from vocviewer.families.coco.columns import CocoAnnotations
from vocviewer.families.registry import looks_like_dataset, open_dataset, open_results
from vocviewer.families.visdrone.columns import VisDroneGroundTruth


def test_voc_year_folder(demo):
    ds = open_dataset(demo.year_dir)
    assert ds.name == "VOC2012" and ds.box_convention == "voc"
    rs = open_results(ds, [demo.results_dir], image_set="val")
    assert len(rs.detections) > 0


def test_visdrone_split(tmp_path):
    split, res = write_split(
        tmp_path, [([(10, 10, 20, 20, 1, 4)], [(11, 10, 20, 20, 0.9, 4)], 100, 100)]
    )
    ds = open_dataset(split)
    assert ds.has_data(VisDroneGroundTruth) and ds.box_convention == "continuous"
    assert ds.classes[ds.objects.label[0]] == "car"
    rs = open_results(ds, [res])
    assert len(rs.detections) == 1


def test_unknown_folder_says_what_was_expected(tmp_path):
    with pytest.raises(FormatError, match="VisDrone split"):
        open_dataset(tmp_path)
    with pytest.raises(FormatError, match="does not exist"):
        open_dataset(tmp_path / "missing")


COCO_MINI = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "coco-mini"


@pytest.mark.skipif(not COCO_MINI.is_dir(), reason="../shared/data/coco-mini is absent")
def test_coco_annotation_json(tmp_path):
    import json

    ann = COCO_MINI / "annotations" / "instances_val2017.json"
    ds = open_dataset(ann, images=COCO_MINI / "val2017")
    assert ds.has_data(CocoAnnotations) and ds.box_convention == "continuous"
    assert ds.images.path[0].parent == COCO_MINI / "val2017"
    first = ds.data(CocoAnnotations)
    res = tmp_path / "res.json"
    res.write_text(
        json.dumps(
            [
                {
                    "image_id": int(first.image_id[0]),
                    "category_id": int(first.category_id[0]),
                    "bbox": [1, 2, 3, 4],
                    "score": 0.5,
                }
            ]
        )
    )
    assert len(open_results(ds, [res]).detections) == 1


def test_looks_like_dataset_tells_datasets_from_results(demo, tmp_path):
    assert looks_like_dataset(demo.year_dir)
    assert looks_like_dataset(demo.year_dir.parent)  # the VOCdevkit root
    assert not looks_like_dataset(demo.results_dir)
    split, res = write_split(tmp_path, [([(1, 1, 5, 5, 1, 4)], [(1, 1, 5, 5, 0.9, 4)], 9, 9)])
    assert looks_like_dataset(split) and not looks_like_dataset(res)
    ann = tmp_path / "instances.json"
    ann.write_bytes(b'\xef\xbb\xbf\n  {"images": [], "annotations": []}')
    dets = tmp_path / "dets.json"
    dets.write_text('[{"image_id": 1, "category_id": 1, "bbox": [0, 0, 1, 1], "score": 1}]')
    assert looks_like_dataset(ann) and not looks_like_dataset(dets)
    assert not looks_like_dataset(tmp_path / "comp4_det_val_cat.txt")  # missing: not a dataset
    assert not looks_like_dataset(tmp_path / "nothing.json")
