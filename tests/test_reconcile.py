"""``vocviewer reconcile``: each pair's one-rule steps sum to its difference (1e-9) on the demo,
coco-mini and a YOLO set, and each end is the protocol's own number: pycocotools' AP50 (on the
data as COCO reads it), our VOC evaluator (VOC2012 all points, VOC2007 11 points) and the
Ultralytics validator's mAP50 (``ultralytics_rules``, checked against Ultralytics elsewhere)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.parity.test_coco_parity import MINI, gen_bbox, needs_mini
from tests.parity.yolo_data import make_yolo
from vocviewer.cli import main
from vocviewer.families.voc.evaluate import evaluate_voc_det
from vocviewer.families.voc.reader import read_voc_results
from vocviewer.families.voc.tasks import open_voc

pytest.importorskip("pycocotools")
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval


def _run(tmp: Path, *args: str) -> dict[str, Any]:
    out = tmp / "out" / "reconcile.json"
    out.parent.mkdir(exist_ok=True)
    assert main(["reconcile", *args, "--json", str(out)]) == 0
    return dict(json.loads(out.read_text()))


def _telescopes(payload: dict[str, Any]) -> None:
    """Every pair's changes sum to its difference, and each step's change is its value minus
    the value before it (the previous step's, or the pair's first protocol's)."""
    for pair in payload["pairs"]:
        steps = pair["steps"]
        assert steps, pair
        assert abs(sum(s["change"] for s in steps) - pair["difference"]) < 1e-9
        before = [payload["protocols"][pair["from"]], *(s["value"] for s in steps[:-1])]
        for s, b in zip(steps, before, strict=True):
            assert abs(s["change"] - (s["value"] - b)) < 1e-12, (pair["from"], s["rule"])


def _pycocotools_ap50(gt: Path | dict[str, Any], dt: Path | list[dict[str, Any]]) -> float:
    with contextlib.redirect_stdout(io.StringIO()):
        coco = COCO()
        coco.dataset = json.loads(gt.read_text()) if isinstance(gt, Path) else gt
        coco.createIndex()
        res = coco.loadRes(str(dt) if isinstance(dt, Path) else dt)
        e = COCOeval(coco, res, "bbox")
        e.evaluate()
        e.accumulate()
        e.summarize()
    return float(e.stats[1])


def _demo_as_coco(year_dir: Path, files: list[Path]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The demo's val set as COCO reads it: boxes converted faithfully, difficult -> crowd."""
    ds = open_voc(year_dir)
    res = read_voc_results(ds, files, image_set="val")
    rows = sorted(set(ds.image_sets["Main/val"].tolist()))
    images = [{"id": r + 1, "width": 1000, "height": 1000, "file_name": f"{r}.jpg"} for r in rows]
    cats = [{"id": k + 1, "name": n} for k, n in enumerate(ds.classes)]
    obj, det = ds.objects, res.detections

    def xywh(b: np.ndarray) -> list[float]:
        return [float(b[0] - 1), float(b[1] - 1), float(b[2] - b[0] + 1), float(b[3] - b[1] + 1)]

    anns = []
    for i in np.flatnonzero(np.isin(obj.image_index, rows)):
        box = xywh(obj.box[i])
        anns.append(
            {
                "id": len(anns) + 1,
                "image_id": int(obj.image_index[i]) + 1,
                "category_id": int(obj.label[i]) + 1,
                "bbox": box,
                "area": box[2] * box[3],
                "iscrowd": int(obj.difficult[i]),
            }
        )
    dts = [
        {
            "image_id": int(det.image_index[i]) + 1,
            "category_id": int(det.label[i]) + 1,
            "bbox": xywh(det.box[i]),
            "score": float(det.score[i]),
        }
        for i in np.lexsort((det.line, det.file_index))
    ]
    return {"images": images, "categories": cats, "annotations": anns}, dts


def test_demo_ends_are_each_protocols_number(demo: Any, tmp_path: Path) -> None:
    files = sorted((demo.results_dir / "Main").glob("comp4_det_val_*.txt"))
    payload = _run(tmp_path, str(demo.year_dir), "--results", *map(str, files))
    _telescopes(payload)
    values = payload["protocols"]
    ds = open_voc(demo.year_dir)
    res = read_voc_results(ds, files, image_set="val")
    for name, rule in (("VOC2012", "allpoints"), ("VOC2007", "11point")):
        ours = evaluate_voc_det(ds, res, image_set="val", ap_rule=rule).mean_ap()
        assert values[name] == pytest.approx(ours, abs=1e-12)
    gt, dts = _demo_as_coco(demo.year_dir, files)
    assert values["COCO AP50"] == pytest.approx(_pycocotools_ap50(gt, dts), abs=1e-12)
    assert values["VOC2012"] != values["VOC2007"]  # the interpolation moves it here


@needs_mini
def test_coco_mini_telescopes_and_starts_at_pycocotools(tmp_path: Path) -> None:
    gt_path = MINI / "instances_val2017.json"
    dt = tmp_path / "dt.json"
    dt.write_text(json.dumps(gen_bbox(json.loads(gt_path.read_text()), seed=3)))
    payload = _run(tmp_path, str(gt_path), "--results", str(dt))
    _telescopes(payload)
    assert payload["protocols"]["COCO AP50"] == _pycocotools_ap50(gt_path, dt)
    moved = {s["rule"] for p in payload["pairs"] for s in p["steps"] if abs(s["change"]) > 1e-6}
    assert {"crowd overlap", "tie order", "interpolation"} <= moved  # coco-mini's crowds, ties


def test_yolo_set_from_ultralytics_to_voc(tmp_path: Path) -> None:
    case = make_yolo(tmp_path, "detect", seed=3)
    payload = _run(tmp_path, str(case.yaml), "--results", str(case.pred_txt))
    _telescopes(payload)
    names = list(payload["protocols"])
    assert names == ["Ultralytics mAP50", "COCO AP50", "VOC2012", "VOC2007"]
    out = tmp_path / "out" / "eval.json"
    assert main(["eval", str(case.yaml), "--results", str(case.pred_txt), "--json", str(out)]) == 0
    ev = json.loads(out.read_text())
    assert payload["protocols"]["COCO AP50"] == ev["summary"]["AP50"]
    assert payload["protocols"]["Ultralytics mAP50"] == ev["ultralytics"]["summary"]["mAP50"]
    first = payload["pairs"][0]
    assert [s["rule"] for s in first["steps"]] == ["maxDets", "conf", "interpolation", "matching"]


def test_generated_cap_and_crowds_move_the_number(tmp_path: Path) -> None:
    """More than 100 detections per image and class, crowd regions, tied scores: each rule
    moves the number, the steps still telescope and the COCO end is pycocotools' AP50."""
    rng = np.random.default_rng(7)
    images = [{"id": i + 1, "width": 400, "height": 400, "file_name": f"{i}.jpg"} for i in range(5)]
    anns: list[dict[str, Any]] = []
    dts: list[dict[str, Any]] = []
    for im in images:
        for _ in range(40):
            x, y = rng.uniform(0, 300, 2)
            w, h = rng.uniform(5, 90, 2)
            box = [float(x), float(y), float(w), float(h)]
            anns.append(
                {
                    "id": len(anns) + 1,
                    "image_id": im["id"],
                    "category_id": 1,
                    "bbox": box,
                    "area": float(w * h),
                    "iscrowd": int(rng.random() < 0.1),
                }
            )
            for _ in range(4):
                j = rng.normal(0, 0.12, 4) * [w, h, w, h]
                dts.append(
                    {
                        "image_id": im["id"],
                        "category_id": 1,
                        "score": float(np.round(rng.random(), 1)),
                        "bbox": [
                            float(x + j[0]),
                            float(y + j[1]),
                            float(abs(w + j[2])),
                            float(abs(h + j[3])),
                        ],
                    }
                )
    gt = {"images": images, "categories": [{"id": 1, "name": "thing"}], "annotations": anns}
    (tmp_path / "gt").mkdir()
    gt_path, dt_path = tmp_path / "gt" / "gt.json", tmp_path / "dt.json"
    gt_path.write_text(json.dumps(gt))
    dt_path.write_text(json.dumps([dts[i] for i in rng.permutation(len(dts))]))  # file order
    payload = _run(tmp_path, str(gt_path), "--results", str(dt_path))
    _telescopes(payload)
    assert payload["protocols"]["COCO AP50"] == _pycocotools_ap50(gt_path, dt_path)
    moved = {s["rule"] for p in payload["pairs"] for s in p["steps"] if abs(s["change"]) > 1e-6}
    assert {"maxDets", "crowd overlap", "tie order", "interpolation", "11 points"} <= moved
