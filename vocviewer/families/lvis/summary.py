"""``LVISEval.summarize``'s 13 numbers (``LVISEval.results``), exact.

Each is the mean of a slice of ``precision[T, R, K, A]`` (or ``recall[T, K, A]``) over its
entries > -1 (-1 if none), taken in ``LVISEval``'s element order, so the float sum is the same.
``lvis_summary`` reads the precision one area range at a time (``precision_of(a)``: the
``(T, R, K)`` slice), so ``category_summary`` can stack the categories' curves one area range
at a time into one reused buffer instead of the whole ``(T, R, K, A)`` array.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from vocviewer.families.coco.evaluate import CocoCategoryEvaluation
from vocviewer.families.coco.params import CocoParams
from vocviewer.families.lvis.columns import FREQUENCIES, MAX_DETS_PER_IMAGE

FloatArray = npt.NDArray[np.float64]

__all__ = ["SUMMARY_KEYS", "category_summary", "lvis_summary", "mean_defined"]

#: ``LVISEval.results`` keys, in ``summarize()`` order
SUMMARY_KEYS: tuple[str, ...] = (
    "AP",
    "AP50",
    "AP75",
    "APs",
    "APm",
    "APl",
    "APr",
    "APc",
    "APf",
    f"AR@{MAX_DETS_PER_IMAGE}",
    f"ARs@{MAX_DETS_PER_IMAGE}",
    f"ARm@{MAX_DETS_PER_IMAGE}",
    f"ARl@{MAX_DETS_PER_IMAGE}",
)


def mean_defined(s: FloatArray) -> float:
    """Mean of the entries > -1 in C order, as ``_summarize`` (-1 if none)."""
    defined = s[s > -1]
    return float(np.mean(defined)) if len(defined) else -1.0


def lvis_summary(
    precision_of: Callable[[int], FloatArray],
    recall: FloatArray,
    frequency: npt.NDArray[np.str_],
    params: CocoParams,
) -> dict[str, float]:
    """The 13 numbers keyed as ``SUMMARY_KEYS``: ``precision_of(a)`` float64 (T, R, K) of area
    range ``a`` (called once per range), ``recall`` float64 (T, K, A), ``frequency`` str (K,)."""
    area = params.area_names.index
    every = precision_of(area("all"))  # read before the next call (it may reuse the buffer)
    at = [mean_defined(every)]
    at += [mean_defined(every[np.where(iou == params.iou_thresholds)[0]]) for iou in (0.5, 0.75)]
    groups = [mean_defined(every[:, :, frequency == f]) for f in FREQUENCIES]
    sizes = [mean_defined(precision_of(area(a))) for a in ("small", "medium", "large")]
    recalls = [mean_defined(recall[:, :, area(a)]) for a in ("all", "small", "medium", "large")]
    return dict(zip(SUMMARY_KEYS, at + sizes + groups + recalls, strict=True))


def category_summary(
    cats: Sequence[CocoCategoryEvaluation], frequency: npt.NDArray[np.str_], params: CocoParams
) -> dict[str, float]:
    """``lvis_summary`` of ``collect_lvis(cats, ...)``'s arrays, value for value, without
    them: each area range's precision is stacked into one reused ``(T, R, K)`` buffer."""
    t, r, a = len(params.iou_thresholds), len(params.recall_thresholds), len(params.area_ranges)
    if not cats:
        return lvis_summary(lambda _: -np.ones((t, r, 0)), -np.ones((t, 0, a)), frequency, params)
    buffer = np.empty((t, r, len(cats)))

    def precision_of(i: int) -> FloatArray:
        return np.stack([c.precision[:, :, i, 0] for c in cats], axis=2, out=buffer)

    recall = np.stack([c.recall[..., 0] for c in cats], axis=1)
    return lvis_summary(precision_of, recall, frequency, params)
