"""A ground-truth ``RleTable`` whose polygon masks are rasterised when first read.

Rasterising every polygon of a 36,000-object file takes longer than reading the file: a box
evaluation never reads the masks, and the window draws those of one image at a time. So
``LazyRleTable`` keeps each object's polygons and rasterises one row for ``table[i]`` (the
window's instance layer), or every row at once, the very table ``RleTable.from_list`` would
hold, on the first read of ``counts`` / ``offsets`` (mask evaluation, TIDE, ``areas``). Either
gives the same runs (``polygon_sets_to_rle`` rasterises each object on its own).
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer import kernel
from vocviewer.core.arrays import frozen, sealed
from vocviewer.families.coco.columns import RleTable
from vocviewer.families.coco.polygon_sets import polygon_sets_to_rle, segmentations_to_rle

IntArray = npt.NDArray[np.int64]
#: per object: ``(polygon parts, 0, 0)`` (a list), an RLE's ``(runs, h, w)`` (an array) or
#: ``(None, 0, 0)`` (no segmentation: an empty mask)
Segmentation = tuple[Any, int, int]
_LOCK = threading.Lock()  # one table rasterised at a time (threads share the dataset)


class LazyRleTable(RleTable):
    """``RleTable`` of ``segm`` (one per object row) at image sizes ``height`` x ``width``: an
    RLE keeps its own size; a polygon of an image without a size, or no segmentation, is an
    empty mask (runs ``[0]``). The segmentations are kept as flat columns (``Shapes``: tens of
    thousands of small arrays would take seconds to pickle)."""

    #: the segmentations and the row of them each row of this table is (``None``: the same
    #: row), replaced by one pair in row order when every row is first read (one attribute:
    #: a thread drawing a row reads a consistent pair)
    _src: tuple[Shapes, IntArray | None]
    _table: RleTable | None
    _boxes: npt.NDArray[np.float64] | None
    _prefetching: bool

    def __init__(self, segm: list[Segmentation], height: npt.ArrayLike, width: npt.ArrayLike):
        hh = np.array(height, dtype=np.int64)
        ww = np.array(width, dtype=np.int64)
        for j, (data, h, w) in enumerate(segm):
            if isinstance(data, np.ndarray):  # an RLE: its own size
                hh[j], ww[j] = h, w
        self._init(Shapes.of(segm), hh, ww)

    def _init(
        self, shapes: Shapes, height: IntArray, width: IntArray, order: IntArray | None = None
    ) -> None:
        object.__setattr__(self, "height", frozen(height, np.int64))
        object.__setattr__(self, "width", frozen(width, np.int64))
        object.__setattr__(self, "_src", (shapes, order))
        object.__setattr__(self, "_table", None)
        object.__setattr__(self, "_boxes", None)
        object.__setattr__(self, "_prefetching", False)

    @classmethod
    def of_shapes(
        cls, shapes: Shapes, height: IntArray, width: IntArray, order: IntArray | None = None
    ) -> LazyRleTable:
        """From columns (``height`` / ``width``: an RLE's own size on its rows); ``order``:
        row ``i`` is ``shapes``' row ``order[i]`` (gathered when every row is first read, not
        before: the window draws one image at a time)."""
        table = cls.__new__(cls)
        table._init(shapes, height, width, order)
        return table

    @property
    def counts(self) -> IntArray:
        return self.rasterised().counts

    @property
    def offsets(self) -> IntArray:
        return self.rasterised().offsets

    def _in_order(self) -> Shapes:
        """The segmentations in this table's row order, gathered once (``_LOCK`` held)."""
        shapes, order = self._src
        if order is not None:
            shapes = shapes.take(order)
            object.__setattr__(self, "_src", (shapes, None))
        return shapes

    def rasterised(self) -> RleTable:
        """Every mask, rasterised once (``segmentations_to_rle``: the polygons on the compiled
        kernel where it is built)."""
        table = self._table
        if table is None:
            with _LOCK:
                table = self._table
                if table is None:
                    sh, hh, ww = self._in_order(), self.height, self.width
                    segm = (sh.kind, sh.xy, sh.part_len, sh.nparts, sh.runs, sh.run_len)
                    table = RleTable(*segmentations_to_rle(*segm, hh, ww), hh, ww)
                    object.__setattr__(self, "_table", table)
        return table

    def mask_boxes(self) -> npt.NDArray[np.float64]:
        """``bboxes`` for reading only (read-only), measured once: by ``prefetch``'s thread
        where it ran (mask evaluation reads them twice: the IoU's filter, the TPs' IoU)."""
        boxes = self._boxes
        if boxes is None:
            table = self.rasterised()
            with _LOCK:
                boxes = self._boxes
                if boxes is None:
                    boxes = sealed(table.bboxes())
                    object.__setattr__(self, "_boxes", boxes)
        return boxes

    def prefetch(self) -> None:
        """Start rasterising every mask (and measuring its box, ``mask_boxes``) in a
        background thread (the kernel's, without the GIL), for a caller that will read them
        soon and has other work meanwhile; a read then waits for it. Nothing if already
        rasterised, under way or without the kernel."""
        if self._table is None and not self._prefetching and kernel.load("_rle") is not None:
            object.__setattr__(self, "_prefetching", True)
            threading.Thread(target=self._rasterise_quietly, name="rasterise", daemon=True).start()

    def _rasterise_quietly(self) -> None:
        with contextlib.suppress(Exception):  # the next read rasterises again, raises it there
            self.mask_boxes()

    def __getitem__(self, i: int) -> IntArray:
        table = self._table
        if table is not None:
            return table[i]
        return frozen(self._rows([int(i)])[0], np.int64)

    def _rows(self, rows: Any) -> list[IntArray]:
        """The runs of ``rows`` (their polygons rasterised in one batch)."""
        (sh, order), out = self._src, {}
        poly = []
        for j in rows:
            g = j if order is None else int(order[j])  # (its row in ``_given``)
            kind = sh.kind[g]
            if kind == _RLE:
                out[j] = sh.runs[sh.run_start[g] : sh.run_start[g] + sh.run_len[g]]
            elif kind == _POLYGONS and self.height[j] and self.width[j]:
                poly.append(j)
            else:
                out[j] = np.zeros(1, dtype=np.int64)
        sets = [sh.parts(j if order is None else int(order[j])) for j in poly]
        counts = polygon_sets_to_rle(sets, self.height[poly], self.width[poly])
        out.update(zip(poly, counts, strict=True))
        return [out[j] for j in rows]

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as it is: lazy (its columns) until rasterised, then the table."""
        table = self._table
        if table is not None:
            return (RleTable, (table.counts, table.offsets, self.height, self.width))
        shapes, order = self._src
        return (LazyRleTable.of_shapes, (shapes, self.height, self.width, order))

    def __repr__(self) -> str:
        state = "rasterised" if self._table is not None else "not rasterised yet"
        return f"LazyRleTable({len(self)} masks, {state})"


_NONE, _POLYGONS, _RLE = 0, 1, 2


@dataclass(frozen=True, eq=False)
class Shapes:
    """Per row its segmentation kind (``_NONE``, ``_POLYGONS``, ``_RLE``); polygons as flat
    coordinates ``xy`` float64 with ``part_len`` coordinates per polygon and ``nparts`` polygons
    per row (``part_start``: a row's first polygon, ``xy_start``: a polygon's first value);
    RLE runs int64 flat with ``run_len`` per row from ``run_start``."""

    kind: npt.NDArray[np.int8]
    xy: npt.NDArray[np.float64]
    part_len: IntArray
    nparts: IntArray
    runs: IntArray
    run_len: IntArray

    @cached_property
    def part_start(self) -> IntArray:
        return np.cumsum(self.nparts) - self.nparts

    @cached_property
    def xy_start(self) -> IntArray:
        return np.cumsum(self.part_len) - self.part_len

    @cached_property
    def run_start(self) -> IntArray:
        return np.cumsum(self.run_len) - self.run_len

    def parts(self, j: int) -> list[npt.NDArray[np.float64]]:
        """Row ``j``'s polygons."""
        p0 = int(self.part_start[j])
        starts, lens = self.xy_start, self.part_len
        return [
            self.xy[starts[p] : starts[p] + lens[p]] for p in range(p0, p0 + int(self.nparts[j]))
        ]

    def take(self, rows: IntArray) -> Shapes:
        """The segmentations of ``rows``, in that order."""
        nparts = self.nparts[rows]
        part_rows = _gather(self.part_start[rows], nparts)
        part_len = self.part_len[part_rows]
        xy = self.xy[_gather(self.xy_start[part_rows], part_len)]
        run_len = self.run_len[rows]
        runs = self.runs[_gather(self.run_start[rows], run_len)]
        return Shapes(self.kind[rows], xy, part_len, nparts, runs, run_len)

    @classmethod
    def of(cls, segm: list[Segmentation]) -> Shapes:
        n = len(segm)
        kind = np.zeros(n, dtype=np.int8)
        nparts = np.zeros(n, dtype=np.int64)
        run_len = np.zeros(n, dtype=np.int64)
        parts: list[npt.NDArray[np.float64]] = []
        runs: list[IntArray] = []
        for j, (data, _, _) in enumerate(segm):
            if isinstance(data, np.ndarray):
                kind[j], run_len[j] = _RLE, len(data)
                runs.append(data)
            elif isinstance(data, list):
                kind[j], nparts[j] = _POLYGONS, len(data)
                parts.extend(data)
        return cls(
            kind,
            np.concatenate(parts).astype(np.float64, copy=False) if parts else np.zeros(0),
            np.array([len(p) for p in parts], dtype=np.int64),
            nparts,
            np.concatenate(runs).astype(np.int64, copy=False) if runs else np.zeros(0, np.int64),
            run_len,
        )


def _gather(start: IntArray, length: IntArray) -> IntArray:
    """The indices ``start[i] .. start[i] + length[i]`` of every ``i``, concatenated."""
    within = np.arange(int(length.sum()), dtype=np.int64)
    return np.repeat(start - (np.cumsum(length) - length), length) + within
