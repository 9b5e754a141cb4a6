"""``results_bulk.checked_masks`` (decoded result masks taken only if every one's runs, none
negative, sum to its ``h * w``) on the kernel (``_rle.runs_fit``, threads across masks) and on
the numpy path: the same verdict for whole tables and for one bad mask anywhere."""

from __future__ import annotations

import numpy as np
import pytest

from tests.kernel.switch import numpy_path
from vocviewer import kernel
from vocviewer.families.coco.results_bulk import checked_masks

pytestmark = pytest.mark.skipif(kernel.load("_rle") is None, reason="_rle is not built")


def _table(rng: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
    """``n`` valid masks: runs summing to their own h * w."""
    h = rng.integers(1, 40, n)
    w = rng.integers(1, 40, n)
    lens = rng.integers(1, 9, n)
    counts = []
    for hw, k in zip((h * w).tolist(), lens.tolist(), strict=True):
        cuts = np.sort(rng.integers(0, hw + 1, k - 1))
        counts.append(np.diff(np.concatenate(([0], cuts, [hw]))))
    offsets = np.concatenate(([0], np.cumsum(lens))).astype(np.int64)
    return np.concatenate(counts).astype(np.int64), offsets, h, w


def _both(counts: np.ndarray, offsets: np.ndarray, h: np.ndarray, w: np.ndarray) -> bool:
    on = checked_masks(counts, offsets, h, w)
    with numpy_path():
        off = checked_masks(counts, offsets, h, w)
    assert (on is None) == (off is None)
    return on is not None


@pytest.mark.parametrize("where", [None, 0, 3000, 8999])
@pytest.mark.parametrize("fault", ["negative", "short", "long", "empty"])
def test_checked_masks_both_paths(where: int | None, fault: str) -> None:
    counts, offsets, h, w = _table(np.random.default_rng(5), 9000)  # several threads' shares
    if where is not None:
        a = int(offsets[where])
        if fault == "negative":
            counts[a] -= counts[a] + 1
        elif fault == "short":
            h = h.copy()
            h[where] += 1
        elif fault == "long":
            counts[a] += 1
        else:  # a mask without runs
            counts = np.delete(counts, np.arange(a, offsets[where + 1]))
            offsets = offsets.copy()
            offsets[where + 1 :] -= offsets[where + 1] - a
    assert _both(counts, offsets, h, w) is (where is None)
