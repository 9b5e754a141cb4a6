"""The compiled ranking kernel (``vocviewer/kernel/_order.c``) against ``np.lexsort``.

``prepare.rank_detections`` orders detections by group, descending score (NaN last), a
tie-breaking key, then position, and cuts each group to ``cap``: on the kernel by a counting sort
and per-group stable sorts, on the numpy path by ``np.lexsort``. Both must give the same
positions and ranks, dtype included, whatever the ties, NaN, signed zeros, infinities, group
sizes (insertion and merge sort) and caps; and ``prepare`` must give the same ``Prepared``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.kernel.switch import numpy_path
from tests.kernel.test_match_kernel import MINI, assert_same
from vocviewer import kernel
from vocviewer.families.coco.evaluate import CHUNK_SHARE, _chunks
from vocviewer.families.coco.params import CocoParams
from vocviewer.families.coco.prepare import prepare, rank_detections
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results

pytestmark = pytest.mark.skipif(
    kernel.load("_order") is None, reason="the _order kernel is not built"
)

#: Scores with many exact ties and every special value numpy's sort orders.
SCORES = [0.0, -0.0, 0.5, 0.5000000000000001, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-300]


def both(
    group: np.ndarray, n_groups: int, score: np.ndarray, tie: np.ndarray | None, cap: int
) -> tuple[Any, Any]:
    on = rank_detections(group, n_groups, score, tie, cap)
    with numpy_path():
        off = rank_detections(group, n_groups, score, tie, cap)
    return on, off


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 5), st.sampled_from(SCORES), st.integers(0, 3)), max_size=120
    ),
    st.integers(0, 40),
    st.booleans(),
)
def test_same_order_and_ranks(rows: list[tuple[int, float, int]], cap: int, with_tie: bool) -> None:
    group = np.array([r[0] for r in rows], dtype=np.int64)
    score = np.array([r[1] for r in rows], dtype=np.float64)
    tie = np.array([r[2] for r in rows], dtype=np.int64) if with_tie else None
    on, off = both(group, 6, score, tie, cap)
    assert_same(on, off)


def test_large_groups_merge_sorted() -> None:
    """Groups far beyond the insertion-sort size, scores drawn from few values (long runs of
    ties that only the position orders), a cap inside and beyond the groups."""
    rng = np.random.default_rng(7)
    n = 20_000
    group = rng.integers(0, 7, n).astype(np.int64)
    score = rng.choice(np.array(SCORES + list(rng.random(20))), n)
    tie = rng.integers(0, 4, n).astype(np.int64)
    for cap in (0, 1, 100, 3_000, n):
        for t in (None, tie):
            on, off = both(group, 9, score, t, cap)
            assert_same(on, off, f"cap {cap}")


@pytest.mark.parametrize("n_groups", [2_000_003, 40_000])
def test_many_sparse_groups(n_groups: int) -> None:
    """Far more groups than rows (LVIS: categories x images): the kernel sorts by group in two
    counting passes (low then high digit) instead of one count per group; the same order and
    ranks, the largest group included, with ties, NaN and signed zeros."""
    rng = np.random.default_rng(11)
    n = 5_000
    group = rng.integers(0, 300, n).astype(np.int64) * (n_groups // 300)
    group[:40] = n_groups - 1
    score = rng.choice(np.array(SCORES + list(rng.random(8))), n)
    tie = rng.integers(0, 5, n).astype(np.int64)
    for cap in (1, 7, n):
        for t in (None, tie):
            on, off = both(group, n_groups, score, t, cap)
            assert_same(on, off, f"cap {cap}")


@pytest.mark.parametrize("n_groups", [1, 3, 1_203, 900_000])
def test_groups_sorted_across_threads(n_groups: int) -> None:
    """Enough rows for the groups to be sorted on several threads (each thread takes the
    groups starting in its share of rows: one group larger than a share, empty groups, groups
    cut by the cap): the order and ranks of one thread, the numpy path's."""
    rng = np.random.default_rng(3)
    n = 300_000
    group = (rng.zipf(1.3, n) % n_groups).astype(np.int64)
    score = rng.choice(np.array(SCORES + list(rng.random(50))), n)
    tie = rng.integers(0, 2_000, n).astype(np.int64)
    for cap in (300, n):
        on, off = both(group, n_groups, score, tie, cap)
        assert_same(on, off, f"cap {cap}")
    module = kernel.load("_order")
    assert module is not None
    order, none = module.group_rank(group, n_groups, score, tie, 300, False)  # no ranks
    assert none is None and np.array_equal(
        order, module.group_rank(group, n_groups, score, tie, 300)[0]
    )


def test_empty_and_out_of_range() -> None:
    z = np.zeros(0, dtype=np.int64)
    assert_same(*both(z, 0, np.zeros(0), None, 100))
    module = kernel.load("_order")
    assert module is not None
    with pytest.raises(ValueError, match="out of range"):
        module.group_rank(np.array([3], dtype=np.int64), 3, np.zeros(1), None, 1)
    with pytest.raises(ValueError, match="inconsistent"):
        module.group_rank(np.array([0], dtype=np.int64), 3, np.zeros(2), None, 1)


@pytest.mark.skipif(not MINI.is_dir(), reason="coco-mini not available")
@pytest.mark.parametrize("use_cats", [True, False])
def test_prepared_identical(use_cats: bool, tmp_path: Path) -> None:
    """``prepare`` of generated box results on coco-mini (caps cutting groups): every column
    equal on both paths."""
    from tests.parity.test_coco_parity import gen_bbox

    ann = MINI / "instances_val2017.json"
    res = tmp_path / "dt.json"
    res.write_text(json.dumps(gen_bbox(json.loads(ann.read_text()))))
    ds = read_coco(ann, masks=False)
    rs = read_coco_results(ds, res)
    params = CocoParams(use_cats=use_cats, max_dets=(1, 3, 7))
    on = prepare(ds, rs, params)
    with numpy_path():
        off = prepare(ds, rs, params)
    assert_same(on, off)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 1000), max_size=90))
def test_kernel_chunks_cover_categories(per_category: list[int]) -> None:
    """The runs of categories the kernel evaluates at a time: every category once, in order,
    whole, at most ``CHUNK_SHARE + 1`` runs; no run but the last has a category with more
    than half its detections (the kernel's two or more threads can share it)."""
    offsets = np.r_[0, np.cumsum(per_category)].astype(np.int64)
    runs = _chunks(offsets)
    assert [k for k0, k1 in runs for k in range(k0, k1)] == list(range(len(per_category)))
    assert all(k1 > k0 for k0, k1 in runs)
    assert len(runs) <= CHUNK_SHARE + 1
    for k0, k1 in runs[:-1]:
        assert 2 * max(per_category[k0:k1]) <= offsets[k1] - offsets[k0]
