"""``LVISEval.summarize``'s 13 numbers (``LVISEval.results``), exact.

Each is the mean of a slice of ``precision[T, R, K, A]`` (or ``recall[T, K, A]``) over its
entries > -1 (-1 if none), taken in ``LVISEval``'s element order, so the float sum is the same.
``lvis_summary`` reads the precision one area range at a time (``precision_of(a)``: the
``(T, R, K)`` slice), so ``category_summary`` can stack the categories' curves one area range
at a time into one reused buffer instead of the whole ``(T, R, K, A)`` array; where the
categories' curves lie in one buffer (the compiled kernel's: ``consecutive``), each area range
is one gather from it instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from vocviewer.families.coco.evaluate import CocoCategoryEvaluation
from vocviewer.families.coco.params import CocoParams
from vocviewer.families.lvis.columns import FREQUENCIES, MAX_DETS_PER_IMAGE

FloatArray = npt.NDArray[np.float64]

__all__ = [
    "SUMMARY_KEYS",
    "AreaPrecision",
    "category_summary",
    "consecutive",
    "lvis_summary",
    "mean_defined",
]

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


#: One area range's precision: float64 (T, R, K), -1 where undefined, with ``None``; or
#: float64 (T, R, J), every entry defined, with the bool (K,) that picks those J categories.
AreaPrecision = tuple[FloatArray, "npt.NDArray[np.bool_] | None"]


def _mean(s: FloatArray, dense: bool) -> float:
    """``mean_defined(s)``; ``dense``: every entry of ``s`` is defined (no selection)."""
    if not dense:
        return mean_defined(s)
    flat = np.ascontiguousarray(s).reshape(-1)
    return float(np.mean(flat)) if len(flat) else -1.0


def lvis_summary(
    precision_of: Callable[[int], AreaPrecision],
    recall: FloatArray,
    frequency: npt.NDArray[np.str_],
    params: CocoParams,
) -> dict[str, float]:
    """The 13 numbers keyed as ``SUMMARY_KEYS``: ``precision_of(a)`` the precision of area
    range ``a`` (called once per range; ``AreaPrecision``), ``recall`` float64 (T, K, A),
    ``frequency`` str (K,)."""
    area = params.area_names.index
    every, picked = precision_of(area("all"))  # read before the next call (it may reuse it)
    dense = picked is not None
    group = frequency if picked is None else frequency[picked]
    at = [_mean(every, dense)]
    at += [_mean(every[np.where(i == params.iou_thresholds)[0]], dense) for i in (0.5, 0.75)]
    groups = [_mean(every[:, :, group == f], dense) for f in FREQUENCIES]
    sizes = [_mean(*_values(precision_of(area(a)))) for a in ("small", "medium", "large")]
    recalls = [mean_defined(recall[:, :, area(a)]) for a in ("all", "small", "medium", "large")]
    return dict(zip(SUMMARY_KEYS, at + sizes + groups + recalls, strict=True))


def _values(p: AreaPrecision) -> tuple[FloatArray, bool]:
    return p[0], p[1] is not None


def consecutive(arrays: Sequence[FloatArray]) -> FloatArray | None:
    """``np.stack(arrays)`` as a read-only view, where the arrays (C-contiguous, of one shape)
    lie one after another in one 1-D buffer, as the compiled kernel's outputs of one call do
    (one block per kind); ``None`` otherwise (then the caller stacks them)."""
    if not arrays:
        return None
    first = arrays[0]
    base = first.base
    if not isinstance(base, np.ndarray) or base.ndim != 1 or base.dtype != first.dtype:
        return None
    size, shape, item = first.size, first.shape, base.itemsize
    origin = base.ctypes.data
    offset = first.ctypes.data - origin
    if size == 0 or offset % item or not base.flags.c_contiguous:
        return None
    start = offset // item
    if start + len(arrays) * size > base.size:
        return None
    for i, a in enumerate(arrays):
        at = origin + (start + i * size) * item
        if a.base is not base or a.shape != shape or not a.flags.c_contiguous:
            return None
        if a.ctypes.data != at:
            return None
    view = base[start : start + len(arrays) * size].reshape(len(arrays), *shape)
    view.flags.writeable = False
    return view


def category_summary(
    cats: Sequence[CocoCategoryEvaluation], frequency: npt.NDArray[np.str_], params: CocoParams
) -> dict[str, float]:
    """``lvis_summary`` of ``collect_lvis(cats, ...)``'s arrays, value for value, without
    them: each area range's precision is stacked into one reused ``(T, R, K)`` buffer.

    COCO's accumulation leaves a category's curve of an area range all -1 (no ground truth
    there) or fills it with precisions >= 0, so the entries > -1 are, in order, those of the
    categories whose curve is filled: where that holds (checked), only those are stacked and
    the means read them without a selection."""
    t, r, a = len(params.iou_thresholds), len(params.recall_thresholds), len(params.area_ranges)
    if not cats:
        none = -np.ones((t, r, 0))
        return lvis_summary(lambda _: (none, None), -np.ones((t, 0, a)), frequency, params)
    every = consecutive([c.precision for c in cats])  # (K, T, R, A, M) or None
    recalls = consecutive([c.recall for c in cats]) if every is not None else None
    if every is not None and recalls is not None:
        return _block_summary(every, recalls, frequency, params)
    filled = np.array([c.precision[0, 0, :, 0] for c in cats]) > -1  # (K, A)
    flat = np.empty(t * r * len(cats))

    def precision_of(i: int) -> AreaPrecision:
        on = [c.precision[:, :, i, 0] for c, f in zip(cats, filled[:, i], strict=True) if f]
        off = [c.precision[:, :, i, 0] for c, f in zip(cats, filled[:, i], strict=True) if not f]
        buffer = flat[: t * r * len(on)].reshape(t, r, len(on))
        if on:
            np.stack(on, axis=2, out=buffer)
        if (buffer > -1).all() and (not off or (np.stack(off) == -1).all()):
            return buffer, filled[:, i]
        return np.stack([c.precision[:, :, i, 0] for c in cats], axis=2), None

    recall = np.stack([c.recall[..., 0] for c in cats], axis=1)
    return lvis_summary(precision_of, recall, frequency, params)


def _block_summary(
    every: FloatArray,
    recalls: FloatArray,
    frequency: npt.NDArray[np.str_],
    params: CocoParams,
) -> dict[str, float]:
    """``category_summary`` of categories whose precision is ``every`` (K, T, R, A, M), one
    buffer (``consecutive``), and recall ``recalls`` (K, T, A, M): each area
    range's (T, R, K) precision is one gather from it, not a stack of K slices."""
    p = every[..., 0]  # (K, T, R, A)
    filled = p[:, 0, 0, :] > -1  # (K, A)

    def precision_of(i: int) -> AreaPrecision:
        on = filled[:, i]
        dense = np.ascontiguousarray(p[on, :, :, i].transpose(1, 2, 0))
        if (dense > -1).all() and (p[~on, :, :, i] == -1).all():
            return dense, on
        return np.ascontiguousarray(p[:, :, :, i].transpose(1, 2, 0)), None

    recall = recalls[..., 0].transpose(1, 0, 2)  # (T, K, A): read in that order
    return lvis_summary(precision_of, recall, frequency, params)
