"""The compiled matcher's outputs: each kind (precision, recall, scores, order, npig, match0,
verdict0) one block for all the categories of a call, each category's arrays views of it
(``_match.c``: few page faults), written by the thread that evaluates the category.

The views must behave as arrays of their own: disjoint, writable, C-contiguous, of the shapes
and dtypes the Python side reads, the undefined curves -1 (every category's, the empty ones
too), and the values those of one category evaluated alone.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from tests.kernel.test_match_kernel import MINI, assert_same, mini_boxes_prepared
from vocviewer.families.coco.match_kernel import available, kernel_categories

pytestmark = [
    pytest.mark.skipif(not available(), reason="the _match kernel is not built"),
    pytest.mark.skipif(not MINI.is_dir(), reason="coco-mini not available"),
]


def test_category_views_are_disjoint_and_equal_to_single_calls(tmp_path: Path) -> None:
    prep = mini_boxes_prepared(tmp_path)
    n = prep.n_categories
    run = kernel_categories(prep, 0, n)
    assert run is not None and len(run) == n
    fields = [
        lambda c: c.curves.precision,
        lambda c: c.curves.recall,
        lambda c: c.curves.scores,
        lambda c: c.curves.order,
        lambda c: c.npig,
        lambda c: c.match0,
        lambda c: c.verdict0,
    ]
    for get in fields:
        arrays = [get(c) for c in run]
        assert all(a.flags.c_contiguous and a.flags.writeable for a in arrays)
        nonempty = [a for a in arrays if a.size]
        for a, b in itertools.pairwise(nonempty):
            assert not np.shares_memory(a, b)
    empty = [c for c in run if not (c.curves.precision > -1).any()]
    assert empty, "coco-mini has categories without detections or ground truth"
    for k in (0, n // 2, n - 1):
        alone = kernel_categories(prep, k, k + 1)
        assert alone is not None
        assert_same(alone[0], run[k], f"category {k}")
    # writing one category's curve leaves its neighbours alone
    before = run[1].curves.precision.copy()
    run[0].curves.precision[...] = 7.0
    assert_same(run[1].curves.precision, before)
