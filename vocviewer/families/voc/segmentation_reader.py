"""VOC segmentation PNGs: ground truth (``SegmentationClass/<id>.png``) and results.

Both are indexed (palette) PNGs whose pixel *indices* are the labels: 0 background, 1-20 the
classes in ``VOC_CLASSES`` order, 255 void (ground truth only). The palette colours are never
read. An 8-bit greyscale PNG is read as its grey values, as MATLAB's ``imread`` (and so the
official ``VOCevalseg``) reads it, although the devkit manual asks for indexed PNGs; any other
mode (RGB colours) is refused with a message rather than mapped back. Every PNG is opened through
``formats.image_file``: regular files only, declared size checked before decoding (result PNGs
against their ground truth's), decompression bombs and truncated files a ``FormatError``.
Results live in ``<results>/Segmentation/<comp>_<set>_cls/<id>.png`` (``VOCinit.m``); any folder
of ``<id>.png`` files is accepted too. Written PNGs use the VOC palette and are replaced atomically.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from PIL import Image

from vocviewer.core.errors import FormatError
from vocviewer.core.palette import voc_palette_bytes
from vocviewer.core.results import LabelImageResults
from vocviewer.formats.image_file import declared_size
from vocviewer.formats.label_png import LabelImage, read_label_png
from vocviewer.formats.output import write_bytes

#: ``<comp>_<set>_cls`` result folder names; the competition is ``compN`` by convention.
SEG_RESULT_DIR = re.compile(r"^(?P<comp>comp\d+|.+?)_(?P<set>.+)_cls$")


def write_label_png(path: str | Path, labels: npt.ArrayLike) -> Path:
    """Write ``labels`` (integers 0-255, shape (H, W)) as an indexed PNG with the VOC palette.

    The file appears complete or not at all (written beside it, then renamed).
    """
    target = Path(path)
    arr = np.asarray(labels)
    if arr.ndim != 2:
        raise ValueError(f"labels must be 2-D (H, W), got shape {arr.shape}")
    if arr.size and (arr.min() < 0 or arr.max() > 255):
        raise ValueError("labels must lie in 0..255")
    img = Image.frombytes("P", (arr.shape[1], arr.shape[0]), arr.astype(np.uint8).tobytes())
    img.putpalette(voc_palette_bytes())
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return write_bytes(target, buf.getvalue())


def write_segmentations(
    folder: str | Path, labels_by_id: Mapping[str, npt.ArrayLike]
) -> list[Path]:
    """Write one ``<id>.png`` per entry into ``folder`` (created if needed); the paths written."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    return [write_label_png(out / f"{image_id}.png", arr) for image_id, arr in labels_by_id.items()]


@dataclass(frozen=True)
class SegResultFolder(LabelImageResults):
    """A folder of result PNGs and what its name says (``None`` when it says nothing)."""

    competition: str | None
    image_set: str | None

    def png(self, image_id: str) -> Path:
        """Where the result for ``image_id`` is expected."""
        return self.folder / f"{image_id}.png"


def find_segmentation_results(path: str | Path, image_set: str | None = None) -> SegResultFolder:
    """The segmentation result folder meant by ``path``.

    ``path`` may be a devkit results folder (``results/VOC2012``, holding ``Segmentation/``), its
    ``Segmentation/`` folder, a ``<comp>_<set>_cls`` folder, or any folder of ``<id>.png`` files.
    With several ``<comp>_<set>_cls`` folders, ``image_set`` must select exactly one.

    Raises
    ------
    FormatError
        ``path`` does not exist, is not a folder, or does not name one result folder.
    """
    p = Path(path)
    if not p.exists():
        raise FormatError(p, "does not exist")
    if not p.is_dir():
        raise FormatError(p, "is a file; expected a folder of segmentation result PNGs")
    base = p / "Segmentation" if (p / "Segmentation").is_dir() else p
    named = sorted(
        (d, m) for d in base.iterdir() if d.is_dir() and (m := SEG_RESULT_DIR.match(d.name))
    )
    if image_set is not None:
        named = [(d, m) for d, m in named if m["set"] == image_set]
    if len(named) == 1:
        d, m = named[0]
        return SegResultFolder(d, m["comp"], m["set"])
    if len(named) > 1:
        names = ", ".join(d.name for d, _ in named)
        raise FormatError(base, f"holds several result folders ({names}); choose one")
    m = SEG_RESULT_DIR.match(p.name)
    if m is not None or any(p.glob("*.png")):
        return SegResultFolder(p, m["comp"] if m else None, m["set"] if m else None)
    wanted = f"<comp>_{image_set}_cls" if image_set else "<comp>_<set>_cls"
    raise FormatError(p, f"no segmentation results here: expected {wanted}/ or <id>.png files")


class LabelPngLoader:
    """``id → label image`` for ``evaluate_voc_seg``: reads ``<folder>/<id>.png``.

    ``path_of(id)`` names the file, so problems can point at it; ``declared_size(id)`` reads only
    the header, so a result's size can be compared with its ground truth's before decoding.
    """

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)

    def path_of(self, image_id: str) -> Path:
        """The PNG read for ``image_id``."""
        return self.folder / f"{image_id}.png"

    def declared_size(self, image_id: str) -> tuple[int, int]:
        """``(width, height)`` from the PNG header of ``image_id``."""
        return declared_size(self.path_of(image_id))

    def __call__(self, image_id: str) -> LabelImage:
        return read_label_png(self.path_of(image_id))
