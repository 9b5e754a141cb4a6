"""``layers.decode_window``: the image's part of a COCO mask, equal to decoding the whole RLE and
cropping (or padding), while allocating only about the image's size."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from vocviewer.core.masks import decode
from vocviewer.gui.panes.image.layers import decode_window


def _random_rle(rng: np.random.Generator, mh: int, mw: int) -> np.ndarray:
    """Runs (background first) summing to ``mh * mw``."""
    total, runs = mh * mw, []
    while total > 0:
        r = int(min(total, rng.integers(0, max(2, total // 3) + 1)))
        runs.append(r)
        total -= r
    return np.array(runs, dtype=np.int64)


@pytest.mark.parametrize("seed", range(200))
def test_equals_decoding_the_whole_mask_then_cropping(seed: int) -> None:
    rng = np.random.default_rng(seed)
    mh, mw, h, w = (int(v) for v in rng.integers(1, 30, 4))
    counts = _random_rle(rng, mh, mw)
    whole = decode(counts, mh, mw)
    expected = np.zeros((h, w), dtype=bool)
    expected[: min(h, mh), : min(w, mw)] = whole[:h, :w]
    np.testing.assert_array_equal(decode_window(counts, mh, mw, h, w), expected)


def test_a_huge_declared_mask_allocates_about_the_image() -> None:
    mh = mw = 100_000  # 10^10 pixels declared; the image is 640 x 480
    counts = np.array([5, 10**6, 10**9, 10**6, mh * mw - 10**9 - 2 * 10**6 - 5], dtype=np.int64)
    tracemalloc.start()
    try:
        m = decode_window(counts, mh, mw, 480, 640)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert m.shape == (480, 640) and m[5:480, 0].all() and not m[:5, 0].any()
    assert peak < 4 * 480 * 640 + (1 << 20), peak


def test_a_negative_run_is_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        decode_window(np.array([3, -2, 5]), 2, 3, 2, 3)
