"""ILSVRC extras: synsets, evaluation image ids and the blacklist, columnar.

``Dataset.data(IlsvrcDetInfo)`` is an ``IlsvrcDetInfo`` (DET). ``Dataset.classes`` holds the synset
names in DET_ID order, so ``ObjectTable.label == DET_ID - 1``; boxes are ``"voc"`` (1-based,
inclusive), exactly as written in the XML. CLS-LOC: ``Dataset.data(IlsvrcClslocInfo)`` is an
``IlsvrcClslocInfo`` and ``ResultSet.data(IlsvrcClslocInfo)`` a ``ClslocGuesses``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from vocviewer.core.arrays import frozen
from vocviewer.core.results import ResultSet


@dataclass(frozen=True, eq=False)
class IlsvrcDetInfo:
    """What the DET evaluation needs besides the objects.

    wnids : tuple of str           WNID per DET_ID - 1
    image_id : int64 (I,)          the eval list's image index of each image row
    blacklist_image_id : int64 (B,)  blacklisted (image id, label) pairs, label = DET_ID - 1
    blacklist_label : int64 (B,)
    """

    wnids: tuple[str, ...]
    image_id: npt.NDArray[np.int64]
    blacklist_image_id: npt.NDArray[np.int64]
    blacklist_label: npt.NDArray[np.int64]

    def __post_init__(self) -> None:
        for name in ("image_id", "blacklist_image_id", "blacklist_label"):
            object.__setattr__(self, name, frozen(getattr(self, name), np.int64))


@dataclass(frozen=True, eq=False)
class IlsvrcClslocInfo:
    """What the CLS-LOC evaluation needs besides the boxes (``Dataset.data(IlsvrcClslocInfo)``).

    ``Dataset.classes`` holds the synset names in ILSVRC2014_ID order, so an object's
    ``ObjectTable.label == ILSVRC2014_ID - 1``; boxes are ``"voc"`` (1-based, inclusive).

    wnids : tuple of str       WNID per ILSVRC2014_ID - 1
    gt_label : int64 (I,)      ILSVRC2014_ID of each image (1-based; 0 = unknown, never matches)
    blacklist : int64 (B,)     1-based image rows as listed in the blacklist file, duplicates and
                               out-of-range rows kept (the official denominator counts them all)
    has_boxes : bool           whether XML boxes were read (localisation needs them)
    ground_truth_file, blacklist_file : the files read, or ``None``
    """

    wnids: tuple[str, ...]
    gt_label: npt.NDArray[np.int64]
    blacklist: npt.NDArray[np.int64]
    has_boxes: bool
    ground_truth_file: Path | None = None
    blacklist_file: Path | None = None

    def __post_init__(self) -> None:
        for name in ("gt_label", "blacklist"):
            object.__setattr__(self, name, frozen(getattr(self, name), np.int64))


@dataclass(frozen=True, eq=False)
class ClslocGuesses:
    """A CLS-LOC submission (``ResultSet.data(IlsvrcClslocInfo)``), one row per image.

    label : int64 (I, G)       ILSVRC2014_ID of guess ``j`` (0 = no guess: the padding the
                               official ``dlmread`` gives short lines; never matches)
    box : float64 (I, G, 4)    xmin ymin xmax ymax as written ("voc" convention)
    line : int64 (I,)          1-based line of each image in the submission file
    """

    label: npt.NDArray[np.int64]
    box: npt.NDArray[np.float64]
    line: npt.NDArray[np.int64]

    def __post_init__(self) -> None:
        object.__setattr__(self, "label", frozen(self.label, np.int64))
        object.__setattr__(self, "box", frozen(self.box, np.float64))
        object.__setattr__(self, "line", frozen(self.line, np.int64))


@dataclass(frozen=True)
class UnlistedImages:
    """DET predictions on image ids outside the evaluation list (a ``ResultSet``'s record):
    image id -> how many; the official code skips them."""

    counts: Mapping[int, int]

    @staticmethod
    def of(results: ResultSet) -> dict[int, int]:
        """The counts ``results`` carries (empty if none)."""
        record = results.data_or_none(UnlistedImages)
        return dict(record.counts) if record is not None else {}
