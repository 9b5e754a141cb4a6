"""LVIS's ``Prepared`` (COCO's grouping and ranking, ``coco.prepare``) of what LVIS evaluates,
from one score sort.

``federated_prepared(prepare(dataset, results, lvis_params(task)), select(...))`` sorts every
detection by (image, category) group and score, then drops those the federated rules do not
evaluate. ``federated_prepare`` gives the same columns from ``score_order`` (every detection by
descending score, ties by image, then file order: the sort ``ranked.rank_order`` needs too) with
two stable sorts of small integers over the evaluated detections alone. One column differs in
value, not in effect: ``dt_rank`` counts only the evaluated detections of a group (COCO's counts
every one); the kernel reads it only as ``rank < 300``, which holds for both, since a detection
with 300 others of its group ahead of it is over its image's cap of 300 and not evaluated.

Where the compiled kernel is built (``_order.c``'s ``group_rank``: a counting sort by group,
then each group's few scores sorted), no score sort is needed: ``federated_prepare`` and
``ranked.rank_order`` are each one ``group_rank`` call, given ``by_score=None``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer import kernel
from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.families.coco.columns import CocoAnnotations, CocoResults
from vocviewer.families.coco.params import CocoParams
from vocviewer.families.coco.prepare import Prepared

IntArray = npt.NDArray[np.int64]
Index = npt.NDArray[np.signedinteger[Any]]

__all__ = ["federated_prepare", "image_positions", "score_order"]


def image_positions(dataset: Dataset) -> IntArray:
    """Each image row's position by ascending COCO id (ties: row order)."""
    image_id = dataset.data(CocoAnnotations).image_id
    pos = np.empty(len(image_id), dtype=np.int64)
    pos[np.argsort(image_id, kind="stable")] = np.arange(len(image_id))
    return pos


def score_order(dataset: Dataset, results: ResultSet) -> IntArray:
    """Every detection row by descending score, ties by image (ascending id), then file order
    (no image sort where the file lists its images in that order)."""
    det = results.detections
    positions = image_positions(dataset)
    image = positions[det.image_index]
    if (image[1:] >= image[:-1]).all():  # already by image: the score sort alone
        return np.argsort(-det.score, kind="stable")
    by_image = np.argsort(_small(image, len(positions)), kind="stable")
    return by_image[np.argsort(-det.score[by_image], kind="stable")]


def _small(a: IntArray, top: int) -> npt.NDArray[np.signedinteger[Any]]:
    """``a`` (values in ``[0, top)``) as int16 where they fit: numpy's stable sort of 16-bit
    integers is a radix sort."""
    return a.astype(np.int16) if top < 2**15 else a


def _narrow(a: IntArray, top: int) -> Index:
    """``a`` (values in ``[-1, top]``) as int32 where ``top`` fits (``Prepared``'s index
    columns)."""
    return a.astype(np.int32) if top < 2**31 - 1 else a


def federated_prepare(
    dataset: Dataset,
    results: ResultSet,
    params: CocoParams,
    object_evaluated: npt.NDArray[np.bool_],
    object_ignored: npt.NDArray[np.bool_],
    evaluated: npt.NDArray[np.bool_],
    by_score: IntArray | None = None,
) -> Prepared:
    """``federated_prepared(prepare(dataset, results, params), sel)`` for ``params`` of
    ``lvis_params`` (every image and category, one cap of 300), ``sel``'s ``object_evaluated``,
    ``object_ignored`` and ``status == EVALUATED`` given (``evaluated``), and ``by_score`` from
    ``score_order`` (``None``: ``group_rank`` where the kernel is built, else ``score_order``);
    see the module docstring."""
    gt: CocoAnnotations = dataset.data(CocoAnnotations)
    dt: CocoResults = results.data(CocoResults)
    n_img, n_cat = len(gt.image_id), len(gt.category_id)
    img_pos = image_positions(dataset)
    kk = np.arange(n_cat + 1)

    obj = dataset.objects
    g_sel = np.flatnonzero(object_evaluated)
    g_cat = obj.label[g_sel]
    g_group = g_cat * n_img + img_pos[obj.image_index[g_sel]]
    g_order = np.lexsort((g_sel, g_cat, g_group))
    g_rows = g_sel[g_order]
    boundary = params.iou_type == "boundary"  # boundary-iou-api's LVISEval honours iscrowd
    crowd = gt.iscrowd[g_rows] if boundary else np.zeros(len(g_rows), dtype=bool)

    det = results.detections
    module = kernel.load("_order") if by_score is None else None
    if module is not None:  # by group, descending score, file order: one linear-time call
        on = np.flatnonzero(evaluated)
        label = det.label[on]
        group = label * n_img + img_pos[det.image_index[on]]
        at, rank = module.group_rank(group, n_cat * n_img, det.score[on], None, len(on))
        rows = on[at]
        d_group = group[at]
        d_image = det.image_index[rows]
        # by category: each one's offset from the counts (no gather of the sorted labels)
        dt_offsets = np.concatenate(([0], np.cumsum(np.bincount(label, minlength=n_cat))))
    else:
        if by_score is None:
            by_score = score_order(dataset, results)
        rows = by_score[evaluated[by_score]]  # by score; ties by image, then file order
        rows = rows[np.argsort(_small(img_pos[det.image_index[rows]], n_img), kind="stable")]
        rows = rows[np.argsort(_small(det.label[rows], n_cat), kind="stable")]
        d_cat = det.label[rows]
        d_image = det.image_index[rows]
        d_group = d_cat * n_img + img_pos[d_image]  # ascending: by category, then image
        dt_offsets = np.searchsorted(d_cat, kk, side="left")
        rank = np.arange(len(rows)) - np.searchsorted(d_group, d_group, side="left")
    n_det = len(det.score)
    return Prepared(
        params=params,
        gt_anno=gt,
        dt_anno=dt,
        cat_ids=gt.category_id,
        cat_names=tuple(dataset.classes),
        gt_rows=g_rows,
        gt_group=g_group[g_order],
        gt_ann_id=gt.ann_id[g_rows],
        gt_area=gt.area[g_rows],
        gt_crowd=crowd,
        gt_ignore=object_ignored[g_rows] | crowd,
        gt_offsets=np.searchsorted(g_cat[g_order], kk, side="left").astype(np.int64),
        dt_rows=_narrow(rows, n_det),
        dt_group=_narrow(d_group, n_cat * n_img),
        dt_rank=_narrow(rank, n_det),
        dt_score=det.score[rows],
        dt_area=dt.area[rows],
        dt_image_pos=_narrow(img_pos[d_image], n_img),
        dt_image_index=_narrow(d_image, n_img),
        dt_offsets=dt_offsets.astype(np.int64),
    )
