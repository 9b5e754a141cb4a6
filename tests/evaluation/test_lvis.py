"""LVIS evidence: the per-category ``CocoCategoryEvaluation`` the window draws. Every detection of
a category listed once, in rank order; the curve re-derived from the verdicts alone (IGNORED
ranks count nothing) is ``LVISEval``'s own precision; matches point at objects of the category on
the detection's image; detections the federated rules leave out are IGNORED with no match."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vocviewer.families.coco.columns import CocoAnnotations, CocoResults
from vocviewer.families.lvis.columns import LvisAnnotations, LvisResults

pytest.importorskip("pycocotools")

from tests.parity.lvis_data import write_lvis
from vocviewer.evaluation.result import Verdict
from vocviewer.families.coco.evaluate import CocoCategoryEvaluation
from vocviewer.families.lvis import evaluate as ev_lvis
from vocviewer.families.lvis.reader import read_lvis, read_lvis_results


def _curve(verdict: np.ndarray, npig: int, rec_thrs: np.ndarray) -> np.ndarray:
    """COCO's interpolated precision at the recall thresholds, from one row of verdicts."""
    tp = np.cumsum(verdict == Verdict.TP).astype(float)
    fp = np.cumsum(verdict == Verdict.FP).astype(float)
    rc = tp / npig
    pr = np.maximum.accumulate((tp / (fp + tp + np.spacing(1)))[::-1])[::-1]
    idx = np.searchsorted(rc, rec_thrs, side="left")
    return np.where(idx < len(pr), pr[np.minimum(idx, len(pr) - 1)], 0.0)


@pytest.mark.parametrize("kind", ["bbox", "segm"])
def test_evidence_reproduces_the_curves(tmp_path: Path, kind: str) -> None:
    ann, res = write_lvis(tmp_path, 11, kind=kind, ignore=True)
    ds = read_lvis(ann, masks=kind == "segm")
    rs = read_lvis_results(ds, res, task=kind)
    sel = ev_lvis.select(ds, rs)
    cats = list(ev_lvis.iter_evaluate_lvis(ds, rs, kind))
    assert [c.category_id for c in cats] == sorted(ds.data(CocoAnnotations).category_id.tolist())
    assert all(isinstance(c, CocoCategoryEvaluation) for c in cats)
    seen = np.concatenate([c.det_rows for c in cats])
    assert np.array_equal(np.sort(seen), np.arange(len(rs.detections)))  # each detection once
    rec_thrs = ev_lvis.lvis_params(kind).recall_thresholds
    checked = 0
    for k, c in enumerate(cats):
        det = rs.detections
        assert (det.label[c.det_rows] == k).all()
        assert np.array_equal(c.image_index, det.image_index[c.det_rows])
        assert np.array_equal(c.score, det.score[c.det_rows])
        assert (np.diff(c.score) <= 0).all()  # rank order
        off = sel.status[c.det_rows] != ev_lvis.EVALUATED
        assert (c.verdict[:, off] == Verdict.IGNORED).all() and (c.matched_gt[:, off] == -1).all()
        hit = c.matched_gt >= 0
        rows = c.matched_gt[hit]
        assert (ds.objects.label[rows] == k).all()
        assert np.array_equal(
            ds.objects.image_index[rows], np.broadcast_to(c.image_index, hit.shape)[hit]
        )
        assert ((c.verdict == Verdict.TP) <= hit).all()
        if c.npig[0] == 0:
            assert (c.precision[:, :, 0, 0] == -1).all()
            continue
        for t in range(c.verdict.shape[0]):
            got = _curve(c.verdict[t], int(c.npig[0]), rec_thrs)
            assert np.array_equal(got, c.precision[t, :, 0, 0])
            tps = np.count_nonzero(c.verdict[t] == Verdict.TP)
            assert tps / c.npig[0] == c.recall[t, 0, 0]
        checked += 1
    assert checked >= 5


def test_not_evaluated_reasons(tmp_path: Path) -> None:
    """Status precedence: over the cap, then no area, then unverified."""
    ann, res = write_lvis(tmp_path, 3, kind="bbox")
    ds = read_lvis(ann, masks=False)
    rs = read_lvis_results(ds, res)
    sel = ev_lvis.select(ds, rs)
    det = rs.detections
    per_image = np.bincount(det.image_index[sel.status != ev_lvis.OVER_CAP])
    other = np.bincount(rs.data(LvisResults).image_index, minlength=len(per_image))
    assert (per_image + other[: len(per_image)] <= 300).all()
    assert (per_image + other[: len(per_image)]).max() == 300
    crowded = int(np.argmax(per_image))
    mine = det.image_index == crowded
    kept_low = det.score[mine & (sel.status != ev_lvis.OVER_CAP)].min()
    assert det.score[mine & (sel.status == ev_lvis.OVER_CAP)].max() <= kept_low
    area = rs.data(CocoResults).area
    assert (sel.status[(area <= 0) & (sel.status != ev_lvis.OVER_CAP)] == ev_lvis.NO_AREA).all()
    n_cls = len(ds.classes)
    key = det.image_index * n_cls + det.label
    obj = ds.objects
    on_image = np.isin(
        key, obj.image_index[sel.object_evaluated] * n_cls + obj.label[sel.object_evaluated]
    )
    verified = on_image | np.isin(key, ds.data(LvisAnnotations).neg_pairs())
    assert np.array_equal(
        sel.status == ev_lvis.UNVERIFIED, ~verified & (sel.status != ev_lvis.OVER_CAP) & (area > 0)
    )
