"""The window's re-derive at a new choice (``evaluation._rederive``: every class at once, the
diagnosis's overlap searches taken by rank, ``ResultEvaluations.add_all``, ``work_ahead``) gives
what the per-class reference path gives, array for array: COCO evaluated afresh at that choice
class by class (``evaluate_coco_views``: ``coco_class`` + ``diagnosed``), stored with ``add``,
the missed objects at a score threshold class by class (``confusion.missed_at`` of one class),
each polyline ``pr_polyline`` and each AP_N ``normalised_det_ap`` — kernels on and off, on a
generated realistic workload (similar classes, crowd regions, every verdict kind)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vocviewer.evaluation.confusion import missed_at
from vocviewer.evaluation.normalised_ap import mean_positives, normalised_det_ap
from vocviewer.evaluation.polylines import polyline_of
from vocviewer.evaluation.result import pr_polyline
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results
from vocviewer.families.coco.view import evaluate_coco_views
from vocviewer.families.registry import benchmark_of
from vocviewer.families.views import ClassView, Summary, ViewChoice
from vocviewer.gui.models import evaluation as model
from vocviewer.gui.models.result_evaluations import ResultEvaluations

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = ROOT / ".." / "shared" / "bench" / "gen_coco_workload.py"
EVALUATION = ("order", "image_index", "score", "verdict", "best_gt", "best_iou")
CURVES = ("precision", "recall", "duplicate_of")
DIAGNOSIS = ("kind", "confused_gt", "confused_iou", "same_gt", "same_iou")
ROWS = ("verdict_by_row", "fp_kind_by_row", "rank_by_row", "missed")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not GENERATOR.is_file():
        pytest.skip("the shared workload generator is not available")
    out = tmp_path_factory.mktemp("workload")
    args = [sys.executable, str(GENERATOR), "--images", "60", "--out", str(out)]
    subprocess.run([*args, "--score-decimals", "2"], check=True, capture_output=True)
    return out


def _same(a: Any, b: Any, what: str) -> None:
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, what
    assert a.tobytes() == b.tobytes(), what  # (byte for byte: NaN payloads and -0.0 too)


def _window_path(ds: Any, rs: Any, choices: list[ViewChoice]) -> list[ResultEvaluations]:
    """Evaluated undiagnosed, diagnosed as the window's diagnosis job does, then re-derived at
    each of ``choices`` in turn as ``EvaluationModel._rederive_all`` does."""
    bench, start = benchmark_of(ds), ViewChoice()
    settings = bench.view_settings(ds)
    evals = ResultEvaluations(len(rs.detections), len(ds.objects), None, start)
    for v in bench.evaluate_views(ds, rs, start, False):
        if isinstance(v, Summary):
            evals.summary = v
        elif isinstance(v, ClassView):
            evals.add(v)
    go = model._Go()
    go.set()
    diagnosed = model._diagnosed(bench, ds, rs, dict(evals.views), settings.ap_rule, 0.3, go)
    assert diagnosed is not None
    diagnosed.replacing(evals)
    out, evals = [], diagnosed
    for choice in choices:
        raws = {k: v.raw for k, v in evals.views.items()}
        args = (settings.ap_rule, evals.last_threshold, evals)
        new = model._rederive(bench, ds, rs, raws, choice, *args)
        assert new is not None
        new.replacing(evals)
        out.append(new)
        evals = new
    return out


@pytest.mark.parametrize("kernel", ["1", "0"])
def test_a_rederive_gives_what_the_per_class_path_gives(
    files: Path, kernel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VOCVIEWER_KERNEL", kernel)
    ds = read_coco(files / "instances_gt.json")
    rs = read_coco_results(ds, files / "detections_bbox.json")
    choices = [ViewChoice(0.75), ViewChoice(0.95), ViewChoice(0.95, "small"), ViewChoice(0.6)]
    fast = _window_path(ds, rs, choices)
    for choice, got in zip(choices, fast, strict=True):
        want = ResultEvaluations(len(rs.detections), len(ds.objects), None, choice)
        for v in evaluate_coco_views(ds, rs, choice, diagnose=True):
            if isinstance(v, ClassView):
                want.add(v)
        assert got.views.keys() == want.views.keys()
        kinds = set()
        for k, w in want.views.items():
            g, at = got.views[k], f"{choice} class {k}"
            for col in (*EVALUATION, *CURVES):
                _same(getattr(g.evaluation, col), getattr(w.evaluation, col), f"{at} {col}")
            _same(g.evaluation.ap, w.evaluation.ap, f"{at} ap")
            assert g.evaluation.npos == w.evaluation.npos
            for col in ("missed", "curve_recall", "curve_precision"):
                _same(getattr(g, col), getattr(w, col), f"{at} {col}")
            _same(g.ap_at, w.ap_at, f"{at} ap_at")
            assert (g.iou, g.area) == (w.iou, w.area)
            assert g.false_positives is not None and w.false_positives is not None
            for col in DIAGNOSIS:
                _same(getattr(g.false_positives, col), getattr(w.false_positives, col), at + col)
            kinds.update(np.unique(w.false_positives.kind).tolist())
            _same(
                polyline_of(g.evaluation),
                pr_polyline(w.evaluation.recall, w.evaluation.precision),
                at,
            )
        assert len(kinds) >= 4, kinds  # (the workload has the kinds the diagnosis tells apart)
        for col in ROWS:
            _same(getattr(got, col), getattr(want, col), f"{choice} {col}")
        n_pos = mean_positives([v.evaluation.npos for v in want.views.values()])
        assert got.normalised is not None
        for k, w in want.views.items():
            ap_n = normalised_det_ap(w.evaluation, "coco101", n_pos)
            _same(got.normalised[2][k], ap_n, f"{choice} AP_N of class {k}")
        one_by_one = np.zeros(len(ds.objects), dtype=bool)
        for k, ev in want.det.items():
            one_by_one |= missed_at(ds, {k: ev}, want.missed, 0.3)
        _same(got.missed_at(ds, 0.3), one_by_one, f"{choice} missed_at")


def test_missed_at_of_every_class_at_once_equals_one_class_at_a_time(files: Path) -> None:
    ds = read_coco(files / "instances_gt.json")
    rs = read_coco_results(ds, files / "detections_bbox.json")
    evals = ResultEvaluations(len(rs.detections), len(ds.objects))
    for v in evaluate_coco_views(ds, rs, ViewChoice(0.5), diagnose=False):
        if isinstance(v, ClassView):
            evals.add(v)
    per_class = np.linspace(0.05, 0.9, len(ds.classes))
    for threshold in (0.2, per_class, tuple(per_class.tolist())):
        one_by_one = np.zeros(len(ds.objects), dtype=bool)
        for k, ev in evals.det.items():
            one_by_one |= missed_at(ds, {k: ev}, evals.missed, threshold)
        _same(missed_at(ds, evals.det, evals.missed, threshold), one_by_one, str(threshold))
