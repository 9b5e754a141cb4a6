"""What of the model can be drawn, and where: one rule for every overlay (no Qt here).

Readers let result rows through with NaN or infinite coordinates (kept and evaluated, as the
official code evaluates them, but never drawn) and finite numbers of any size (``1e308``, boxes
far outside the image). Every overlay therefore draws only rows whose coordinates are all
finite, clamped into a band around the image (``clamp``): a box reaching far outside keeps its
look on screen, and no painter, label grid or scene ever sees a number it cannot handle.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vocviewer.core.boxes import to_continuous
from vocviewer.core.dataset import Dataset

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

#: What the inspector and the image say about a detection that is evaluated but not drawn.
NOT_DRAWN = "not drawn: non-finite coordinates"
#: The size assumed for an image whose size is unknown (VOC's typical 500 x 375).
DEFAULT_SIZE = (500, 375)
#: Largest placeholder side (scene units) for an image of unknown size.
MAX_PLACEHOLDER = 100_000


def finite_rows(values: npt.ArrayLike) -> BoolArray:
    """bool (N,): rows of ``values`` (N, K) whose numbers are all finite (one row if 1-D)."""
    a = np.atleast_2d(np.asarray(values, dtype=np.float64))
    return np.asarray(np.isfinite(a).all(axis=tuple(range(1, a.ndim))))


def band(width: float, height: float) -> tuple[float, float]:
    """``(lo, hi)`` scene coordinates drawn coordinates are clamped to: the image plus twice its
    largest side (at least 1000 pixels) on every side."""
    extent = max(float(width), float(height), 1000.0)
    return -2.0 * extent, 3.0 * extent


def clamp(values: npt.ArrayLike, width: float, height: float) -> FloatArray:
    """``values`` (finite) clamped into ``band(width, height)``, as float64."""
    lo, hi = band(width, height)
    return np.clip(np.asarray(values, dtype=np.float64), lo, hi)


def image_size(dataset: Dataset, image: int) -> tuple[float, float]:
    """Annotated ``(width, height)`` of image row ``image``; ``DEFAULT_SIZE`` where unknown."""
    w, h = float(dataset.images.width[image]), float(dataset.images.height[image])
    ok = np.isfinite(w) and np.isfinite(h) and w > 0 and h > 0
    return (w, h) if ok else (float(DEFAULT_SIZE[0]), float(DEFAULT_SIZE[1]))


def drawable_boxes(
    dataset: Dataset, image: int, boxes: npt.ArrayLike
) -> tuple[BoolArray, FloatArray]:
    """Which of ``boxes`` (N, 4, the dataset's convention) can be drawn on image row ``image``,
    and all of them in continuous coordinates, clamped (rows that cannot be drawn: zeros)."""
    out = to_continuous(boxes, dataset.box_convention)
    ok = finite_rows(out)
    out[~ok] = 0.0
    return ok, clamp(out, *image_size(dataset, image))


def placeholder_size(dataset: Dataset, image: int) -> tuple[int, int]:
    """Size of the grey stand-in for an image that cannot be shown: its annotated size, else one
    that covers its drawable boxes (at least ``DEFAULT_SIZE``, at most ``MAX_PLACEHOLDER``)."""
    w, h = float(dataset.images.width[image]), float(dataset.images.height[image])
    if np.isfinite(w) and np.isfinite(h) and w > 0 and h > 0:
        return int(min(w, MAX_PLACEHOLDER)), int(min(h, MAX_PLACEHOLDER))
    boxes = to_continuous(dataset.objects.box[dataset.objects_of(image)], dataset.box_convention)
    boxes = boxes[finite_rows(boxes)]
    size = [float(DEFAULT_SIZE[0]), float(DEFAULT_SIZE[1])]
    if len(boxes):
        size = [max(size[0], float(boxes[:, 2].max())), max(size[1], float(boxes[:, 3].max()))]
    return tuple(int(np.ceil(min(s, MAX_PLACEHOLDER))) for s in size)  # type: ignore[return-value]
