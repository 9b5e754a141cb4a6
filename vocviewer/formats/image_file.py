"""Bounded image decoding with Pillow: one place that opens pictures and label PNGs.

An image file is opened only if it is a regular file (``formats.input.check_regular``); its
declared size is read from the header and checked with ``check_image_size`` (at most
``MAX_IMAGE_PIXELS``, Pillow's own decompression-bomb error threshold) *before* any pixel is
decoded. Pillow's ``DecompressionBombError`` becomes a ``FormatError`` naming the file; its
``DecompressionBombWarning`` (images between half and all of that limit) is silenced, since the
size was already checked against the shared limit. Truncated or garbage data is a ``FormatError``
too, never a traceback or a partial picture. Pixels are decoded from the file's bytes, read once
with ``formats.input.read_bytes`` (bounded): a chunk length declared in a PNG can then never make
Pillow allocate more than the file holds; any error Pillow raises (``MemoryError`` included)
becomes a ``FormatError`` naming the file.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import numpy as np
import numpy.typing as npt
from PIL import Image, UnidentifiedImageError

from vocviewer.core.errors import FormatError
from vocviewer.formats.input import check_image_size, check_regular, read_bytes

T = TypeVar("T")


@contextmanager
def open_image(path: str | Path, *, whole: bool = False) -> Iterator[Image.Image]:
    """An opened (not yet decoded) Pillow image of the regular file ``path``, size checked.

    ``whole``: open it over the file's bytes, read at once (for decoding); otherwise over the
    file itself, of which only the header is read. Raises ``FormatError`` for a missing or
    non-regular file, an unknown format, a declared size over ``MAX_IMAGE_PIXELS`` (or not
    positive), a decompression bomb and any other error Pillow raises while reading the header.
    """
    p = Path(path)
    source: Path | io.BytesIO = io.BytesIO(read_bytes(p)) if whole else p
    if not whole:
        check_regular(p)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            img = Image.open(source)
    except Image.DecompressionBombError as exc:
        raise FormatError(p, f"refused as a decompression bomb: {str(exc).rstrip('.')}") from None
    except FileNotFoundError:
        raise FormatError(p, "does not exist") from None
    except UnidentifiedImageError as exc:
        raise FormatError(p, f"cannot be read as an image ({exc})") from None
    except Exception as exc:  # any Pillow failure on hostile bytes, MemoryError included
        raise FormatError(p, f"cannot be read as an image ({_reason(exc)})") from None
    with img:
        w, h = img.size
        check_image_size(p, w, h)
        yield img


def _reason(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


def decode(path: str | Path, convert: Callable[[Image.Image], T]) -> T:
    """``convert(image)`` on the opened, size-checked image; decoding errors → ``FormatError``.

    ``convert`` does the decoding (``np.array(img)``, ``img.convert("RGB")``...); a truncated or
    corrupt file raises inside it and is reported naming ``path``.
    """
    p = Path(path)
    with open_image(p, whole=True) as img:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                return convert(img)
        except FormatError:
            raise
        except Exception as exc:  # any Pillow failure on hostile bytes, MemoryError included
            raise FormatError(
                p, f"cannot be decoded ({_reason(exc)}); truncated or corrupt?"
            ) from None


def read_rgb(path: str | Path) -> npt.NDArray[np.uint8]:
    """The picture at ``path`` as ``uint8 (H, W, 3)`` RGB."""
    return decode(path, lambda img: np.asarray(img.convert("RGB"), dtype=np.uint8))


def declared_size(path: str | Path) -> tuple[int, int]:
    """``(width, height)`` from the header of the image at ``path`` (nothing decoded)."""
    with open_image(path) as img:
        w, h = img.size
    return int(w), int(h)
