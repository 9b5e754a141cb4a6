"""CVAT for images 1.1 and LabelMe ground truth evaluate exactly as their COCO conversions under
pycocotools (all 12 stats), and as their VOC equivalents under our VOC evaluator."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pytest

from tests.parity import cvat_data as cd
from vocviewer.families.base import EvalRequest
from vocviewer.families.registry import choose

pytestmark = pytest.mark.skipif(not cd.INSTANCES.is_file(), reason="coco-mini is not available")


def _pycocotools(coco: dict, rows: list, task: str, tmp: Path) -> np.ndarray:
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    gt_file, dt_file = tmp / "ref_gt.json", tmp / "ref_dt.json"
    gt_file.write_text(json.dumps(coco))
    dt_file.write_text(json.dumps(rows))
    with contextlib.redirect_stdout(io.StringIO()):
        gt = COCO(str(gt_file))
        ev = COCOeval(gt, gt.loadRes(str(dt_file)), task)
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    return np.array(ev.stats)


def _ours(path: Path, results: list[Path], task: str, protocol: str | None) -> dict:
    benchmark = choose(path, task, protocol)
    assert benchmark.name == "cvat"
    out = benchmark.evaluate(EvalRequest(path, tuple(results), task, protocol))
    assert out.warnings[0].startswith(f"{path}: ")  # the one line of what was read
    return out.payload


def _summary(payload: dict) -> np.ndarray:
    s = payload["summary"]
    return np.array(list(s.values()) if isinstance(s, dict) else s, dtype=float)


@pytest.mark.parametrize("task", ["bbox", "segm"])
@pytest.mark.parametrize("fmt", ["cvat", "labelme"])
def test_coco_protocol_equals_pycocotools_on_the_conversion(tmp_path, fmt, task):
    classes, images = cd.sample(multi=fmt == "labelme")
    if fmt == "cvat":
        path = cd.write_cvat(tmp_path / "annotations.xml", classes, images)
        ids = [im.coco_id for im in images]
    else:
        path = cd.write_labelme(tmp_path / "labelme", images)
        ids = list(range(1, len(images) + 1))
        classes = sorted({o.label for im in images for o in im.objects})
    coco = cd.reference_coco(classes, images, ids)
    rows = cd.coco_results(coco, seed=3, segm=task == "segm")
    res = tmp_path / "results.json"
    res.write_text(json.dumps(rows))
    ref = _pycocotools(coco, rows, task, tmp_path)
    ours = _summary(_ours(path, [res], task, None))
    assert ours.shape == (12,)
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-12)
    again = _summary(_ours(path, [res], task, "coco"))  # --protocol coco: the same
    np.testing.assert_array_equal(again, ours)


@pytest.mark.parametrize("protocol", ["voc2007", "voc2012"])
@pytest.mark.parametrize("fmt", ["cvat", "labelme"])
def test_voc_protocol_equals_voc_on_the_equivalent_xmls(tmp_path, fmt, protocol):
    classes, images = cd.sample(voc=True, multi=fmt == "labelme")
    path = (
        cd.write_cvat(tmp_path / "annotations.xml", classes, images)
        if fmt == "cvat"
        else cd.write_labelme(tmp_path / "labelme", images)
    )
    ids = [im.coco_id for im in images]
    coco = cd.reference_coco(classes, images, ids)
    rows = cd.coco_results(coco, seed=5)
    stems = {im.coco_id: Path(im.name).stem for im in images}
    files = cd.write_voc_results(tmp_path / "res", classes, rows, stems)
    year = cd.write_voc(tmp_path / "devkit", classes, images)
    voc = choose(year, "det", protocol)
    assert voc.name == "voc"
    ref = voc.evaluate(EvalRequest(year, tuple(files), "det", protocol)).payload
    ours = _ours(path, files, "bbox", protocol)
    mine = {c: v["ap"] for c, v in ours["per_class"].items()}
    theirs = {c: v["ap"] for c, v in ref["per_class"].items()}
    if fmt == "labelme":  # LabelMe's classes are those it holds
        theirs = {c: theirs[c] for c in mine}
    assert mine == theirs
    assert any(v for v in mine.values())


def test_voc_protocol_equals_evaluating_what_convert_to_voc_writes(tmp_path):
    """``eval X.xml --protocol voc2012`` and ``convert X.xml --to voc`` then ``eval`` give one
    number per class: both map the extents to VOC's 1-based pixels the same way."""
    from vocviewer.families.registry import convert

    classes, images = cd.sample(voc=True)
    (tmp_path / "cvat").mkdir()
    path = cd.write_cvat(tmp_path / "cvat" / "annotations.xml", classes, images)
    coco = cd.reference_coco(classes, images, [im.coco_id for im in images])
    rows = cd.coco_results(coco, seed=7)
    res = tmp_path / "results.json"
    res.write_text(json.dumps(rows))
    out = tmp_path / "converted"
    convert(path, "voc", out, [res], options={"image_set": "all"})
    files = sorted((out / "results").rglob("comp4_det_*.txt"))
    assert files
    voc = choose(out, "det", "voc2012")
    theirs = voc.evaluate(EvalRequest(out, tuple(files), "det", "voc2012")).payload
    ours = _ours(path, files, "bbox", "voc2012")
    mine = {c: v["ap"] for c, v in ours["per_class"].items()}
    assert mine == {c: v["ap"] for c, v in theirs["per_class"].items()}
    assert any(v for v in mine.values())
