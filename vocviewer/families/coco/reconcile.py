"""``vocviewer reconcile`` on a COCO annotation JSON (and the datasets read as COCO's): the
detections' boxes, crowd regions, areas and image ids as ``protocol_rules.Columns``."""

from __future__ import annotations

import numpy as np

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.protocol_rules import Columns
from vocviewer.evaluation.reconcile import Reconciliation, reconcile
from vocviewer.families.base import EvalRequest, check_ground_truth, opened
from vocviewer.families.coco.columns import CocoAnnotations, CocoResults
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results

#: what every COCO-read reconciliation says about the VOC end
VOC_NOTE = (
    "VOC ends: the devkit's rules on the same boxes converted faithfully (xmin = x + 1, "
    "xmax = x + w), crowd regions read as difficult objects"
)


def one_based(xywh: np.ndarray) -> np.ndarray:
    """COCO's ``x, y, w, h`` as VOC's 1-based inclusive ``x + 1, y + 1, x + w, y + h``."""
    x, y, w, h = xywh.T
    return np.stack([x + 1, y + 1, x + w, y + h], axis=1)


def file_order(results: ResultSet) -> np.ndarray:
    """int64 (D,): ``results.detections`` rows in file order (``Columns``' detection rows)."""
    det = results.detections
    return np.lexsort((det.line, det.file_index)).astype(np.int64)


def coco_columns(dataset: Dataset, results: ResultSet) -> Columns:
    """``Columns`` of COCO-read ``dataset`` / bbox ``results`` (detections in file order)."""
    ann, res = dataset.data(CocoAnnotations), results.data(CocoResults)
    det = results.detections
    order = file_order(results)
    gt_xywh = np.asarray(ann.bbox, dtype=np.float64)
    det_xywh = np.asarray(res.bbox, dtype=np.float64)[order]
    return Columns(
        gt_image=dataset.objects.image_index,
        gt_label=dataset.objects.label,
        gt_xywh=gt_xywh,
        gt_voc=one_based(gt_xywh),
        gt_flag=np.asarray(ann.iscrowd, dtype=bool),
        gt_area=np.asarray(ann.area, dtype=np.float64),
        det_image=det.image_index[order],
        det_label=det.label[order],
        det_xywh=det_xywh,
        det_voc=one_based(det_xywh),
        det_score=det.score[order],
        image_key=np.asarray(ann.image_id, dtype=np.int64),
        n_classes=len(dataset.classes),
        has_results=np.ones(len(dataset.classes), dtype=bool),
    )


def read_bbox(request: EvalRequest) -> tuple[Dataset, ResultSet]:
    """The annotation JSON and one bbox results JSON of ``request`` (refused as ``eval``
    refuses them: lost ground truth, rows the official code rejects)."""
    if request.task not in (None, "bbox"):
        raise FormatError(
            request.path, f"reconcile compares box AP (--task bbox), not {request.task}"
        )
    if len(request.results) != 1:
        raise FormatError(request.results[-1], "reconcile reads one COCO results JSON")
    dataset = opened(request, read_coco(request.path, request.option("images")))
    check_ground_truth(dataset, False, "bbox")
    results = read_coco_results(dataset, request.results[0], task="bbox")
    return dataset, results


def reconcile_coco(request: EvalRequest) -> Reconciliation:
    """COCO AP50 -> VOC2012 -> VOC2007 of ``request``'s results."""
    dataset, results = read_bbox(request)
    notes = [VOC_NOTE]
    if dataset.data(CocoAnnotations).federated:
        notes.append("an LVIS file read by COCO's rules: LVIS's own protocol is not on this path")
    return reconcile(coco_columns(dataset, results), notes=tuple(notes))
