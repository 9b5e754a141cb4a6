"""LVIS's per-category evidence in rank order, for many categories at once.

``rank_order`` (``ranked_rows``) sorts every detection of a result set once (by category, descending score, image
by ascending id, file order); ``category_evidence`` places the kernel's matching of a run of
categories (``KernelCategory``: verdicts and matches of the evaluated detections, in rank
order) among all their detections (``_order.place`` where the kernel is built: one pass without
the GIL; else whole-array numpy steps, ``_place``), and cuts the result into one
``CocoCategoryEvaluation`` per category (its arrays are views of the run's). Detections the
federated rules do not evaluate are ``IGNORED`` and unmatched.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from threading import Thread
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer import kernel
from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.result import Verdict
from vocviewer.families.coco.evaluate import CocoCategoryEvaluation
from vocviewer.families.coco.match_kernel import KernelCategory
from vocviewer.families.coco.prepare import Prepared
from vocviewer.families.lvis.prepare import image_positions, score_order

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

__all__ = ["RankOrder", "category_evidence", "rank_order", "ranked_rows"]


@dataclass(frozen=True, eq=False)
class RankOrder:
    """Every detection row of every category in rank order (``rows[offsets[k]:offsets[k+1]]``
    for class ``k``), each row's position among the evaluated (prepared) ones (-1: not
    evaluated), and the detections' image rows and scores."""

    rows: IntArray
    offsets: IntArray
    position: IntArray
    image_index: IntArray
    score: FloatArray


def ranked_rows(dataset: Dataset, results: ResultSet, by_score: IntArray | None = None) -> IntArray:
    """Every detection row in rank order, by category: ``RankOrder.rows``. ``by_score``: every
    row by descending score, ties by image (ascending id), then file order, categories mixed
    (``prepare.score_order``); a stable sort by category finishes it. ``None``: one
    ``group_rank`` (``_order.c``, without the GIL) by category where the kernel is built, else
    ``score_order``."""
    det = results.detections
    n_cls = len(dataset.classes)
    module = kernel.load("_order") if by_score is None else None
    if module is not None:
        tie = image_positions(dataset)[det.image_index]
        rows: IntArray = module.group_rank(det.label, n_cls, det.score, tie, len(det), False)[0]
        return rows
    if by_score is None:
        by_score = score_order(dataset, results)
    label = det.label[by_score].astype(np.int16 if n_cls < 2**15 else np.int64)
    return by_score[np.argsort(label, kind="stable")]  # (16-bit: a radix sort)


def rank_order(
    dataset: Dataset,
    results: ResultSet,
    prep: Prepared,
    by_score: IntArray | None = None,
    rows: IntArray | None = None,
) -> RankOrder:
    """Rank order: descending score, then image by ascending id, then file order, which is the
    order ``accumulate_category`` gives the evaluated ones (within an image and category, equal
    scores keep file order). ``rows``: ``ranked_rows(dataset, results, by_score)`` where the
    caller has it."""
    det = results.detections
    n_cls = len(dataset.classes)
    if rows is None:
        rows = ranked_rows(dataset, results, by_score)
    counts = np.bincount(det.label, minlength=n_cls)  # (rows: every row, by category)
    offsets = np.concatenate(([0], np.cumsum(counts)))
    position = np.full(len(det), -1, dtype=np.int64)
    position[prep.dt_rows] = np.arange(len(prep.dt_rows))
    return RankOrder(rows, offsets.astype(np.int64), position, det.image_index, det.score)


def category_evidence(
    prep: Prepared, k0: int, matches: Sequence[KernelCategory], ro: RankOrder
) -> list[CocoCategoryEvaluation]:
    """Categories ``k0 .. k0 + len(matches) - 1``: every detection of each in rank order, those
    not evaluated ``IGNORED`` and unmatched (``matched_gt``: ``Dataset.objects`` rows)."""
    if not matches:
        return []
    k1 = k0 + len(matches)
    n_thr = len(prep.params.iou_thresholds)
    e0, e1 = int(ro.offsets[k0]), int(ro.offsets[k1])
    d0, g0, g1 = int(prep.dt_offsets[k0]), int(prep.gt_offsets[k0]), int(prep.gt_offsets[k1])
    rows = ro.rows[e0:e1]
    gathered: list[Any] = []  # each row's image and score, gathered on a second thread meanwhile
    gather = Thread(target=lambda: gathered.extend((ro.image_index[rows], ro.score[rows])))
    gather.start()
    at = ro.position[rows]
    on = np.flatnonzero(at >= 0)
    row_type = np.int32 if len(prep.gt_anno.ann_id) < 2**31 else np.int64
    module = kernel.load("_order")
    if module is not None and row_type == np.int32 and all(_placeable(m) for m in matches):
        column_of = np.empty(int(prep.dt_offsets[k1]) - d0, dtype=np.int64)
        column_of[at[on] - d0] = on
        del at, on  # (not held beside the (T, detections) arrays)
        verdict = np.full((n_thr, len(rows)), Verdict.IGNORED, dtype=np.int8)
        matched = np.full((n_thr, len(rows)), -1, dtype=row_type)
        module.place(
            [m.match0 for m in matches],
            [m.verdict0 for m in matches],
            [m.curves.order for m in matches],
            prep.dt_offsets[k0:k1] - d0,
            prep.gt_offsets[k0:k1] - g0,
            column_of,
            np.asarray(prep.gt_rows[g0:g1], dtype=np.int64),
            verdict,
            matched,
        )
    else:
        verdict = np.full((n_thr, len(rows)), Verdict.IGNORED, dtype=np.int8)
        matched = np.full((n_thr, len(rows)), -1, dtype=row_type)
        _place(prep, k0, matches, at, on, verdict, matched)
    gather.join()
    image_index, score = gathered if gathered else (ro.image_index[rows], ro.score[rows])
    out = []
    for k, m in enumerate(matches, start=k0):
        a, b = int(ro.offsets[k]) - e0, int(ro.offsets[k + 1]) - e0
        out.append(
            CocoCategoryEvaluation.of_matching(
                prep,
                k,
                m,
                det_rows=rows[a:b],
                image_index=image_index[a:b],
                score=score[a:b],
                verdict=verdict[:, a:b],
                matched_gt=matched[:, a:b],
            )
        )
    return out


def _placeable(m: KernelCategory) -> bool:
    """Whether ``_order.place`` takes the category's kernel output as it is."""
    return (
        m.match0.dtype == np.int32
        and m.verdict0.dtype == np.int8
        and m.curves.order.dtype == np.int64
        and m.match0.flags.c_contiguous
        and m.verdict0.flags.c_contiguous
        and m.curves.order.flags.c_contiguous
    )


def _place(
    prep: Prepared,
    k0: int,
    matches: Sequence[KernelCategory],
    at: IntArray,
    on: IntArray,
    verdict: npt.NDArray[np.int8],
    matched: npt.NDArray[np.signedinteger[Any]],
) -> None:
    """``_order.place`` with numpy: the evaluated detections' verdicts and matched ``gt_rows``
    (``Dataset.objects`` rows) written at their columns ``on`` (``at``: their prepared
    positions) of ``verdict`` and ``matched`` (T, run's detections)."""
    k1 = k0 + len(matches)
    d0, g0, g1 = int(prep.dt_offsets[k0]), int(prep.gt_offsets[k0]), int(prep.gt_offsets[k1])
    row_type = matched.dtype
    # the column of each evaluated detection among the run's rank-order columns (in order
    # where the kernel ranks them as ``rank_order`` does: then no gather)
    lengths = [m.match0.shape[1] for m in matches]
    starts = np.repeat(prep.dt_offsets[k0:k1] - d0, lengths)
    ranked = np.concatenate([m.curves.order for m in matches]) + starts
    column = np.empty(len(ranked), dtype=np.int64)
    column[ranked] = np.arange(len(ranked))
    gather = column[at[on] - d0]
    take = None if np.array_equal(gather, np.arange(len(on))) else gather
    g_start = np.repeat(prep.gt_offsets[k0:k1] - g0, lengths).astype(row_type)
    gt_rows = np.append(prep.gt_rows[g0:g1], -1).astype(row_type)  # match -1 picks the -1
    # every threshold at once: (T, evaluated) in the kernel's rank order
    v = np.concatenate([m.verdict0 for m in matches], axis=1)
    # GT slice positions (-1: none; they fit ``row_type``)
    g: npt.NDArray[np.signedinteger[Any]] = np.concatenate(
        [m.match0 for m in matches], axis=1, dtype=row_type
    )
    if take is not None:
        v, g, g_start = v[:, take], g[:, take], g_start[take]
    verdict[:, on] = v
    for t in range(len(matched)):  # one threshold at a time: 1-D temporaries
        row = g[t]
        none = row < 0
        np.add(row, g_start, out=row)
        row[none] = -1  # picks ``gt_rows``' last entry, -1
        matched[t, on] = gt_rows[row]
