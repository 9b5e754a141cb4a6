"""The annotation tools' own model: images with their boxes and polygons, as CVAT and LabelMe
write them, before any protocol's conversion (``convert``).

Coordinates are the tools' own: continuous pixel coordinates, ``(0, 0)`` the top-left corner of
the top-left pixel (CVAT's ``xtl ytl xbr ybr``, LabelMe's ``points``), kept as written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

#: attribute / flag names read as the protocols' flags (case-insensitive; "true", "1", "yes")
CROWD_NAMES = ("iscrowd", "is_crowd", "crowd")
DIFFICULT_NAMES = ("difficult",)
TRUNCATED_NAMES = ("truncated",)
OCCLUDED_NAMES = ("occluded",)
_TRUE = ("true", "1", "yes")


@dataclass(frozen=True)
class Shape:
    """One box or polygon. ``kind`` ``"box"`` (``points`` = x1, y1, x2, y2) or ``"polygon"``
    (``points`` = x1, y1, x2, y2, ... at least three vertices); ``group`` joins shapes into one
    object (LabelMe's ``group_id``; ``None``: the shape alone); ``attributes`` are the tool's
    attributes (CVAT) or flags (LabelMe) as text; ``where`` locates it in its file."""

    label: str
    kind: str
    points: tuple[float, ...]
    occluded: bool = False
    attributes: Mapping[str, str] = field(default_factory=dict)
    group: str | None = None
    where: str = ""

    def flag(self, names: tuple[str, ...]) -> bool:
        """Whether one of the attributes ``names`` is true."""
        lowered = {k.lower(): v for k, v in self.attributes.items()}
        return any(lowered.get(n, "").strip().lower() in _TRUE for n in names)

    @property
    def crowd(self) -> bool:
        return self.flag(CROWD_NAMES)

    @property
    def difficult(self) -> bool:
        return self.flag(DIFFICULT_NAMES)

    @property
    def truncated(self) -> bool:
        return self.flag(TRUNCATED_NAMES)

    def extent(self) -> tuple[float, float, float, float]:
        """``x1, y1, x2, y2``: the box, or the polygon's points' extent."""
        xs, ys = self.points[0::2], self.points[1::2]
        return min(xs), min(ys), max(xs), max(ys)

    def polygon(self) -> list[float]:
        """The shape as a polygon (a box as its four corners, clockwise from the top left)."""
        if self.kind == "polygon":
            return list(self.points)
        x1, y1, x2, y2 = self.extent()
        return [x1, y1, x2, y1, x2, y2, x1, y2]


@dataclass(frozen=True)
class SourceImage:
    """One image: ``id`` (CVAT's ``<image id>``; LabelMe: 1-based in file-name order), ``name``
    its file relative to the image folder, its size in pixels and its shapes in file order."""

    id: int
    name: str
    width: int
    height: int
    shapes: tuple[Shape, ...]


@dataclass(frozen=True)
class Annotated:
    """What a CVAT XML or a LabelMe folder holds. ``fmt`` names the format, ``path`` the file or
    folder, ``image_dir`` where ``SourceImage.name`` is found, ``labels`` the classes (CVAT's
    ``<meta>`` labels first, then any other in order of appearance; LabelMe: sorted)."""

    fmt: str
    path: Path
    image_dir: Path
    labels: tuple[str, ...]
    images: tuple[SourceImage, ...]

    def objects(self, image: SourceImage) -> list[list[Shape]]:
        """The image's objects: its shapes grouped by (label, ``group``), in order of first
        appearance; an ungrouped shape is one object."""
        groups: dict[object, list[Shape]] = {}
        for k, s in enumerate(image.shapes):
            key: object = k if s.group is None else (s.label, s.group)
            groups.setdefault(key, []).append(s)
        return list(groups.values())

    def summary(self) -> str:
        """The one line of what was read: format, images, objects, classes, coordinates."""
        n_shapes = sum(len(im.shapes) for im in self.images)
        n_objects = sum(len(self.objects(im)) for im in self.images)
        grouped = f" in {n_objects} objects" if n_objects != n_shapes else ""
        return (
            f"{self.path}: {self.fmt}, {len(self.images)} images, {n_shapes} shapes{grouped}, "
            f"{len(self.labels)} classes; pixel coordinates (x, y from the top-left corner), "
            "boxes as corners"
        )
