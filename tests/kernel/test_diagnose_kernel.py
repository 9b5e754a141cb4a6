"""The ``_diagnose`` kernel (every class re-derived in one pass) gives what the numpy paths give,
value for value: ``views_all.ranked_evaluations`` (precision, recall) against
``views.ranked_evaluation`` class by class, ``normalised_ap.normalised_det_aps_101`` against
``normalised_det_ap`` class by class, on a generated realistic workload at several thresholds
(the diagnosis itself: tests/evaluation/test_diagnosis_all.py, kernel on and off)."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vocviewer.evaluation.normalised_ap import (
    mean_positives,
    normalised_det_ap,
    normalised_det_aps_101,
)
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results
from vocviewer.families.coco.view import evaluate_coco_views, task_pair_iou
from vocviewer.families.views import ClassView, ViewChoice, ranked_evaluation
from vocviewer.families.views_all import Ranked, ranked_evaluations
from vocviewer.kernel import load

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = ROOT / ".." / "shared" / "bench" / "gen_coco_workload.py"
pytestmark = pytest.mark.skipif(load("_diagnose") is None, reason="_diagnose is not built")


@pytest.fixture(scope="module")
def workload(tmp_path_factory):
    if not GENERATOR.is_file():
        pytest.skip("the shared workload generator is not available")
    out = tmp_path_factory.mktemp("workload")
    args = [sys.executable, str(GENERATOR), "--images", "60", "--out", str(out)]
    subprocess.run([*args, "--score-decimals", "2"], check=True, capture_output=True)
    ds = read_coco(out / "instances_gt.json")
    rs = read_coco_results(ds, out / "detections_bbox.json")
    raws = [v.raw for v in evaluate_coco_views(ds, rs, ViewChoice()) if isinstance(v, ClassView)]
    return ds, rs, raws


def _same(a: np.ndarray, b: np.ndarray) -> None:
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a, b, equal_nan=True)


@pytest.mark.parametrize("kernel", ["1", "0"])
@pytest.mark.parametrize("t", [0, 5, 9])
def test_ranked_evaluations_equal_ranked_evaluation(workload, t, kernel, monkeypatch):
    monkeypatch.setenv("VOCVIEWER_KERNEL", kernel)
    ds, rs, raws = workload
    pair_iou = task_pair_iou(ds, rs, "bbox")
    parts = [
        Ranked(
            k,
            r.det_rows,
            r.image_index,
            r.score,
            r.verdict[t],
            r.matched_gt[t],
            int(r.npig[0]),
            r.ap,
        )
        for k, r in enumerate(raws)
    ]
    parts.insert(1, Ranked(len(raws) - 1, *(a[:0] for a in (raws[0].det_rows,) * 5), 0, 0.0))
    got = ranked_evaluations(ds, parts, pair_iou)
    for p, ev in zip(parts, got, strict=True):
        want = ranked_evaluation(
            ds, p.k, p.order, p.image_index, p.score, p.verdict, p.matched, p.npos, p.ap, pair_iou
        )
        for col in ("verdict", "best_gt", "best_iou", "precision", "recall", "duplicate_of"):
            _same(getattr(ev, col), getattr(want, col))
        assert (ev.npos, ev.ndet, ev.ap, ev.class_name) == (
            want.npos,
            want.ndet,
            want.ap,
            want.class_name,
        )


@pytest.mark.parametrize("t", [0, 5, 9])
def test_normalised_aps_at_once_equal_class_by_class(workload, t):
    ds, _, raws = workload
    evs = [
        ranked_evaluation(
            ds,
            k,
            r.det_rows,
            r.image_index,
            r.score,
            r.verdict[t],
            r.matched_gt[t],
            int(r.npig[0]),
            r.ap,
        )
        for k, r in enumerate(raws)
    ]
    n_pos = mean_positives([e.npos for e in evs])
    got = normalised_det_aps_101(evs, n_pos)
    want = [normalised_det_ap(e, "coco101", n_pos) for e in evs]
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g == w or (math.isnan(g) and math.isnan(w))
    assert t == 9 or any(not math.isnan(w) and 0 < w < 1 for w in want)  # 0.95: all 0
