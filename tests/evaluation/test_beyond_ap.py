"""The analyses beyond AP (``evaluation.analyses``) against their definitions written out as plain
loops over the protocol's verdicts (demo, coco-mini with generated detections), against netcal's
D-ECE where netcal is installed, and against the authors' LRP code where its checkout is given
(``VOCVIEWER_LRP_ERROR``: a kemaloksuz/LRP-Error checkout; ``bench/check_lrp_official.py``)."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.evaluation.test_tide import gen_results
from vocviewer.evaluation.analyses.calibration import calibration, d_ece, relative_boxes
from vocviewer.evaluation.analyses.lrp import optimal_lrp
from vocviewer.evaluation.analyses.operating_point import operating_point, row_normalised
from vocviewer.evaluation.result import ClassEvaluation, Verdict
from vocviewer.families.beyond_ap import BeyondOptions, beyond_ap, evidence_for
from vocviewer.families.registry import open_dataset, open_results

ROOT = Path(__file__).resolve().parents[2]
GT = ROOT / ".." / "shared" / "data" / "coco-mini" / "annotations" / "instances_val2017.json"


@pytest.fixture(scope="module")
def demo_evidence(demo: Any) -> Any:
    ds = open_dataset(demo.year_dir)
    res = open_results(ds, [demo.results_dir], image_set="val")
    return ds, res, evidence_for(ds, res, "val")


@pytest.fixture(scope="module")
def mini_evidence(tmp_path_factory: pytest.TempPathFactory) -> Any:
    if not GT.is_file():
        pytest.skip("coco-mini not available")
    dt = tmp_path_factory.mktemp("mini") / "dt.json"
    dt.write_text(json.dumps(gen_results(json.loads(GT.read_text()), 3)))
    ds = open_dataset(GT)
    res = open_results(ds, [dt])
    return ds, res, evidence_for(ds, res)


def _cases(request: pytest.FixtureRequest) -> list[ClassEvaluation]:
    return list(request.getfixturevalue(request.param)[2].evaluations("det"))


@pytest.fixture(params=["demo_evidence", "mini_evidence"])
def evaluations(request: pytest.FixtureRequest) -> list[ClassEvaluation]:
    return _cases(request)


def _counts(ev: ClassEvaluation, t: float) -> tuple[int, int]:
    """TP and FP kept at ``score >= t``, one detection at a time."""
    tp = fp = 0
    for s, v in zip(ev.score.tolist(), ev.verdict.tolist(), strict=True):
        if s >= t and v != Verdict.IGNORED:
            tp += v == Verdict.TP
            fp += v != Verdict.TP
    return tp, fp


def test_operating_point_is_its_definition(evaluations: list[ClassEvaluation]) -> None:
    beta = 0.5
    op = operating_point(evaluations, beta=beta)
    for ev in evaluations:
        c = op.per_class[ev.class_index]
        counted = ev.verdict != Verdict.IGNORED
        assert c.thresholds.tolist() == sorted(set(ev.score[counted].tolist()), reverse=True)
        f1s = []
        for i, t in enumerate(c.thresholds.tolist()):
            tp, fp = _counts(ev, t)
            p = tp / (tp + fp)
            r = tp / ev.npos if ev.npos else math.nan
            f1 = 2 * p * r / (p + r) if p + r > 0 else 0.0
            fb = (1 + beta**2) * p * r / (beta**2 * p + r) if p + r > 0 else 0.0
            assert (c.tp[i], c.fp[i]) == (tp, fp)
            assert c.precision[i] == pytest.approx(p, abs=1e-12)
            if ev.npos:
                assert c.recall[i] == pytest.approx(r, abs=1e-12)
                assert c.f1[i] == pytest.approx(f1, abs=1e-12)
                assert c.fbeta[i] == pytest.approx(fb, abs=1e-12)
            f1s.append(fb)
        best = op.best[ev.class_index]
        if ev.npos and f1s:
            assert best == f1s.index(max(f1s))  # the highest threshold of the largest F-beta
        else:
            assert best is None


def test_target_precision_and_recall(evaluations: list[ClassEvaluation]) -> None:
    for target in (0.5, 0.8):
        op = operating_point(evaluations, target_precision=target)
        for k, c in op.per_class.items():
            ok = [i for i, p in enumerate(c.precision.tolist()) if p >= target]
            assert op.best[k] == (ok[-1] if ok and c.npos else None)
        op = operating_point(evaluations, target_recall=target)
        for k, c in op.per_class.items():
            ok = [i for i, r in enumerate(c.recall.tolist()) if r >= target]
            assert op.best[k] == (ok[0] if ok and c.npos else None)


def test_pooled_curve_counts_every_class(evaluations: list[ClassEvaluation]) -> None:
    op = operating_point(evaluations)
    o = op.overall
    assert o.npos == sum(e.npos for e in evaluations)
    for i in range(0, len(o.thresholds), max(1, len(o.thresholds) // 25)):
        t = float(o.thresholds[i])
        counts = [_counts(e, t) for e in evaluations]
        assert (o.tp[i], o.fp[i]) == (sum(c[0] for c in counts), sum(c[1] for c in counts))


def _lrp_oracle(ev: ClassEvaluation, tau: float) -> tuple[float, float, float, float, float]:
    """oLRP, its components and threshold, written out over prefixes (TPAMI 2022, eq. 2-6)."""
    best: tuple[float, ...] | None = None
    tp = fp = 0
    loc = 0.0
    for r in range(len(ev)):
        v = int(ev.verdict[r])
        if v == Verdict.TP:
            tp += 1
            loc += 1 - float(ev.best_iou[r])
        elif v != Verdict.IGNORED:
            fp += 1
        fn = ev.npos - tp
        lrp = (loc / (1 - tau) + fp + fn) / (tp + fp + fn)
        if best is None or lrp < best[0]:
            comp = (loc / tp if tp else math.nan, fp / (tp + fp) if tp + fp else math.nan)
            best = (lrp, *comp, fn / ev.npos, float(ev.score[r]))
    if best is None or not np.any(ev.verdict == Verdict.TP):
        return 1.0, math.nan, math.nan, 1.0, math.nan
    return best  # type: ignore[return-value]


def test_optimal_lrp_is_its_definition(evaluations: list[ClassEvaluation]) -> None:
    res = optimal_lrp(evaluations, 0.5)
    assert set(res.per_class) == {e.class_index for e in evaluations if e.npos > 0}
    for ev in evaluations:
        if ev.npos == 0:
            continue
        c = res.per_class[ev.class_index]
        want = _lrp_oracle(ev, 0.5)
        got = (c.olrp, c.loc, c.fp, c.fn, c.threshold)
        for a, b in zip(got, want, strict=True):
            assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-12)
    means = [res.per_class[k].olrp for k in res.per_class]
    assert res.molrp == pytest.approx(sum(means) / len(means), abs=1e-15)


def _ece_oracle(x: np.ndarray, y: np.ndarray, bins: int, thr: int) -> tuple[float, float]:
    """D-ECE and D-MCE over the confidence, one bin at a time."""
    eps = np.finfo(np.float64).eps
    x = np.clip(x, eps, 1 - eps)
    edges = np.linspace(0, 1, bins + 1)
    ece = mce = 0.0
    for b in range(bins):
        hi = x < edges[b + 1] if b < bins - 1 else x <= 1
        inside = (x >= edges[b]) & hi
        n = int(inside.sum())
        if n >= max(thr, 1):
            gap = abs(y[inside].mean() - x[inside].mean())
            ece += n / len(x) * gap
            mce = max(mce, gap)
    return ece, mce


def test_d_ece_is_its_definition() -> None:
    rng = np.random.default_rng(1)
    for trial in range(50):
        n = int(rng.integers(1, 300))
        x = rng.random(n)
        if trial % 2:
            x = np.round(x, 1)  # on the bin edges
        y = (rng.random(n) < x).astype(float)
        bins, thr = int(rng.integers(1, 15)), int(rng.integers(1, 4))
        assert d_ece(x, y, bins, thr) == pytest.approx(_ece_oracle(x, y, bins, thr), abs=1e-14)


def test_d_ece_equals_netcal(demo_evidence: Any) -> None:
    """netcal's ``ECE`` / ``MCE`` in detection mode on random and the demo's detections,
    confidence only and over confidence x cx, cy, w, h."""
    metrics = pytest.importorskip("netcal.metrics")
    rng = np.random.default_rng(0)
    worst = 0.0
    for _trial in range(60):
        n, f = int(rng.integers(1, 300)), int(rng.choice([1, 5]))
        x = rng.random((n, f))
        y = (rng.random(n) < x[:, 0]).astype(np.int64)
        bins, thr = int(rng.integers(1, 12 if f == 1 else 5)), int(rng.integers(1, 4))
        arg = x[:, 0] if f == 1 else x
        want = (
            metrics.ECE(bins, detection=True, sample_threshold=thr).measure(arg, y),
            metrics.MCE(bins, detection=True, sample_threshold=thr).measure(arg, y),
        )
        got = d_ece(x, y, bins, thr)
        worst = max(worst, *(abs(a - b) for a, b in zip(got, want, strict=True)))
    ds, res, ev = demo_evidence
    for multivariate, bins in ((False, 10), (True, 4)):
        b = beyond_ap(ds, res, ev, BeyondOptions(bins=bins, multivariate=multivariate))
        evs = ev.evaluations("det")
        feats, hits = [], []
        for e in evs:
            keep = e.verdict != Verdict.IGNORED
            box = relative_boxes(
                res.detections.box[e.order],
                ds.images.width[e.image_index],
                ds.images.height[e.image_index],
                ds.plus_one,
            )
            cols = [e.score[:, None], box] if multivariate else [e.score[:, None]]
            feats.append(np.hstack(cols)[keep])
            hits.append((e.verdict == Verdict.TP)[keep].astype(np.int64))
        x, y = np.vstack(feats), np.concatenate(hits)
        arg = x if multivariate else x[:, 0]
        want = metrics.ECE(bins, detection=True).measure(arg, y)
        worst = max(worst, abs(b["calibration"].overall.d_ece - want))
    assert worst <= 1e-12


def test_optimal_lrp_equals_the_authors_code() -> None:
    """The authors' COCOeval (kemaloksuz/LRP-Error, built in a scratch folder) on coco-mini and
    generated data: every class's oLRP, components and threshold, and moLRP."""
    src = os.environ.get("VOCVIEWER_LRP_ERROR")
    if not src:
        pytest.skip("set VOCVIEWER_LRP_ERROR to a kemaloksuz/LRP-Error checkout")
    spec = importlib.util.spec_from_file_location(
        "check_lrp", ROOT / "bench" / "check_lrp_official.py"
    )
    assert spec is not None and spec.loader is not None
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)
    argv = sys.argv
    sys.argv = ["check", "--lrp-src", src, "--seeds", "2"]
    try:
        assert check.main() == 0
    finally:
        sys.argv = argv


def test_row_normalised_and_hidden_diagonal() -> None:
    counts = np.array([[3, 1, 0, 0], [0, 0, 0, 0], [2, 2, 4, 0]])
    got = row_normalised(counts)
    assert got.tolist() == [[0.75, 0.25, 0, 0], [0, 0, 0, 0], [0.25, 0.25, 0.5, 0]]
    hidden = row_normalised(counts, hide_diagonal=True)
    assert np.isnan(hidden[[0, 1, 2], [0, 1, 2]]).all() and hidden[0, 1] == 0.25


def test_confusion_at_the_best_threshold_is_the_shared_matrix(demo_evidence: Any) -> None:
    from vocviewer.evaluation.confusion import confusion_matrix

    ds, res, ev = demo_evidence
    b = beyond_ap(ds, res, ev)["operating_point"]
    assert b.confusion is not None
    t = float(b.op.overall.thresholds[b.op.overall_best])
    assert b.confusion.score_threshold == t
    missed = np.zeros(len(ds.objects), dtype=bool)
    for v in ev.views("det"):
        missed[v.missed] = True
    evs = {e.class_index: e for e in ev.evaluations("det")}
    cm = confusion_matrix(
        ds, res, evs, missed, score_threshold=t, iou_threshold=0.5, plus_one=ds.plus_one
    )
    assert np.array_equal(cm.counts, b.confusion.counts)
    k = len(ds.classes)
    diag = np.trace(b.confusion.counts[:, :k])
    assert diag == b.op.overall.at(t)["tp"]  # the TPs kept at the threshold


def test_a_class_without_detections(demo_evidence: Any) -> None:
    """No counted detection: no curve, no best threshold, NaN calibration, oLRP 1."""
    ev = demo_evidence[2]
    e = next(e for e in ev.evaluations("det") if e.npos > 0)
    empty = replace(
        e,
        ndet=0,
        **{
            f: getattr(e, f)[:0]
            for f in (
                "order",
                "image_index",
                "score",
                "verdict",
                "best_gt",
                "best_iou",
                "duplicate_of",
                "precision",
                "recall",
            )
        },
    )
    op = operating_point([empty])
    assert len(op.per_class[e.class_index].thresholds) == 0 and op.best[e.class_index] is None
    cal = calibration(e.class_name, [empty])
    assert cal.n == 0 and math.isnan(cal.d_ece) and math.isnan(cal.d_mce)
    c = optimal_lrp([empty], 0.5).per_class[e.class_index]
    assert (c.olrp, c.fn) == (1.0, 1.0) and math.isnan(c.loc) and math.isnan(c.threshold)
