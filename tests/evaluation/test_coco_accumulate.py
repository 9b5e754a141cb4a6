"""``coco_accumulate._recall_index``: the integer form of ``searchsorted(recall, recThrs)``."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vocviewer.evaluation.coco_accumulate import _recall_index

REC_THRS = np.linspace(0.0, 1.00, int(np.round((1.00 - 0.0) / 0.01)) + 1, endpoint=True)


@settings(max_examples=300, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.integers(1, 2000), st.lists(st.booleans(), min_size=0, max_size=60)),
        min_size=1,
        max_size=5,
    ),
    extra=st.lists(st.floats(0, 1.2), max_size=5),
)
def test_recall_index_equals_searchsorted(
    rows: list[tuple[int, list[bool]]], extra: list[float]
) -> None:
    nd = min(len(s) for _, s in rows)
    npig = np.array([n for n, _ in rows], dtype=np.int64)
    tp = np.array([s[:nd] for _, s in rows], dtype=bool).reshape(len(rows), nd)
    scale = np.maximum(1, npig // max(nd, 1))[:, None]  # reach high recall too
    tp_cum = np.minimum(np.cumsum(tp, axis=1) * scale, npig[:, None])
    thrs = np.concatenate((REC_THRS, np.array(extra, dtype=np.float64)))
    want = [np.searchsorted(r / n, thrs, side="left") for r, n in zip(tp_cum, npig, strict=True)]
    got = _recall_index(tp_cum, npig, thrs)
    assert np.array_equal(got, np.array(want).reshape(got.shape))
