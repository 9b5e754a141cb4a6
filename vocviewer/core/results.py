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


class _BoxColumn:
    """``Detections.box``: the array given, or the ``Derived`` one made (once, read-only) when
    first read."""

    def __get__(self, obj: Any, owner: Any = None) -> npt.NDArray[np.float64]:
        if obj is None:  # (no default for the dataclass field)
            raise AttributeError("box")
        box = obj.__dict__["_box"]
        if isinstance(box, Derived):
            box = _box_column(box(), len(obj.image_index))
            obj.__dict__["_box"] = box
        return box  # type: ignore[no-any-return]

    def __set__(self, obj: Any, value: npt.ArrayLike | Derived) -> None:
        obj.__dict__["_box"] = value


def _box_column(box: npt.ArrayLike, n: int) -> npt.NDArray[np.float64]:
    return frozen(np.reshape(box, (n, 4)), np.float64)


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
    if TYPE_CHECKING:  # (a ``Derived`` is taken too: ``_BoxColumn``)
        box: npt.NDArray[np.float64]
    else:
        box: npt.NDArray[np.float64] = _BoxColumn()
    file_index: IntArray
    line: IntArray

    def __post_init__(self) -> None:
        n = len(self.image_index)
        freeze_columns(self, ROW_COLUMNS, n)
        if not isinstance(self.__dict__["_box"], Derived):
            object.__setattr__(self, "box", _box_column(self.box, n))

    def __len__(self) -> int:
        return len(self.image_index)

    def box_rows(self, rows: IntArray) -> npt.NDArray[np.float64]:
        """``box[rows]``, without making a ``Derived`` box column made row by row."""
        box = self.__dict__["_box"]
        if isinstance(box, Derived) and box.rowwise:
            part = box.function(*(np.asarray(a)[rows] for a in box.args))
            return np.reshape(np.asarray(part, dtype=np.float64), (-1, 4))
        return self.box[rows]

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
