"""``run_seg`` / ``run_layout`` / ``run_action`` (``vocviewer eval --task seg|layout|action``)."""

from __future__ import annotations

import json
import math
import shutil

import numpy as np
import pytest

from vocviewer.core.errors import FormatError
from vocviewer.families.base import EvalRequest
from vocviewer.families.voc.tasks import run_action, run_layout, run_seg


def _args(path, results, image_set=None, protocol=None, keep_going=False):
    options = {"image_set": image_set}
    return EvalRequest(path, tuple(results), "", protocol, keep_going, options)


def test_seg_on_the_demo(demo):
    out = run_seg(_args(demo.year_dir, [demo.results_dir]))
    p = out.payload
    assert p["task"] == "seg" and p["image_set"] == "val" and p["official"]
    assert "background" in p["per_class"] and len(p["per_class"]) == 21
    c = np.array(p["confusion"])
    assert c.shape == (21, 21) and c.sum() > 0
    tp = np.diag(c)
    with np.errstate(invalid="ignore"):
        iou = 100 * tp / (c.sum(1) + c.sum(0) - tp)
    got = [p["per_class"][k]["iou"] for k in p["per_class"]]
    np.testing.assert_allclose(got, iou, atol=1e-12, equal_nan=True)
    assert math.isnan(p["summary"]["mIoU"]) == bool(np.isnan(iou).any())
    assert "background" in out.text and "IoU" in out.text
    json.dumps(p)
    v07 = run_seg(_args(demo.year_dir, [demo.results_dir], protocol="voc2007"))
    assert v07.payload["protocol"] == "voc2007" and "pixel accuracy" in v07.text


def test_seg_bad_result_needs_keep_going(demo, tmp_path):
    res = tmp_path / "comp6_val_cls"
    shutil.copytree(demo.results_dir / "Segmentation" / "comp6_val_cls", res)
    victim = sorted(res.glob("*.png"))[0]
    victim.unlink()
    with pytest.raises(FormatError, match=victim.name):
        run_seg(_args(demo.year_dir, [res]))
    out = run_seg(_args(demo.year_dir, [res], keep_going=True))
    assert not out.payload["official"] and any(victim.stem in w for w in out.warnings)


def test_layout_on_the_demo(demo):
    out = run_layout(_args(demo.year_dir, [demo.results_dir]))
    p = out.payload
    assert set(p["per_class"]) == {"head", "hand", "foot"} and p["image_set"] == "val"
    aps = [p["per_class"][k]["ap"] for k in ("head", "hand", "foot")]
    assert p["summary"]["mAP"] == pytest.approx(np.mean(aps), abs=1e-12)
    assert "head" in out.text


def test_action_on_the_demo(demo):
    out = run_action(_args(demo.year_dir, [demo.results_dir]))
    p = out.payload
    assert "other" not in p["per_class"] and len(p["per_class"]) == 10
    defined = [v["ap"] for v in p["per_class"].values() if not math.isnan(v["ap"])]
    assert p["summary"]["mAP"] == pytest.approx(sum(defined) / len(defined), abs=1e-12)
    assert "'other' is never averaged" in out.text
    one = run_action(
        _args(demo.year_dir, [demo.results_dir / "Action" / "comp9_action_val_phoning.txt"])
    )
    assert list(one.payload["per_class"]) == ["phoning"]
