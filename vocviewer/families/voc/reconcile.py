"""``vocviewer reconcile`` on a VOCdevkit (``--task det``): the image set's objects and the
detections as ``protocol_rules.Columns``; the COCO end reads the same boxes converted
faithfully (``x = xmin - 1``, ``w = xmax - xmin + 1``), difficult objects as crowd regions."""

from __future__ import annotations

import numpy as np

from vocviewer.core.boxes import to_xywh
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.protocol_rules import Columns
from vocviewer.evaluation.reconcile import Reconciliation, reconcile
from vocviewer.families.base import EvalRequest, check_ground_truth, opened, problems_error
from vocviewer.families.voc.reader import read_voc_results
from vocviewer.families.voc.tasks import infer_image_set, open_voc

NOTE = (
    "COCO end: pycocotools' rules on the same boxes converted faithfully (x = xmin - 1, "
    "w = xmax - xmin + 1; area w * h), difficult objects read as crowd regions"
)


def _has_results(results: ResultSet, n: int) -> np.ndarray:
    """The classes with a detection file (VOC's mAP averages those)."""
    det = results.detections
    given = results.classes_with_files.get("det", frozenset(np.unique(det.label).tolist()))
    return np.isin(np.arange(n), sorted(given))


def reconcile_voc(request: EvalRequest) -> Reconciliation:
    """COCO AP50 -> VOC2012 -> VOC2007 of ``request``'s detection files."""
    if request.task not in (None, "det"):
        raise FormatError(
            request.path, f"reconcile compares detection AP (--task det), not {request.task}"
        )
    image_set = request.option("image_set") or infer_image_set(request.results, "det")
    if image_set is None:
        raise FormatError(
            request.results[0],
            "cannot tell the image set from the result file names; pass --image-set",
        )
    dataset = opened(request, open_voc(request.path))
    check_ground_truth(dataset, False)
    results = read_voc_results(dataset, request.results, image_set=image_set)
    if results.problems:
        raise problems_error(results.problems)
    key = f"Main/{image_set}"
    if key not in dataset.image_sets:
        raise FormatError(request.path, f"image set {image_set!r} not found")
    in_set = np.zeros(len(dataset.images), dtype=bool)
    in_set[dataset.image_sets[key]] = True
    obj, det = dataset.objects, results.detections
    g = np.flatnonzero(in_set[obj.image_index])
    d = np.lexsort((det.line, det.file_index))
    d = d[in_set[det.image_index[d]]]
    gt_xywh = to_xywh(obj.box[g], "voc")
    columns = Columns(
        gt_image=obj.image_index[g],
        gt_label=obj.label[g],
        gt_xywh=gt_xywh,
        gt_voc=obj.box[g],
        gt_flag=obj.difficult[g],
        gt_area=gt_xywh[:, 2] * gt_xywh[:, 3],
        det_image=det.image_index[d],
        det_label=det.label[d],
        det_xywh=to_xywh(det.box[d], "voc"),
        det_voc=det.box[d],
        det_score=det.score[d],
        image_key=np.arange(len(dataset.images), dtype=np.int64),
        n_classes=len(dataset.classes),
        has_results=_has_results(results, len(dataset.classes)),
    )
    return reconcile(columns, notes=(NOTE,))
