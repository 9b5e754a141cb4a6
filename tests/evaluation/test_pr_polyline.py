"""``pr_polyline`` drops only points that lie on the segment its kept neighbours draw."""

from __future__ import annotations

import numpy as np
import pytest

from vocviewer.evaluation.result import pr_polyline


@pytest.mark.parametrize("seed", range(20))
def test_dropped_points_lie_on_the_drawn_vertical_segments(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    verdict = rng.choice([0, 1, 2], size=n, p=[0.1, 0.3, 0.6])  # ignored, TP, FP
    tp, fp = np.cumsum(verdict == 1), np.cumsum(verdict == 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(tp + fp > 0, tp / np.maximum(tp + fp, 1), np.nan)
    recall = tp / max(int(tp[-1]), 1)
    r, p = pr_polyline(recall, precision)
    ok = np.isfinite(precision)
    full_r, full_p = recall[ok], precision[ok]
    assert len(r) <= len(full_r)
    # kept points are a subsequence of the finite points, ends included
    if len(full_r):
        assert (r[0], p[0]) == (full_r[0], full_p[0]) and (r[-1], p[-1]) == (full_r[-1], full_p[-1])
    # every finite point lies on the polyline: same recall as a kept vertical run, precision
    # within that run's range
    for x, y in zip(full_r, full_p, strict=True):
        at = p[r == x]
        assert len(at) and at.min() - 1e-15 <= y <= at.max() + 1e-15
