"""``vocviewer reconcile`` on an LVIS annotation JSON (federated): ``LVISEval``'s AP50 -> COCO
AP50 (``protocol_rules.LVIS_TO_COCO``: the 300-per-image cap, the federated filter, the
not-exhaustive ignore, the ``ignore`` field, positive areas; each switched alone) -> VOC2012 ->
VOC2007, on the same boxes. The federated facts come from ``evaluate.select``, the rules the
family's evaluation applies."""

from __future__ import annotations

import dataclasses

from vocviewer.core.errors import FormatError
from vocviewer.evaluation.protocol_rules import COCO, LVIS, LVIS_TO_COCO, Federated
from vocviewer.evaluation.reconcile import Reconciliation, coco_voc_legs, coco_what_if, leg
from vocviewer.families.base import EvalRequest, check_ground_truth, opened
from vocviewer.families.coco.reconcile import VOC_NOTE, coco_columns, file_order
from vocviewer.families.lvis.columns import LvisAnnotations
from vocviewer.families.lvis.evaluate import select
from vocviewer.families.lvis.reader import read_lvis, read_lvis_results


def reconcile_lvis(request: EvalRequest) -> Reconciliation:
    """LVIS AP50 -> COCO AP50 -> VOC2012 -> VOC2007 of ``request``'s box results."""
    if request.task not in (None, "bbox"):
        raise FormatError(
            request.path, f"reconcile compares box AP (--task bbox), not {request.task}"
        )
    if len(request.results) != 1:
        raise FormatError(request.results[-1], "reconcile reads one LVIS results JSON")
    dataset = opened(request, read_lvis(request.path, request.option("images"), masks=False))
    check_ground_truth(dataset, False, "bbox")
    results = read_lvis_results(dataset, request.results[0], task="bbox")
    sel, order = select(dataset, results), file_order(results)
    federated = Federated(
        det_over_cap=sel.over_cap[order],
        det_unverified=sel.unverified[order],
        det_no_area=sel.no_area[order],
        det_not_exhaustive=sel.not_exhaustive[order],
        gt_no_area=~sel.object_evaluated,
        gt_ignore=dataset.data(LvisAnnotations).ignore.copy(),
    )
    columns = dataclasses.replace(coco_columns(dataset, results), federated=federated)
    head, rules = leg(columns, "LVIS AP50", LVIS, "COCO AP50", LVIS_TO_COCO)
    assert rules == COCO
    note = "LVIS: LVISEval's rules at IoU 0.5 over all areas (its AP50)"
    legs = (head, *coco_voc_legs(columns))
    return Reconciliation("AP at IoU 0.5", legs, (note, VOC_NOTE), coco_what_if(columns))
