"""Bootstrap over images for COCO boxes and masks: AP@[.50:.95] and AP50 as ``COCOeval`` does.

Units are the dataset's images (every image is evaluated; ``CocoParams.image_ids`` must be None).
Per (category, IoU threshold) the ranked list is ``CocoCategoryEvaluation``'s evidence (area
``all``, the largest cap, global rank order): ``tp`` / ``fp`` from its verdicts (``dtIgnore`` —
detections matched to a crowd — neither), ``positives`` the category's non-crowd objects per image.
A replicate's AP of a (category, threshold) is COCO's 101-point rule: the mean over the recall
thresholds of the right-to-left precision envelope at the first rank reaching each threshold (0
past the end), from ``bootstrap.interpolated_precision``; NaN (left out) where the replicate has
no positives of the category. A category's AP is the mean over thresholds, ``AP`` the mean over
defined categories, ``AP50`` the same at IoU 0.5 only — the arithmetic of ``summarize()`` up to
the order of additions (and COCO's ``eps`` in the precision denominator), < 1e-12 on the full data.

Randomness: the replicates draw images exactly as ``bootstrap.replicate_weights`` does, so a
seed gives the same samples here as for VOC.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.evaluation.bootstrap import (
    BootstrapCancelled,
    RankedEvidence,
    interpolated_precision,
    mean_ap,
    replicate_weights,
)
from vocviewer.evaluation.bootstrap_stats import BootstrapResult
from vocviewer.evaluation.result import Verdict
from vocviewer.families.coco.columns import CocoAnnotations
from vocviewer.families.coco.evaluate import CocoEvalResult

FloatArray = npt.NDArray[np.float64]

__all__ = ["CocoBootstrap", "CocoEvidenceSet", "coco_bbox_evidence", "coco_bootstrap"]


@dataclass(frozen=True, eq=False)
class CocoEvidenceSet:
    """One result set: ``ranked[k][t]`` for category ``k`` and IoU threshold ``t``."""

    name: str
    class_names: tuple[str, ...]
    iou_thresholds: FloatArray
    recall_thresholds: FloatArray
    ranked: tuple[tuple[RankedEvidence, ...], ...]
    n_units: int


@dataclass(frozen=True, eq=False)
class CocoBootstrap:
    """``ap``: AP@[.50:.95] per category and its mean (summary ``AP``); ``ap50``: AP at IoU 0.5
    (summary ``AP50``), with precision bands at the 101 recall thresholds (``pr_band``)."""

    ap: BootstrapResult
    ap50: BootstrapResult


def threshold_evidence(
    c: Any, per_image: npt.NDArray[np.int64], iou_thresholds: npt.ArrayLike, engine: str
) -> tuple[RankedEvidence, ...]:
    """One category's evidence per IoU threshold from its ranked verdicts (``c``: a
    ``CocoCategoryResult``-like with ``name``, ``image_index``, ``verdict`` (T, D), ``npig``);
    ``per_image``: its positives per image, which must add up to what ``engine`` counted."""
    if int(per_image.sum()) != int(c.npig[0]):
        raise ValueError(f"{c.name}: {per_image.sum()} positives, {engine} counts {c.npig[0]}")
    return tuple(
        RankedEvidence(
            name=f"{c.name}@{thr:.2f}",
            unit=c.image_index,
            tp=c.verdict[t] == Verdict.TP,
            fp=c.verdict[t] == Verdict.FP,
            positives=per_image.astype(np.int64),
        )
        for t, thr in enumerate(np.asarray(iou_thresholds, dtype=np.float64))
    )


def coco_bbox_evidence(dataset: Dataset, evaluation: CocoEvalResult, name: str) -> CocoEvidenceSet:
    """Evidence of an ``evaluate_coco`` box or mask (segm) result on every image of ``dataset``
    (the positives are the non-crowd objects either way)."""
    p = evaluation.params
    if p.iou_type not in ("bbox", "segm", "boundary") or not p.use_cats or p.image_ids is not None:
        raise ValueError(
            "the COCO bootstrap needs a bbox or segm evaluation of every image, by category"
        )
    gt = dataset.data(CocoAnnotations)
    obj = dataset.objects
    n_img = len(dataset.images)
    counted = ~gt.iscrowd
    if p.iou_type == "boundary" and gt.ignore is not None:  # boundary-iou-api: ignore too
        counted &= ~gt.ignore
    ranked = []
    for c, k_id in zip(evaluation.categories, evaluation.category_ids, strict=True):
        k = int(np.flatnonzero(gt.category_id == k_id)[0])
        per_image = np.bincount(obj.image_index[counted & (obj.label == k)], minlength=n_img)
        ranked.append(threshold_evidence(c, per_image, p.iou_thresholds, "COCOeval"))
    return CocoEvidenceSet(
        name,
        evaluation.category_names,
        np.asarray(p.iou_thresholds),
        np.asarray(p.recall_thresholds),
        tuple(ranked),
        n_img,
    )


def _aps(es: CocoEvidenceSet, w: npt.NDArray[np.int32]) -> tuple[FloatArray, FloatArray]:
    """(AP per threshold (C, K, T), precision at the recall thresholds for IoU 0.5 (K, C, R))."""
    n_rep, n_cls, n_thr = w.shape[1], len(es.ranked), len(es.iou_thresholds)
    ap = np.empty((n_rep, n_cls, n_thr))
    prec50 = np.zeros((n_cls, n_rep, len(es.recall_thresholds)))
    for k, per_thr in enumerate(es.ranked):
        for t, ev in enumerate(per_thr):
            p = np.nan_to_num(interpolated_precision(ev, w, es.recall_thresholds.tolist()), nan=0.0)
            a = p.mean(axis=1)
            a[ev.weighted_counts(w)[0] == 0] = np.nan
            ap[:, k, t] = a
            if t == 0:
                prec50[k] = p
    return ap, prec50


def _category_mean(ap: FloatArray) -> FloatArray:
    """Mean over thresholds (the last axis); NaN where the category is undefined."""
    with np.errstate(invalid="ignore"):
        return np.asarray(np.mean(ap, axis=-1))


def coco_bootstrap(
    sets: Sequence[CocoEvidenceSet],
    replicates: int = 1000,
    seed: int = 0,
    *,
    chunk: int = 50,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    bands: bool = True,
) -> CocoBootstrap:
    """Bootstrap AP@[.50:.95] and AP50 of every set on the same resampled images (module
    docstring). ``progress(done, total)`` after each chunk; ``cancelled()`` before each chunk
    (raises ``BootstrapCancelled``); ``bands`` False: keep no AP50 PR bands (their replicates
    take K x replicates x 101 floats per set)."""
    if replicates < 1:
        raise ValueError("replicates must be >= 1")
    if not sets:
        raise ValueError("no result sets to bootstrap")
    for s in sets[1:]:
        if s.n_units != sets[0].n_units or s.class_names != sets[0].class_names:
            raise ValueError(f"{s.name!r} is evaluated on other images or classes")
    n_units, n_cls = sets[0].n_units, len(sets[0].class_names)
    n_rec = len(sets[0].recall_thresholds)
    point = [_aps(s, np.ones((n_units, 1), dtype=np.int32)) for s in sets]
    ap = np.empty((len(sets), replicates, n_cls, len(sets[0].iou_thresholds)))
    prec = np.empty((len(sets), n_cls, replicates, n_rec if bands else 0))
    for first in range(0, replicates, chunk):
        if cancelled is not None and cancelled():
            raise BootstrapCancelled(f"cancelled after {first} of {replicates} replicates")
        count = min(chunk, replicates - first)
        w = replicate_weights(seed, first, count, n_units)
        for i, s in enumerate(sets):
            ap[i, first : first + count], p = _aps(s, w)
            prec[i, :, first : first + count] = p[..., : prec.shape[-1]]
        if progress is not None:
            progress(first + count, replicates)
    every = np.ones(n_cls, dtype=bool)

    def result(
        point_ap: FloatArray, reps: FloatArray, pp: FloatArray, pr: FloatArray
    ) -> BootstrapResult:
        return BootstrapResult(
            set_names=tuple(s.name for s in sets),
            class_names=sets[0].class_names,
            seed=seed,
            point_ap=point_ap,
            point_map=np.array([mean_ap(point_ap[i : i + 1], every)[0] for i in range(len(sets))]),
            ap=reps,
            map=np.stack([mean_ap(reps[i], every) for i in range(len(sets))]),
            recall_grid=np.asarray(sets[0].recall_thresholds) if pr.shape[-1] else np.zeros(0),
            point_precision=pp,
            precision=pr,
        )

    no_grid = np.zeros((len(sets), n_cls, replicates, 0))
    full = result(
        np.stack([_category_mean(a[0]) for a, _ in point]),
        _category_mean(ap),
        np.zeros((len(sets), n_cls, 0)),
        no_grid,
    )
    at50 = result(
        np.stack([a[0, :, 0] for a, _ in point]),
        ap[..., 0],
        np.stack([pp[:, 0, : prec.shape[-1]] for _, pp in point]),
        prec,
    )
    return CocoBootstrap(full, at50)
