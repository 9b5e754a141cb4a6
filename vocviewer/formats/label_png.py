"""Label PNGs: images whose pixel values are class labels (VOC segmentation ground truth and
results), read as ``uint8 (H, W)``; every file opened through ``formats.image_file`` (regular
files only, declared size checked before decoding, bombs and truncated files a ``FormatError``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
from PIL import Image

from vocviewer.core.errors import FormatError
from vocviewer.formats.image_file import decode

LabelImage = npt.NDArray[np.uint8]

#: Pillow modes read as labels: indexed (palette indices) and 8-bit greyscale (grey values).
LABEL_MODES = ("P", "L")


def read_label_png(path: str | Path, *, expect_size: tuple[int, int] | None = None) -> LabelImage:
    """The labels of a label PNG, ``uint8 (H, W)`` (row = y, column = x, 0-based).

    An indexed ("P") PNG gives its palette indices; an 8-bit greyscale ("L") PNG its grey values
    (what MATLAB's ``imread`` returns, so the official code evaluates those too, although the
    devkit asks for indexed PNGs). ``expect_size`` ``(width, height)``: the declared size must
    equal it, checked before anything is decoded.

    Raises
    ------
    FormatError
        The file is missing, not a regular file, not an image, truncated, over the pixel limit
        (a decompression bomb), of another size than ``expect_size``, or of another mode (RGB
        colours are refused rather than guessed back into labels).
    """
    p = Path(path)

    def labels(img: Image.Image) -> LabelImage:
        if img.mode not in LABEL_MODES:
            raise FormatError(
                p,
                f"is a {img.mode!r} image; expected an indexed ('P') or 8-bit greyscale ('L') "
                "PNG whose pixel values are the labels 0-20 (255 void in ground truth); colours "
                "are not mapped back to labels",
            )
        if expect_size is not None and tuple(img.size) != tuple(expect_size):
            w, h = img.size
            raise FormatError(
                p, f"is {w}x{h} but the ground truth is {expect_size[0]}x{expect_size[1]}"
            )
        return np.array(img, dtype=np.uint8)

    return decode(p, labels)
