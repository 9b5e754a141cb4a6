"""``vocviewer eval`` on a COCO annotation JSON: pycocotools' printed summary, byte for byte."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pytest

from vocviewer.cli import main

ANN = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "coco-mini" / "annotations"


@pytest.mark.skipif(not ANN.is_dir(), reason="coco-mini not available")
def test_eval_bbox_prints_pycocotools_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    coco_mod = pytest.importorskip("pycocotools.coco")
    cocoeval = pytest.importorskip("pycocotools.cocoeval")
    ann = ANN / "instances_val2017.json"
    gt = json.loads(ann.read_text())
    rng = np.random.default_rng(3)
    dets = [
        {
            "image_id": a["image_id"],
            "category_id": a["category_id"],
            "bbox": [v + float(rng.normal(0, 2)) for v in a["bbox"]],
            "score": round(float(rng.random()), 3),
        }
        for a in gt["annotations"]
        if rng.random() < 0.8
    ]
    res = tmp_path / "res.json"
    res.write_text(json.dumps(dets))
    out = tmp_path / "out.json"
    assert (
        main(["eval", str(ann), "--results", str(res), "--task", "bbox", "--json", str(out)]) == 0
    )
    printed = capsys.readouterr().out
    with contextlib.redirect_stdout(io.StringIO()) as buf:
        g = coco_mod.COCO(str(ann))
        ev = cocoeval.COCOeval(g, g.loadRes(str(res)), "bbox")
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    ref = "\n".join(buf.getvalue().splitlines()[-12:]) + "\n"
    assert printed == ref
    payload = json.loads(out.read_text())
    assert payload["protocol"] == "coco" and payload["task"] == "bbox"
    assert list(payload["summary"]) == [
        "AP",
        "AP50",
        "AP75",
        "APs",
        "APm",
        "APl",
        "AR1",
        "AR10",
        "AR100",
        "ARs",
        "ARm",
        "ARl",
    ]
    np.testing.assert_allclose(list(payload["summary"].values()), ev.stats, rtol=0, atol=1e-12)
    assert set(payload["per_class"]) == {c["name"] for c in gt["categories"]}
