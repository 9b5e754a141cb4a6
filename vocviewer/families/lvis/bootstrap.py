"""Bootstrap over images for LVIS: AP (IoU .50:.95), AP50 and APr / APc / APf as ``LVISEval``.

Units are the dataset's images. Per (category, IoU threshold) the ranked list is
``evaluate_lvis``'s evidence (area "all", rank order: descending score, then image, then file
order): ``tp`` / ``fp`` from its verdicts — a detection LVIS does not evaluate (its category
neither on the image nor verified absent, over the cap of 300, no area) or ignores (unmatched on a
not-exhaustive category, matched to an ``ignore`` annotation) is neither and keeps its slot —
and ``positives`` the category's counted annotations per image (``npig``). Matching and the cap
are per image, so a resampled image keeps its verdicts; the federated lists travel with it.

The arithmetic is COCO's (``bootstrap_coco``: the 101-point rule, a category undefined in a
replicate that holds none of its positives, as ``LVISEval`` leaves out a category without ground
truth). The point estimates are ``LVISEval``'s own numbers (``LvisEvalResult.ap``, per category
``CocoCategoryEvaluation.ap``), the same ``vocviewer eval`` prints; the engine's unresampled
replicate agrees with them to < 1e-12 (the order of additions). ``APr`` / ``APc`` / ``APf``: the
mean over the defined categories of one frequency group, replicate by replicate.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.bootstrap import mean_ap
from vocviewer.evaluation.bootstrap_stats import BootstrapResult
from vocviewer.families.coco.bootstrap import CocoEvidenceSet, coco_bootstrap, threshold_evidence
from vocviewer.families.lvis.columns import FREQUENCIES
from vocviewer.families.lvis.evaluate import LvisEvalResult, select
from vocviewer.families.lvis.tide import lvis_positives

FloatArray = npt.NDArray[np.float64]

__all__ = ["LvisBootstrap", "LvisEvidenceSet", "lvis_bootstrap", "lvis_evidence"]


@dataclass(frozen=True, eq=False)
class LvisEvidenceSet:
    """One result set: the ranked lists (``coco``) and ``LVISEval``'s point estimates."""

    coco: CocoEvidenceSet
    frequency: npt.NDArray[np.str_]
    ap: FloatArray  # (K,) per category, IoU .50:.95 (NaN: undefined)
    ap50: FloatArray  # (K,) per category at IoU 0.5
    summary: dict[str, float]  # "AP", "AP50", "APr", "APc", "APf" (NaN: undefined)

    @property
    def name(self) -> str:
        return self.coco.name


@dataclass(frozen=True, eq=False)
class LvisBootstrap:
    """``ap``: AP@[.50:.95] per category and its mean (``LVISEval``'s ``AP``); ``ap50``: at IoU
    0.5 (``AP50``) with precision bands at the 101 recall thresholds; ``groups``: ``APr``,
    ``APc``, ``APf`` (the classes of each group only)."""

    ap: BootstrapResult
    ap50: BootstrapResult
    groups: dict[str, BootstrapResult]


def _undefined(v: float) -> float:
    return float("nan") if v == -1 else v


def lvis_evidence(
    dataset: Dataset, results: ResultSet, evaluation: LvisEvalResult, name: str
) -> LvisEvidenceSet:
    """Evidence of ``evaluate_lvis(dataset, results, task)`` (bbox or segm) on every image."""
    p = evaluation.params
    n_img = len(dataset.images)
    obj = dataset.objects
    counted = lvis_positives(dataset, select(dataset, results), evaluation)
    ranked = []
    for k, c in enumerate(evaluation.categories):
        per_image = np.bincount(obj.image_index[counted & (obj.label == k)], minlength=n_img)
        ranked.append(threshold_evidence(c, per_image, p.iou_thresholds, "LVISEval"))
    coco = CocoEvidenceSet(
        name,
        evaluation.category_names,
        np.asarray(p.iou_thresholds),
        np.asarray(p.recall_thresholds),
        tuple(ranked),
        n_img,
    )
    at50 = evaluation.precision[0, :, :, 0]  # (R, K), -1 where undefined
    defined = at50[0] > -1
    ap50 = np.where(defined, at50.mean(axis=0), np.nan)
    summary = {"AP": _undefined(evaluation.ap()), "AP50": _undefined(evaluation.ap(0.5))}
    summary.update({f"AP{f}": _undefined(evaluation.ap(frequency=f)) for f in FREQUENCIES})
    return LvisEvidenceSet(
        coco,
        evaluation.frequency.copy(),
        np.array([c.ap for c in evaluation.categories], dtype=np.float64),
        ap50,
        summary,
    )


def _with_points(
    boot: BootstrapResult, ap: FloatArray, mean: FloatArray, keep: npt.NDArray[np.bool_] | None
) -> BootstrapResult:
    """``boot`` with ``LVISEval``'s point estimates (``ap`` (S, K), ``mean`` (S,)); ``keep``: only
    these classes (their mean recomputed per replicate)."""
    if keep is None:
        return dataclasses.replace(boot, point_ap=ap, point_map=mean)
    reps = boot.ap[:, :, keep]
    every = np.ones(int(keep.sum()), dtype=bool)
    return dataclasses.replace(
        boot,
        class_names=tuple(n for n, k in zip(boot.class_names, keep, strict=True) if k),
        point_ap=ap[:, keep],
        point_map=mean,
        ap=reps,
        map=np.stack([mean_ap(reps[i], every) for i in range(len(reps))]),
        point_precision=boot.point_precision[:, keep],
        precision=boot.precision[:, keep],
    )


def lvis_bootstrap(
    sets: Sequence[LvisEvidenceSet],
    replicates: int = 1000,
    seed: int = 0,
    *,
    chunk: int = 50,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    bands: bool = True,
) -> LvisBootstrap:
    """Bootstrap AP, AP50 and APr / APc / APf of every set on the same resampled images (module
    docstring); ``progress``, ``cancelled`` and ``bands`` (AP50's PR bands: K x replicates x
    101 floats per set, 1 GB for LVIS v1's 1,203 categories and 1,000 replicates) as
    ``coco_bootstrap``."""
    boot = coco_bootstrap(
        [s.coco for s in sets],
        replicates,
        seed,
        chunk=chunk,
        progress=progress,
        cancelled=cancelled,
        bands=bands,
    )
    ap = np.stack([s.ap for s in sets])
    groups = {
        f"AP{f}": _with_points(
            boot.ap,
            ap,
            np.array([s.summary[f"AP{f}"] for s in sets]),
            sets[0].frequency == f,
        )
        for f in FREQUENCIES
    }
    return LvisBootstrap(
        _with_points(boot.ap, ap, np.array([s.summary["AP"] for s in sets]), None),
        _with_points(
            boot.ap50,
            np.stack([s.ap50 for s in sets]),
            np.array([s.summary["AP50"] for s in sets]),
            None,
        ),
        groups,
    )
