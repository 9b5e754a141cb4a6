"""Which images the browser lists, in which order, and which boxes the view keeps (pure numpy;
no Qt).

``ImageFilter`` (``core.view_filter.ViewFilter``) is the view's choice: an id search, object
flags an image must have, errors it must have, the order, and the filter panel's box fields
(``evaluation.view_filter``); ``Kept`` is what it leaves. ``error_counts`` counts, per image, the false positives and missed
objects *as drawn*: detections with ``score >= threshold`` whose protocol verdict is FP or
duplicate, and non-ignored objects that no drawn true positive matched. Verdicts are always the
protocol's (``ResultEvaluations``); nothing is re-matched here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.core.tags import Tags
from vocviewer.core.view_filter import ViewFilter
from vocviewer.evaluation.drawn import Thresholds, detection_threshold, is_drawn
from vocviewer.evaluation.result import Verdict
from vocviewer.evaluation.view_filter import JudgedSet, filter_masks
from vocviewer.families.views import view_extras

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

#: Object flags an image can be filtered on, with the browser's wording.
FLAG_NAMES = {
    "difficult": "difficult objects",
    "truncated": "truncated objects",
    "occluded": "occluded objects",
    "crowd": "crowd regions",
}
#: Error filters: images with false positives, with missed objects, or with either.
ERROR_FILTERS = {"fp": "false positives", "missed": "missed ground truth", "any": "any error"}


#: The browser's filter is the view's one record (``core.view_filter``): the Filter menu sets its
#: image-list fields, the filter panel the rest.
ImageFilter = ViewFilter


@dataclass(frozen=True, eq=False)
class ErrorCounts:
    """Per image (int64 (I,) over ``Dataset.images`` rows): drawn false positives, missed objects."""

    fp: IntArray
    missed: IntArray

    @property
    def total(self) -> IntArray:
        return self.fp + self.missed


def object_flags(dataset: Dataset) -> dict[str, BoolArray]:
    """The ``FLAG_NAMES`` flags this dataset has at least one object with: bool (N,) each."""
    obj = dataset.objects
    flags = {"difficult": obj.difficult, "truncated": obj.truncated, "occluded": obj.occluded}
    crowd = view_extras(dataset).crowd
    if crowd is not None:
        flags["crowd"] = crowd
    return {name: np.asarray(f, dtype=bool) for name, f in flags.items() if np.any(f)}


def images_with(dataset: Dataset, objects: BoolArray) -> BoolArray:
    """bool (I,): images having at least one of the flagged ``objects`` (bool (N,))."""
    has = np.zeros(len(dataset.images), dtype=bool)
    has[dataset.objects.image_index[objects]] = True
    return has


def error_counts(
    dataset: Dataset,
    results: ResultSet,
    verdict_by_row: npt.NDArray[np.int8],
    missed_drawn: BoolArray,
    threshold: Thresholds,
    class_index: int = -1,
) -> ErrorCounts:
    """False positives and missed objects per image, at score ``threshold``, for one class
    (``class_index >= 0``) or all classes; ``threshold`` one number or per class
    (``evaluation.drawn.Thresholds``).

    ``verdict_by_row``: the protocol's verdict per detection row (-1: not evaluated);
    ``missed_drawn``: bool (O,) objects missed as drawn at ``threshold``
    (``ResultEvaluations.missed_at``, ``confusion.missed_at``).
    """
    n_images = len(dataset.images)
    det = results.detections
    fp_rows = (verdict_by_row >= Verdict.FP) & is_drawn(
        det.score, detection_threshold(threshold, det.label)
    )
    if class_index >= 0:
        fp_rows &= det.label == class_index
    fp = np.bincount(det.image_index[fp_rows], minlength=n_images).astype(np.int64)
    gone = (
        missed_drawn & (dataset.objects.label == class_index) if class_index >= 0 else missed_drawn
    )
    image_of = dataset.objects.image_index[gone]
    return ErrorCounts(fp, np.bincount(image_of, minlength=n_images).astype(np.int64))


def search_ids(ids: npt.NDArray[np.str_], text: str) -> BoolArray:
    """bool (I,): ids containing ``text`` (case-insensitive; empty text matches all)."""
    if not text:
        return np.ones(len(ids), dtype=bool)
    return np.char.find(np.char.lower(ids), text.lower()) >= 0


def apply_filter(
    rows: IntArray,
    flt: ImageFilter,
    ids: npt.NDArray[np.str_],
    flag_images: Mapping[str, BoolArray],
    errors: ErrorCounts | None,
    top_scores: FloatArray | None = None,
) -> IntArray:
    """Keep the image ``rows`` that pass ``flt`` and order them.

    ``flag_images``: per flag, bool (I,) images having an object with it (a missing flag keeps
    nothing); ``errors``: per-image counts, ``None`` before any evaluation (error filters then keep
    nothing, and sorting by errors keeps the order); ``top_scores``: per image, for
    ``by_score``."""
    keep = search_ids(ids[rows], flt.text)
    for name in flt.flags:
        got = flag_images.get(name)
        keep &= got[rows] if got is not None else False
    if flt.errors:
        if errors is None:
            keep[:] = False
        else:
            wanted = {"fp": errors.fp, "missed": errors.missed, "any": errors.total}[flt.errors]
            keep &= wanted[rows] > 0
    rows = rows[keep]
    if flt.by_score and top_scores is not None:
        rows = rows[np.argsort(-top_scores[rows], kind="stable")]
    if flt.by_errors and errors is not None:
        rows = rows[np.argsort(-errors.total[rows], kind="stable")]
    return rows


def top_scores(dataset: Dataset, results: ResultSet, class_index: int = -1) -> FloatArray:
    """float64 (I,): each image's highest detection score (of ``class_index`` if >= 0); -inf
    on images without one (NaN scores rank last, as they do in evaluation)."""
    det = results.detections
    keep = np.isfinite(det.score) if class_index < 0 else (det.label == class_index)
    keep &= ~np.isnan(det.score)
    top = np.full(len(dataset.images), -np.inf)
    np.maximum.at(top, det.image_index[keep], det.score[keep])
    return top


@dataclass(frozen=True, eq=False)
class Kept:
    """What the view keeps: ``images`` int64, the listed image rows in list order; ``objects``
    bool (O,) and ``detections`` bool (D,) (of result set ``result_set``; D = 0 and -1 without
    one): the boxes the filter keeps on listed images."""

    images: IntArray
    objects: BoolArray
    detections: BoolArray
    result_set: int = -1

    def counts(self) -> tuple[int, int, int]:
        """(images, objects, detections) kept."""
        n_obj, n_det = np.count_nonzero(self.objects), np.count_nonzero(self.detections)
        return len(self.images), int(n_obj), int(n_det)


class ImageListing:
    """The browser's rows for one dataset, with the per-dataset masks it needs cached."""

    def __init__(self, dataset: Dataset) -> None:
        self.dataset = dataset
        self._has_class: dict[tuple[int, int], BoolArray] = {}
        self._flag_images: dict[str, BoolArray] | None = None
        self._top: dict[tuple[int, int], FloatArray] = {}
        self.errors: ErrorCounts | None = None  # the counts the last ``rows`` call used

    def with_class(self, class_index: int, results: ResultSet | None, key: int) -> BoolArray:
        """bool (I,): images with an object of the class (difficult ones included) or a detection
        of it in ``results`` (so every false positive is reachable); cached under ``key``."""
        if (class_index, key) not in self._has_class:
            has = images_with(self.dataset, self.dataset.objects.label == class_index)
            if results is not None:
                det = results.detections
                has[det.image_index[det.label == class_index]] = True
            self._has_class[class_index, key] = has
        return self._has_class[class_index, key]

    def rows(
        self,
        image_set: str | None,
        class_index: int,
        results: ResultSet | None,
        results_key: int,
        flt: ImageFilter,
        errors: ErrorCounts | None,
    ) -> IntArray:
        """Image rows of ``image_set`` (all images if unknown or ``None``), of the class if
        ``class_index >= 0``, passing ``flt``, in list order."""
        ds = self.dataset
        rows = ds.images_in_set(self._known(image_set))
        self.errors = errors
        if class_index >= 0:
            rows = rows[self.with_class(class_index, results, results_key)[rows]]
        if flt == ImageFilter():
            return rows
        if self._flag_images is None:
            self._flag_images = {k: images_with(ds, f) for k, f in object_flags(ds).items()}
        scores = None
        if flt.by_score and results is not None:
            key = (class_index, results_key)
            if key not in self._top:
                self._top[key] = top_scores(ds, results, class_index)
            scores = self._top[key]
        return apply_filter(rows, flt, ds.images.id, self._flag_images, errors, scores)

    def kept(
        self,
        rows: IntArray,
        flt: ImageFilter,
        judged: JudgedSet | None,
        missed: BoolArray | None,
        tags: Tags,
    ) -> Kept:
        """``rows`` (``rows``' output) less the images ``flt``'s box fields drop, with the boxes
        kept on them (``evaluation.view_filter.filter_masks`` on ``judged``)."""
        ds = self.dataset
        listed = np.zeros(len(ds.images), dtype=bool)
        n_det = len(judged.detections) if judged is not None else 0
        objects, detections = np.ones(len(ds.objects), bool), np.ones(n_det, bool)
        if flt.judges_boxes:
            masks = filter_masks(ds, flt, judged, missed, tags)
            rows = rows[masks.images[rows]]
            objects, detections = masks.objects, masks.detections
        listed[rows] = True
        objects = objects & listed[ds.objects.image_index]
        if judged is not None:
            detections = detections & listed[judged.detections.image_index]
        return Kept(rows, objects, detections, judged.index if judged is not None else -1)

    def pinned(
        self, rows: IntArray, image_set: str | None, image: int, flt: ImageFilter
    ) -> IntArray:
        """``rows`` with ``image`` in them if its image set holds it: where the set's order puts
        it, or first in a list sorted by score or errors (the image being looked at stays listed
        when another result set is chosen, e.g. one with segmentation PNGs and no detections)."""
        if image < 0 or np.any(rows == image):
            return rows
        base = self.dataset.images_in_set(self._known(image_set))
        if not np.any(base == image):
            return rows
        if flt.by_score or flt.by_errors:
            return np.concatenate([[image], rows]).astype(np.int64)
        order = np.zeros(len(self.dataset.images), dtype=np.int64)
        order[base] = np.arange(len(base))
        at = int(np.searchsorted(order[rows], order[image]))
        return np.insert(rows, at, image).astype(np.int64)

    def _known(self, image_set: str | None) -> str | None:
        """``image_set`` if the dataset has it, else ``None`` (all images)."""
        if image_set is None:
            return None
        key = image_set if "/" in image_set else f"Main/{image_set}"
        return image_set if key in self.dataset.image_sets else None
