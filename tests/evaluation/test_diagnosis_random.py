"""The one-pass false-positive diagnosis equals its definition, applied detection by detection
(a plain loop over the objects of the detection's image), on random crowded images: VOC's
evaluation (overlaps recorded, duplicates its own verdict) and the same evaluation with the
false positives' overlaps blanked and a duplicate IoU threshold (as COCO's evaluation leaves
them). Boxes lie on a coarse grid, so that equal overlaps (ties) and repeated boxes occur."""

from __future__ import annotations

import dataclasses
import math
import random

import numpy as np
import pytest

from tests.evaluation.builders import make_dataset, make_results
from vocviewer.core.boxes import overlap_pairs
from vocviewer.evaluation.analysis import (
    MIN_OVERLAP,
    SIMILAR_GROUPS,
    FPKind,
    classify_false_positives,
    similarity_group,
)
from vocviewer.evaluation.result import Verdict
from vocviewer.families.voc.evaluate import evaluate_voc_det

CLASSES = ("dog", "cat", "horse", "car", "bus", "person")


def _box(rng: random.Random) -> tuple[float, float, float, float]:
    x, y = rng.randrange(0, 60, 10), rng.randrange(0, 60, 10)
    return (x, y, x + rng.randrange(10, 40, 10), y + rng.randrange(10, 40, 10))


def _case(seed: int):
    rng = random.Random(seed)
    ids = [f"i{k}" for k in range(12)]
    objects = {
        i: [(rng.choice(CLASSES), _box(rng), rng.random() < 0.1) for _ in range(rng.randrange(8))]
        for i in ids
    }
    placed = [(c, i, b) for i in ids for c, b, _ in objects[i]]
    dets = [
        (rng.choice(CLASSES), rng.choice(ids), round(rng.random(), 2), _box(rng))
        for _ in range(200)
    ] + [(c, i, round(rng.random(), 2), b) for c, i, b in rng.choices(placed, k=100)]
    ds = make_dataset(objects, {"Main/val": ids})
    rs = make_results(ds, dets)
    ev = evaluate_voc_det(ds, rs, image_set="val").classes
    return ds, rs, ev


def _best(ds, box, image, rows_wanted, plus_one):
    """First object (ascending row) of the image among ``rows_wanted`` of the largest overlap
    (only intersecting boxes, NaN never wins): ``(row, iou)`` or ``(-1, nan)``."""
    best, best_ov = -1, -math.inf
    for row in range(len(ds.objects)):
        if ds.objects.image_index[row] != image or not rows_wanted(row):
            continue
        _, ov = overlap_pairs(box[None], ds.objects.box[row][None], plus_one=plus_one)
        if not math.isnan(ov[0]) and ov[0] > best_ov:
            best, best_ov = row, float(ov[0])
    return (best, best_ov) if best >= 0 else (-1, math.nan)


def _reference(ds, rs, ev, iou_threshold):
    """The module docstring's definition, one detection at a time."""
    labels = ds.objects.label
    group = SIMILAR_GROUPS.get(similarity_group(ev.class_name) or "", frozenset())
    out = []
    for r in range(len(ev)):
        gt, iou = int(ev.best_gt[r]), float(ev.best_iou[r])
        verdict, box, image = ev.verdict[r], rs.detections.box[ev.order[r]], ev.image_index[r]
        if verdict == Verdict.FP and math.isnan(iou):
            gt, iou = _best(ds, box, image, lambda o: labels[o] == ev.class_index, True)
        kind, other, other_iou = FPKind.NOT_FP, -1, math.nan
        overlap = -math.inf if math.isnan(iou) else iou
        if verdict == Verdict.DUPLICATE or (
            verdict == Verdict.FP and iou_threshold is not None and overlap >= iou_threshold
        ):
            kind = FPKind.DUPLICATE
        elif verdict == Verdict.FP and overlap >= MIN_OVERLAP:
            kind = FPKind.LOCALIZATION
        elif verdict == Verdict.FP:
            kind = FPKind.BACKGROUND
            for new_kind, wanted in (
                (
                    FPKind.SIMILAR,
                    lambda o: ds.classes[labels[o]] in group and labels[o] != ev.class_index,
                ),
                (FPKind.OTHER, lambda o: labels[o] != ev.class_index),
            ):
                row, ov = _best(ds, box, image, wanted, True)
                if row >= 0 and ov >= MIN_OVERLAP:
                    kind, other, other_iou = new_kind, row, ov
                    break
        out.append((int(kind), other, other_iou, gt, iou))
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("coco_like", [False, True])
def test_diagnosis_equals_the_per_detection_definition(seed: int, coco_like: bool) -> None:
    ds, rs, evs = _case(seed)
    kinds = set()
    for ev in evs:
        threshold = None
        if coco_like:  # no overlap recorded for false positives; duplicates by IoU
            fp = ev.verdict == Verdict.FP
            ev = dataclasses.replace(
                ev,
                best_gt=np.where(fp, -1, ev.best_gt),
                best_iou=np.where(fp, np.nan, ev.best_iou),
            )
            threshold = 0.5
        fa = classify_false_positives(ds, rs, ev, iou_threshold=threshold)
        got = list(
            zip(
                fa.kind.tolist(),
                fa.confused_gt.tolist(),
                fa.confused_iou.tolist(),
                fa.same_gt.tolist(),
                fa.same_iou.tolist(),
                strict=True,
            )
        )
        want = _reference(ds, rs, ev, threshold)
        np.testing.assert_equal(np.array(got, dtype=float), np.array(want, dtype=float))
        kinds |= set(fa.kind.tolist())
    assert kinds == {int(k) for k in FPKind}
