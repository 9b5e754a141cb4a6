"""``ResultSet``: a method's outputs as columnar arrays, with the provenance of every row.

Rows keep their file order (files in the order read, lines in file order), which is the tie-break
order of every official ranking. ``file_index`` and ``line`` say where each row came from, so a
protocol can name the file and line of a detection it rejects.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from vocviewer.core.arrays import freeze_columns, frozen
from vocviewer.core.errors import FormatError
from vocviewer.core.family_data import FamilyData

IntArray = npt.NDArray[np.int64]


#: The per-row columns ``Detections`` and ``ClassScores`` share, with their dtypes.
ROW_COLUMNS = (
    ("image_index", np.int64),
    ("label", np.int64),
    ("score", np.float64),
    ("file_index", np.int64),
    ("line", np.int64),
)


class Derived:
    """A column made on first read: ``function(*args)`` (``function`` and ``args`` picklable: a
    result set crosses processes as it is). For a column another one gives exactly, e.g. the
    corners of ``(x, y, w, h)`` boxes a reader keeps as they were read: it is not held twice
    unless read. ``rowwise``: each row of the column is made from the same rows of ``args``
    alone (arrays), so that some rows are made without the whole column (``Detections.box_rows``)."""

    def __init__(
        self, function: Callable[..., npt.NDArray[Any]], *args: Any, rowwise: bool = False
    ) -> None:
        self.function, self.args, self.rowwise = function, args, rowwise

    def __call__(self) -> npt.NDArray[Any]:
        return self.function(*self.args)


class DerivedColumn:
    """A dataclass field that takes an array or a ``Derived`` one, made (once, by ``finish(obj,
    array)``: its shape and dtype checked, read-only) when first read. Declare the field's type
    for the type checker apart (``if TYPE_CHECKING``): the descriptor has no default."""

    def __init__(self, finish: Callable[[Any, npt.NDArray[Any]], npt.NDArray[Any]]) -> None:
        self.finish = finish

    def __set_name__(self, owner: Any, name: str) -> None:
        self.name, self.slot = name, "_" + name

    def __get__(self, obj: Any, owner: Any = None) -> npt.NDArray[Any]:
        if obj is None:  # (no default for the dataclass field)
            raise AttributeError(self.name)
        value = obj.__dict__[self.slot]
        if isinstance(value, Derived):
            value = self.finish(obj, value())
            obj.__dict__[self.slot] = value
        return value  # type: ignore[no-any-return]

    def __set__(self, obj: Any, value: npt.ArrayLike | Derived) -> None:
        obj.__dict__[self.slot] = value


def is_made(obj: Any, name: str) -> bool:
    """Whether ``obj``'s ``DerivedColumn`` ``name`` holds an array (given, or made)."""
    return not isinstance(obj.__dict__["_" + name], Derived)


def rows_of(obj: Any, name: str, rows: IntArray) -> npt.NDArray[Any]:
    """``getattr(obj, name)[rows]``; a ``Derived`` column made row by row (``rowwise``) and not
    made yet is not made whole: only ``rows``, bit for bit the same values."""
    value = obj.__dict__.get("_" + name)
    if isinstance(value, Derived) and value.rowwise:
        return value.function(*(np.take(a, rows, axis=0) for a in value.args))  # (rows: take)
    return getattr(obj, name)[rows]  # type: ignore[no-any-return]


def _box_column(dets: Detections, box: npt.ArrayLike) -> npt.NDArray[np.float64]:
    return frozen(np.reshape(box, (len(dets.image_index), 4)), np.float64)


@dataclass(frozen=True, eq=False)
class Detections:
    """Detections, all columns of length ``D``, in file order.

    image_index : int64 (D,)  row in ``Dataset.images``
    label : int64 (D,)        index into ``Dataset.classes``
    score : float64 (D,)      confidence, finite (readers reject NaN; ±inf are allowed)
    box : float64 (D, 4)      xyxy in the dataset's box convention (``core.boxes``); may be
                              given as ``Derived``, then made when first read
    file_index : int64 (D,)   index into ``ResultSet.files``
    line : int64 (D,)         1-based line (or entry) number in that file
    """

    image_index: IntArray
    label: IntArray
    score: npt.NDArray[np.float64]
    if TYPE_CHECKING:  # (a ``Derived`` is taken too: ``DerivedColumn``)
        box: npt.NDArray[np.float64]
    else:
        box: npt.NDArray[np.float64] = DerivedColumn(_box_column)
    file_index: IntArray
    line: IntArray

    def __post_init__(self) -> None:
        n = len(self.image_index)
        freeze_columns(self, ROW_COLUMNS, n)
        if is_made(self, "box"):
            object.__setattr__(self, "box", _box_column(self, self.box))

    def __len__(self) -> int:
        return len(self.image_index)

    def box_rows(self, rows: IntArray) -> npt.NDArray[np.float64]:
        """``box[rows]``, without making a ``Derived`` box column made row by row."""
        return np.reshape(np.asarray(rows_of(self, "box", rows), dtype=np.float64), (-1, 4))

    @classmethod
    def empty(cls) -> Detections:
        z = np.zeros(0, dtype=np.int64)
        return cls(z, z, np.zeros(0), np.zeros((0, 4)), z, z)


@dataclass(frozen=True, eq=False)
class ClassScores:
    """Image-level classification scores, columns of length ``M``, in file order.

    image_index : int64 (M,)  row in ``Dataset.images``
    label : int64 (M,)        class index
    score : float64 (M,)      confidence (finite or ±inf)
    file_index, line : int64 (M,)  provenance as in ``Detections``
    """

    image_index: IntArray
    label: IntArray
    score: npt.NDArray[np.float64]
    file_index: IntArray
    line: IntArray

    def __post_init__(self) -> None:
        n = len(self.image_index)
        freeze_columns(self, ROW_COLUMNS, n)

    def __len__(self) -> int:
        return len(self.image_index)

    @classmethod
    def empty(cls) -> ClassScores:
        z = np.zeros(0, dtype=np.int64)
        return cls(z, z, np.zeros(0), z, z)


@dataclass(frozen=True)
class LabelImageResults:
    """Results given as a folder of label images, one per image (VOC segmentation's PNGs), not
    as ranked rows: a ``ResultSet``'s record (``family_data``) that the window draws."""

    folder: Path


@dataclass(frozen=True, eq=False)
class ResultSet(FamilyData):
    """One method's results for a dataset.

    Attributes
    ----------
    name
        Display name (e.g. ``comp4`` or a file stem).
    files
        Files read, in order; ``file_index`` columns index this.
    detections, class_scores
        Either may be empty.
    classes_with_files
        Class indices for which a results file was read per task (``{"det": ..., "cls": ...}``):
        a class without a file is "not submitted", which differs from "no detections".
    problems
        Rows skipped while reading (unknown image ids, unparseable lines); a protocol that sees
        problems marks its numbers as not official.
    warnings
        Messages that leave the numbers official, each naming a file and its first line (or JSON
        path) concerned: rows kept under the non-finite rule (a NaN/inf coordinate or a NaN score
        is evaluated as the official code does and never drawn), or rows the official code
        ignores too (COCO: a category not in the annotation file). At most one per file and kind.
    task
        What the results answer where one format holds several tasks (COCO-style JSON: ``bbox``,
        ``segm`` or ``keypoints``); ``None``: the family's own default.
    family_data
        The family's own records (``core.family_data``: COCO's masks and keypoints, VisDrone's
        categories in file order, ...), aligned with ``detections``, found by type:
        ``results.data(CocoResults)``.
    """

    name: str
    files: tuple[Path, ...]
    detections: Detections = field(default_factory=Detections.empty)
    class_scores: ClassScores = field(default_factory=ClassScores.empty)
    classes_with_files: dict[str, frozenset[int]] = field(default_factory=dict)
    problems: tuple[FormatError, ...] = ()
    warnings: tuple[FormatError, ...] = ()
    family_data: tuple[Any, ...] = ()
    task: str | None = None

    def where(self, file_index: int, line: int) -> str:
        """``path:line`` of a row, for messages."""
        return f"{self.files[file_index]}:{line}"
