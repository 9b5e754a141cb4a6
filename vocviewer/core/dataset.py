"""``Dataset``: images, classes, image sets and ground truth as columnar numpy arrays.

All arrays are read-only after construction. Objects are stored sorted by image, in each image's
annotation order (XML order for VOC), so ``objects_of(i)`` is an O(1) slice through
``object_offsets``. Boxes follow ``core.boxes`` (``box_convention`` says how to read them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core.arrays import freeze_columns, frozen
from vocviewer.core.boxes import BoxConvention
from vocviewer.core.errors import FormatError
from vocviewer.core.family_data import FamilyData

IntArray = npt.NDArray[np.int64]

#: The 20 PASCAL VOC classes in devkit order (``VOCinit.m``); class index = position.
VOC_CLASSES: tuple[str, ...] = (
    "aeroplane",
    "bicycle",
    "bird",
    "boat",
    "bottle",
    "bus",
    "car",
    "cat",
    "chair",
    "cow",
    "diningtable",
    "dog",
    "horse",
    "motorbike",
    "person",
    "pottedplant",
    "sheep",
    "sofa",
    "train",
    "tvmonitor",
)
#: VOC2011+ action classes (``VOCinit.m``); 'other' first, as the devkit lists it.
VOC_ACTIONS: tuple[str, ...] = (
    "other",
    "jumping",
    "phoning",
    "playinginstrument",
    "reading",
    "ridingbike",
    "ridinghorse",
    "running",
    "takingphoto",
    "usingcomputer",
    "walking",
)
#: Person-layout part classes (``VOCinit.m``).
VOC_PARTS: tuple[str, ...] = ("head", "hand", "foot")
#: VOC pose values; index into this tuple is stored in ``ObjectTable.pose``.
VOC_POSES: tuple[str, ...] = ("Unspecified", "Left", "Right", "Frontal", "Rear")


@dataclass(frozen=True, eq=False)
class ImageTable:
    """Per-image columns, all of length ``I``.

    ``id`` is the image identifier (``2008_000123``), ``path`` the image file (may not exist; a
    tuple, or a ``core.paths.PathColumn`` that makes each ``Path`` when first read),
    ``width``/``height`` in pixels from the annotation (0 if unknown), ``segmented`` the
    annotation's ``<segmented>`` flag, ``fields`` the annotation's other image-level text fields
    by element path (``folder``, ``source/database``, ``source/annotation``, ``size/depth``, ...).
    """

    id: npt.NDArray[np.str_]
    path: Sequence[Path]
    width: npt.NDArray[np.int32]
    height: npt.NDArray[np.int32]
    segmented: npt.NDArray[np.bool_]
    fields: tuple[Mapping[str, str], ...] | None = None

    def __post_init__(self) -> None:
        n = len(self.path)
        if self.fields is None:
            object.__setattr__(self, "fields", ({},) * n)
        elif len(self.fields) != n:
            raise ValueError("ImageTable.fields differs in length")
        object.__setattr__(self, "id", frozen(self.id, np.str_))
        object.__setattr__(self, "width", frozen(self.width, np.int32))
        object.__setattr__(self, "height", frozen(self.height, np.int32))
        object.__setattr__(self, "segmented", frozen(self.segmented, np.bool_))
        if not (len(self.id) == len(self.width) == len(self.height) == len(self.segmented) == n):
            raise ValueError("ImageTable columns differ in length")

    def __len__(self) -> int:
        return len(self.path)

    @classmethod
    def unsized(cls, ids: Sequence[str], paths: Sequence[Path]) -> ImageTable:
        """Images whose annotation gives no size (width and height 0: read from the file when
        drawn) and no segmentation flag."""
        n = len(paths)
        zeros = np.zeros(n, np.int32)
        return cls(np.array(ids, dtype=np.str_), tuple(paths), zeros, zeros, np.zeros(n, bool))


@dataclass(frozen=True, eq=False)
class ObjectTable:
    """Ground-truth objects, all columns of length ``N``, sorted by ``image_index`` then file order.

    Columns
    -------
    image_index : int64 (N,)   row in ``Dataset.images``
    label : int64 (N,)         index into ``Dataset.classes``
    box : float64 (N, 4)       xyxy, see ``core.boxes``
    difficult, truncated, occluded : bool (N,)
    pose : int8 (N,)           index into ``VOC_POSES`` (0 = Unspecified)
    order_in_image : int64 (N,) 0-based position among the image's objects (XML order); the
                               devkit's 1-based "object index" is ``order_in_image + 1``
    actions : bool (N, A)      action flags, columns in ``Dataset.actions`` order
    """

    image_index: IntArray
    label: IntArray
    box: npt.NDArray[np.float64]
    difficult: npt.NDArray[np.bool_]
    truncated: npt.NDArray[np.bool_]
    occluded: npt.NDArray[np.bool_]
    pose: npt.NDArray[np.int8]
    order_in_image: IntArray
    actions: npt.NDArray[np.bool_]

    def __post_init__(self) -> None:
        n = len(self.image_index)
        columns = (
            ("image_index", np.int64),
            ("label", np.int64),
            ("difficult", np.bool_),
            ("truncated", np.bool_),
            ("occluded", np.bool_),
            ("pose", np.int8),
            ("order_in_image", np.int64),
        )
        freeze_columns(self, columns, n)
        object.__setattr__(self, "box", frozen(np.reshape(self.box, (n, 4)), np.float64))
        acts = np.asarray(self.actions, dtype=np.bool_)
        if acts.ndim != 2 or acts.shape[0] != n:
            raise ValueError(f"ObjectTable.actions has shape {acts.shape}, expected ({n}, A)")
        object.__setattr__(self, "actions", frozen(acts, np.bool_))

    def __len__(self) -> int:
        return len(self.image_index)

    @classmethod
    def from_boxes(
        cls,
        image_index: npt.ArrayLike,
        label: npt.ArrayLike,
        box: npt.ArrayLike,
        order_in_image: npt.ArrayLike,
        *,
        difficult: npt.ArrayLike | None = None,
        truncated: npt.ArrayLike | None = None,
        occluded: npt.ArrayLike | None = None,
    ) -> ObjectTable:
        """Objects of a family without VOC's pose and actions (pose Unspecified, no action
        columns); a flag not given is False for every object."""
        n = len(np.asarray(image_index))
        no = np.zeros(n, dtype=bool)

        def flag(values: npt.ArrayLike | None) -> npt.NDArray[np.bool_]:
            return no if values is None else np.asarray(values, dtype=bool)

        return cls(
            np.asarray(image_index, dtype=np.int64),
            np.asarray(label, dtype=np.int64),
            np.asarray(box, dtype=np.float64).reshape(n, 4),
            flag(difficult),
            flag(truncated),
            flag(occluded),
            np.zeros(n, dtype=np.int8),
            np.asarray(order_in_image, dtype=np.int64),
            np.zeros((n, 0), dtype=bool),
        )


@dataclass(frozen=True, eq=False)
class PartTable:
    """Person-layout parts: ``object_index`` (row in ``ObjectTable``), ``part`` (index into
    ``VOC_PARTS``) and ``box`` float64 (P, 4), in XML order within each object."""

    object_index: IntArray
    part: npt.NDArray[np.int8]
    box: npt.NDArray[np.float64]

    def __post_init__(self) -> None:
        n = len(self.object_index)
        object.__setattr__(self, "object_index", frozen(self.object_index, np.int64))
        object.__setattr__(self, "part", frozen(self.part, np.int8))
        object.__setattr__(self, "box", frozen(np.reshape(self.box, (n, 4)), np.float64))

    def __len__(self) -> int:
        return len(self.object_index)

    @classmethod
    def empty(cls) -> PartTable:
        """A table without parts (datasets with no person layouts)."""
        return cls(np.zeros(0, np.int64), np.zeros(0, np.int8), np.zeros((0, 4)))


@dataclass(frozen=True, eq=False)
class ImageLabels:
    """Image-level class labels of one ``<class>_<set>.txt`` file, in file order.

    ``image_index`` int64 (n,) rows in ``Dataset.images``; ``label`` int8 (n,): 1 present,
    -1 absent, 0 present only as difficult objects.
    """

    image_index: IntArray
    label: npt.NDArray[np.int8]

    def __post_init__(self) -> None:
        object.__setattr__(self, "image_index", frozen(self.image_index, np.int64))
        object.__setattr__(self, "label", frozen(self.label, np.int8))


@dataclass(frozen=True, eq=False)
class PersonSet:
    """Persons of a Layout or Action image set, in file order: ``image_index`` and
    ``object_index`` (row in ``ObjectTable``, -1 if the annotation has no such object); for
    ``Action/<action>_<set>.txt`` files also ``label`` (1 performing, -1 not, 0 neither).
    ``object_number`` is the 1-based object index as the file lists it (``None``: that of
    ``object_index``'s object) — what results refer to, annotated or not."""

    image_index: IntArray
    object_index: IntArray
    label: npt.NDArray[np.int8] | None = None
    object_number: IntArray | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "image_index", frozen(self.image_index, np.int64))
        object.__setattr__(self, "object_index", frozen(self.object_index, np.int64))
        if self.label is not None:
            object.__setattr__(self, "label", frozen(self.label, np.int8))
        if self.object_number is not None:
            object.__setattr__(self, "object_number", frozen(self.object_number, np.int64))

    def numbers(self, objects: ObjectTable) -> IntArray:
        """1-based object number of each person: ``object_number``, else from ``objects``
        (-1 where neither is known)."""
        if self.object_number is not None:
            return self.object_number
        known = self.object_index >= 0
        out = np.full(len(self.object_index), -1, dtype=np.int64)
        out[known] = objects.order_in_image[self.object_index[known]] + 1
        return out


@dataclass(frozen=True, eq=False, kw_only=True)
class Dataset(FamilyData):
    """A benchmark's ground truth, columnar.

    Attributes
    ----------
    name
        Display name, e.g. ``VOC2007``.
    root
        The folder it was read from (``None`` for in-memory datasets).
    year
        Challenge year if known (chooses VOC's AP rule), else ``None`` (the default).
    classes
        Class names; ``ObjectTable.label`` indexes this.
    box_convention
        How to read every box (``core.boxes``).
    images, objects, parts
        The tables above (``parts``: VOC's person layout only, empty by default).
    image_sets
        ``"Main/test"``, ``"Segmentation/val"``, ... → int64 image rows in file order
        (duplicates kept: the official detection code treats them as errors).
    class_labels
        ``(set, class)`` → ``ImageLabels`` from ``Main/<class>_<set>.txt``.
    person_sets
        ``"Layout/val"`` or ``"Action/val"`` → ``PersonSet``; ``"Action/<action>_val"`` with labels.
    actions
        Action names; columns of ``ObjectTable.actions``.
    problems
        Non-fatal input problems met while loading (the rest loaded).
    family_data
        The family's own records (``core.family_data``: COCO's ``CocoAnnotations``, VisDrone's
        raw numbers, ...), each a frozen columnar dataclass of its family folder aligned with
        ``images`` / ``objects`` rows, found by type: ``dataset.data(CocoAnnotations)``.
    roots
        Every folder that belongs to the dataset (VOC: the year folder and its devkit root; COCO:
        the annotation and image folders; ...), filled by the reader. vocviewer never writes
        inside them (``protected_roots``, ``formats.output``).
    """

    name: str
    root: Path | None
    year: int | None = None
    classes: tuple[str, ...]
    box_convention: BoxConvention
    images: ImageTable
    objects: ObjectTable
    parts: PartTable = field(default_factory=PartTable.empty)
    image_sets: Mapping[str, IntArray] = field(default_factory=dict)
    class_labels: Mapping[tuple[str, str], ImageLabels] = field(default_factory=dict)
    person_sets: Mapping[str, PersonSet] = field(default_factory=dict)
    actions: tuple[str, ...] = ()
    problems: tuple[FormatError, ...] = ()
    family_data: tuple[Any, ...] = ()
    roots: tuple[Path, ...] = ()
    object_offsets: IntArray = field(init=False, repr=False)
    _id_to_index: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        ii = self.objects.image_index
        if len(ii) and (np.any(np.diff(ii) < 0) or ii[0] < 0 or ii[-1] >= len(self.images)):
            raise ValueError("objects must be sorted by a valid image_index")
        offsets = np.searchsorted(ii, np.arange(len(self.images) + 1), side="left")
        object.__setattr__(self, "object_offsets", frozen(offsets, np.int64))
        object.__setattr__(
            self, "image_sets", {k: frozen(v, np.int64) for k, v in self.image_sets.items()}
        )
        object.__setattr__(
            self, "_id_to_index", {s: i for i, s in enumerate(self.images.id.tolist())}
        )
        object.__setattr__(self, "roots", tuple(Path(p) for p in self.roots))

    @property
    def plus_one(self) -> bool:
        """Boxes are inclusive pixel indices (``box_convention`` "voc": width = x2 - x1 + 1)."""
        return self.box_convention == "voc"

    @property
    def protected_roots(self) -> tuple[Path, ...]:
        """``roots`` and ``root``: the paths no output of vocviewer may lie in."""
        extra = (self.root,) if self.root is not None else ()
        return tuple(dict.fromkeys((*self.roots, *extra)))

    # --- lookups -------------------------------------------------------------------------------
    def image_index(self, image_id: str) -> int:
        """Row of ``image_id``; ``KeyError`` if unknown."""
        return self._id_to_index[image_id]

    def find_image(self, image_id: str) -> int | None:
        """Row of ``image_id`` or ``None``."""
        return self._id_to_index.get(image_id)

    def object_at(self, image_id: str, position: int) -> int:
        """Object row of the ``position``-th object (``order_in_image``) of image ``image_id``
        (-1: no such image or object)."""
        row = self.find_image(image_id)
        if row is None:
            return -1
        sl = self.objects_of(row)
        hit = np.flatnonzero(self.objects.order_in_image[sl] == position)
        return sl.start + int(hit[0]) if len(hit) else -1

    def objects_of(self, image: int) -> slice:
        """Slice of ``objects`` rows belonging to image row ``image``."""
        return slice(int(self.object_offsets[image]), int(self.object_offsets[image + 1]))

    def class_index(self, name: str) -> int:
        """Index of class ``name``; ``KeyError`` if unknown."""
        return self.classes.index(name)

    def main_sets(self) -> list[str]:
        """Names of the ``Main`` image sets without prefix (``train``, ``val``, ``test``, ...)."""
        return [k.split("/", 1)[1] for k in self.image_sets if k.startswith("Main/")]

    def images_in_set(self, name: str | None) -> IntArray:
        """Image rows of set ``name`` (``"test"`` means ``"Main/test"``); all images for ``None``.

        Duplicated ids are kept once, in first-occurrence order."""
        if name is None:
            return np.arange(len(self.images), dtype=np.int64)
        key = name if "/" in name else f"Main/{name}"
        rows = self.image_sets[key]
        _, first = np.unique(rows, return_index=True)
        return rows[np.sort(first)]

    def image_class_labels(self, image_set: str, class_name: str) -> ImageLabels:
        """Classification ground truth for one class, as ``Main/<class>_<set>.txt`` gives it.

        Falls back to deriving it from the objects as the devkit does when it writes those files:
        1 if the image has a non-difficult object of the class, 0 if only difficult ones, else -1,
        for every image of ``Main/<set>`` in list order."""
        found = self.class_labels.get((image_set, class_name))
        if found is not None:
            return found
        rows = self.image_sets[f"Main/{image_set}"]
        k = self.class_index(class_name)
        is_k = self.objects.label == k
        has_easy = np.zeros(len(self.images), dtype=bool)
        has_any = np.zeros(len(self.images), dtype=bool)
        has_any[self.objects.image_index[is_k]] = True
        has_easy[self.objects.image_index[is_k & ~self.objects.difficult]] = True
        label = np.where(has_easy[rows], 1, np.where(has_any[rows], 0, -1)).astype(np.int8)
        return ImageLabels(rows, label)
