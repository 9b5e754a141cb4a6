"""Thumbnails of a dataset's images: decoded off the GUI thread, kept in a bytes-bounded cache.

``decode_thumbnail`` reads one image file small (Pillow's ``draft`` lets the JPEG decoder scale
by 1/2, 1/4 or 1/8 while decoding, then ``thumbnail`` resamples to the requested size) into a
``QImage`` in the painter's native 32-bit format, so painting it never converts. A
``ThumbnailLoader`` asks for the images a view shows, one ``worker.Jobs`` job at a time
(latest wins: a scroll replaces the request, and what the old job still reports is dropped);
decoded thumbnails land in a ``ThumbnailCache``, least recently used evicted first once its
byte budget is reached. A file that cannot be read is remembered with the reason (shown in the
cell), never retried while the dataset stays open.
"""

from __future__ import annotations

import sys
import warnings
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import Image
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QImage

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.formats.image_file import open_image
from vocviewer.gui.models.worker import Jobs, Worker

#: Default cache budget: about 200 thumbnails of 320 x 240 (device pixels), 1,000 of 160 x 120.
DEFAULT_CACHE_BYTES = 64 << 20
#: Pillow's raw mode for ``QImage.Format_ARGB32`` (``0xAARRGGBB`` in native byte order).
_ARGB32_RAW = "BGRA" if sys.byteorder == "little" else "ARGB"


def to_qimage(picture: Image.Image) -> QImage:
    """An RGB Pillow image as a ``QImage`` in the painter's native 32-bit format, owning its
    pixels, every alpha byte 0xff (Pillow's "BGRX" pads with 0, which some paint paths, e.g.
    ``QWidget.grab``, take for transparent)."""
    w, h = picture.size
    raw = picture.convert("RGBA").tobytes("raw", _ARGB32_RAW)
    image = QImage(raw, w, h, 4 * w, QImage.Format.Format_ARGB32)
    return image.convertToFormat(QImage.Format.Format_RGB32)  # a copy


@dataclass(frozen=True, eq=False)
class Thumbnail:
    """A decoded thumbnail: ``image`` (RGB32, device pixels, its device pixel ratio set) and the
    file's full ``width`` x ``height`` in pixels, which box coordinates refer to."""

    image: QImage
    width: int
    height: int

    @property
    def nbytes(self) -> int:
        return int(self.image.sizeInBytes())


@dataclass(frozen=True)
class Unreadable:
    """An image file that could not be decoded, and why (one line); ``missing``: there is no
    file at that path."""

    reason: str
    missing: bool = False

    nbytes = 64


def decode_thumbnail(path: str | Path, width: int, height: int, ratio: float = 1.0) -> Thumbnail:
    """The picture at ``path`` scaled to fit ``width`` x ``height`` logical pixels (never
    enlarged) at device pixel ratio ``ratio``. Raises ``FormatError`` naming the file if it is
    missing, not a regular file, too large, or not a decodable image."""
    p = Path(path)
    box = (max(1, round(width * ratio)), max(1, round(height * ratio)))
    with open_image(p) as img:
        full = img.size
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                img.draft("RGB", box)  # JPEG: decode at 1/2 .. 1/8 scale directly
                small = img.convert("RGB") if img.mode != "RGB" else img
                small.thumbnail(box, Image.Resampling.BILINEAR, reducing_gap=2.0)
                image = to_qimage(small)
        except Exception as exc:  # any Pillow failure on a bad file, MemoryError included
            reason = str(exc) or type(exc).__name__
            raise FormatError(p, f"cannot be decoded ({reason}); truncated or corrupt?") from None
    image.setDevicePixelRatio(ratio)
    return Thumbnail(image, int(full[0]), int(full[1]))


def decode_each(
    jobs: Sequence[tuple[int, str]], width: int, height: int, ratio: float
) -> Iterator[tuple[int, Thumbnail | Unreadable]]:
    """Worker: ``(image row, thumbnail or Unreadable)`` for each ``(row, path)``, in order."""
    for row, path in jobs:
        try:
            yield row, decode_thumbnail(path, width, height, ratio)
        except FormatError as exc:
            yield row, Unreadable(exc.message, missing=not Path(path).exists())
        except OSError as exc:
            yield row, Unreadable(exc.strerror or str(exc), missing=not Path(path).exists())


class ThumbnailCache:
    """Least-recently-used thumbnails by key, holding at most ``max_bytes`` of pixels.

    ``get`` marks an entry used; ``put`` evicts the least recently used entries until the
    total fits (an entry larger than the whole budget is not kept)."""

    def __init__(self, max_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        self.max_bytes = int(max_bytes)
        self.nbytes = 0
        self._items: OrderedDict[object, Thumbnail | Unreadable] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def get(self, key: object) -> Thumbnail | Unreadable | None:
        item = self._items.get(key)
        if item is not None:
            self._items.move_to_end(key)
        return item

    def put(self, key: object, item: Thumbnail | Unreadable) -> None:
        old = self._items.pop(key, None)
        if old is not None:
            self.nbytes -= old.nbytes
        if item.nbytes > self.max_bytes:
            return
        self._items[key] = item
        self.nbytes += item.nbytes
        while self.nbytes > self.max_bytes:
            _, dropped = self._items.popitem(last=False)
            self.nbytes -= dropped.nbytes

    def set_max_bytes(self, max_bytes: int) -> None:
        """Change the budget, evicting at once if it shrank."""
        self.max_bytes = int(max_bytes)
        while self.nbytes > self.max_bytes and self._items:
            _, dropped = self._items.popitem(last=False)
            self.nbytes -= dropped.nbytes

    def clear(self) -> None:
        self._items.clear()
        self.nbytes = 0


class ThumbnailLoader(QObject):
    """Decodes the thumbnails a view asks for, one job at a time, into a ``ThumbnailCache``.

    ``request(rows)`` replaces the pending request with the image rows (in priority order) that
    are neither cached nor known unreadable; ``lookup(row)`` gives what is cached. The size is
    per loader (``set_size``); changing it or the dataset empties the cache.

    Signals
    -------
    thumbnail_ready(int)
        The thumbnail of this image row (or the reason it cannot be read) is now in the cache.
    """

    thumbnail_ready = Signal(int)

    def __init__(
        self,
        width: int,
        height: int,
        max_bytes: int = DEFAULT_CACHE_BYTES,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.cache = ThumbnailCache(max_bytes)
        self.dataset: Dataset | None = None
        self.size = (int(width), int(height))
        self.ratio = 1.0
        self.requested: tuple[int, ...] = ()  # the rows of the running job, in order
        self.decoded = 0  # thumbnails decoded since the loader was made (tests, benchmark)
        self._jobs = Jobs(self)
        self._unreadable: dict[int, Unreadable] = {}  # small: never evicted

    def _key(self, row: int) -> tuple[int, int, int, float]:
        return (row, *self.size, self.ratio)

    def set_dataset(self, dataset: Dataset | None) -> None:
        """Forget everything and decode from ``dataset`` from now on."""
        self._jobs.cancel_all()
        self.dataset = dataset
        self.cache.clear()
        self._unreadable.clear()
        self.requested = ()

    def set_size(self, width: int, height: int, ratio: float) -> None:
        """Thumbnails fit ``width`` x ``height`` logical pixels at device pixel ratio ``ratio``."""
        size = (int(width), int(height))
        if size != self.size or ratio != self.ratio:
            self._jobs.cancel_all()
            self.size, self.ratio = size, float(ratio)
            self.cache.clear()
            self.requested = ()

    def lookup(self, row: int) -> Thumbnail | Unreadable | None:
        """The cached thumbnail of image row ``row``, its ``Unreadable`` reason, or ``None``."""
        return self._unreadable.get(row) or self.cache.get(self._key(row))

    def has(self, row: int) -> bool:
        return row in self._unreadable or self._key(row) in self.cache

    def request(self, rows: Sequence[int]) -> None:
        """Decode these image rows (first first) that are not cached; replaces any running job
        unless it already covers them in the same order."""
        ds = self.dataset
        if ds is None:
            return
        todo = tuple(int(r) for r in rows if not self.has(int(r)))
        if not todo:
            self.cancel()
            return
        if self.requested[-len(todo) :] == todo and self._jobs.running_keys():
            return  # the running job still has exactly these left to do
        self.requested = todo
        paths = [(r, str(ds.images.path[r])) for r in todo]
        worker = Worker(decode_each, paths, self.size[0], self.size[1], self.ratio)
        self._jobs.start("thumbnails", worker, on_yielded=self._on_decoded)

    def cancel(self) -> None:
        self._jobs.cancel_all()
        self.requested = ()

    def busy(self) -> bool:
        """A decoding job is running."""
        return bool(self._jobs.running_keys())

    def _on_decoded(self, value: tuple[int, Thumbnail | Unreadable]) -> None:
        row, item = value
        self.decoded += 1
        if isinstance(item, Unreadable):
            self._unreadable[row] = item
        else:
            self.cache.put(self._key(row), item)
        self.thumbnail_ready.emit(row)
