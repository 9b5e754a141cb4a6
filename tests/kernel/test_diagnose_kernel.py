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


def _ranked_at(ds, raws, t):
    """Every class's ``ranked_evaluation`` at IoU threshold index ``t``, one by one."""
    return [Ranked.of_raw(k, t, r).evaluation(ds) for k, r in enumerate(raws)]


@pytest.mark.parametrize("kernel", ["1", "0"])
@pytest.mark.parametrize("t", [0, 5, 9])
def test_ranked_evaluations_equal_ranked_evaluation(workload, t, kernel, monkeypatch):
    monkeypatch.setenv("VOCVIEWER_KERNEL", kernel)
    ds, rs, raws = workload
    pair_iou = task_pair_iou(ds, rs, "bbox")
    parts = [Ranked.of_raw(k, t, r) for k, r in enumerate(raws)]
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
    evs = _ranked_at(ds, raws, t)
    n_pos = mean_positives([e.npos for e in evs])
    got = normalised_det_aps_101(evs, n_pos)
    want = [normalised_det_ap(e, "coco101", n_pos) for e in evs]
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g == w or (math.isnan(g) and math.isnan(w))
    assert t == 9 or any(not math.isnan(w) and 0 < w < 1 for w in want)  # 0.95: all 0


#: ranks enough for the kernel to split them over threads (``RANKS_PER_THREAD`` each)
MANY = 450_000


def _synthetic(seed: int = 0) -> dict[str, np.ndarray]:
    """Ranks laid end to end as the window's re-derive gives them (80 classes, one of a
    quarter of the ranks), with random verdicts, matches and overlaps."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 9000, 80)
    sizes[3], sizes[10] = MANY // 4, 0
    bounds = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    n = int(bounds[-1])
    verdict = rng.choice(np.array([0, 1, 2, 2, 2, 3], dtype=np.int8), n)
    best_iou = np.where(rng.random(n) < 0.3, rng.random(n), np.nan)
    best_gt = np.where(np.isnan(best_iou), -1, rng.integers(0, 50_000, n)).astype(np.int64)
    npos = rng.integers(0, 3000, 80).astype(np.float64)
    npos[5] = np.nan
    return {
        "bounds": bounds,
        "verdict": verdict,
        "best_iou": best_iou,
        "best_gt": best_gt,
        "npos": npos,
    }


def test_diagnose_split_over_threads_equals_one_pass():
    """``diagnose`` over many ranks (split over threads) gives what it gives over short runs of
    them one at a time (one thread each: the sequential pass the numpy path is held to)."""
    k = load("_diagnose")
    s, rng = _synthetic(), np.random.default_rng(1)
    verdict, best_gt, best_iou = s["verdict"], s["best_gt"], s["best_iou"]
    needed = k.needed(verdict, best_iou, 0.1, 2)
    m = len(needed)
    col = rng.permutation(m).astype(np.int32)
    best = rng.integers(-1, 50_000, (m, 3)).astype(np.int64)
    iou = np.where(best >= 0, rng.random((m, 3)), np.nan)
    codes, kinds = np.array([2, 3], dtype=np.int8), np.array([1, 2, 3, 4, 5], dtype=np.int8)
    rest = (0.5, True, 0.1, codes, kinds)
    whole = k.diagnose(verdict, best_gt, best_iou, needed, col, best, iou, *rest)
    parts = []
    for lo in range(0, len(verdict), 40_000):
        hi = min(lo + 40_000, len(verdict))
        at = (needed >= lo) & (needed < hi)
        sub = (verdict[lo:hi], best_gt[lo:hi], best_iou[lo:hi], needed[at] - lo, col[at])
        parts.append(k.diagnose(*sub, best, iou, *rest))
    assert len(verdict) >= MANY
    for got, want in zip(whole, zip(*parts, strict=True), strict=True):
        _same(got, np.concatenate(want))
    assert np.count_nonzero(whole[0] == 3) and np.count_nonzero(whole[0] == 4)  # similar, other


def test_normalised_101_split_over_threads_equals_class_by_class():
    """``normalised_101`` of many ranks (classes shared out over threads) gives each class's
    row as that class alone does."""
    k = load("_diagnose")
    s = _synthetic(2)
    bounds, verdict, npos = s["bounds"], s["verdict"], s["npos"]
    rt = np.linspace(0.0, 1.0, 101)
    whole = k.normalised_101(verdict, bounds, npos, 500.0, rt, 1, 2)
    assert whole.shape == (80, 101) and np.count_nonzero(whole.any(axis=1)) > 70
    for c in range(80):
        lo, hi = int(bounds[c]), int(bounds[c + 1])
        one = k.normalised_101(
            verdict[lo:hi], np.array([0, hi - lo]), npos[c : c + 1], 500.0, rt, 1, 2
        )
        _same(whole[c], one[0])


def test_polylines_equal_pr_polyline(workload):
    """``polylines`` (every class's PR polyline in one call) gives ``pr_polyline``'s points,
    on the workload's ranked classes and on edge cases (no point, one, non-finite ones, runs
    of equal recall at both ends)."""
    from vocviewer.evaluation.result import pr_polyline

    ds, _, raws = workload
    evs = _ranked_at(ds, raws, 3)
    recalls = [e.recall for e in evs] + [
        np.zeros(0),
        np.array([0.5]),
        np.array([np.nan, 0.2, np.inf, 0.2, 0.2, 0.4, 0.4]),
    ]
    precisions = [e.precision for e in evs] + [
        np.zeros(0),
        np.array([1.0]),
        np.array([1.0, 1.0, 0.5, np.nan, 0.3, 0.2, 0.1]),
    ]
    got = load("_diagnose").polylines(recalls, precisions)
    assert len(got) == len(recalls)
    for (x, y), r, p in zip(got, recalls, precisions, strict=True):
        want_x, want_y = pr_polyline(r, p)
        _same(x, want_x)
        _same(y, want_y)


def test_ranked_split_over_threads_equals_class_by_class():
    """``ranked`` over many ranks (classes shared out over threads) gives each class's precision
    and recall as that class alone does."""
    k = load("_diagnose")
    s = _synthetic(4)
    bounds, verdict, npos = s["bounds"], s["verdict"], s["npos"]
    precision, recall = k.ranked(verdict, bounds, npos, 1, 2)
    assert len(verdict) >= MANY
    for c in range(80):
        lo, hi = int(bounds[c]), int(bounds[c + 1])
        p, r = k.ranked(verdict[lo:hi], np.array([0, hi - lo]), npos[c : c + 1], 1, 2)
        _same(precision[lo:hi], p)
        _same(recall[lo:hi], r)
