"""A ground-truth ``RleTable`` whose polygon masks are rasterised when first read.

Rasterising every polygon of a 36,000-object file takes longer than reading the file: a box
evaluation never reads the masks, and the window draws those of one image at a time. So
``LazyRleTable`` keeps each object's polygons and rasterises one row for ``table[i]`` (the
window's instance layer), or every row at once, the very table ``RleTable.from_list`` would
hold, on the first read of ``counts`` / ``offsets`` (mask evaluation, TIDE, ``areas``). Either
gives the same runs (``polygon_sets_to_rle`` rasterises each object on its own).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core import masks as mk
from vocviewer.core.arrays import frozen
from vocviewer.families.coco.columns import RleTable
from vocviewer.families.coco.polygon_sets import polygon_sets_to_rle

IntArray = npt.NDArray[np.int64]
#: per object: ``(polygon parts, 0, 0)`` (a list), an RLE's ``(runs, h, w)`` (an array) or
#: ``(None, 0, 0)`` (no segmentation: an empty mask)
Segmentation = tuple[Any, int, int]
_LOCK = threading.Lock()  # one table rasterised at a time (threads share the dataset)


class LazyRleTable(RleTable):
    """``RleTable`` of ``segm`` (one per object row) at image sizes ``height`` x ``width``: an
    RLE keeps its own size; a polygon of an image without a size, or no segmentation, is an
    empty mask (runs ``[0]``)."""

    def __init__(self, segm: list[Segmentation], height: npt.ArrayLike, width: npt.ArrayLike):
        hh = np.array(height, dtype=np.int64)
        ww = np.array(width, dtype=np.int64)
        for j, (data, h, w) in enumerate(segm):
            if isinstance(data, np.ndarray):  # an RLE: its own size
                hh[j], ww[j] = h, w
        object.__setattr__(self, "height", frozen(hh, np.int64))
        object.__setattr__(self, "width", frozen(ww, np.int64))
        object.__setattr__(self, "_segm", segm)
        object.__setattr__(self, "_table", None)

    @property  # type: ignore[override]
    def counts(self) -> IntArray:
        return self.rasterised().counts

    @property  # type: ignore[override]
    def offsets(self) -> IntArray:
        return self.rasterised().offsets

    def rasterised(self) -> RleTable:
        """Every mask, rasterised once (polygons in one batch, as the eager reader does)."""
        table = self._table
        if table is None:
            with _LOCK:
                table = self._table
                if table is None:
                    table = RleTable.from_list(
                        self._rows(range(len(self))), self.height, self.width
                    )
                    object.__setattr__(self, "_table", table)
        return table

    def __getitem__(self, i: int) -> IntArray:
        table = self._table
        if table is not None:
            return table[i]
        return frozen(self._rows([int(i)])[0], np.int64)

    def _rows(self, rows: Any) -> list[IntArray]:
        """The runs of ``rows`` (polygons of one batch rasterised together)."""
        out: dict[int, mk.Counts] = {}
        poly = []
        for j in rows:
            data = self._segm[j][0]
            if isinstance(data, np.ndarray):
                out[j] = data
            elif isinstance(data, list) and self.height[j] and self.width[j]:
                poly.append(j)
            else:
                out[j] = np.zeros(1, dtype=np.int64)
        sets = [self._segm[j][0] for j in poly]
        counts = polygon_sets_to_rle(sets, self.height[poly], self.width[poly])
        out.update(zip(poly, counts, strict=True))
        return [out[j] for j in rows]

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as it is: lazy (its polygons) until rasterised, then the table."""
        table = self._table
        if table is not None:
            return (RleTable, (table.counts, table.offsets, self.height, self.width))
        return (LazyRleTable, (self._segm, self.height, self.width))

    def __repr__(self) -> str:
        state = "rasterised" if self._table is not None else "not rasterised yet"
        return f"LazyRleTable({len(self)} masks, {state})"
