"""``schema.polygon_work_flat``: per polygon, the pixel columns / rows its edges cross (the
rasterising cost the readers bound), against the sum written out edge by edge."""

from __future__ import annotations

import numpy as np
import pytest

from vocviewer.families.coco.schema import polygon_work, polygon_work_flat


def _by_hand(parts: list[list[float]]) -> list[float]:
    """Each polygon's sum, in edge order, of ``max(|dx|, |dy|)`` over its edges (the last
    point back to the first)."""
    out = []
    for p in parts:
        pts = list(zip(p[0::2], p[1::2], strict=True))
        total = 0.0
        for i, (x, y) in enumerate(pts):
            nx, ny = pts[(i + 1) % len(pts)]
            total += max(abs(nx - x), abs(ny - y))
        out.append(total)
    return out


@pytest.mark.parametrize("seed", range(20))
def test_polygon_work_is_the_edges_sum(seed: int) -> None:
    rng = np.random.default_rng(seed)
    sizes = rng.choice([0, 2, 4, 6, 8, 20], size=int(rng.integers(0, 12)))
    scale = 10.0 ** int(rng.integers(0, 6))
    parts = [(rng.normal(size=int(n)) * scale).tolist() for n in sizes]
    lens = np.array([len(p) for p in parts], dtype=np.int64)
    flat = np.array([v for p in parts for v in p], dtype=np.float64)
    got = polygon_work_flat(flat, lens)
    assert got.dtype == np.float64 and got.shape == (len(parts),)
    assert got.tolist() == _by_hand(parts)  # (the same sums in the same order: exact)
    listed = polygon_work([np.asarray(p, dtype=np.float64) for p in parts])
    assert listed.tolist() == got.tolist()
