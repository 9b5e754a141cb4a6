"""Open Images extras: what the challenge evaluation reads, columnar.

``Dataset.data(OpenImagesGroundTruth)`` is an ``OpenImagesGroundTruth`` aligned with ``Dataset.objects``
rows; ``ResultSet.data(OpenImagesGroundTruth)`` an ``OpenImagesPredictions`` aligned with
``ResultSet.detections`` rows. The evaluation reads their ``box`` — normalised ``YMin, XMin,
YMax, XMax`` exactly as written — never ``objects.box`` / ``detections.box``, which the window
may scale to pixels to draw them over the images.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vocviewer.core.arrays import freeze_columns, frozen
from vocviewer.families.openimages.hierarchy import Hierarchy

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class OpenImagesGroundTruth:
    """The folder's annotations as the challenge expands them.

    box : float64 (N, 4)         per object row: ``YMin, XMin, YMax, XMax`` normalised, as written
    group_of : bool (N,)         ``IsGroupOf`` 1 (one box around several instances)
    depiction, inside : bool (N,) ``IsDepiction`` / ``IsInside`` 1 (drawn only; never evaluated)
    counts_row, counts_label : int64 (E,)  the expansion: object row ``counts_row[e]`` counts as
                                 a box of class ``counts_label[e]`` (its own and each ancestor),
                                 sorted by class, then row
    verified_image, verified_label : int64 (V,)  the (image row, class) pairs the challenge
                                 evaluates: image labels of either confidence and boxes, expanded
    label_image, label_class, label_confidence : int64 (L,)  the image-level labels as written
    mids : tuple[str, ...]       class MID per class index (``/m/0199g``)
    hierarchy                    the class hierarchy
    files                        the four files read (boxes, labels, descriptions, hierarchy)
    """

    box: npt.NDArray[np.float64]
    group_of: npt.NDArray[np.bool_]
    depiction: npt.NDArray[np.bool_]
    inside: npt.NDArray[np.bool_]
    counts_row: IntArray
    counts_label: IntArray
    verified_image: IntArray
    verified_label: IntArray
    label_image: IntArray
    label_class: IntArray
    label_confidence: IntArray
    mids: tuple[str, ...]
    hierarchy: Hierarchy
    files: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "box", frozen(np.reshape(self.box, (-1, 4)), np.float64))
        flags = ("group_of", "depiction", "inside")
        freeze_columns(self, ((f, np.bool_) for f in flags), len(self.box))
        for group in (
            ("counts_row", "counts_label"),
            ("verified_image", "verified_label"),
            ("label_image", "label_class", "label_confidence"),
        ):  # each group: columns of one table (E, V, L rows)
            freeze_columns(self, ((c, np.int64) for c in group), len(getattr(self, group[0])))


@dataclass(frozen=True, eq=False)
class OpenImagesPredictions:
    """``box`` float64 (D, 4): per detection row ``YMin, XMin, YMax, XMax`` as written;
    ``unknown_images``: how many rows named an image the annotations do not hold (the
    challenge ignores them; they are not in ``detections``) and a few of those ids."""

    box: npt.NDArray[np.float64]
    unknown_images: int = 0
    unknown_sample: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "box", frozen(np.reshape(self.box, (-1, 4)), np.float64))
