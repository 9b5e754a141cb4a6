"""``vocviewer reconcile`` on a YOLO split: the Ultralytics validator's mAP50 -> COCO AP50 (the
steps ``conventions.compare`` measures, one rule at a time) -> VOC2012 -> VOC2007."""

from __future__ import annotations

from vocviewer.core.errors import FormatError
from vocviewer.evaluation.reconcile import Leg, Reconciliation, Step, coco_voc_legs, coco_what_if
from vocviewer.families.base import EvalRequest, check_ground_truth, opened
from vocviewer.families.coco.reconcile import VOC_NOTE, coco_columns
from vocviewer.families.yolo import conventions as conv
from vocviewer.families.yolo.reader import read_yolo
from vocviewer.families.yolo.results import read_yolo_results

#: what each of ``conventions.compare``'s steps switches (Ultralytics' rule -> COCO's)
WHAT = {
    "maxDets": "300 detections per image over all classes -> 100 per image and class",
    "conf": "detections scored <= 0.001 dropped -> all kept",
    "interpolation": "linear envelope with a trapezoid sum -> COCO's 101-point step envelope",
    "matching": "greedy by IoU per image -> COCO's greedy by score (crowd regions, tied scores)",
}


def reconcile_yolo(request: EvalRequest) -> Reconciliation:
    """Ultralytics -> COCO AP50 -> VOC2012 -> VOC2007 of ``request``'s predictions."""
    if request.task not in (None, "bbox"):
        raise FormatError(
            request.path, f"reconcile compares box AP (--task bbox), not {request.task}"
        )
    dataset = opened(request, read_yolo(request.path, request.option("split")))
    check_ground_truth(dataset, False, "bbox")
    results = read_yolo_results(dataset, list(request.results), task="bbox")
    columns = coco_columns(dataset, results)
    legs = coco_voc_legs(columns)
    coco_ap50 = legs[0].start_value
    c = conv.compare(dataset, results, float("nan"), coco_ap50, "bbox")
    steps, before = [], c.steps[0][2]
    for rule, _, value in c.steps[1:]:
        steps.append(Step(rule, WHAT[rule], value, value - before))
        before = value
    head = Leg("Ultralytics mAP50", c.steps[0][2], "COCO AP50", tuple(steps))
    note = (
        "Ultralytics: its DetectionValidator's convention (conf 0.001, max_det 300), not a protocol"
    )
    what_if = coco_what_if(columns)
    return Reconciliation("AP at IoU 0.5", (head, *legs), (note, VOC_NOTE), what_if)
