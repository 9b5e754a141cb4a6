"""A selection of images as a dataset of its own: the chosen images' rows of every column.

``select(dataset, rows, results)`` gives a ``Subset``: the sub-dataset (the chosen images in the
source's order, their objects, parts, image sets, class labels and person sets, every index
renumbered to the new rows) and each result set's rows on those images (``image_index``
renumbered; ``file_index`` / ``line`` still name where each row came from). The family's own
records (``family_data``) are aligned with the source's rows and are not carried: a writer that
needs them reads the source through ``Subset.rows`` / ``object_rows`` / ``detection_rows``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import (
    Dataset,
    ImageLabels,
    ImageTable,
    ObjectTable,
    PartTable,
    PersonSet,
)
from vocviewer.core.results import ClassScores, Detections, ResultSet

IntArray = npt.NDArray[np.int64]

#: How a written subset's images reach the new folder (``families.subset_export``).
IMAGE_MODES = ("copy", "hardlink", "symlink")


@dataclass(frozen=True, eq=False)
class Subset:
    """The chosen images as a dataset, and the result sets on them.

    dataset : the sub-dataset (``root`` ``None``: it lives in memory until written)
    rows : int64 (I',) the source image row of each of its images, ascending
    object_rows : int64 (N',) the source object row of each of its objects
    results : each given result set restricted to the chosen images
    detection_rows : per result set, int64 (D',) the source detection row of each detection
    """

    dataset: Dataset
    rows: IntArray
    object_rows: IntArray
    results: tuple[ResultSet, ...] = ()
    detection_rows: tuple[IntArray, ...] = ()


def chosen_rows(dataset: Dataset, rows: npt.ArrayLike) -> IntArray:
    """``rows`` as sorted unique int64 image rows; ``ValueError`` for a row out of range."""
    r = np.unique(np.asarray(rows, dtype=np.int64).reshape(-1))
    if len(r) and (r[0] < 0 or r[-1] >= len(dataset.images)):
        raise ValueError(f"image rows must lie in [0, {len(dataset.images)}), got {r[[0, -1]]}")
    return r


def _renumber(n: int, rows: IntArray) -> IntArray:
    """Old row → new row (-1: not chosen), int64 (n,)."""
    new_of = np.full(n, -1, dtype=np.int64)
    new_of[rows] = np.arange(len(rows), dtype=np.int64)
    return new_of


def _images(images: ImageTable, rows: IntArray) -> ImageTable:
    fields = images.fields or ()
    return ImageTable(
        images.id[rows],
        tuple(images.path[r] for r in rows.tolist()),
        images.width[rows],
        images.height[rows],
        images.segmented[rows],
        tuple(fields[r] for r in rows.tolist()),
    )


def _objects(objects: ObjectTable, keep: IntArray, image_of: IntArray) -> ObjectTable:
    return ObjectTable(
        image_of[objects.image_index[keep]],
        objects.label[keep],
        objects.box[keep],
        objects.difficult[keep],
        objects.truncated[keep],
        objects.occluded[keep],
        objects.pose[keep],
        objects.order_in_image[keep],
        objects.actions[keep],
    )


def _parts(parts: PartTable, object_of: IntArray) -> PartTable:
    keep = np.flatnonzero(object_of[parts.object_index] >= 0)
    return PartTable(object_of[parts.object_index[keep]], parts.part[keep], parts.box[keep])


def _person_set(s: PersonSet, image_of: IntArray, object_of: IntArray) -> PersonSet:
    keep = np.flatnonzero(image_of[s.image_index] >= 0)
    known = s.object_index[keep]
    objects = np.where(known >= 0, object_of[np.maximum(known, 0)], -1)
    return PersonSet(
        image_of[s.image_index[keep]],
        objects,
        None if s.label is None else s.label[keep],
        None if s.object_number is None else s.object_number[keep],
    )


def select_dataset(dataset: Dataset, rows: IntArray) -> tuple[Dataset, IntArray]:
    """The sub-dataset of the sorted unique image ``rows`` and its objects' source rows."""
    image_of = _renumber(len(dataset.images), rows)
    keep = np.flatnonzero(image_of[dataset.objects.image_index] >= 0)
    object_of = _renumber(len(dataset.objects), keep)
    sets = {k: image_of[v][image_of[v] >= 0] for k, v in dataset.image_sets.items()}
    labels = {
        k: ImageLabels(image_of[v.image_index[m]], v.label[m])
        for k, v in dataset.class_labels.items()
        for m in [image_of[v.image_index] >= 0]
    }
    persons = {k: _person_set(v, image_of, object_of) for k, v in dataset.person_sets.items()}
    sub = Dataset(
        name=f"{dataset.name} ({len(rows)} images)",
        root=None,
        year=dataset.year,
        classes=dataset.classes,
        box_convention=dataset.box_convention,
        images=_images(dataset.images, rows),
        objects=_objects(dataset.objects, keep, image_of),
        parts=_parts(dataset.parts, object_of),
        image_sets=sets,
        class_labels=labels,
        person_sets=persons,
        actions=dataset.actions,
    )
    return sub, keep


def select_results(results: ResultSet, image_of: IntArray) -> tuple[ResultSet, IntArray]:
    """``results`` on the chosen images (``image_of``: old image row → new, -1 not chosen) and
    the source rows of its detections."""
    d, c = results.detections, results.class_scores
    keep = np.flatnonzero(image_of[d.image_index] >= 0)
    dets = Detections(
        image_of[d.image_index[keep]],
        d.label[keep],
        d.score[keep],
        d.box[keep],
        d.file_index[keep],
        d.line[keep],
    )
    kc = np.flatnonzero(image_of[c.image_index] >= 0)
    scores = ClassScores(
        image_of[c.image_index[kc]], c.label[kc], c.score[kc], c.file_index[kc], c.line[kc]
    )
    return replace(results, detections=dets, class_scores=scores, family_data=()), keep


def select(dataset: Dataset, rows: npt.ArrayLike, results: Sequence[ResultSet] = ()) -> Subset:
    """The images at ``rows`` of ``dataset`` (any order, duplicates ignored) as a ``Subset``,
    with each of ``results`` restricted to them."""
    chosen = chosen_rows(dataset, rows)
    sub, object_rows = select_dataset(dataset, chosen)
    image_of = _renumber(len(dataset.images), chosen)
    picked = [select_results(r, image_of) for r in results]
    return Subset(
        sub,
        chosen,
        object_rows,
        tuple(r for r, _ in picked),
        tuple(k for _, k in picked),
    )
