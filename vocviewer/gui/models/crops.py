"""Crops of boxes for the patches view: cut and scaled off the GUI thread, cached like thumbnails.

``decode_crops`` (run by a ``worker.Worker``) cuts each requested box, with some context around
it (``crop_region``), out of its image file and scales it to fit the cell; consecutive crops of
one file decode the file once (a few decoded files are kept while the job runs). A
``CropLoader`` is a ``ThumbnailLoader`` whose keys are patches rather than image rows: the same
latest-wins job, byte-bounded cache and remembered unreadable files.
"""

from __future__ import annotations

import math
import warnings
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from vocviewer.core.errors import FormatError
from vocviewer.formats.image_file import open_image
from vocviewer.gui.models.thumbnails import Thumbnail, ThumbnailLoader, Unreadable, to_qimage
from vocviewer.gui.models.worker import Worker

#: Context kept around a box, as a fraction of its larger side (each side), and at least pixels.
CONTEXT, MIN_CONTEXT = 0.2, 4.0
#: Decoded image files kept by one job (crops come sorted by score, not by file).
FILES_KEPT = 8
Box = tuple[float, float, float, float]


@dataclass(frozen=True, eq=False)
class Crop(Thumbnail):
    """A decoded crop: ``image`` shows ``region`` (x1, y1, x2, y2 continuous pixels of the
    ``width`` x ``height`` file) scaled to fit the cell."""

    region: Box = (0.0, 0.0, 0.0, 0.0)


def crop_region(box: Box, width: float, height: float) -> Box:
    """``box`` (continuous pixels) grown by ``CONTEXT`` of its larger side on every side (at
    least ``MIN_CONTEXT``), clipped to the ``width`` x ``height`` image, at least one pixel."""
    x1, y1, x2, y2 = (float(v) if math.isfinite(v) else 0.0 for v in box)
    pad = max(MIN_CONTEXT, CONTEXT * max(x2 - x1, y2 - y1, 0.0))
    x1, y1 = max(0.0, min(x1 - pad, width - 1)), max(0.0, min(y1 - pad, height - 1))
    x2, y2 = min(width, max(x2 + pad, x1 + 1)), min(height, max(y2 + pad, y1 + 1))
    return (math.floor(x1), math.floor(y1), math.ceil(x2), math.ceil(y2))


def _load(path: str) -> Image.Image:
    with open_image(Path(path)) as img:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                return img.convert("RGB")
        except Exception as exc:  # any Pillow failure on a bad file, MemoryError included
            reason = str(exc) or type(exc).__name__
            raise FormatError(
                path, f"cannot be decoded ({reason}); truncated or corrupt?"
            ) from None


def cut(full: Image.Image, box: Box, width: int, height: int, ratio: float) -> Crop:
    """The crop of ``box`` out of decoded ``full`` scaled to fit ``width`` x ``height`` logical
    pixels at device pixel ratio ``ratio`` (small boxes are enlarged)."""
    region = crop_region(box, *full.size)
    rw, rh = region[2] - region[0], region[3] - region[1]
    scale = min(width * ratio / max(rw, 1.0), height * ratio / max(rh, 1.0))
    size = (max(1, round(rw * scale)), max(1, round(rh * scale)))
    part = full.resize(size, Image.Resampling.BILINEAR, box=region, reducing_gap=2.0)
    image = to_qimage(part)
    image.setDevicePixelRatio(ratio)
    return Crop(image, full.size[0], full.size[1], region)


def decode_crops(
    jobs: Sequence[tuple[int, str, Box]], width: int, height: int, ratio: float
) -> Iterator[tuple[int, Crop | Unreadable]]:
    """Worker: ``(key, crop or Unreadable)`` for each ``(key, path, box)``, in order."""
    files: OrderedDict[str, Image.Image | Unreadable] = OrderedDict()
    for key, path, box in jobs:
        full = files.get(path)
        if full is None:
            try:
                full = _load(path)
            except FormatError as exc:
                full = Unreadable(exc.message, missing=not Path(path).exists())
            except OSError as exc:
                full = Unreadable(exc.strerror or str(exc), missing=not Path(path).exists())
            files[path] = full
            if len(files) > FILES_KEPT:
                files.popitem(last=False)
        else:
            files.move_to_end(path)
        yield key, full if isinstance(full, Unreadable) else cut(full, box, width, height, ratio)


class CropLoader(ThumbnailLoader):
    """Crops by patch key (an int the view chooses, stable while the dataset and result set
    stay), decoded ``request_crops`` at a time into the thumbnail cache."""

    def request_crops(self, items: Sequence[tuple[int, int, Box]]) -> None:
        """Cut these ``(key, image row, box)`` (first first; continuous pixels) that are not
        cached; replaces any running job unless it already covers them in the same order."""
        ds = self.dataset
        if ds is None:
            return
        todo = [item for item in items if not self.has(item[0])]
        keys = tuple(item[0] for item in todo)
        if not todo:
            self.cancel()
            return
        if self.requested[-len(keys) :] == keys and self._jobs.running_keys():
            return
        self.requested = keys
        jobs = [(key, str(ds.images.path[image]), box) for key, image, box in todo]
        worker = Worker(decode_crops, jobs, self.size[0], self.size[1], self.ratio)
        self._jobs.start("crops", worker, on_yielded=self._on_decoded)
