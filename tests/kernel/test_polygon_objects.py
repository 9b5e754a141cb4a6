"""Objects' polygons rasterised and merged as columns (``_rle.polygon_objects``, through
``polygon_sets.polygon_columns_to_rle``) and the masks gathered by ``rle_columns.take``: the
kernel against the numpy path (``VOCVIEWER_KERNEL=0``) and pycocotools' ``frPyObjects`` +
``merge`` (the official ``annToRLE`` of a list segmentation)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tests.core.test_masks import _random_polygons
from tests.kernel.switch import numpy_path
from vocviewer import kernel
from vocviewer.core import masks as mk
from vocviewer.core import rle_columns as rc
from vocviewer.families.coco.polygon_sets import (
    polygon_columns_to_rle,
    polygon_sets_to_rle,
    segmentations_to_rle,
)

pm = pytest.importorskip("pycocotools.mask")
pytestmark = pytest.mark.skipif(kernel.load("_rle") is None, reason="_rle is not built")

Columns = tuple[np.ndarray, np.ndarray, np.ndarray]


def _objects(rng: np.random.Generator, n: int) -> tuple[list[list[np.ndarray]], Columns]:
    """``n`` objects of 0 .. 4 random polygons (an even count of numbers each), as lists and
    as columns ``(xy, npoints, nparts)``."""
    polys, _, _ = _random_polygons(rng, 4 * n)
    polys = [np.asarray(p[: len(p) // 2 * 2], dtype=np.float64) for p in polys]
    nparts = rng.choice([0, 1, 1, 1, 2, 3, 4], n)
    nparts[:3] = [1, 2, 0][:n]
    sets, i = [], 0
    for k in nparts.tolist():
        sets.append(polys[i : i + k])
        i += k
    used = polys[:i]
    xy = np.concatenate(used) if used else np.zeros(0)
    npoints = np.array([len(p) // 2 for p in used], dtype=np.int64)
    return sets, (xy, npoints, nparts.astype(np.int64))


def _table(sets: list[list[np.ndarray]], h: np.ndarray, w: np.ndarray) -> tuple[list[int], ...]:
    """``polygon_sets_to_rle`` as flat lists (the reference the columns must equal)."""
    masks = polygon_sets_to_rle(sets, h, w)
    return [int(v) for m in masks for v in m], [len(m) for m in masks]


@pytest.mark.parametrize("n", [2, 7, 5000])
def test_polygon_objects_equal_lists_numpy_and_pycocotools(n: int) -> None:
    rng = np.random.default_rng(n)
    sets, (xy, npoints, nparts) = _objects(rng, n)
    rows = rng.permutation(n)[: max(1, n - n // 5)]  # a subset, in any order
    h = rng.choice([1, 7, 20, 64, 150], len(rows)).astype(np.int64)
    w = rng.choice([1, 7, 20, 64, 150], len(rows)).astype(np.int64)
    on = polygon_columns_to_rle(xy, npoints, nparts, rows, h, w)
    with numpy_path():
        off = polygon_columns_to_rle(xy, npoints, nparts, rows, h, w)
        ref = _table([sets[r] for r in rows.tolist()], h, w)
    for a, b in zip(on, off, strict=True):
        assert a.dtype == b.dtype == np.int64 and np.array_equal(a, b)
    assert on[0].tolist() == ref[0] and np.diff(on[1]).tolist() == ref[1]
    for i, r in enumerate(rows[:300].tolist()):
        parts = [p.tolist() for p in sets[r]]
        if not parts or any(len(p) < 6 for p in parts):
            continue  # frPyObjects reads a list of polygons only if the first has > 4 numbers
        want = pm.merge(pm.frPyObjects(parts, int(h[i]), int(w[i])))["counts"].decode()
        assert mk.to_string(on[0][on[1][i] : on[1][i + 1]]) == want


def test_polygon_objects_declined_filled_from_numpy() -> None:
    """An object with a non-finite or beyond-int64 coordinate: the kernel declines it and the
    numpy path fills it in, the others unchanged."""
    good = np.array([1.0, 1, 6, 1, 6, 6, 1, 6])
    bad = [np.array([np.nan, 1, 3, 4, 3, 3]), np.array([1e20, 1, 3, 1e20, 3, 3])]
    sets = [[good], [good, bad[0]], [bad[1]], [good, good + 2]]
    xy = np.concatenate([p for s in sets for p in s])
    npoints = np.array([len(p) // 2 for s in sets for p in s], dtype=np.int64)
    nparts = np.array([len(s) for s in sets], dtype=np.int64)
    rows, h, w = np.arange(4), np.full(4, 9), np.full(4, 9)
    with np.errstate(invalid="ignore"):
        on = polygon_columns_to_rle(xy, npoints, nparts, rows, h, w)
        with numpy_path():
            off = polygon_columns_to_rle(xy, npoints, nparts, rows, h, w)
        ref = _table(sets, h, w)
    assert np.array_equal(on[0], off[0]) and np.array_equal(on[1], off[1])
    assert on[0].tolist() == ref[0] and np.diff(on[1]).tolist() == ref[1]
    k = kernel.load("_rle")
    assert k is not None
    assert k.polygon_objects(xy, npoints, nparts, rows, h, w)[2].tolist() == [1, 2]


def test_polygon_objects_rejects_bad_layout() -> None:
    k = kernel.load("_rle")
    assert k is not None
    xy, one = np.zeros(6), np.ones(1, np.int64)
    with pytest.raises(ValueError, match="disagree"):
        k.polygon_objects(xy, np.array([3]), np.array([2]), np.zeros(1, np.int64), one, one)
    with pytest.raises(ValueError, match="disagree"):
        k.polygon_objects(xy, np.array([3]), np.array([1]), one, one, one)


def test_take_equals_numpy() -> None:
    rng = np.random.default_rng(3)
    lens = rng.integers(0, 9, 400)
    offsets = np.concatenate(([0], np.cumsum(lens))).astype(np.int64)
    counts = rng.integers(0, 50, int(offsets[-1])).astype(np.int64)
    rows = rng.integers(0, 400, 1000)
    on = rc.take(counts, offsets, rows)
    with numpy_path():
        off = rc.take(counts, offsets, rows)
    for a, b in zip(on, off, strict=True):
        assert a.dtype == b.dtype == np.int64 and np.array_equal(a, b)
    with pytest.raises(IndexError):
        rc.take(counts, offsets, np.array([400]))


def test_segmentations_to_rle_mixed_rows() -> None:
    """Polygons, RLEs and empty rows, taken in any order, at sizes with zeros: each mask as
    ``polygon_sets_to_rle`` / the RLE itself / ``[0]`` gives it, on both paths."""
    rng = np.random.default_rng(11)
    n = 300
    sets, (_, _, nparts) = _objects(rng, n)
    kind = rng.choice([0, 1, 1, 2], n).astype(np.int8)
    nparts = np.where(kind == 1, nparts, 0)
    keep = [s for s, k in zip(sets, kind.tolist(), strict=True) if k == 1]
    xy = np.concatenate([p for s in keep for p in s])
    part_len = np.array([len(p) for s in keep for p in s], dtype=np.int64)
    run_len = np.where(kind == 2, rng.integers(1, 6, n), 0)
    runs = rng.integers(0, 9, int(run_len.sum())).astype(np.int64)
    rows = rng.permutation(n)
    h = rng.choice([0, 7, 20], n).astype(np.int64)
    w = rng.choice([0, 9, 20], n).astype(np.int64)
    args = (kind, xy, part_len, nparts, runs, run_len, h, w, rows)
    on = segmentations_to_rle(*args)
    with numpy_path():
        off = segmentations_to_rle(*args)
    run_start = np.cumsum(run_len) - run_len
    want = []
    for i, r in enumerate(rows.tolist()):
        if kind[r] == 2:
            want.append(runs[run_start[r] : run_start[r] + run_len[r]].tolist())
        elif kind[r] == 1 and h[i] and w[i]:
            want.append(polygon_sets_to_rle([sets[r]], h[i : i + 1], w[i : i + 1])[0].tolist())
        else:
            want.append([0])
    for counts, offsets in (on, off):
        got = [counts[a:b].tolist() for a, b in itertools.pairwise(offsets)]
        assert got == want


def test_segmentations_to_rle_given_runs_and_a_declined_polygon() -> None:
    """The kernel's one pass (RLE rows and empty rows given, copied in as they are) and, where
    a polygon declines (a non-finite coordinate), the numpy path filling it in: the same table
    on both paths; given runs outside their pool are refused."""
    good, bad = [1.0, 1, 6, 1, 6, 6, 1, 6], [np.nan, 1, 3, 4, 3, 3]
    kind = np.array([1, 2, 0, 1, 2], dtype=np.int8)
    nparts = np.array([1, 0, 0, 1, 0], dtype=np.int64)
    runs, run_len = np.array([3, 4, 74, 81], np.int64), np.array([0, 3, 0, 0, 1], np.int64)
    h, w = np.full(5, 9, np.int64), np.full(5, 9, np.int64)
    for second in (good, bad):
        xy = np.array(good + second)
        part_len = np.array([8, len(second)], dtype=np.int64)
        args = (kind, xy, part_len, nparts, runs, run_len, h, w)
        with np.errstate(invalid="ignore"):
            on = segmentations_to_rle(*args)
            with numpy_path():
                off = segmentations_to_rle(*args)
        assert np.array_equal(on[0], off[0]) and np.array_equal(on[1], off[1])
        masks = np.split(on[0], on[1][1:-1])
        assert masks[1].tolist() == [3, 4, 74] and masks[2].tolist() == [0]
        assert masks[4].tolist() == [81]
    k = kernel.load("_rle")
    assert k is not None
    xy, npoints, one = np.array(good), np.array([4]), np.ones(1, np.int64)
    with pytest.raises(ValueError, match="outside"):  # a run past the pool of one
        k.polygon_objects(xy, npoints, one, one * 0, one * 9, one * 9, one, one * 0, one * 2)


@pytest.mark.parametrize("vertices", [12, 60, 400])
def test_large_polygons_as_pycocotools(vertices: int) -> None:
    """Polygons crossing many pixel columns (their crossings sorted by merging the monotone
    stretches of the boundary, or, past a few dozen stretches, by the quicksort): star-shaped
    ones (two stretches a lobe) and random walks (many), equal to pycocotools' frPyObjects."""
    rng = np.random.default_rng(vertices)
    h, w = 300, 400
    angle = np.sort(rng.uniform(0, 2 * np.pi, vertices))
    radius = rng.uniform(20, 140, vertices)
    star = np.stack((200 + radius * np.cos(angle), 150 + radius * np.sin(angle)), 1)
    walk = np.cumsum(rng.normal(0, 25, (vertices, 2)), 0) + np.array([200.0, 150.0])
    polys = [star.reshape(-1), walk.reshape(-1), star.reshape(-1)[::-1].copy()]
    xy = np.concatenate(polys)
    npoints = np.array([len(p) // 2 for p in polys], dtype=np.int64)
    nparts = np.ones(3, dtype=np.int64)
    rows, hh, ww = np.arange(3), np.full(3, h), np.full(3, w)
    counts, offsets = polygon_columns_to_rle(xy, npoints, nparts, rows, hh, ww)
    for i, p in enumerate(polys):
        want = pm.frPyObjects([p.tolist()], h, w)[0]["counts"].decode()
        assert mk.to_string(counts[offsets[i] : offsets[i + 1]]) == want
