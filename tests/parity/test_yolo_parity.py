"""YOLO by COCO's protocol equals pycocotools on the same data converted to COCO JSON (bbox, segm,
keypoints; label folders and predictions.json), the conversion's coordinates are the format's
(checked by hand), and COCO → YOLO → COCO evaluates identically."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pytest

from tests.parity.yolo_data import make_yolo
from vocviewer.cli import main

pytest.importorskip("pycocotools")
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval

COCO_MINI = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "coco-mini"
INSTANCES = COCO_MINI / "annotations" / "instances_val2017.json"


def pycocotools_stats(ann: Path, res: Path, iou_type: str) -> np.ndarray:
    with contextlib.redirect_stdout(io.StringIO()):
        gt = COCO(str(ann))
        dt = gt.loadRes(str(res))
        e = COCOeval(gt, dt, iou_type)
        e.evaluate()
        e.accumulate()
        e.summarize()
    return np.asarray(e.stats, dtype=np.float64)


def ours(yaml: Path, results: Path, task: str, tmp: Path) -> dict:
    out = tmp / f"ours-{task}-{results.name}.json"
    assert (
        main(["eval", str(yaml), "--results", str(results), "--task", task, "--json", str(out)])
        == 0
    )
    return dict(json.loads(out.read_text()))


def converted(yaml: Path, results: Path, tmp: Path, task: str) -> tuple[Path, Path]:
    out = tmp / f"coco-{task}-{results.name}"
    args = ["convert", str(yaml), "--to", "coco", str(out), "--results", str(results)]
    assert main([*args, "--task", task]) == 0
    name = results.name if results.is_dir() else results.stem
    return out / "instances_val.json", out / f"{name}.json"


@pytest.mark.parametrize(
    ("kind", "task"), [("detect", "bbox"), ("segment", "segm"), ("pose", "keypoints")]
)
def test_coco_protocol_equals_pycocotools(tmp_path, kind, task):
    case = make_yolo(tmp_path, kind, seed=3)
    payload = ours(case.yaml, case.pred_txt, task, tmp_path)
    ann, res = converted(case.yaml, case.pred_txt, tmp_path, task)
    ref = pycocotools_stats(ann, res, task)
    got = np.array(list(payload["summary"].values()), dtype=np.float64)
    assert len(got) == len(ref)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12)
    assert payload["summary"]["AP"] > 0.05  # the data exercises matching


def test_predictions_json_equals_pycocotools(tmp_path):
    case = make_yolo(tmp_path, "detect", seed=4)
    payload = ours(case.yaml, case.pred_json, "bbox", tmp_path)
    ann, res = converted(case.yaml, case.pred_json, tmp_path, "bbox")
    ref = pycocotools_stats(ann, res, "bbox")
    np.testing.assert_allclose(list(payload["summary"].values()), ref, rtol=0, atol=1e-12)
    # the same detections as label files give the same numbers
    txt = ours(case.yaml, case.pred_txt, "bbox", tmp_path)
    np.testing.assert_allclose(
        list(txt["summary"].values()), list(payload["summary"].values()), atol=1e-9
    )


def test_conversion_coordinates_are_the_formats(tmp_path):
    """Label ``cls cx cy w h`` (normalised) → COCO ``x = (cx - w/2) W``, ``y = (cy - h/2) H``,
    ``w W``, ``h H``, computed here by hand from the files."""
    case = make_yolo(tmp_path, "detect", seed=5)
    ann, _ = converted(case.yaml, case.pred_txt, tmp_path, "bbox")
    doc = json.loads(ann.read_text())
    images = {im["id"]: im for im in doc["images"]}
    by_image: dict[int, list] = {}
    for a in doc["annotations"]:
        by_image.setdefault(a["image_id"], []).append(a)
    checked = 0
    for label in sorted((case.yaml.parent / "labels" / "val").glob("*.txt")):
        im = images[int(label.stem)]
        assert (im["width"], im["height"]) == case.sizes[label.stem]
        W, H = case.sizes[label.stem]
        for a, line in zip(
            by_image.get(int(label.stem), []), label.read_text().split("\n"), strict=False
        ):
            c, cx, cy, w, h = (float(v) for v in line.split())
            assert a["category_id"] == int(c) + 1
            np.testing.assert_allclose(
                a["bbox"], [(cx - w / 2) * W, (cy - h / 2) * H, w * W, h * H], rtol=1e-15
            )
            checked += 1
    assert checked > 20


def _round_trip(ann: Path, res: Path, images: Path, tmp: Path) -> tuple[np.ndarray, np.ndarray]:
    yolo = tmp / "yolo"
    assert (
        main(
            [
                "convert",
                str(ann),
                "--to",
                "yolo",
                str(yolo),
                "--results",
                str(res),
                "--images",
                str(images),
            ]
        )
        == 0
    )
    back = tmp / "back"
    preds = yolo / "predictions" / res.stem
    assert (
        main(
            ["convert", str(yolo / "data.yaml"), "--to", "coco", str(back), "--results", str(preds)]
        )
        == 0
    )
    before = pycocotools_stats(ann, res, "bbox")
    after = pycocotools_stats(back / "instances_val.json", back / f"{preds.name}.json", "bbox")
    return before, after


def test_round_trip_generated(tmp_path):
    case = make_yolo(tmp_path, "detect", seed=6)
    ann, res = converted(case.yaml, case.pred_txt, tmp_path, "bbox")
    before, after = _round_trip(ann, res, case.yaml.parent / "images" / "val", tmp_path / "rt")
    np.testing.assert_allclose(after, before, rtol=0, atol=1e-12)


def test_round_trip_coco_mini(tmp_path):
    """Real COCO boxes, crowd regions and mask areas taken out first (YOLO holds neither; the
    converter says so): COCO → YOLO → COCO evaluates identically."""
    if not INSTANCES.is_file():
        pytest.skip("coco-mini is not available")
    from tests.gui.test_protocol_window import write_coco_results
    from vocviewer.families.registry import open_dataset

    doc = json.loads(INSTANCES.read_text())
    doc["annotations"] = [a for a in doc["annotations"] if not a["iscrowd"]]
    for a in doc["annotations"]:
        a["area"] = a["bbox"][2] * a["bbox"][3]
    ann = tmp_path / "annotations" / "instances_val2017.json"
    ann.parent.mkdir()
    ann.write_text(json.dumps(doc))
    images = COCO_MINI / "val2017"
    res = write_coco_results(open_dataset(ann, images=images), tmp_path / "res.json", seed=2)
    before, after = _round_trip(ann, res, images, tmp_path)
    np.testing.assert_allclose(after, before, rtol=0, atol=1e-12)


def test_convert_says_what_yolo_cannot_hold(tmp_path, capsys):
    if not INSTANCES.is_file():
        pytest.skip("coco-mini is not available")
    args = ["convert", str(INSTANCES), "--to", "yolo", str(tmp_path / "y")]
    assert main([*args, "--images", str(COCO_MINI / "val2017"), "--task", "segm"]) == 0
    out = capsys.readouterr().out
    assert "5 crowd region(s) left out: YOLO labels have no crowd flag" in out
    assert "of several polygons" in out
