"""LVIS evaluation (the ``lvis`` package's ``LVISEval``: evaluate + accumulate + summarize), exact.

``iter_evaluate_lvis`` yields one ``coco.CocoCategoryEvaluation`` per category (the COCO evidence
class, ``M = 1`` detection cap); ``evaluate_lvis`` collects them into an ``LvisEvalResult`` with
``LVISEval``'s arrays (``precision[T, R, K, A]``, ``recall[T, K, A]``, -1 where undefined) and its
13 summary numbers. COCO's rules hold (``CocoParams``: IoU and recall thresholds, area ranges,
greedy matching by score, COCO's accumulation), with LVIS's federated changes:

- ``LVISResults`` keeps each image's 300 highest-scoring result entries (ties: file order),
  counting entries of categories the annotation file lacks (``families.lvis.columns.LvisResults``); there is no
  other cap (COCO's per image and category ``maxDets`` does not apply);
- ground truth and detections need ``0 < area < inf`` (``get_ann_ids``' strict bounds);
- a detection is evaluated only when its category is on its image (an annotation) or in the
  image's ``neg_category_ids``: any other is not looked at (``_prepare``);
- an unmatched detection of a category in the image's ``not_exhaustive_category_ids`` is ignored,
  as one outside the area range is, instead of being a false positive (``evaluate_img``);
- no crowd: ground truth is ignored only by its ``ignore`` field (and the area range).

Boundary AP (``task="boundary"``) follows boundary-iou-api's LVISEval, a fork that also honours
``iscrowd`` as COCO does (crowd ground truth ignored, matched by intersection over the
detection's area, absorbing several detections) and excludes each area range's upper bound.

Evidence: every detection of a category is listed in rank order (descending score, then image
by ascending id, then file order); those not evaluated (``LvisSelection.status``) have verdict
``IGNORED`` and no match, and change no count.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from threading import Thread

import numpy as np
import numpy.typing as npt

from vocviewer import kernel
from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.result import Verdict
from vocviewer.families.coco.accumulate import accumulate_category
from vocviewer.families.coco.columns import CocoAnnotations, CocoResults
from vocviewer.families.coco.evaluate import CocoCategoryEvaluation
from vocviewer.families.coco.match_kernel import KernelCategory, available, kernel_categories
from vocviewer.families.coco.matching import greedy_match
from vocviewer.families.coco.params import CocoParams
from vocviewer.families.coco.prepare import Prepared, similarities
from vocviewer.families.lvis.columns import (
    MAX_DETS_PER_IMAGE,
    LvisAnnotations,
    LvisResults,
)
from vocviewer.families.lvis.prepare import federated_prepare, score_order
from vocviewer.families.lvis.ranked import category_evidence, rank_order, ranked_rows
from vocviewer.families.lvis.summary import SUMMARY_KEYS, lvis_summary, mean_defined

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

__all__ = [
    "EVALUATED",
    "NO_AREA",
    "OVER_CAP",
    "SUMMARY_KEYS",
    "UNVERIFIED",
    "LvisEvalResult",
    "LvisSelection",
    "collect_lvis",
    "evaluate_lvis",
    "iter_evaluate_lvis",
    "iter_lvis_runs",
    "lvis_notes",
    "lvis_params",
    "select",
]

#: ``LvisSelection.status`` values: why a detection is (not) evaluated
EVALUATED, OVER_CAP, NO_AREA, UNVERIFIED = 0, 1, 2, 3


def lvis_params(task: str = "bbox", dilation_ratio: float = 0.02) -> CocoParams:
    """``LVISEval``'s ``Params`` for ``task`` (``"bbox"``, ``"segm"`` or ``"boundary"``, the
    last boundary-iou-api's LVISEval at ``dilation_ratio``): COCO's thresholds and area ranges,
    one detection cap of 300 (``max_dets``). The boundary fork excludes each range's upper
    bound (``area >= hi`` is out of range)."""
    if task not in ("bbox", "segm", "boundary"):
        raise ValueError(f"LVIS evaluates bbox, segm or boundary, not {task!r}")
    cap = (MAX_DETS_PER_IMAGE,)
    params = CocoParams.for_task(task, max_dets=cap, dilation_ratio=dilation_ratio)
    if task == "boundary":  # the fork's ``area >= hi``: the largest float below each upper bound
        below = tuple((lo, float(np.nextafter(hi, -np.inf))) for lo, hi in params.area_ranges)
        params = dataclasses.replace(params, area_ranges=below)
    return params


@dataclass(frozen=True, eq=False)
class LvisSelection:
    """What the federated rules let through.

    status : int8 (D,) per ``ResultSet.detections`` row: ``EVALUATED``; ``OVER_CAP`` (not among
        its image's 300 highest scores); ``NO_AREA`` (area not in (0, inf)); ``UNVERIFIED`` (its
        category is neither on the image nor verified absent from it). The first that applies.
    not_exhaustive : bool (D,) its category is not exhaustively annotated on its image (unmatched,
        it is ignored rather than a false positive).
    object_evaluated : bool (N,) per ``Dataset.objects`` row: area in (0, inf).
    object_ignored : bool (N,) the annotation's ``ignore`` field (never a miss).
    over_cap, no_area, unverified : bool (D,) each rule of ``status`` alone (``reconcile``
        switches them one at a time).
    """

    status: npt.NDArray[np.int8]
    not_exhaustive: BoolArray
    object_evaluated: BoolArray
    object_ignored: BoolArray
    over_cap: BoolArray
    no_area: BoolArray
    unverified: BoolArray


def _over_cap(results: ResultSet) -> BoolArray:
    """Detections beyond their image's ``MAX_DETS_PER_IMAGE`` highest scores, ranking the
    entries of other categories (``LvisResults``) too; ties keep file order (Python's stable
    ``sorted(..., reverse=True)``). Only images with more entries than the cap are ranked."""
    det = results.detections
    dt: CocoResults = results.data(CocoResults)
    other: LvisResults = results.data_or_none(LvisResults) or LvisResults.empty()
    image = np.concatenate((det.image_index, other.image_index))
    out = np.zeros(len(image), dtype=bool)
    crowded = np.bincount(image, minlength=1) > MAX_DETS_PER_IMAGE
    if not crowded.any():
        return out[: len(det)]
    on = np.flatnonzero(crowded[image])  # the entries of images over the cap
    score = np.concatenate((det.score, other.score))[on]
    entry = np.concatenate((dt.det_id - 1, other.entry))[on]
    order = np.lexsort((entry, -score, image[on]))
    sorted_image = image[on][order]
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order)) - np.searchsorted(sorted_image, sorted_image, "left")
    out[on] = rank >= MAX_DETS_PER_IMAGE
    return out[: len(det)]


def _member(key: IntArray, n: int, *sets: IntArray) -> BoolArray:
    """Whether each of ``key`` (integers in ``[0, n)``) is in one of ``sets`` (``np.isin``, by
    a table of ``n`` flags: no sort)."""
    table = np.zeros(n, dtype=bool)
    for s in sets:
        table[s] = True
    out: BoolArray = table[key]
    return out


def select(dataset: Dataset, results: ResultSet) -> LvisSelection:
    """Apply the federated rules (``dataset`` from ``families.lvis.reader.read_lvis``, ``results`` from
    ``families.lvis.reader.read_lvis_results``); see ``LvisSelection``."""
    gt: CocoAnnotations = dataset.data(CocoAnnotations)
    lv: LvisAnnotations = dataset.data(LvisAnnotations)
    dt: CocoResults = results.data(CocoResults)
    obj, det = dataset.objects, results.detections
    n_cls = len(dataset.classes)
    with np.errstate(invalid="ignore"):
        obj_ok = (gt.area > 0) & (gt.area < np.inf)
        det_ok = (dt.area > 0) & (dt.area < np.inf)
    present = obj.image_index[obj_ok] * n_cls + obj.label[obj_ok]
    key = det.image_index * n_cls + det.label
    n_keys = len(dataset.images) * n_cls
    verified = _member(key, n_keys, present, lv.neg_pairs())
    over_cap = _over_cap(results)
    status = np.full(len(det), EVALUATED, dtype=np.int8)
    status[~verified] = UNVERIFIED
    status[~det_ok] = NO_AREA
    status[over_cap] = OVER_CAP
    return LvisSelection(
        status=status,
        not_exhaustive=_member(key, n_keys, lv.not_exhaustive_pairs()),
        object_evaluated=obj_ok,
        object_ignored=lv.ignore.copy(),
        over_cap=over_cap,
        no_area=~det_ok,
        unverified=~verified,
    )


def federated_prepared(prep: Prepared, sel: LvisSelection) -> Prepared:
    """COCO's grouping and ranking ``prep`` restricted to what LVIS evaluates; no crowd, the
    ``ignore`` field as the only ignore flag (Boundary AP: boundary-iou-api's LVISEval honours
    ``iscrowd`` as COCO does, an ignore flag too)."""
    kk = np.arange(prep.n_categories + 1)
    g_k = np.repeat(kk[:-1], np.diff(prep.gt_offsets))
    d_k = np.repeat(kk[:-1], np.diff(prep.dt_offsets))
    g = sel.object_evaluated[prep.gt_rows]
    d = sel.status[prep.dt_rows] == EVALUATED
    gt_rows = prep.gt_rows[g]
    crowd = prep.gt_crowd[g] if prep.params.iou_type == "boundary" else np.zeros(len(gt_rows), bool)
    return dataclasses.replace(
        prep,
        gt_rows=gt_rows,
        gt_group=prep.gt_group[g],
        gt_ann_id=prep.gt_ann_id[g],
        gt_area=prep.gt_area[g],
        gt_crowd=crowd,
        gt_ignore=sel.object_ignored[gt_rows] | crowd,
        gt_offsets=np.searchsorted(g_k[g], kk, side="left").astype(np.int64),
        dt_rows=prep.dt_rows[d],
        dt_group=prep.dt_group[d],
        dt_rank=prep.dt_rank[d],
        dt_score=prep.dt_score[d],
        dt_area=prep.dt_area[d],
        dt_image_pos=prep.dt_image_pos[d],
        dt_image_index=prep.dt_image_index[d],
        dt_offsets=np.searchsorted(d_k[d], kk, side="left").astype(np.int64),
    )


def _numpy_category(prep: Prepared, k: int, sel: LvisSelection) -> KernelCategory:
    """One category with numpy: COCO's similarity, matching and accumulation with LVIS's
    ignore rule, in the kernel's shape (area range "all")."""
    p = prep.params
    gs, ds = prep.gt_slice(k), prep.dt_slice(k)
    ent_det, ent_gt, sim = similarities(prep, gs, ds, prep.gt_group[gs], prep.dt_group[ds])
    gt_area = prep.gt_area[gs]
    lo = np.array([a[0] for a in p.area_ranges])[:, None]
    hi = np.array([a[1] for a in p.area_ranges])[:, None]
    gt_ignore = prep.gt_ignore[gs][None, :] | (gt_area < lo) | (gt_area > hi)
    nd = ds.stop - ds.start
    rank = prep.dt_rank[ds]
    thresholds = p.iou_thresholds
    match = greedy_match(ent_det, ent_gt, sim, rank, thresholds, gt_ignore, prep.gt_crowd[gs], nd)
    hit = match >= 0
    safe = np.where(hit, match, 0)
    matched = hit & (np.append(prep.gt_ann_id[gs], 1)[safe] != 0)  # a GT id 0 looks unmatched
    ig_pad = np.concatenate((gt_ignore, np.zeros((len(lo), 1), dtype=bool)), axis=1)
    dt_area = prep.dt_area[ds]
    unmatched_ignored = (dt_area < lo) | (dt_area > hi) | sel.not_exhaustive[prep.dt_rows[ds]]
    a_idx = np.arange(len(p.area_ranges))[:, None, None]
    dt_ig = (hit & ig_pad[a_idx, safe]) | (~matched & unmatched_ignored[:, None, :])
    tp, fp = matched & ~dt_ig, ~matched & ~dt_ig
    npig = np.count_nonzero(~gt_ignore, axis=1).astype(np.int64)
    curves = accumulate_category(
        prep.dt_score[ds],
        prep.dt_image_pos[ds],
        rank,
        tp,
        fp,
        npig,
        p.recall_thresholds,
        p.max_dets,
    )
    verdict0 = np.where(tp[0], Verdict.TP, np.where(fp[0], Verdict.FP, Verdict.IGNORED))
    order = curves.order  # rank order, as the kernel gives them
    match0 = np.take(match[0], order, axis=1)
    return KernelCategory(
        curves, npig, match0, np.take(verdict0.astype(np.int8), order, axis=1), None
    )


def _category_matches(prep: Prepared, sel: LvisSelection) -> Iterator[list[KernelCategory]]:
    """Every category's matching and curves, in runs of consecutive categories: on the compiled
    kernel where it is built (all categories at once for boxes; masks: their IoU computed here,
    category by category), else with numpy, one by one. LVIS's rules there: no crowd
    (``federated_prepared``), a GT of id 0 looks unmatched, an unmatched detection of a
    not-exhaustive category is ignored."""
    extra = sel.not_exhaustive[prep.dt_rows]
    n = prep.n_categories
    if prep.params.iou_type == "bbox" and available():
        # (no name holds the run while it is out: its matches are freed once placed)
        yield kernel_categories(prep, 0, n, dt_extra_ignore=extra) or []
        return
    for k in range(n):
        if not available():
            yield [_numpy_category(prep, k, sel)]
            continue
        gs, ds = prep.gt_slice(k), prep.dt_slice(k)
        sims = {k: similarities(prep, gs, ds, prep.gt_group[gs], prep.dt_group[ds])[2]}
        one = kernel_categories(prep, k, k + 1, similarities=sims, dt_extra_ignore=extra)
        yield one if one is not None else [_numpy_category(prep, k, sel)]


def iter_evaluate_lvis(
    dataset: Dataset,
    results: ResultSet,
    task: str = "bbox",
    dilation_ratio: float = 0.02,
    selection: LvisSelection | None = None,
    on_run: Callable[[list[CocoCategoryEvaluation]], None] | None = None,
) -> Iterator[CocoCategoryEvaluation]:
    """Evaluate category by category (ascending id); yields as each finishes. ``dataset`` from
    ``families.lvis.reader.read_lvis``, ``results`` from ``families.lvis.reader.read_lvis_results``
    (``dilation_ratio``: task ``boundary`` only; ``selection``: ``select(dataset, results)``
    where the caller has it; ``on_run``: called with each run of categories that finish
    together, before they are yielded: every category at once on the compiled kernel for
    boxes, one at a time otherwise)."""
    for run in iter_lvis_runs(dataset, results, task, dilation_ratio, selection):
        if on_run is not None:
            on_run(run)
        yield from run


def iter_lvis_runs(
    dataset: Dataset,
    results: ResultSet,
    task: str = "bbox",
    dilation_ratio: float = 0.02,
    selection: LvisSelection | None = None,
) -> Iterator[list[CocoCategoryEvaluation]]:
    """``iter_evaluate_lvis``'s categories in the runs they finish in (every category at once
    on the compiled kernel for boxes; one at a time otherwise)."""
    sel = selection if selection is not None else select(dataset, results)
    params = lvis_params(task, dilation_ratio)
    evaluated = sel.status == EVALUATED
    ranked: list[IntArray] = []
    sorter = Thread(target=lambda: ranked.append(ranked_rows(dataset, results)))
    if kernel.load("_order") is not None:  # the rank order sorted meanwhile, without the GIL
        by_score = None
        sorter.start()
    else:  # one score sort serves both
        by_score = score_order(dataset, results)
    try:
        prep = federated_prepare(
            dataset, results, params, sel.object_evaluated, sel.object_ignored, evaluated, by_score
        )
    finally:
        if sorter.ident is not None:
            sorter.join()
    ro = rank_order(dataset, results, prep, by_score, ranked[0] if ranked else None)
    ranked.clear()
    by_score = evaluated = None  # (not kept while the categories are yielded)
    runs = _category_matches(prep, sel)
    run, k = next(runs, None), 0
    while run is not None:
        placed = category_evidence(prep, k, run, ro)
        k += len(run)
        run = next(runs, None)  # (the kernel's matches, placed, are not kept while yielding)
        if run is None:  # the last run: the columns that placed it are not kept either
            del prep, ro, runs
        yield placed


@dataclass(frozen=True, eq=False)
class LvisEvalResult:
    """``LVISEval``'s accumulated arrays with named axes, plus per-category evidence.

    precision : float64 (T, R, K, A); recall : float64 (T, K, A); -1 where undefined (a category
    without non-ignored ground truth in the area range). ``frequency`` : str (K,) r / c / f.
    ``categories``: the ``CocoCategoryEvaluation`` of each category (their ``ap``: AP over IoU
    .50:.95, area all; NaN if undefined). ``notes``: why the numbers are not official, if so.
    """

    params: CocoParams
    category_ids: IntArray
    category_names: tuple[str, ...]
    frequency: npt.NDArray[np.str_]
    precision: FloatArray
    recall: FloatArray
    categories: tuple[CocoCategoryEvaluation, ...]
    notes: tuple[str, ...] = ()

    @property
    def official(self) -> bool:
        return not self.notes

    def ap(
        self, iou: float | None = None, area: str = "all", frequency: str | None = None
    ) -> float:
        """Mean precision over the entries > -1, as ``_summarize('ap', ...)`` (-1 if none).
        ``iou`` None: .50:.95; ``frequency``: a group ``"r"``, ``"c"`` or ``"f"`` (None: all)."""
        s = self.precision
        if iou is not None:
            s = s[np.where(iou == self.params.iou_thresholds)[0]]
        a = self.params.area_names.index(area)
        s = s[:, :, :, a] if frequency is None else s[:, :, self.frequency == frequency, a]
        return mean_defined(s)

    def ar(self, area: str = "all") -> float:
        """Mean recall over the entries > -1, as ``_summarize('ar', ...)`` (-1 if none)."""
        return mean_defined(self.recall[:, :, self.params.area_names.index(area)])

    def summary(self) -> dict[str, float]:
        """``LVISEval.results``: the 13 numbers, keyed and ordered as ``SUMMARY_KEYS``."""
        return dict(self._summary)

    @cached_property
    def _summary(self) -> dict[str, float]:
        """``summary()``, computed once."""
        p = self.precision
        return lvis_summary(
            lambda a: (p[:, :, :, a], None), self.recall, self.frequency, self.params
        )


def collect_lvis(
    cats: tuple[CocoCategoryEvaluation, ...],
    dataset: Dataset,
    results: ResultSet,
    task: str,
    dilation_ratio: float = 0.02,
) -> LvisEvalResult:
    """Stack ``iter_evaluate_lvis``'s categories into an ``LvisEvalResult``."""
    params = lvis_params(task, dilation_ratio)
    t, r, a = len(params.iou_thresholds), len(params.recall_thresholds), len(params.area_ranges)
    if cats:
        precision = np.stack([c.precision[..., 0] for c in cats], axis=2)
        recall = np.stack([c.recall[..., 0] for c in cats], axis=1)
    else:
        precision, recall = -np.ones((t, r, 0, a)), -np.ones((t, 0, a))
    lv: LvisAnnotations = dataset.data(LvisAnnotations)
    return LvisEvalResult(
        params=params,
        category_ids=np.array([c.category_id for c in cats], dtype=np.int64),
        category_names=tuple(c.name for c in cats),
        frequency=lv.frequency.copy(),
        precision=precision,
        recall=recall,
        categories=cats,
        notes=lvis_notes(results),
    )


def lvis_notes(results: ResultSet) -> tuple[str, ...]:
    """Why the numbers may differ from ``LVISEval``'s: result rows skipped (``keep_going``); a
    NaN score on an image over the cap (Python's sort, not numpy's, decides what is kept)."""
    notes = []
    kept = results.data(CocoResults).warnings  # problems of rows kept, not skipped
    if any(all(p is not w for w in kept) for p in results.problems):
        notes.append("result rows were skipped: NOT OFFICIAL")
    det = results.detections
    count = np.bincount(det.image_index, minlength=1)
    if np.isnan(det.score[count[det.image_index] > MAX_DETS_PER_IMAGE]).any():
        notes.append(
            f"a NaN score on an image with over {MAX_DETS_PER_IMAGE} results: which ones "
            "LVISResults keeps there depends on Python's sort: NOT OFFICIAL"
        )
    return tuple(notes)


def evaluate_lvis(
    dataset: Dataset, results: ResultSet, task: str = "bbox", dilation_ratio: float = 0.02
) -> LvisEvalResult:
    """Run the whole evaluation; see ``LvisEvalResult``."""
    cats = tuple(iter_evaluate_lvis(dataset, results, task, dilation_ratio))
    return collect_lvis(cats, dataset, results, task, dilation_ratio)
