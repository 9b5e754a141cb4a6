"""ILSVRC extras: synsets, evaluation image ids and the blacklist, columnar.

``Dataset.extras["ilsvrc"]`` is an ``IlsvrcDetInfo``. ``Dataset.classes`` holds the synset
names in DET_ID order, so ``ObjectTable.label == DET_ID - 1``; boxes are ``"voc"`` (1-based,
inclusive), exactly as written in the XML.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vocviewer.core.arrays import frozen


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
