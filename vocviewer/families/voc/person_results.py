"""Results about annotated persons, columnar: person layouts (parts per person) and action
scores (one per person and action). Readers in ``formats`` build them; protocols in
``evaluation`` consume them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from vocviewer.core.arrays import frozen

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class LayoutResults:
    """Person-layout results, columnar, in XML order.

    Layout columns (L,): ``image_id`` str, ``object_number`` int64 (1-based XML position of the
    person in its image), ``confidence`` float64 (finite or ±inf), ``layout_line`` int64 (source
    line, 0 if unknown). Part columns (P,), grouped by layout in layout order and in XML order
    within each: ``part_layout`` int64 (row of the layout), ``part_class`` int8 (index into
    ``VOC_PARTS``), ``part_box`` float64 (P, 4) 1-based inclusive ``xmin ymin xmax ymax`` as
    written, ``part_line`` int64.
    """

    image_id: npt.NDArray[np.str_]
    object_number: IntArray
    confidence: npt.NDArray[np.float64]
    part_layout: IntArray
    part_class: npt.NDArray[np.int8]
    part_box: npt.NDArray[np.float64]
    layout_line: IntArray | None = None
    part_line: IntArray | None = None
    path: Path | None = None

    def __post_init__(self) -> None:
        n, p = len(self.image_id), len(self.part_layout)
        object.__setattr__(self, "image_id", frozen(self.image_id, np.str_))
        for name, dtype, size in (
            ("object_number", np.int64, n),
            ("confidence", np.float64, n),
            ("part_layout", np.int64, p),
            ("part_class", np.int8, p),
            ("layout_line", np.int64, n),
            ("part_line", np.int64, p),
        ):
            value = getattr(self, name)
            arr = frozen(np.zeros(size) if value is None else value, dtype)
            if arr.shape != (size,):
                raise ValueError(f"LayoutResults.{name} has shape {arr.shape}, expected ({size},)")
            object.__setattr__(self, name, arr)
        object.__setattr__(self, "part_box", frozen(np.reshape(self.part_box, (p, 4)), np.float64))
        if p and (
            np.any(np.diff(self.part_layout) < 0)
            or self.part_layout[0] < 0
            or self.part_layout[-1] >= n
        ):
            raise ValueError("parts must be grouped by a valid layout row, in layout order")

    def __len__(self) -> int:
        return len(self.image_id)

    def parts_of(self, layout: int) -> range:
        """Part rows of layout row ``layout``, in XML order."""
        lo, hi = np.searchsorted(self.part_layout, [layout, layout + 1])
        return range(int(lo), int(hi))


@dataclass(frozen=True, eq=False)
class ActionScores:
    """One action results file, columnar, in file order.

    ``image_id`` str (n,), ``object_number`` int64 (n,) 1-based object index, ``score`` float64
    (n,) (finite or ±inf), ``line`` int64 (n,) 1-based source line (0 if unknown).
    """

    action: str
    image_id: npt.NDArray[np.str_]
    object_number: IntArray
    score: npt.NDArray[np.float64]
    line: IntArray | None = None
    path: Path | None = None

    def __post_init__(self) -> None:
        n = len(self.image_id)
        object.__setattr__(self, "image_id", frozen(self.image_id, np.str_))
        for name, dtype in (("object_number", np.int64), ("score", np.float64), ("line", np.int64)):
            value = getattr(self, name)
            arr = frozen(np.zeros(n) if value is None else value, dtype)
            if arr.shape != (n,):
                raise ValueError(f"ActionScores.{name} has shape {arr.shape}, expected ({n},)")
            object.__setattr__(self, name, arr)

    def __len__(self) -> int:
        return len(self.image_id)

    def where(self, row: int) -> str:
        """``file:line`` of a row, for messages."""
        line = 0 if self.line is None else int(self.line[row])
        return f"{self.path or '<input>'}:{line}" if line else f"{self.path or '<input>'}"
