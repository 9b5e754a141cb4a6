"""``vocviewer analyze --task segm`` on coco-mini with generated mask results: TIDE in mask mode
equal to the real ``tidecv`` (``TIDE.MASK``), the JSON against the library's own calls, and
COCO's normalised AP (eq. 6 with N = a category's positives is its plain AP)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.evaluation.test_tide import MINI, gen_results, tidecv  # noqa: F401  (fixture)
from vocviewer.cli import main
from vocviewer.evaluation.analysis_curves import CURVE_NAMES
from vocviewer.evaluation.normalised_ap import normalised_ap_101
from vocviewer.evaluation.result import Verdict
from vocviewer.families.coco.evaluate import CocoParams, evaluate_coco
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results
from vocviewer.families.coco.tide import coco_tide

GT = MINI / "instances_val2017.json"
pytestmark = pytest.mark.skipif(not GT.is_file(), reason="coco-mini not available")


def mask_results(seed: int) -> list[dict[str, Any]]:
    """``gen_results``' boxes as rectangular RLE masks (pycocotools' polygon rasteriser)."""
    from pycocotools import mask as mu

    gt = json.loads(GT.read_text())
    size = {im["id"]: (im["height"], im["width"]) for im in gt["images"]}
    out = gen_results(gt, seed)
    for r in out:
        h, w = size[r["image_id"]]
        x, y, bw, bh = r.pop("bbox")
        rle = mu.merge(mu.frPyObjects([[x, y, x + bw, y, x + bw, y + bh, x, y + bh]], h, w))
        r["segmentation"] = {"size": rle["size"], "counts": rle["counts"].decode()}
    return out


@pytest.fixture(scope="module")
def segm_results(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("segm")
    paths = []
    for seed in (1, 2):
        p = folder / f"masks{seed}.json"
        p.write_text(json.dumps(mask_results(seed)))
        paths.append(p)
    return paths


def test_tide_on_masks_equals_tidecv(tidecv: Any, segm_results: list[Path]) -> None:  # noqa: F811
    ds = read_coco(GT, masks=True)
    for path in segm_results:
        ours = coco_tide(ds, read_coco_results(ds, path, task="segm"))
        t = tidecv.TIDE()
        t.evaluate(
            tidecv.datasets.COCO(str(GT)),
            tidecv.datasets.COCOResult(str(path)),
            mode=tidecv.TIDE.MASK,
        )
        errors = t.get_all_errors()
        with contextlib.redirect_stdout(io.StringIO()):
            t.summarize()
        (name,) = errors["main"]
        assert ours.ap == t.runs[name].ap  # bit for bit
        assert ours.main == errors["main"][name] and ours.special == errors["special"][name]
        assert all(v > 0 for k, v in ours.main.items() if k != "Dupe")


def test_segm_cli_json_equals_the_library(segm_results: list[Path], tmp_path: Path, capsys):
    out, figs = tmp_path / "s.json", tmp_path / "figs"
    code = main(
        [
            "analyze",
            str(GT),
            "--task",
            "segm",
            "--results",
            *map(str, segm_results),
            "--bootstrap",
            "50",
            "--json",
            str(out),
            "--figures",
            str(figs),
        ]
    )
    text = capsys.readouterr().out
    assert code == 0
    p = json.loads(out.read_text())
    assert p["protocol"] == "coco" and p["task"] == "segm"
    ds = read_coco(GT, masks=True)
    res = read_coco_results(ds, segm_results[0], task="segm")
    params = CocoParams.for_task("segm")
    ev = evaluate_coco(ds, res, params)
    entry = p["sets"]["masks1.json"]
    assert entry["mAP"] == ev.stats()["AP"]
    assert entry["bootstrap"]["mAP"]["point"] == pytest.approx(entry["mAP"], abs=1e-12)
    assert entry["tide"]["main"] == coco_tide(ds, res).main
    assert set(entry["analysis"]["overall"]["all"]) == set(CURVE_NAMES)
    assert set(entry["characteristics"]) >= {"size", "aspect", "area", "crowd"}
    assert entry["characteristics"]["area"]["bins"] == ["small", "medium", "large"]
    n = entry["normalised_ap"]["n_pos"]
    counts = [int(c.npig[0]) for c in ev.categories]
    assert n == pytest.approx(np.mean([c for c in counts if c]), abs=1e-12)
    assert all("ap_n" in v and "ap_n50" in v for v in entry["per_class"].values())
    pair = p["paired"][0]
    assert set(pair["per_class"]) == set(entry["per_class"])
    assert "segm-overall-all" in (figs / "analyze_masks1.svg").read_text()
    assert (figs / "characteristics_masks2.svg").is_file()
    assert "object characteristics" in text


def test_coco_normalised_ap_with_n_equal_to_the_positives_is_plain_ap(tmp_path: Path) -> None:
    """Eq. 6 with N = npos is precision: the 101-point AP_N is COCOeval's AP (up to its eps)."""
    ds = read_coco(GT, masks=False)
    path = tmp_path / "boxes.json"
    path.write_text(json.dumps(gen_results(json.loads(GT.read_text()), 3)))
    ev = evaluate_coco(ds, read_coco_results(ds, path, task="bbox"), CocoParams.for_task("bbox"))
    rt = ev.params.recall_thresholds
    checked = 0
    for c, cid in zip(ev.categories, ev.category_ids, strict=True):
        npos = int(c.npig[0])
        if npos == 0:
            continue
        for t, thr in enumerate(ev.params.iou_thresholds):
            v = c.verdict[t]
            ap_n = normalised_ap_101(v == Verdict.TP, v == Verdict.FP, npos, npos, rt)
            assert ap_n == pytest.approx(ev.ap(float(thr), category=int(cid)), abs=1e-9)
            checked += 1
    assert checked > 50


def test_lrp_on_masks_and_its_note_on_boundary_iou(segm_results: list[Path], tmp_path: Path):
    """``--lrp`` on masks reads each true positive's mask IoU (LRP-Error's rule); under Boundary
    IoU (which LRP-Error lacks) it is left out with a note, and the evidence says Boundary IoU."""
    payload = {}
    for task in ("segm", "boundary"):
        out = tmp_path / f"{task}.json"
        argv = ["analyze", str(GT), "--task", task, "--results", str(segm_results[0]), "--lrp"]
        assert main([*argv, "--json", str(out)]) == 0
        payload[task] = json.loads(out.read_text())["sets"]["masks1.json"]
    lrp = payload["segm"]["lrp"]
    assert lrp["tau"] == 0.5 and 0 < lrp["moLRP"] < 1
    assert payload["boundary"]["lrp_note"] == "LRP left out: LRP-Error has no boundary IoU"
