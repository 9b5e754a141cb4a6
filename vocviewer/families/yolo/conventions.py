"""The second column: the Ultralytics validator's numbers beside COCO's, and why they differ.

The difference is taken apart by changing one rule at a time, from the validator's towards
COCO's, on the same detections (mAP50-95, then mAP50):

1. the detection cap: 300 per image over all classes → COCO's 100 per image *and class*;
2. the confidence threshold: > 0.001 → none;
3. the interpolation: linear over the envelope with a trapezoid sum and a (recall 1,
   precision 0) end point → COCO's step envelope sampled at 101 recall points;
4. what is left: the matching rule (both greedy by score, the best-IoU free object first; COCO
   matches per class and area range and prefers real objects to crowd regions), crowd regions
   and the order of tied scores.

Each step's change is reported with the rule's name and the count of detections or images it
touched, so the explanation is about this data, not in general.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

import numpy as np

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.families.coco.columns import CocoAnnotations, CocoResults
from vocviewer.families.coco.similarity import KEYPOINT_SIGMAS
from vocviewer.families.yolo.ultralytics_rules import (
    Boxes,
    FloatArray,
    UltralyticsMetrics,
    evaluate,
    kept,
)

CONF, MAX_DET = 0.001, 300


@dataclass(frozen=True)
class Comparison:
    """``ultralytics`` (the validator's metrics), ``steps`` (rule, mAP50-95 after it, mAP50
    after it) and the ``lines`` explaining them."""

    ultralytics: UltralyticsMetrics
    steps: tuple[tuple[str, float, float], ...]
    lines: tuple[str, ...]
    what: str = "DetectionValidator box metrics"

    def payload(self) -> dict[str, object]:
        return {
            "convention": f"ultralytics ({self.what}, not COCO's protocol)",
            "summary": self.ultralytics.summary(),
            "steps": [{"rule": r, "mAP50-95": m, "mAP50": m50} for r, m, m50 in self.steps],
            "explanation": list(self.lines),
        }


def columns(dataset: Dataset, results: ResultSet, pose: bool = False) -> tuple[Boxes, Boxes]:
    """Ground truth (crowd regions left out: YOLO labels have none) and detections as boxes;
    ``pose``: with keypoints, the objects' area the pose validator's OKS uses (0.53 × box)."""
    obj, det = dataset.objects, results.detections
    coco = dataset.data(CocoAnnotations)
    keep = ~np.asarray(coco.iscrowd, dtype=bool)
    box = obj.box[keep]
    gt = Boxes(obj.image_index[keep], obj.label[keep], box)
    dets = Boxes(det.image_index, det.label, det.box, det.score)
    if pose:
        area = (box[:, 2] - box[:, 0]) * (box[:, 3] - box[:, 1]) * 0.53
        gt = replace(gt, keypoints=coco.keypoints[keep], area=area)
        dets = replace(dets, keypoints=results.data(CocoResults).keypoints)
    return gt, dets


def _sigmas(k: int) -> FloatArray:
    """COCO's 17 person sigmas, else 1 / K each (the pose validator's ``OKS_SIGMA`` rule)."""
    return KEYPOINT_SIGMAS if k == len(KEYPOINT_SIGMAS) else np.full(k, 1.0 / k)


def compare(
    dataset: Dataset, results: ResultSet, coco_ap: float, coco_ap50: float, task: str = "bbox"
) -> Comparison:
    """The validator's metrics of ``results`` (boxes; ``task`` keypoints: OKS) and the steps
    from them to COCO's ``coco_ap`` (AP .50:.95) and ``coco_ap50``."""
    pose = task == "keypoints"
    gt, dets = columns(dataset, results, pose)
    sig = _sigmas(gt.keypoints.shape[1]) if gt.keypoints is not None else None
    n = len(dataset.images)
    u = evaluate(gt, dets, n, CONF, MAX_DET, sigmas=sig)
    cap = evaluate(gt, dets, n, CONF, 100, per_class_cap=True, sigmas=sig)
    noconf = evaluate(gt, dets, n, -np.inf, 100, per_class_cap=True, sigmas=sig)
    steps = [
        ("ultralytics", u.map, u.map50),
        ("maxDets", cap.map, cap.map50),
        ("conf", noconf.map, noconf.map50),
    ]
    if pose:  # COCO's OKS scales by the annotation's area
        coco = dataset.data(CocoAnnotations)
        gt = replace(gt, area=np.asarray(coco.area)[~np.asarray(coco.iscrowd, dtype=bool)])
        area = evaluate(gt, dets, n, -np.inf, 100, per_class_cap=True, sigmas=sig)
        steps.append(("oks area", area.map, area.map50))
    interp = evaluate(
        gt, dets, n, -np.inf, 100, per_class_cap=True, coco_interpolation=True, sigmas=sig
    )
    steps += [("interpolation", interp.map, interp.map50), ("matching", coco_ap, coco_ap50)]
    assert dets.score is not None
    n_all = len(dets.image)
    n_u = len(kept(dets, CONF, MAX_DET))
    n_cap = len(kept(dets, CONF, 100, per_class_cap=True))
    low = int(np.sum(dets.score <= CONF))
    crowd = int(np.sum(np.asarray(dataset.data(CocoAnnotations).iscrowd, dtype=bool)))
    unlabelled = int(np.sum(dataset.data(CocoAnnotations).num_keypoints == 0)) if pose else 0
    why = {
        "maxDets": (
            f"detection cap: Ultralytics keeps 300 per image over all classes ({n_u} of "
            f"{n_all} kept), COCO 100 per image and class (maxDets 100: {n_cap} kept)"
        ),
        "conf": f"confidence threshold: Ultralytics drops {low} detections scored <= 0.001; "
        "COCO keeps every one",
        "interpolation": "interpolation: Ultralytics integrates the precision envelope "
        "linearly at 101 recall points, ending at (recall 1, precision 0) (trapezoid sum); "
        "COCO takes the envelope's step value at each of 101 recall thresholds, 0 past the "
        "last recall reached",
        "oks area": "OKS scale: the pose validator divides by 0.53 × the object's box area, "
        "COCO by the annotation's area",
        "matching": "matching and ties: Ultralytics matches each image greedily by IoU (pose: OKS); COCO "
        "by score, each detection to the best-IoU unmatched object"
        + (f"; COCO also ignores detections on {crowd} crowd regions" if crowd else "")
        + (
            f"; COCO ignores {unlabelled} objects without a labelled keypoint, Ultralytics "
            "counts them as missed"
            if unlabelled
            else ""
        ),
    }
    lines = [
        f"Ultralytics mAP50-95 {u.map:.4f} vs COCO AP {coco_ap:.4f} "
        f"(difference {u.map - coco_ap:+.4f}); mAP50 {u.map50:.4f} vs AP50 {coco_ap50:.4f} "
        f"({u.map50 - coco_ap50:+.4f}). One rule at a time, Ultralytics' towards COCO's:"
    ]
    for (_, m0, a0), (rule, m1, a1) in itertools.pairwise(steps):
        if abs(m1 - m0) < 5e-5 and abs(a1 - a0) < 5e-5:
            lines.append(f"  {why[rule]}: moves nothing here (less than 0.0001)")
        else:
            lines.append(
                f"  {why[rule]}: moves mAP50-95 by {m1 - m0:+.4f}, mAP50 by {a1 - a0:+.4f}"
            )
    lines.append(
        "  area ranges (COCO's small / medium / large) and maxDets 1 / 10 change only "
        "COCO's other rows, never its AP"
    )
    what = "PoseValidator OKS metrics" if pose else "DetectionValidator box metrics"
    return Comparison(u, tuple(steps), tuple(lines), what)


def summary_lines(c: Comparison) -> list[str]:
    """The second column's printed lines."""
    s = c.ultralytics.summary()
    head = f"Ultralytics validator convention ({c.what}, not COCO's protocol; conf 0.001, max_det 300):"
    body = "  " + "  ".join(f"{k} {v:.4f}" for k, v in s.items())
    return [head, body, *c.lines]
