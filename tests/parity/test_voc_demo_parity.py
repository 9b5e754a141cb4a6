"""End to end on the demo devkit: reader + protocol versus a reference that reads the files itself
(stdlib ElementTree and str.split, no vocviewer reader) and evaluates with the loop oracle."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import pytest

from tests.evaluation import oracles
from vocviewer.core.dataset import VOC_CLASSES
from vocviewer.families.voc.evaluate import evaluate_voc_cls, evaluate_voc_det
from vocviewer.families.voc.reader import read_voc, read_voc_results


def _reference_gt(year_dir, image_set):
    ids = [
        ln.split()[0]
        for ln in (year_dir / "ImageSets/Main" / f"{image_set}.txt").read_text().splitlines()
        if ln.strip()
    ]
    gt = {}
    for i in ids:
        root = ET.parse(year_dir / "Annotations" / f"{i}.xml").getroot()
        for o in root.iter("object"):
            bb = o.find("bndbox")
            box = [float(bb.find(t).text) for t in ("xmin", "ymin", "xmax", "ymax")]
            diff = (o.findtext("difficult") or "").strip() == "1"
            gt.setdefault(o.findtext("name").strip(), {}).setdefault(i, []).append((box, diff))
    return ids, gt


@pytest.mark.parametrize("ap_rule", ["allpoints", "11point"])
def test_demo_detection_matches_reference(demo, ap_rule):
    ds = read_voc(demo.year_dir)
    rs = read_voc_results(ds, [demo.results_dir], image_set="val")
    assert not rs.problems
    res = evaluate_voc_det(ds, rs, image_set="val", ap_rule=ap_rule)
    ids, gt = _reference_gt(demo.year_dir, "val")
    checked = 0
    for cls in VOC_CLASSES:
        f = demo.results_dir / "Main" / f"comp4_det_val_{cls}.txt"
        dets = []
        for ln in f.read_text().splitlines():
            if ln.strip():
                t = ln.split()
                dets.append((t[0], float(t[1]), [float(x) for x in t[2:6]]))
        ref = oracles.voc_det_class(gt.get(cls, {}), dets, ids, ap_rule)
        ours = res.by_name(cls)
        assert ours.npos == ref["npos"]
        assert len(ours) == len(dets)
        names = {1: "tp", 2: "fp", 3: "dup", 0: "ign"}
        assert [names[int(v)] for v in ours.verdict] == ref["verdicts"], cls
        assert (math.isnan(ours.ap) and math.isnan(ref["ap"])) or abs(ours.ap - ref["ap"]) <= 1e-12
        checked += 1
    assert checked == 20
    assert 0.05 < res.mean_ap() < 0.99  # a sensible simulated detector


def test_demo_classification_matches_reference(demo):
    ds = read_voc(demo.year_dir)
    rs = read_voc_results(ds, [demo.results_dir], image_set="val")
    res = evaluate_voc_cls(ds, rs, image_set="val")
    for cls in VOC_CLASSES:
        gt_file = demo.year_dir / "ImageSets/Main" / f"{cls}_val.txt"
        gt_list = [
            (t[0], int(t[1])) for t in (ln.split() for ln in gt_file.read_text().splitlines()) if t
        ]
        res_file = demo.results_dir / "Main" / f"comp2_cls_val_{cls}.txt"
        scores = [
            (t[0], float(t[1]))
            for t in (ln.split() for ln in res_file.read_text().splitlines())
            if t
        ]
        ref = oracles.voc_cls_class(gt_list, scores)
        ours = res.by_name(cls)
        assert (math.isnan(ours.ap) and math.isnan(ref["ap"])) or abs(
            ours.ap - ref["ap"]
        ) <= 1e-12, cls


@pytest.mark.parametrize("iou", [0.3, 0.7])
def test_cli_iou_option_matches_the_reference_at_that_threshold(demo, tmp_path, capsys, iou):
    """``vocviewer eval --iou T``: every class as the loop oracle computes it at overlap ``T``,
    and the numbers marked NOT OFFICIAL (printed and in the JSON)."""
    import json

    from vocviewer.cli import main

    out = tmp_path / "iou.json"
    files = sorted((demo.results_dir / "Main").glob("comp4_det_val_*.txt"))
    args = ["eval", str(demo.year_dir), "--results", *map(str, files), "--iou", str(iou)]
    assert main([*args, "--json", str(out)]) == 0
    assert f"NOT OFFICIAL: IoU threshold {iou:g}; the devkit uses 0.5" in capsys.readouterr().out
    payload = json.loads(out.read_text())
    assert payload["official"] is False
    ids, gt = _reference_gt(demo.year_dir, "val")
    for f in files:
        cls = f.stem.rsplit("_", 1)[1]
        dets = [
            (t[0], float(t[1]), [float(x) for x in t[2:6]])
            for t in (ln.split() for ln in f.read_text().splitlines())
            if t
        ]
        ref = oracles.voc_det_class(gt.get(cls, {}), dets, ids, "allpoints", thr=iou)
        ours = payload["per_class"][cls]["ap"]
        assert (math.isnan(ours) and math.isnan(ref["ap"])) or abs(ours - ref["ap"]) <= 1e-12


def test_cli_iou_option_refuses_nonsense(demo, capsys):
    from vocviewer.cli import main

    files = [str(f) for f in (demo.results_dir / "Main").glob("comp4_det_val_*.txt")]
    assert main(["eval", str(demo.year_dir), "--results", *files, "--iou", "1.5"]) == 1
    assert "--iou 1.5: expected an IoU in (0, 1]" in capsys.readouterr().err
