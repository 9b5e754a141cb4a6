"""The shared matching primitives against plain sequential loops."""

from __future__ import annotations

import numpy as np
import pytest

from vocviewer.evaluation.matching import greedy_with_fallback, same_image_pairs


def sequential(pair_det, pair_gt, preference, det_priority, n_det):
    cands = {}
    for d, g, p in zip(pair_det, pair_gt, preference, strict=True):
        cands.setdefault(int(d), []).append((int(p), int(g)))
    taken = [-1] * n_det
    used = set()
    for d in sorted(range(n_det), key=lambda k: det_priority[k]):
        for _, g in sorted(cands.get(d, [])):
            if g not in used:
                taken[d] = g
                used.add(g)
                break
    return taken


@pytest.mark.parametrize("seed", range(60))
def test_greedy_with_fallback_equals_the_sequential_scan(seed):
    rng = np.random.default_rng(seed)
    n_det, n_gt = int(rng.integers(1, 40)), int(rng.integers(1, 12))  # heavy contention
    pairs = {
        (int(d), int(g))
        for d, g in zip(rng.integers(0, n_det, 120), rng.integers(0, n_gt, 120), strict=True)
    }
    pairs = sorted(pairs)
    pd = np.array([p[0] for p in pairs], dtype=np.int64).reshape(-1)
    pg = np.array([p[1] for p in pairs], dtype=np.int64).reshape(-1)
    pref = rng.permutation(len(pd)).astype(np.int64)  # any distinct preference per detection
    prio = rng.permutation(n_det).astype(np.int64)
    got = greedy_with_fallback(pd, pg, pref, prio, n_det, n_gt)
    assert got.tolist() == sequential(pd, pg, pref, prio, n_det)


def test_no_pairs():
    z = np.zeros(0, dtype=np.int64)
    assert greedy_with_fallback(z, z, z, np.arange(3), 3, 2).tolist() == [-1, -1, -1]


def test_same_image_pairs_in_annotation_order():
    offsets = np.array([0, 2, 2, 5])  # image 0: gt 0,1; image 1: none; image 2: gt 2,3,4
    pd, pg = same_image_pairs(np.array([2, 0, 1]), offsets)
    assert pd.tolist() == [0, 0, 0, 1, 1]
    assert pg.tolist() == [2, 3, 4, 0, 1]
