"""PASCAL VOC person layout (``VOCevallayout_pr``, VOC2010+), exactly.

Rules (PROTOCOLS.md §4):

* Ground truth: the persons of ``ImageSets/Layout/<set>.txt`` (``<id> <object index>``, 1-based
  XML position); their ``<part>`` boxes are the GT parts. ``npos[type]`` counts every GT part of
  the type over the list (two hands count 2).
* Layouts are ranked by descending confidence, stable (ties keep XML order). Parts have no
  confidence: each inherits its layout's rank and parts keep their XML order within a layout.
* In rank order, a layout naming an (image, object) pair not in the list is skipped with a warning;
  a layout for a person that already has one (a higher-ranked one) is skipped entirely, not FP.
* Each predicted part, in XML order, is compared with the person's GT parts of its class (already
  assigned ones included), IoU with inclusive (+1) sizes over pairs with ``iw > 0 and ih > 0``;
  the first GT part in XML order wins ties. Best IoU ``>= 0.5`` and that GT part not yet assigned
  within this layout → TP (and it is assigned); otherwise FP. No fallback to another GT part.
* Per part type: ``rec = cumsum(tp)/npos``, ``prec = tp/(tp+fp)``, AP = ``VOCap`` (all points).
  ``npos = 0`` gives AP NaN when parts of that type were predicted, 0 otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vocviewer.core.arrays import frozen
from vocviewer.core.dataset import VOC_PARTS, Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.ranking import rank_by_score
from vocviewer.evaluation.ap import voc_ap_all_points, voc_precision_recall
from vocviewer.evaluation.matching import best_overlaps, first_claims, group_offsets
from vocviewer.evaluation.result import ClassEvaluation, EvalResult, Verdict
from vocviewer.families.voc.person_results import LayoutResults

IntArray = npt.NDArray[np.int64]

#: ``LayoutEvaluation.layout_status`` values.
LAYOUT_USED, LAYOUT_UNKNOWN_PERSON, LAYOUT_DUPLICATE = 0, 1, 2
IOU_THRESHOLD = 0.5


@dataclass(frozen=True, eq=False)
class LayoutEvaluation:
    """``VOCevallayout_pr``'s output plus the evidence per layout and per part.

    Attributes
    ----------
    result
        One ``ClassEvaluation`` per part type (task ``"layout"``): ``order`` = part row in
        ``LayoutResults`` at each rank, ``score`` = its layout's confidence, ``best_gt`` = the
        candidate GT part (row in ``Dataset.parts``) or -1, ``duplicate_of`` = rank (in the same
        type's list) of the part of the same layout that took that GT part, ``npos`` = GT parts.
    layout_status : int8 (L,)
        ``LAYOUT_USED``, ``LAYOUT_UNKNOWN_PERSON`` or ``LAYOUT_DUPLICATE`` per layout row.
    layout_person : int64 (L,)
        Row in the ``Layout/<set>`` person list of each layout, -1 when unknown.
    warnings
        What the official code warns about (unknown pairs, duplicate layouts); they do not make
        the numbers unofficial (``result.notes`` does).
    """

    result: EvalResult
    layout_status: npt.NDArray[np.int8]
    layout_person: IntArray
    warnings: tuple[str, ...] = ()

    def mean_ap(self) -> float:
        """Mean AP over head, hand and foot (non-NaN ones); the devkit itself computes none."""
        return self.result.mean_ap()


def _gt_persons(
    dataset: Dataset, image_set: str, strict: bool, notes: list[str], warnings: list[str]
) -> tuple[dict[tuple[str, int], int], IntArray, IntArray]:
    """``(image id, object number) → list row`` (first occurrence); each row's object and image."""
    key = f"Layout/{image_set}"
    if key not in dataset.person_sets:
        raise FormatError(dataset.root, f"no person list ImageSets/{key}.txt in this dataset")
    persons = dataset.person_sets[key]
    rows = persons.object_index
    missing = np.flatnonzero(rows < 0)
    if len(missing):
        first = str(dataset.images.id[persons.image_index[missing[0]]])
        message = (
            f"ImageSets/{key}.txt lists {len(missing)} persons that have no annotated object "
            f"(first: image {first}); the official code stops there"
        )
        if strict:
            raise FormatError(dataset.root, message)
        notes.append(message + "; they were left out")
    person_of: dict[tuple[str, int], int] = {}
    ids = dataset.images.id
    order = dataset.objects.order_in_image
    for i, (image, obj) in enumerate(zip(persons.image_index.tolist(), rows.tolist(), strict=True)):
        if obj < 0:
            continue
        k = (str(ids[image]), int(order[obj]) + 1)
        if k in person_of:
            warnings.append(f"person {k[0]} {k[1]} is listed twice in ImageSets/{key}.txt")
            continue
        person_of[k] = i
    return person_of, rows, persons.image_index


def evaluate_voc_layout(
    dataset: Dataset, layouts: LayoutResults, *, image_set: str, strict: bool = True
) -> LayoutEvaluation:
    """``VOCevallayout_pr`` for the three part types (see the module docstring).

    Raises
    ------
    FormatError
        The dataset has no ``Layout/<image_set>`` list, or (``strict``) the list names a person
        without an annotated object; without ``strict`` that person is left out with a note.
    """
    notes: list[str] = []
    warnings: list[str] = []
    person_of, person_object, person_image = _gt_persons(
        dataset, image_set, strict, notes, warnings
    )
    gt_order = np.argsort(dataset.parts.object_index, kind="stable")
    gt_obj = dataset.parts.object_index[gt_order]
    npos = [0] * len(VOC_PARTS)
    for obj in person_object.tolist():
        if obj >= 0:
            lo, hi = np.searchsorted(gt_obj, [obj, obj + 1])
            for t in dataset.parts.part[gt_order[lo:hi]].tolist():
                npos[t] += 1

    n_parts = len(layouts.part_layout)
    verdict = np.full(n_parts, -1, dtype=np.int8)
    best_gt = np.full(n_parts, -1, dtype=np.int64)
    best_iou = np.full(n_parts, np.nan)
    taken_by = np.full(n_parts, -1, dtype=np.int64)
    status = np.zeros(len(layouts), dtype=np.int8)
    layout_person = np.full(len(layouts), -1, dtype=np.int64)
    has_layout: set[int] = set()
    ranked = rank_by_score(layouts.confidence)
    for lay in ranked.tolist():
        k = (str(layouts.image_id[lay]), int(layouts.object_number[lay]))
        person = person_of.get(k)
        line = 0 if layouts.layout_line is None else int(layouts.layout_line[lay])
        where = f"layout at line {line}" if line else f"layout {lay + 1}"
        if person is None:
            status[lay] = LAYOUT_UNKNOWN_PERSON
            warnings.append(f"{where}: person {k[0]} {k[1]} is not in the Layout/{image_set} list")
            continue
        layout_person[lay] = person
        if person in has_layout:
            status[lay] = LAYOUT_DUPLICATE
            warnings.append(f"{where}: duplicate layout for person {k[0]} {k[1]}; skipped")
            continue
        has_layout.add(person)
        status[lay] = LAYOUT_USED
    part_rank = np.array(
        [p for lay in ranked.tolist() for p in layouts.parts_of(lay)], dtype=np.int64
    )
    _match_parts(
        dataset,
        layouts,
        part_rank,
        status,
        layout_person,
        person_object,
        verdict,
        best_gt,
        best_iou,
        taken_by,
    )
    layout_image = np.where(layout_person >= 0, person_image[np.maximum(layout_person, 0)], -1)
    classes = tuple(
        _part_type_evaluation(
            t, layouts, part_rank, verdict, best_gt, best_iou, taken_by, npos[t], layout_image
        )
        for t in range(len(VOC_PARTS))
    )
    result = EvalResult(
        protocol="voc2012",
        task="layout",
        image_set=image_set,
        ap_rule="allpoints",
        iou_threshold=IOU_THRESHOLD,
        classes=classes,
        notes=tuple(notes),
    )
    return LayoutEvaluation(
        result, frozen(status, np.int8), frozen(layout_person, np.int64), tuple(warnings)
    )


def _match_parts(
    dataset: Dataset,
    layouts: LayoutResults,
    part_rank: IntArray,
    status: npt.NDArray[np.int8],
    layout_person: IntArray,
    person_object: IntArray,
    verdict: npt.NDArray[np.int8],
    best_gt: IntArray,
    best_iou: npt.NDArray[np.float64],
    taken_by: IntArray,
) -> None:
    """Match every part of the used layouts at once (fills the last four arrays in place).

    A part's candidate is the ground-truth part of its person and class with the largest +1 IoU
    (first in XML order on ties, assigned ones included); IoU >= 0.5 makes it a TP if no earlier
    part of the same layout took that candidate, else a duplicate FP; below, an FP. Each person
    has one used layout, so "earlier in the layout" is "earlier in rank order"."""
    n_types = len(VOC_PARTS)
    used = part_rank[status[layouts.part_layout[part_rank]] == LAYOUT_USED]
    obj = person_object[layout_person[layouts.part_layout[used]]]
    gt = dataset.parts
    gt_key = gt.object_index * n_types + gt.part
    gt_sorted = np.argsort(gt_key, kind="stable")  # XML order kept within (object, type)
    offsets = group_offsets(gt_key[gt_sorted], len(dataset.objects) * n_types)
    det_key = obj * n_types + layouts.part_class[used]
    cand, ov = best_overlaps(
        det_key, layouts.part_box[used], offsets, gt.box[gt_sorted], plus_one=True
    )
    has = cand >= 0
    best_gt[used[has]] = gt_sorted[cand[has]]
    best_iou[used[has]] = ov[has]
    hit = ov >= IOU_THRESHOLD  # NaN (no candidate) is False
    claimed_by = first_claims(cand, hit)
    own = claimed_by == np.arange(len(used))
    verdict[used] = np.where(hit, np.where(own, Verdict.TP, Verdict.DUPLICATE), Verdict.FP)
    dup = hit & ~own
    taken_by[used[dup]] = used[claimed_by[dup]]


def _part_type_evaluation(
    t: int,
    layouts: LayoutResults,
    part_rank: IntArray,
    verdict: npt.NDArray[np.int8],
    best_gt: IntArray,
    best_iou: npt.NDArray[np.float64],
    taken_by: IntArray,
    npos: int,
    layout_image: IntArray,
) -> ClassEvaluation:
    """One part type's ranked list: used parts of type ``t`` in rank order."""
    order = part_rank[(layouts.part_class[part_rank] == t) & (verdict[part_rank] >= 0)]
    v = verdict[order]
    tp = (v == Verdict.TP).astype(np.float64)
    prec, rec = voc_precision_recall(tp, 1.0 - tp, npos)
    rank_of = {int(p): r for r, p in enumerate(order.tolist())}
    dup = np.array([rank_of.get(int(taken_by[p]), -1) for p in order.tolist()], dtype=np.int64)
    layout_rows = layouts.part_layout[order]
    image_rows = layout_image[layout_rows]
    return ClassEvaluation(
        class_index=t,
        class_name=VOC_PARTS[t],
        task="layout",
        npos=npos,
        has_results=True,
        ndet=len(order),
        order=frozen(order, np.int64),
        image_index=frozen(image_rows, np.int64),
        score=frozen(layouts.confidence[layout_rows], np.float64),
        verdict=frozen(v, np.int8),
        best_gt=frozen(best_gt[order], np.int64),
        best_iou=frozen(best_iou[order], np.float64),
        duplicate_of=frozen(dup, np.int64),
        precision=frozen(prec, np.float64),
        recall=frozen(rec, np.float64),
        ap=voc_ap_all_points(rec, prec),
    )
