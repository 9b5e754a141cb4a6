"""COCO detection evaluation (pycocotools ``COCOeval``: evaluate + accumulate + summarize), exact.

``iter_evaluate_coco`` yields one ``CocoCategoryEvaluation`` per category (one for all when
``use_cats`` is off); ``evaluate_coco`` collects them into a ``CocoEvalResult`` whose arrays have
pycocotools' shapes — ``precision[T, R, K, A, M]``, ``recall[T, K, A, M]``, ``scores[T, R, K, A,
M]`` (-1 where undefined) — with named coordinate vectors and a selector ``ap()`` / ``ar()``.
Rules: PROTOCOLS.md §8. Modules: ``coco_params`` (``CocoParams``, re-exported here),
``coco_prepare`` (grouping, ranking), ``coco_similarity``
(IoU / OKS), ``coco_matching`` (greedy), ``coco_accumulate`` (curves).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import Derived, DerivedColumn, ResultSet
from vocviewer.evaluation.result import Verdict
from vocviewer.families.coco.accumulate import accumulate_category
from vocviewer.families.coco.columns import CocoResults
from vocviewer.families.coco.match_kernel import (
    KernelCategory,
    available,
    kernel_categories,
    with_tp_similarity,
)
from vocviewer.families.coco.matching import greedy_match
from vocviewer.families.coco.params import CocoParams
from vocviewer.families.coco.prepare import Prepared, prepare, run_similarities, similarities
from vocviewer.families.coco.summarize import summary_lines, summary_rows

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

__all__ = [
    "CocoCategoryEvaluation",
    "CocoEvalResult",
    "CocoParams",
    "collect_coco",
    "evaluate_coco",
    "iter_evaluate_coco",
    "summary_lines",
]


@dataclass(frozen=True, eq=False)
class CocoCategoryEvaluation:
    """One category's COCO evaluation (``category_id`` -1 when ``use_cats`` is off).

    precision, scores : float64 (T, R, A, M); recall : float64 (T, A, M); -1 where undefined.
    npig : int64 (A,) non-ignored ground truth per area range.
    Evidence for area range 0 (``"all"``) and the largest cap, in global rank order:
    det_rows : int64 (N,) rows of ``ResultSet.detections``; image_index : int64 (N,);
    score : float64 (N,); verdict : int8 (T, N) ``Verdict`` (TP / FP / IGNORED);
    matched_gt : int32 (T, N) ``Dataset.objects`` row matched (-1: none); int64 for 2**31 or
    more objects (half the memory of the largest evidence array).
    tp_iou0 : float64 (N,) or None: each TP's similarity with its match at the first
    threshold (NaN elsewhere), kept where the matching read it (masks).
    """

    category_id: int
    name: str
    precision: FloatArray
    recall: FloatArray
    scores: FloatArray
    npig: IntArray
    det_rows: IntArray
    image_index: IntArray
    score: FloatArray
    verdict: npt.NDArray[np.int8]
    matched_gt: npt.NDArray[np.signedinteger[Any]]
    tp_iou0: FloatArray | None = None

    @classmethod
    def of_matching(
        cls, prep: Prepared, k: int, m: KernelCategory, **evidence: Any
    ) -> CocoCategoryEvaluation:
        """Category ``k`` of ``prep``: its curves and ``npig`` from its matching ``m``, its
        per-detection ``evidence`` (``det_rows`` ... ``matched_gt``, ``tp_iou0``) as given."""
        return cls(
            category_id=prep.category_id_of(k),
            name=prep.category_name_of(k),
            precision=m.curves.precision,
            recall=m.curves.recall,
            scores=m.curves.scores,
            npig=m.npig,
            **evidence,
        )

    @property
    def ap(self) -> float:
        """AP over IoU .50:.95, area all, largest cap; NaN if undefined (no ground truth)."""
        s = self.precision[:, :, 0, -1]
        return float(np.mean(s[s > -1])) if np.any(s > -1) else float("nan")


@dataclass(frozen=True, eq=False)
class CocoEvalResult:
    """COCOeval's accumulated arrays with named axes, plus per-category evidence (``scores``
    may be given as ``core.results.Derived``: made when first read)."""

    params: CocoParams
    category_ids: IntArray
    category_names: tuple[str, ...]
    precision: FloatArray
    recall: FloatArray
    if TYPE_CHECKING:  # (a ``Derived`` is taken too: ``collect_coco`` stacks it when read)
        scores: FloatArray
    else:
        scores: FloatArray = DerivedColumn(lambda _, a: a)
    categories: tuple[CocoCategoryEvaluation, ...]
    notes: tuple[str, ...] = ()

    @property
    def iou_thresholds(self) -> FloatArray:
        return self.params.iou_thresholds

    @property
    def recall_thresholds(self) -> FloatArray:
        return self.params.recall_thresholds

    @property
    def area_ranges(self) -> tuple[str, ...]:
        return self.params.area_names

    @property
    def max_dets(self) -> tuple[int, ...]:
        return self.params.max_dets

    def _select(
        self, arr: FloatArray, iou: float | None, area: str, max_dets: int, category: int | None
    ) -> FloatArray:
        # as ``summarize()``: an area, cap or IoU the params lack selects nothing (reads -1); one
        # index is taken as a slice (a view: the selection copies nothing until masked)
        a = _one([i for i, name in enumerate(self.area_ranges) if name == area])
        m = _one([i for i, cap in enumerate(self.max_dets) if cap == max_dets])
        if iou is not None:
            arr = arr[_one(np.flatnonzero(iou == self.iou_thresholds).tolist())]
        if category is not None:
            k = int(np.flatnonzero(self.category_ids == category)[0])
            arr = arr[..., k : k + 1, :, :]
        return arr[..., a, :][..., m]

    def ap(
        self,
        iou: float | None = None,
        area: str = "all",
        max_dets: int | None = None,
        category: int | None = None,
    ) -> float:
        """Mean precision over the entries > -1, as ``summarize()`` (-1 if none).

        ``iou`` None means .50:.95; ``max_dets`` None means the largest cap; ``category`` is a
        category id (None: all)."""
        cap = self.max_dets[-1] if max_dets is None else max_dets
        return _mean_defined(self._select(self.precision, iou, area, cap, category))

    def ar(
        self,
        iou: float | None = None,
        area: str = "all",
        max_dets: int | None = None,
        category: int | None = None,
    ) -> float:
        """Mean recall over the entries > -1, as ``summarize()`` (-1 if none)."""
        cap = self.max_dets[-1] if max_dets is None else max_dets
        return _mean_defined(self._select(self.recall, iou, area, cap, category))

    def stats(self) -> dict[str, float]:
        """The 12 (bbox/segm) or 10 (keypoints) summary numbers, in ``summarize()`` order."""
        return {name: value for name, value, _ in summary_rows(self)}


def _one(positions: list[int]) -> slice | list[int]:
    """One position as a slice (indexing by it gives a view), else the list."""
    return slice(positions[0], positions[0] + 1) if len(positions) == 1 else positions


def _mean_defined(s: FloatArray) -> float:
    """The mean of ``s``' entries > -1 (C order, as pycocotools' ``np.mean(s[s > -1])``), or
    -1 if none."""
    v = s[s > -1]
    return float(np.mean(v)) if len(v) else -1.0


def _stacked(arrays: tuple[FloatArray, ...], axis: int) -> FloatArray:
    """``np.stack(arrays, axis)``: ``CocoEvalResult.scores``, made when first read (the printed
    summary never reads it)."""
    return np.stack(arrays, axis=axis)


@dataclass(frozen=True, eq=False)
class CategoryMatches:
    """One category's matching at every area range (A) and IoU threshold (T), as
    ``evaluateImg`` decides it, and the curves ``accumulate`` makes of it.

    match : (A, T, D) position of the ground truth each detection matched (-1: none);
    gt_ignore : bool (A, G); dt_ignore, tp, fp : bool (A, T, D); npig : int64 (A,);
    curves : ``accumulate_category``'s; detections in the category's slice order."""

    match: npt.NDArray[np.integer]
    gt_ignore: npt.NDArray[np.bool_]
    dt_ignore: npt.NDArray[np.bool_]
    tp: npt.NDArray[np.bool_]
    fp: npt.NDArray[np.bool_]
    npig: IntArray
    curves: Any


def match_category(
    prep: Prepared, k: int, pairs: tuple[Any, Any, Any] | None = None
) -> CategoryMatches:
    """Match and accumulate category ``k`` (``pairs``: its ``(ent_det, ent_gt, similarity)``
    when the caller computes them otherwise, e.g. keypoints with other sigmas). On the compiled
    kernel where it is built (``match_kernel``), else with numpy; both give the same arrays."""
    sims = None
    if pairs is not None or prep.params.iou_type != "bbox":
        gs, ds = prep.gt_slice(k), prep.dt_slice(k)
        pairs = pairs or similarities(prep, gs, ds, prep.gt_group[gs], prep.dt_group[ds])
        sims = {k: np.asarray(pairs[2], dtype=np.float64)}
    got = kernel_categories(
        prep, k, k + 1, similarities=sims, id0_quirk=not prep.params.fix_id0, full=True
    )
    if got is None:
        return _match_category_numpy(prep, k, pairs)
    c = got[0]
    f = c.full
    assert f is not None
    return CategoryMatches(f.match, f.gt_ignore, f.dt_ignore, f.tp, f.fp, c.npig, c.curves)


def _match_category_numpy(
    prep: Prepared, k: int, pairs: tuple[Any, Any, Any] | None = None
) -> CategoryMatches:
    """``match_category`` with numpy (``matching.greedy_match``, ``accumulate_category``)."""
    p = prep.params
    gs, ds = prep.gt_slice(k), prep.dt_slice(k)
    if pairs is None:
        pairs = similarities(prep, gs, ds, prep.gt_group[gs], prep.dt_group[ds])
    ent_det, ent_gt, sim = pairs
    gt_area = prep.gt_area[gs]
    lo = np.array([a[0] for a in p.area_ranges], dtype=np.float64)[:, None]
    hi = np.array([a[1] for a in p.area_ranges], dtype=np.float64)[:, None]
    gt_ignore = prep.gt_ignore[gs][None, :] | (gt_area < lo) | (gt_area > hi)
    nd = ds.stop - ds.start
    match = greedy_match(
        ent_det, ent_gt, sim, prep.dt_rank[ds], p.iou_thresholds, gt_ignore, prep.gt_crowd[gs], nd
    )
    hit = match >= 0
    a_i, t_i, d_i = np.nonzero(hit)  # few: each GT is matched once per (area, threshold)
    g_i = match[a_i, t_i, d_i]
    matched = hit
    if not p.fix_id0 and (prep.gt_ann_id[gs] == 0).any():  # pycocotools' ``if gtm`` quirk
        matched = hit.copy()
        matched[a_i, t_i, d_i] = prep.gt_ann_id[gs][g_i] != 0
    dt_area = prep.dt_area[ds]
    out = ((dt_area < lo) | (dt_area > hi))[:, None, :]
    dt_ig = ~matched & out  # (A, T, D): unmatched and outside the area range, or ...
    dt_ig[a_i, t_i, d_i] |= gt_ignore[a_i, g_i]  # ... matched to an ignored GT
    tp, fp = matched & ~dt_ig, ~matched & ~dt_ig
    npig = np.count_nonzero(~gt_ignore, axis=1).astype(np.int64)
    curves = accumulate_category(
        prep.dt_score[ds],
        prep.dt_image_pos[ds],
        prep.dt_rank[ds],
        tp,
        fp,
        npig,
        p.recall_thresholds,
        p.max_dets,
    )
    return CategoryMatches(match, gt_ignore, dt_ig, tp, fp, npig, curves)


def _evaluate_one(
    prep: Prepared, k: int, m: KernelCategory | None = None
) -> CocoCategoryEvaluation:
    """Category ``k``'s evidence from its matching ``m`` (``None``: matched here)."""
    return _evaluate_run(prep, k, [m or _one_category(prep, k)])[0]


def _evaluate_run(
    prep: Prepared, k0: int, run: list[KernelCategory]
) -> list[CocoCategoryEvaluation]:
    """The evidence of categories ``k0, k0 + 1, ...`` from their matchings ``run`` (area range
    "all", slice order) and curves; their detections' rows, images and scores gathered in rank
    order for the whole run at once (each category's evidence holds its slice)."""
    d0, d1 = int(prep.dt_offsets[k0]), int(prep.dt_offsets[k0 + len(run)])
    lengths = [len(m.curves.order) for m in run]
    at = np.concatenate([m.curves.order for m in run] or [np.zeros(0, dtype=np.int64)])
    at += np.repeat(prep.dt_offsets[k0 : k0 + len(run)] - d0, lengths)  # (positions in the run)
    det_rows = prep.dt_rows[d0:d1].take(at).astype(np.int64)
    image_index = prep.dt_image_index[d0:d1].take(at).astype(np.int64)
    score = prep.dt_score[d0:d1].take(at)
    bounds = np.cumsum([0, *lengths]).tolist()
    out = []
    for k, m, a, b in zip(range(k0, k0 + len(run)), run, bounds[:-1], bounds[1:], strict=True):
        if m.object_rows:  # (the kernel wrote the rows: int32)
            matched = m.match0
        else:
            row_type = np.int32 if len(prep.gt_anno.ann_id) < 2**31 else np.int64
            gt_rows = np.append(prep.gt_rows[prep.gt_slice(k)], -1).astype(row_type)
            matched = np.asarray(gt_rows[m.match0], dtype=row_type)  # (match -1 picks the -1)
        cat = CocoCategoryEvaluation.of_matching(
            prep,
            k,
            m,
            det_rows=det_rows[a:b],
            image_index=image_index[a:b],
            score=score[a:b],
            verdict=m.verdict0,
            matched_gt=matched,
            tp_iou0=m.tp_iou0,
        )
        out.append(cat)
    return out


def _numpy_category(prep: Prepared, k: int) -> KernelCategory:
    """``match_category`` on the numpy path, in the kernel's shape (area range "all", rank
    order; masks: the TPs' IoU kept, as on the kernel)."""
    pairs = None
    if prep.params.iou_type == "segm":
        gs, ds = prep.gt_slice(k), prep.dt_slice(k)
        pairs = similarities(prep, gs, ds, prep.gt_group[gs], prep.dt_group[ds])
    m = _match_category_numpy(prep, k, pairs)
    verdict0 = np.where(m.tp[0], Verdict.TP, np.where(m.fp[0], Verdict.FP, Verdict.IGNORED))
    order = m.curves.order  # (``[:, order]`` is not C-ordered)
    match0 = np.take(m.match[0], order, axis=1)
    out = KernelCategory(
        m.curves, m.npig, match0, np.take(verdict0.astype(np.int8), order, axis=1), None
    )
    return out if pairs is None else with_tp_similarity(prep, k, out, pairs[2], None)


def category_runs(prep: Prepared) -> Iterator[list[KernelCategory]]:
    """Every category's matching and curves, in order, in the runs they finish in: on the
    kernel where it is built, runs of categories at once (box IoU there; masks and keypoints:
    their similarity computed here, category by category), the categories spread over the
    cores; else one by one, with numpy."""
    p = prep.params
    n = prep.n_categories
    if available():  # runs of categories at once: the kernel's threads share a run's categories
        gt_pos = None
        for k0, k1 in _chunks(prep.dt_offsets):
            sims = None if p.iou_type == "bbox" else _similarities(prep, k0, k1)
            fix = p.fix_id0
            got = kernel_categories(
                prep, k0, k1, similarities=sims, id0_quirk=not fix, object_rows=True
            )
            assert got is not None
            if sims is not None and p.iou_type == "segm":  # the TPs' mask IoU, kept
                gt_pos = _inverse(prep.gt_rows, len(prep.gt_anno.ann_id), gt_pos)
                got = [
                    with_tp_similarity(prep, k, m, sims[k], gt_pos) for k, m in enumerate(got, k0)
                ]
            del sims
            yield got
        return
    for k in range(n):
        yield [_one_category(prep, k)]


def _inverse(rows: Any, n: int, done: IntArray | None) -> IntArray:
    """Each of ``n`` rows' position in ``rows`` (``done``: made already)."""
    if done is None:
        done = np.full(n, -1, dtype=np.int64)
        done[rows] = np.arange(len(rows))
    return done


#: The kernel evaluates categories in runs of at least this share of the detections: their
#: matchings (int64 per detection and IoU threshold) are not all held at once.
CHUNK_SHARE = 8


def _chunks(dt_offsets: IntArray) -> list[tuple[int, int]]:
    """Runs ``(k0, k1)`` of whole categories, each with at least ``1 / CHUNK_SHARE`` of the
    detections and twice its largest category's (the kernel's threads share a run's
    categories, largest first: no thread is left alone with one big category)."""
    offsets = dt_offsets.tolist()
    step = max(offsets[-1] // CHUNK_SHARE, 1)
    runs, k0, largest = [], 0, 0
    for k in range(1, len(offsets)):
        largest = max(largest, offsets[k] - offsets[k - 1])
        run = offsets[k] - offsets[k0]
        if k == len(offsets) - 1 or (run >= step and run >= 2 * largest):
            runs.append((k0, k))
            k0, largest = k, 0
    return runs


def _similarities(prep: Prepared, k0: int, k1: int) -> dict[int, FloatArray]:
    """The mask / keypoint similarity of categories ``k0 .. k1-1``, by category (masks: of the
    whole run at once, ``run_similarities``)."""
    return run_similarities(prep, k0, k1)


def _one_category(prep: Prepared, k: int) -> KernelCategory:
    """Category ``k``'s matching and curves: on the kernel where it is built (masks and
    keypoints: their similarity computed here), else with numpy."""
    if not available():
        return _numpy_category(prep, k)
    sims = None
    if prep.params.iou_type != "bbox":
        gs, ds = prep.gt_slice(k), prep.dt_slice(k)
        sims = {k: similarities(prep, gs, ds, prep.gt_group[gs], prep.dt_group[ds])[2]}
    fix = prep.params.fix_id0
    one = kernel_categories(prep, k, k + 1, similarities=sims, id0_quirk=not fix, object_rows=True)
    if one is None:
        return _numpy_category(prep, k)
    if sims is None or prep.params.iou_type != "segm":
        return one[0]
    gt_pos = _inverse(prep.gt_rows, len(prep.gt_anno.ann_id), None)
    return with_tp_similarity(prep, k, one[0], sims[k], gt_pos)


def iter_evaluate_coco(
    dataset: Dataset,
    results: ResultSet,
    params: CocoParams | None = None,
    on_run: Callable[[list[CocoCategoryEvaluation]], None] | None = None,
) -> Iterator[CocoCategoryEvaluation]:
    """Evaluate category by category (ascending id); yields as each finishes.

    ``dataset`` from ``families.coco.reader.read_coco`` and ``results`` from
    ``families.coco.results_reader.read_coco_results`` (both carry a ``CocoResults``).
    ``on_run``: called with each run of categories that finish together (``category_runs``),
    before they are yielded."""
    prep = prepare(dataset, results, params or CocoParams())
    k = 0
    for run in category_runs(prep):
        placed = _evaluate_run(prep, k, run)
        k += len(run)
        del run  # (the matchings' rank orders are not kept while the run is yielded)
        if on_run is not None:
            on_run(placed)
        yield from placed


def evaluate_coco(
    dataset: Dataset, results: ResultSet, params: CocoParams | None = None
) -> CocoEvalResult:
    """Run the whole evaluation; see ``CocoEvalResult``."""
    params = params or CocoParams()
    return collect_coco(tuple(iter_evaluate_coco(dataset, results, params)), params, results)


def collect_coco(
    cats: tuple[CocoCategoryEvaluation, ...], params: CocoParams, results: ResultSet
) -> CocoEvalResult:
    """Stack ``iter_evaluate_coco``'s categories into a ``CocoEvalResult`` (what
    ``evaluate_coco`` returns; for callers that consume the categories as they arrive)."""
    t, r = len(params.iou_thresholds), len(params.recall_thresholds)
    a, m = len(params.area_ranges), len(params.max_dets)
    scores: Any
    if cats:
        precision = np.stack([c.precision for c in cats], axis=2)
        recall = np.stack([c.recall for c in cats], axis=1)
        scores = Derived(_stacked, tuple(c.scores for c in cats), 2)
    else:
        precision, scores = -np.ones((t, r, 0, a, m)), -np.ones((t, r, 0, a, m))
        recall = -np.ones((t, 0, a, m))
    kept = results.data(CocoResults).warnings  # problems of rows kept, not skipped
    skipped = any(all(p is not w for w in kept) for p in results.problems)
    notes = ("result rows were skipped: NOT OFFICIAL",) if skipped else ()
    return CocoEvalResult(
        params=params,
        category_ids=np.array([c.category_id for c in cats], dtype=np.int64),
        category_names=tuple(c.name for c in cats),
        precision=precision,
        recall=recall,
        scores=scores,
        categories=cats,
        notes=notes,
    )
