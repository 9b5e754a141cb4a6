"""Bootstrap over images for VisDrone-DET: per-class AP and the summary AP / AP50 as ``evalDET.m``
computes them (``visdrone.py``), in percent.

Units are the split's images. Per (class, IoU threshold) the ranked list is the toolkit's at cap
500 (descending score, ties by image then file row); ``tp`` / ``fp`` from its verdicts (a
detection on an ignore-flagged object neither); ``positives`` the class's objects per image kept
by the region filter, ignore-flagged ones included (the toolkit's recall denominator). AP is
``VOCap`` (the engine's ``"allpoints"``) × 100; a class's AP is the mean over the 10 thresholds.
The summary AP weights each class by the number of images holding it (the ``evalClass`` list),
so a replicate's AP is ``Σ_k W_k · AP_k / Σ_k W_k`` with ``W_k`` the replicate's count of drawn
images holding class ``k`` (a class absent from the sample has weight 0; its own AP is NaN there
and left out of its interval). AP50 is the same at IoU 0.5, with the PR bands.

The point estimates are the evaluation's own numbers (``VisDroneResult``); the engine reproduces
them up to the order of additions (< 1e-9 in the tests).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.bootstrap import (
    EvidenceSet,
    RankedEvidence,
    bootstrap,
    class_ap,
    replicate_weights,
)
from vocviewer.evaluation.bootstrap_stats import BootstrapResult
from vocviewer.families.visdrone.columns import (
    VISDRONE_CATEGORIES,
    VISDRONE_EVAL_CLASSES,
    VisDroneGroundTruth,
)
from vocviewer.families.visdrone.evaluate import VISDRONE_IOU_THRESHOLDS, VisDroneResult

FloatArray = npt.NDArray[np.float64]
N_THR = len(VISDRONE_IOU_THRESHOLDS)

__all__ = ["VisDroneBootstrap", "VisDroneEvidence", "visdrone_bootstrap", "visdrone_evidence"]


@dataclass(frozen=True, eq=False)
class VisDroneEvidence:
    """One result set: ``evidence`` holds class ``k``'s threshold ``t`` at ``k * 10 + t``;
    ``has_class`` bool (10, n_images) whether an image holds a kept object of the class;
    ``point_ap`` (10,) and ``point_map``, ``point_ap50`` (10,), ``point_map50``: the official
    numbers."""

    evidence: EvidenceSet
    has_class: npt.NDArray[np.bool_]
    point_ap: FloatArray
    point_map: float
    point_ap50: FloatArray
    point_map50: float


@dataclass(frozen=True, eq=False)
class VisDroneBootstrap:
    """``ap``: per-class AP (IoU .50:.95) and the summary AP; ``ap50``: at IoU 0.5, with bands."""

    ap: BootstrapResult
    ap50: BootstrapResult


def visdrone_evidence(
    dataset: Dataset, results: ResultSet, evaluation: VisDroneResult, name: str
) -> VisDroneEvidence:
    """Evidence of ``evaluate_visdrone(dataset, results)`` (module docstring)."""
    gt: VisDroneGroundTruth = dataset.data(VisDroneGroundTruth)
    det, obj = results.detections, dataset.objects
    n_img = len(dataset.images)
    evaluated = evaluation.verdict[:, 0] != -2
    rows = np.flatnonzero(evaluated)
    rank = rows[np.lexsort((rows, det.image_index[rows], -det.score[rows]))]
    items = []
    has = np.zeros((len(VISDRONE_EVAL_CLASSES), n_img), dtype=bool)
    for k, c in enumerate(VISDRONE_EVAL_CLASSES):
        mine = evaluation.gt_kept & (gt.category == c)
        positives = np.bincount(obj.image_index[mine], minlength=n_img).astype(np.int64)
        has[k] = positives > 0
        r = rank[det.label[rank] == c]
        for t, thr in enumerate(VISDRONE_IOU_THRESHOLDS):
            v = evaluation.verdict[r, t]
            items.append(
                RankedEvidence(
                    name=f"{VISDRONE_CATEGORIES[c]}@{thr:.2f}",
                    unit=det.image_index[r],
                    tp=v == 1,
                    fp=v == 0,
                    positives=positives,
                )
            )
    ev = EvidenceSet(name, "allpoints", tuple(items), np.arange(n_img, dtype=np.int64))
    official = evaluation.class_ap()
    return VisDroneEvidence(
        evidence=ev,
        has_class=has,
        point_ap=np.array([official[VISDRONE_CATEGORIES[c]] for c in VISDRONE_EVAL_CLASSES]),
        point_map=float(evaluation.summary["AP"]),
        point_ap50=np.asarray(evaluation.ap[:, 0], dtype=np.float64),
        point_map50=float(evaluation.summary["AP50"]),
    )


def _weighted(ap: FloatArray, w: FloatArray) -> FloatArray:
    """Per replicate: ``Σ_k w_k ap_k / Σ_k w_k`` (``ap``, ``w`` (R, K)); NaN where ``Σ w = 0``."""
    num = np.where(w > 0, np.nan_to_num(ap) * w, 0.0).sum(axis=1)
    den = w.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / den, np.nan)


def visdrone_bootstrap(
    sets: Sequence[VisDroneEvidence],
    replicates: int = 1000,
    seed: int = 0,
    *,
    recall_grid: Sequence[float] | None = None,
    chunk: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> VisDroneBootstrap:
    """Bootstrap per-class AP, AP and AP50 of every set on the same resampled images."""
    flat = bootstrap(
        [s.evidence for s in sets],
        replicates,
        seed,
        recall_grid=recall_grid,
        chunk=chunk,
        progress=progress,
        cancelled=cancelled,
    )
    n_set, n_cls = len(sets), len(VISDRONE_EVAL_CLASSES)
    n_units = sets[0].evidence.n_units
    # images holding each class, per replicate (R, K); the same draws as the engine's
    mult = replicate_weights(seed, 0, replicates, n_units).astype(np.float64)
    w = mult.T @ sets[0].has_class.T.astype(np.float64)
    per_thr = flat.ap.reshape(n_set, replicates, n_cls, N_THR) * 100.0
    with np.errstate(invalid="ignore"):
        per_class = per_thr.mean(axis=3)
    ap50 = per_thr[..., 0]
    names = tuple(VISDRONE_CATEGORIES[c] for c in VISDRONE_EVAL_CLASSES)
    pick = np.arange(n_cls) * N_THR  # the IoU 0.5 items

    def result(point: FloatArray, point_map: FloatArray, reps: FloatArray) -> BootstrapResult:
        return replace(
            flat,
            class_names=names,
            point_ap=point,
            point_map=point_map,
            ap=reps,
            map=np.stack([_weighted(reps[s], w) for s in range(n_set)]),
            recall_grid=flat.recall_grid,
            point_precision=flat.point_precision[:, pick],
            precision=flat.precision[:, pick],
        )

    full = result(
        np.stack([s.point_ap for s in sets]), np.array([s.point_map for s in sets]), per_class
    )
    at50 = result(
        np.stack([s.point_ap50 for s in sets]), np.array([s.point_map50 for s in sets]), ap50
    )
    return VisDroneBootstrap(full, at50)


def engine_points(evidence: EvidenceSet) -> FloatArray:
    """The engine's own per-class AP on the full data (percent, (K,)), to check the points."""
    ones = np.ones((evidence.n_units, 1), dtype=np.int32)
    aps = np.array([class_ap(c, ones, "allpoints")[0] for c in evidence.classes]) * 100
    return np.asarray(aps.reshape(-1, N_THR).mean(axis=1), dtype=np.float64)
