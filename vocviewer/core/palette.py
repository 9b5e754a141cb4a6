"""The PASCAL VOC label colour map (the devkit's ``VOClabelcolormap``).

Label ``k`` gets its colour by spreading the bits of ``k`` over the three channels: bit ``3j``
goes to red, bit ``3j + 1`` to green and bit ``3j + 2`` to blue, each at bit position ``7 - j``
of its channel (``j = 0..7``), so label bits fill each channel from the most significant bit down.
Label 0 (background) is black, 1 is ``(128, 0, 0)`` and 255 (void) ``(224, 224, 192)``.
The devkit returns the map divided by 255; here it stays ``uint8`` as a PNG palette needs it.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

#: The "void" / "don't care" label of VOC segmentation ground truth.
VOID_LABEL = 255
#: Number of segmentation labels: background plus the 20 classes.
VOC_SEG_LABELS = 21


def voc_colormap(n: int = 256) -> npt.NDArray[np.uint8]:
    """The colours of labels ``0 .. n - 1``, ``uint8 (n, 3)`` RGB.

    >>> voc_colormap(3).tolist()
    [[0, 0, 0], [128, 0, 0], [0, 128, 0]]
    >>> voc_colormap()[255].tolist()
    [224, 224, 192]
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    ids = np.arange(n, dtype=np.int64)
    cmap = np.zeros((n, 3), dtype=np.int64)
    for j in range(8):
        for channel in range(3):
            cmap[:, channel] |= ((ids >> (3 * j + channel)) & 1) << (7 - j)
    return cmap.astype(np.uint8)


def voc_palette_bytes() -> bytes:
    """The 256-entry colour map as the 768 bytes ``PIL.Image.putpalette`` takes."""
    return voc_colormap(256).tobytes()
