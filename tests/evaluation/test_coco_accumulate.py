"""``coco_accumulate._recall_index``: the integer form of ``searchsorted(recall, recThrs)``."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vocviewer.evaluation.coco_accumulate import _recall_index

REC_THRS = np.linspace(0.0, 1.00, int(np.round((1.00 - 0.0) / 0.01)) + 1, endpoint=True)


@settings(max_examples=300, deadline=None)
@given(
    npig=st.integers(1, 2000),
    steps=st.lists(st.lists(st.booleans(), min_size=0, max_size=60), min_size=1, max_size=4),
    extra=st.lists(st.floats(0, 1.2), max_size=5),
)
def test_recall_index_equals_searchsorted(
    npig: int, steps: list[list[bool]], extra: list[float]
) -> None:
    nd = min(len(s) for s in steps)
    tp = np.array([s[:nd] for s in steps], dtype=bool)
    tp_cum = np.cumsum(tp, axis=1) * max(1, npig // max(nd, 1))  # reach high recall too
    tp_cum = np.minimum(tp_cum, npig)
    thrs = np.concatenate((REC_THRS, np.array(extra, dtype=np.float64)))
    want = np.array([np.searchsorted(r / npig, thrs, side="left") for r in tp_cum.astype(float)])
    got = _recall_index(tp_cum, npig, thrs)
    assert np.array_equal(got, want.reshape(got.shape))
