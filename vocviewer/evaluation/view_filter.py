"""What a ``core.view_filter.ViewFilter`` keeps of a dataset and one result set's evidence, as
numpy masks (images, objects, detections). No Qt: the window, a script and the tests call the
same function.

The box fields (score, classes, verdicts, false-positive kinds, area, aspect, tags) judge each
box; the verdicts are the protocol's, as the evaluation left them (``JudgedSet``), never
re-matched. A box *passes* when it meets every field that applies to its side: detections
(score, detection verdicts and kinds, plus the shared fields) and objects (``missed``, plus the
shared fields: classes, area, aspect, tags). An image is kept when it has a passing box on a side
the filter asks about — detections if it sets a score, a detection verdict or a kind; objects if
it asks for missed ones; either side (or the image's own tag) if it sets only shared fields —
and every image when it sets none. The kept boxes are the passing boxes on kept images. The
image list's own fields (text, flags, errors, orders) are ``gui.models.image_filter``'s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import Detections
from vocviewer.core.tags import Tags
from vocviewer.core.view_filter import Range, ViewFilter
from vocviewer.evaluation.analysis import FPKind
from vocviewer.evaluation.result import Verdict

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]

#: ``ViewFilter.verdicts`` of detections, and the ``Verdict`` values each stands for.
DETECTION_VERDICTS = {
    "tp": (Verdict.TP,),
    "fp": (Verdict.FP, Verdict.DUPLICATE),
    "ignored": (Verdict.IGNORED,),
}
#: ``ViewFilter.fp_kinds`` keys and their ``FPKind``.
FP_KINDS = {k.name.lower(): int(k) for k in FPKind if k != FPKind.NOT_FP}


@dataclass(frozen=True, eq=False)
class JudgedSet:
    """One result set's evidence as the filter reads it: its ``detections``, per row the
    protocol's ``verdict`` (int8 (D,), a ``Verdict``; -1: not evaluated) and ``fp_kind`` (int8
    (D,), an ``FPKind``; -1: not diagnosed), and its ``index`` among the window's sets (what
    detection tags name)."""

    detections: Detections
    verdict: npt.NDArray[np.int8]
    fp_kind: npt.NDArray[np.int8]
    index: int = 0


@dataclass(frozen=True, eq=False)
class FilterMasks:
    """What a filter keeps: bool ``images`` (I,), ``objects`` (O,), ``detections`` (D,) over
    the dataset's rows and the judged set's rows (D = 0 without one)."""

    images: BoolArray
    objects: BoolArray
    detections: BoolArray

    @property
    def image_rows(self) -> IntArray:
        """int64: the kept image rows, ascending."""
        return np.flatnonzero(self.images).astype(np.int64)

    def counts(self) -> tuple[int, int, int]:
        """(images, objects, detections) kept."""
        return (
            int(np.count_nonzero(self.images)),
            int(np.count_nonzero(self.objects)),
            int(np.count_nonzero(self.detections)),
        )


def box_area_aspect(
    boxes: npt.NDArray[np.float64], plus_one: bool
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Area (square pixels) and aspect (width / height; ``inf`` for a zero height) of xyxy
    ``boxes`` (N, 4); ``plus_one``: inclusive pixel indices (VOC: width = x2 - x1 + 1)."""
    one = 1.0 if plus_one else 0.0
    w = boxes[:, 2] - boxes[:, 0] + one
    h = boxes[:, 3] - boxes[:, 1] + one
    with np.errstate(divide="ignore", invalid="ignore"):
        return w * h, w / h


def in_range(values: npt.NDArray[np.float64], r: Range | None) -> BoolArray:
    """bool: ``lo <= v <= hi`` (all true for ``None``; NaN never inside)."""
    if r is None:
        return np.ones(len(values), dtype=bool)
    return (values >= r[0]) & (values <= r[1])


def _tagged(
    dataset: Dataset, tags: Tags, wanted: set[str], result_set: int, n_det: int
) -> tuple[BoolArray, BoolArray, BoolArray]:
    """Images, objects and detections (of ``result_set``) carrying one of ``wanted``."""
    images = np.zeros(len(dataset.images), dtype=bool)
    objects = np.zeros(len(dataset.objects), dtype=bool)
    detections = np.zeros(n_det, dtype=bool)
    for entry in tags.entries.values():
        t = entry.target
        row = dataset.find_image(t.image)
        if row is None or not wanted.intersection(entry.tags):
            continue
        if t.kind == "image":
            images[row] = True
        elif t.kind == "object":
            at = dataset.object_at(t.image, t.index)
            if at >= 0:
                objects[at] = True
        elif t.result_set == result_set and 0 <= t.index < n_det:
            detections[t.index] = True
    return images, objects, detections


def filter_masks(
    dataset: Dataset,
    flt: ViewFilter,
    judged: JudgedSet | None = None,
    missed: BoolArray | None = None,
    tags: Tags | None = None,
) -> FilterMasks:
    """What ``flt``'s box fields keep (module docstring) of ``dataset`` and ``judged``.

    ``missed``: bool (O,) the objects missed as drawn (``ResultEvaluations.missed_at``; ``None``:
    no evaluation, so no object is missed); ``tags``: the window's tags (detections named by
    ``judged.index``). Without ``judged`` no detection passes.
    """
    obj = dataset.objects
    n_img = len(dataset.images)
    det = judged.detections if judged is not None else Detections.empty()
    cls = set(flt.classes)
    # --- the shared fields: classes, area, aspect, tags --------------------------------------
    o_pass = np.ones(len(obj), dtype=bool)
    d_pass = np.ones(len(det), dtype=bool) if judged is not None else np.zeros(0, dtype=bool)
    if cls:
        known = np.array([c in cls for c in dataset.classes] + [False], dtype=bool)
        o_pass &= known[np.where(obj.label >= 0, obj.label, -1)]
        d_pass &= known[np.where(det.label >= 0, det.label, -1)]
    if flt.area is not None or flt.aspect is not None:
        for boxes, passing in ((obj.box, o_pass), (det.box, d_pass)):
            area, aspect = box_area_aspect(boxes, dataset.plus_one)
            passing &= in_range(area, flt.area) & in_range(aspect, flt.aspect)
    image_tagged = np.zeros(n_img, dtype=bool)
    if flt.tags:
        index = judged.index if judged is not None else -1
        image_tagged, o_tag, d_tag = _tagged(
            dataset, tags or Tags(), set(flt.tags), index, len(det)
        )
        o_pass &= o_tag | image_tagged[obj.image_index]
        d_pass &= d_tag | image_tagged[det.image_index]
    # --- detections: score, verdicts, kinds ----------------------------------------------------
    det_verdicts = [v for v in flt.verdicts if v in DETECTION_VERDICTS]
    asks_detections = flt.score is not None or bool(det_verdicts) or bool(flt.fp_kinds)
    if judged is not None:
        d_pass &= in_range(np.asarray(det.score, dtype=np.float64), flt.score)
        if det_verdicts or flt.fp_kinds:
            v = judged.verdict
            fp = np.isin(v, DETECTION_VERDICTS["fp"])
            if flt.fp_kinds:
                fp &= np.isin(judged.fp_kind, [FP_KINDS[k] for k in flt.fp_kinds])
            wanted = np.zeros(len(det), dtype=bool)
            for key in det_verdicts or ["fp"]:
                wanted |= fp if key == "fp" else np.isin(v, DETECTION_VERDICTS[key])
            d_pass &= wanted
    # --- objects: missed -----------------------------------------------------------------------
    asks_objects = "missed" in flt.verdicts
    if asks_objects:
        o_pass &= missed if missed is not None else False
    # --- images --------------------------------------------------------------------------------
    has_obj = np.zeros(n_img, dtype=bool)
    has_obj[obj.image_index[o_pass]] = True
    has_det = np.zeros(n_img, dtype=bool)
    has_det[det.image_index[d_pass]] = True
    if asks_detections or asks_objects:
        images = (has_det & asks_detections) | (has_obj & asks_objects)
    elif flt.judges_boxes:
        images = has_det | has_obj | image_tagged
    else:
        images = np.ones(n_img, dtype=bool)
    return FilterMasks(images, o_pass & images[obj.image_index], d_pass & images[det.image_index])
