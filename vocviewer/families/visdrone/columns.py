"""VisDrone-DET extras: the raw ``left, top, width, height`` numbers and flags, columnar.

``Dataset.data(VisDroneGroundTruth)`` is a ``VisDroneGroundTruth`` aligned with ``Dataset.objects`` rows;
``ResultSet.data(VisDroneGroundTruth)`` is a ``VisDroneDetections`` aligned with ``ResultSet.detections``
rows. The evaluator reads the original float64 ``ltwh`` columns, never ``box`` (``x + w`` may round),
so overlaps are bit-identical to the toolkit's (PROTOCOLS.md §6).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vocviewer.core.arrays import frozen

#: Category names by category number (``README.md:79-81`` of the toolkit); index = number.
VISDRONE_CATEGORIES: tuple[str, ...] = (
    "ignored regions",
    "pedestrian",
    "people",
    "bicycle",
    "car",
    "van",
    "truck",
    "tricycle",
    "awning-tricycle",
    "bus",
    "motor",
    "others",
)
#: The evaluated categories 1..10 (``calcAccuracy.m:8``).
VISDRONE_EVAL_CLASSES: tuple[int, ...] = tuple(range(1, 11))


def _column(value: npt.ArrayLike, dtype: npt.DTypeLike, n: int, name: str) -> np.ndarray:
    arr = frozen(value, dtype)
    if arr.shape[:1] != (n,):
        raise ValueError(f"{name} has shape {arr.shape}, expected ({n}, ...)")
    return arr


@dataclass(frozen=True, eq=False)
class VisDroneGroundTruth:
    """Annotation rows in file order (all ``N`` rows, category 0 regions included).

    ltwh : float64 (N, 4)     left, top, width, height as written
    score : float64 (N,)      1 evaluate, 0 ignore (the file's 5th column)
    category : int64 (N,)     0..11
    truncation, occlusion : int64 (N,)  as written (never used by the evaluation)
    image_height, image_width : int64 (I,)  image size per image row, 0 where not read (only
                              images with ignored regions need it)
    """

    ltwh: npt.NDArray[np.float64]
    score: npt.NDArray[np.float64]
    category: npt.NDArray[np.int64]
    truncation: npt.NDArray[np.int64]
    occlusion: npt.NDArray[np.int64]
    image_height: npt.NDArray[np.int64]
    image_width: npt.NDArray[np.int64]

    def __post_init__(self) -> None:
        n = len(self.category)
        object.__setattr__(self, "ltwh", frozen(np.reshape(self.ltwh, (n, 4)), np.float64))
        for name, dtype in (
            ("score", np.float64),
            ("category", np.int64),
            ("truncation", np.int64),
            ("occlusion", np.int64),
        ):
            object.__setattr__(self, name, _column(getattr(self, name), dtype, n, name))
        object.__setattr__(self, "image_height", frozen(self.image_height, np.int64))
        object.__setattr__(self, "image_width", frozen(self.image_width, np.int64))


@dataclass(frozen=True, eq=False)
class VisDroneDetections:
    """Result rows in file order, aligned with ``ResultSet.detections``.

    ltwh : float64 (D, 4)     left, top, width, height as written
    category : int64 (D,)     0..11 (categories 0 and 11 use up the per-image cap)
    row_in_file : int64 (D,)  0-based position among the rows read from its image's file
    missing : tuple of str    annotation names (``<name>.txt``) without a result file (treated
                              as no detections; the numbers are then not official)
    extra : tuple of str      result files without an annotation (not read)
    """

    ltwh: npt.NDArray[np.float64]
    category: npt.NDArray[np.int64]
    row_in_file: npt.NDArray[np.int64]
    missing: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        n = len(self.category)
        object.__setattr__(self, "ltwh", frozen(np.reshape(self.ltwh, (n, 4)), np.float64))
        object.__setattr__(self, "category", _column(self.category, np.int64, n, "category"))
        object.__setattr__(
            self, "row_in_file", _column(self.row_in_file, np.int64, n, "row_in_file")
        )
