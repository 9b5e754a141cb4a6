"""Pixel layers drawn over an image, built in the image-decode worker (numpy → ``QImage``).

``decode_view`` reads the image file and, when asked, the layers that need per-pixel work: COCO
instance masks (RLE decoded, one translucent colour per instance, outlines, crowd regions hatched)
and a VOC segmentation PNG (palette colours, void hatched white). The GUI thread only turns the
``QImage`` objects into pixmaps. Arrays are ``(H, W)`` image rows × columns, 0-based. A layer part
that cannot be read (an unreadable mask or label PNG) is left out and named in
``Decoded.problems``, which the view posts to the message area.
"""

from __future__ import annotations

import colorsys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt
from PySide6.QtGui import QImage

from vocviewer.core.dataset import Dataset
from vocviewer.core.palette import category_tint
from vocviewer.families.views import view_extras
from vocviewer.formats.image_file import read_rgb

Rgba = npt.NDArray[np.uint8]
FILL_ALPHA, EDGE_ALPHA, CROWD_ALPHA = 105, 235, 150
#: Segmentation views: label-PNG folder per mode.
SEG_FOLDERS = {"class": "SegmentationClass", "object": "SegmentationObject"}


@dataclass(frozen=True)
class Decoded:
    """What the decode worker hands the view: the image, named RGBA layers (same size) and
    what could not be drawn (``file: reason`` lines)."""

    image: QImage
    layers: dict[str, QImage] = field(default_factory=dict)
    problems: tuple[str, ...] = ()


def instance_color(i: int) -> tuple[int, int, int]:
    """A distinct saturated colour for instance ``i`` (golden-ratio hue steps)."""
    r, g, b = colorsys.hsv_to_rgb((0.13 + i * 0.618034) % 1.0, 0.75, 1.0)
    return int(r * 255), int(g * 255), int(b * 255)


def _edges(mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    inner = mask.copy()
    inner[1:, :] &= mask[:-1, :]
    inner[:-1, :] &= mask[1:, :]
    inner[:, 1:] &= mask[:, :-1]
    inner[:, :-1] &= mask[:, 1:]
    return mask & ~inner


def _stripes(h: int, w: int, period: int = 8) -> npt.NDArray[np.bool_]:
    y, x = np.ogrid[:h, :w]
    return ((x + y) % period) < period // 2


def decode_window(counts: npt.ArrayLike, mh: int, mw: int, h: int, w: int) -> npt.NDArray[np.bool_]:
    """The ``[:h, :w]`` part of the column-major RLE ``counts`` of an ``mh x mw`` mask, as
    ``bool (h, w)`` (zero-padded where the mask is smaller); allocates about ``h x w``, whatever
    size the RLE declares. ``ValueError`` for a negative run."""
    c = np.asarray(counts, dtype=np.int64)
    if (c < 0).any():
        raise ValueError("negative run length")
    out = np.zeros((h, w), dtype=bool)
    cols, rows = min(mw, w), min(mh, h)
    if cols <= 0 or rows <= 0:
        return out
    ends = np.cumsum(c)
    s, e = (ends - c)[1::2], ends[1::2]  # foreground runs [s, e) in column-major pixel order
    keep = (e > s) & (s < mh * cols)
    s, e = s[keep], np.minimum(e[keep], mh * cols)
    first = s // mh
    n = (e - 1) // mh - first + 1  # columns each run touches (runs are disjoint: sum bounded)
    run = np.repeat(np.arange(len(s)), n)
    col = first[run] + np.arange(len(run)) - np.repeat(np.cumsum(n) - n, n)
    lo = np.clip(s[run] - col * mh, 0, rows)
    hi = np.clip(e[run] - col * mh, 0, rows)
    ok = lo < hi
    step = np.zeros((cols, rows + 1), dtype=np.int8)
    np.add.at(step, (col[ok], lo[ok]), 1)
    np.add.at(step, (col[ok], hi[ok]), -1)
    out[:rows, :cols] = (np.cumsum(step, axis=1, dtype=np.int8)[:, :rows] > 0).T
    return out


def instance_layer(
    dataset: Dataset, image: int, h: int, w: int, problems: list[str] | None = None
) -> Rgba | None:
    """RGBA ``(h, w, 4)`` of the image's instance masks (``ViewExtras.masks``; largest first, so
    small ones stay visible); crowd regions are hatched. ``None`` without masks. Only the image's
    part of each mask is decoded (``decode_window``), whatever size its RLE declares; a mask that
    cannot be decoded is left out and named in ``problems``."""
    ex = view_extras(dataset)
    sl = dataset.objects_of(image)
    masks = ex.masks
    if masks is None or sl.stop == sl.start:
        return None
    out = np.zeros((h, w, 4), dtype=np.uint8)
    stripes = _stripes(h, w)
    area = ex.mask_area[sl] if ex.mask_area is not None else np.zeros(sl.stop - sl.start)
    crowd = ex.crowd if ex.crowd is not None else np.zeros(len(dataset.objects), bool)
    order = np.argsort(-np.nan_to_num(area), kind="stable")
    for row in (sl.start + order).tolist():
        mh, mw = int(masks.height[row]), int(masks.width[row])
        if mh <= 0 or mw <= 0:
            continue
        try:
            m = decode_window(masks[row], mh, mw, h, w)
        except (ValueError, MemoryError) as e:  # negative runs
            if problems is not None:
                ann = int(ex.mask_ids[row]) if ex.mask_ids is not None else row
                where = f"{dataset.root or dataset.name} (annotation id {ann})"
                problems.append(f"{where}: mask not drawn: {e}")
            continue
        # near-white category tints, never a verdict colour; neighbours differ in saturation
        rgb = category_tint(int(dataset.objects.label[row]), 0.08 + 0.06 * ((row - sl.start) % 3))
        if crowd[row]:
            fill = m & stripes
            out[fill, :3], out[fill, 3] = rgb, CROWD_ALPHA
        else:
            out[m, :3], out[m, 3] = rgb, FILL_ALPHA
        e = _edges(m)
        out[e, :3], out[e, 3] = rgb, EDGE_ALPHA
    return out


def segmentation_layer(path: Path, problems: list[str] | None = None) -> Rgba | None:
    """RGBA of a VOC label PNG: palette colours (opaque), background clear, void (255) as a
    white hatch. ``None`` if the file is absent or unreadable (then named in ``problems``)."""
    from vocviewer.core.errors import FormatError
    from vocviewer.core.palette import voc_colormap
    from vocviewer.formats.label_png import read_label_png

    if not path.is_file():
        return None
    try:
        labels = read_label_png(path)
    except (FormatError, OSError) as e:
        if problems is not None:
            problems.append(f"segmentation not drawn: {e}")
        return None
    h, w = labels.shape
    out = np.zeros((h, w, 4), dtype=np.uint8)
    out[..., :3] = voc_colormap(256)[labels]
    out[..., 3] = np.where((labels > 0) & (labels < 255), 255, 0)
    void = (labels == 255) & _stripes(h, w, 6)
    out[void] = (255, 255, 255, 230)
    return out


def to_qimage(rgba: Rgba) -> QImage:
    h, w = rgba.shape[:2]
    data = np.ascontiguousarray(rgba)
    return QImage(data.data, w, h, 4 * w, QImage.Format.Format_RGBA8888).copy()


def segmentation_path(dataset: Dataset, image: int, mode: str) -> Path | None:
    """``SegmentationClass/<id>.png`` or ``SegmentationObject/<id>.png`` of a VOC image
    (``mode`` ``"class"`` / ``"object"``), or ``<folder>/<id>.png`` of a result set's label
    PNGs (``mode`` ``"result:<folder>"``)."""
    image_id = f"{dataset.images.id[image]}.png"
    if mode.startswith("result:"):
        return Path(mode.removeprefix("result:")) / image_id
    if dataset.root is None or mode not in SEG_FOLDERS:
        return None
    return Path(dataset.root) / SEG_FOLDERS[mode] / image_id


def decode_view(
    path: Path, dataset: Dataset | None = None, image: int = -1, seg_mode: str | None = None
) -> Decoded:
    """Read the image (``FormatError`` naming the file on failure) and its layers: ``"masks"`` (COCO) and
    ``"segmentation"`` (VOC, when ``seg_mode`` is ``"class"`` or ``"object"``)."""
    rgb = read_rgb(path)  # FormatError naming the file: bomb, truncated, not an image
    h, w = rgb.shape[:2]
    qimage = QImage(rgb.tobytes(), w, h, 3 * w, QImage.Format.Format_RGB888).copy()
    layers: dict[str, QImage] = {}
    problems: list[str] = []
    if dataset is not None and image >= 0:
        masks = instance_layer(dataset, image, h, w, problems)
        if masks is not None:
            layers["masks"] = to_qimage(masks)
        seg_file = segmentation_path(dataset, image, seg_mode) if seg_mode else None
        seg = segmentation_layer(seg_file, problems) if seg_file is not None else None
        if seg is not None:
            layers["segmentation"] = to_qimage(seg)
    return Decoded(qimage, layers, tuple(problems))


def _decode_each(
    dataset: Dataset, images: list[int], seg_mode: str | None
) -> Iterator[tuple[int, Decoded]]:
    """Worker: decode each image row (skipping unreadable files: their error is shown when they
    are), yielding ``(row, Decoded)``."""
    for i in images:
        try:
            yield i, decode_view(dataset.images.path[i], dataset, i, seg_mode)
        except Exception:  # reported when the image itself is shown
            continue


def decode_image(path: Path) -> QImage:
    """Read an image file into an RGB ``QImage`` (worker thread).

    Raises ``FormatError`` naming the file when it is missing, not a regular file, declares more
    than ``MAX_IMAGE_PIXELS`` (a decompression bomb) or is truncated / not an image.
    """
    rgb = read_rgb(path)
    h, w = rgb.shape[:2]
    return QImage(rgb.tobytes(), w, h, 3 * w, QImage.Format.Format_RGB888).copy()
