"""``diagnosis_all.classify_all_false_positives`` (every class in one pass) gives each class the
diagnosis ``analysis.classify_false_positives`` gives it alone, value for value, on real data
(coco-mini) and a generated realistic workload, at every COCO IoU threshold, cold (nothing
searched before) and after the other path searched some detections; the kernel and the numpy
path alike (``best_by_class`` / ``PairOverlaps`` reduced by kind)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vocviewer.evaluation.analysis import classify_false_positives
from vocviewer.evaluation.diagnosis_all import classify_all_false_positives
from vocviewer.evaluation.pair_overlaps import BestOverlaps, best_by_class
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results
from vocviewer.families.coco.view import coco_rules, evaluate_coco_views
from vocviewer.families.views import ClassView, ViewChoice

ROOT = Path(__file__).resolve().parents[2]
MINI = ROOT / ".." / "shared" / "data" / "coco-mini" / "annotations" / "instances_val2017.json"
GENERATOR = ROOT / ".." / "shared" / "bench" / "gen_coco_workload.py"
FIELDS = ("kind", "confused_gt", "confused_iou", "same_gt", "same_iou")


def _mini(tmp: Path) -> tuple[Path, Path]:
    if not MINI.is_file():
        pytest.skip("coco-mini is not available")
    from tests.gui.test_protocol_window import write_coco_results
    from vocviewer.families.registry import open_dataset

    return MINI, write_coco_results(open_dataset(MINI), tmp / "a.json", seed=0)


def _generated(tmp: Path) -> tuple[Path, Path]:
    if not GENERATOR.is_file():
        pytest.skip("the shared workload generator is not available")
    args = [sys.executable, str(GENERATOR), "--images", "80", "--out", str(tmp)]
    subprocess.run([*args, "--dets-per-image", "40"], check=True, capture_output=True)
    return tmp / "instances_gt.json", tmp / "detections_bbox.json"


@pytest.mark.parametrize("kernel", ["1", "0"])
@pytest.mark.parametrize("source", [_mini, _generated])
def test_all_classes_at_once_equal_each_class_alone(source, kernel, tmp_path, monkeypatch):
    monkeypatch.setenv("VOCVIEWER_KERNEL", kernel)
    ann, res = source(tmp_path)
    ds = read_coco(ann)
    rules = coco_rules(ds)
    for iou in (0.5, 0.75, 0.95):
        views = [
            v
            for v in evaluate_coco_views(ds, read_coco_results(ds, res), ViewChoice(iou))
            if isinstance(v, ClassView)
        ]
        evs = [v.evaluation for v in views]
        kw = {"plus_one": ds.plus_one, "groups": rules.groups, "iou_threshold": iou}
        cold = read_coco_results(ds, res)  # nothing searched for it yet
        got = classify_all_false_positives(ds, cold, evs, **kw)
        warm = read_coco_results(ds, res)  # every other class searched alone first
        for ev in evs[::2]:
            classify_false_positives(ds, warm, ev, **kw)
        mixed = classify_all_false_positives(ds, warm, evs, **kw)
        assert len(got) == len(mixed) == len(evs)
        for ev, a, b in zip(evs, got, mixed, strict=True):
            want = classify_false_positives(ds, read_coco_results(ds, res), ev, **kw)
            for f in FIELDS:
                w = getattr(want, f)
                for g in (getattr(a, f), getattr(b, f)):
                    assert g.dtype == w.dtype, (ev.class_name, f)
                    assert np.array_equal(g, w, equal_nan=w.dtype.kind == "f"), (iou, f)
        assert any(np.count_nonzero(fp.kind) for fp in got)


@pytest.mark.parametrize("kernel", ["1", "0"])
def test_best_by_class_equals_best_overlaps_class_by_class(kernel, tmp_path, monkeypatch):
    monkeypatch.setenv("VOCVIEWER_KERNEL", kernel)
    ann, res = _generated(tmp_path)
    ds = read_coco(ann)
    rs = read_coco_results(ds, res)
    det = rs.detections
    rng = np.random.default_rng(0)
    n = len(ds.classes)
    similar = [sorted({int(j) for j in rng.integers(0, n, 3)} - {k}) for k in range(n)]
    rows = np.flatnonzero(rng.random(len(det)) < 0.5)
    cls = det.label[rows].astype(np.int64)
    image = det.image_index[rows].astype(np.int64)
    best, iou = best_by_class(ds, image, det.box[rows], cls, similar, ds.plus_one)
    for k in np.unique(cls).tolist():
        at = np.flatnonzero(cls == k)
        b, o = BestOverlaps(ds, image[at], det.box[rows[at]], ds.plus_one, k, similar[k]).all()
        np.testing.assert_array_equal(best[:, at], b)
        np.testing.assert_array_equal(iou[:, at], o)
