"""COCOeval's ``_prepare``: ground truth and detections grouped per (image, category) and ranked.

Ground truth rows are sorted by category, image (ascending COCO id) and file order; with
``use_cats`` off, by image, then category, then file order (pycocotools concatenates the
per-category lists in ascending category id). Detections are sorted the same way, then by
descending score (stable), and cut to the largest ``max_dets`` per group. ``ignore`` is
``iscrowd`` (the JSON ``ignore`` field is overwritten), for keypoints also ``num_keypoints == 0``.
For ``boundary`` the similarity is boundary-iou-api's (``similarity.boundary_iou``) and, as its
``_prepare``, an ``ignore`` field is honoured (``ignore`` or ``iscrowd``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer import kernel
from vocviewer.core import rle_columns as rc
from vocviewer.core.boxes import box_iou_pairs
from vocviewer.core.dataset import Dataset
from vocviewer.core.mask_boundary import boundaries
from vocviewer.core.results import ResultSet, rows_of
from vocviewer.families.coco import similarity as sim
from vocviewer.families.coco.columns import CocoAnnotations, CocoResults, RleTable
from vocviewer.families.coco.params import CocoParams

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


#: Detection index columns of ``Prepared``: int32 where every value fits (half the memory of
#: int64 for a results file of millions of rows), else int64.
Index = npt.NDArray[np.signedinteger[Any]]


def _narrow(a: npt.NDArray[np.signedinteger[Any]], top: int) -> Index:
    """``a`` (values in ``[-1, top]``) as int32 if ``top`` fits, else unchanged."""
    return a.astype(np.int32) if top < 2**31 - 1 else a


@dataclass(frozen=True, eq=False)
class Prepared:
    """Sorted GT and detection columns; ``*_offsets`` delimit each category's rows. Detection
    index columns (``dt_rows``, ``dt_group``, ``dt_rank``, ``dt_image_pos``,
    ``dt_image_index``) are int32 when their values fit, else int64."""

    params: CocoParams
    gt_anno: CocoAnnotations
    dt_anno: CocoResults
    cat_ids: IntArray
    cat_names: tuple[str, ...]
    gt_rows: IntArray
    gt_group: IntArray
    gt_ann_id: IntArray
    gt_area: FloatArray
    gt_crowd: npt.NDArray[np.bool_]
    gt_ignore: npt.NDArray[np.bool_]
    gt_offsets: IntArray
    dt_rows: Index
    dt_group: Index
    dt_rank: Index
    dt_score: FloatArray
    dt_area: FloatArray
    dt_image_pos: Index
    dt_image_index: Index
    dt_offsets: IntArray
    mask_boxes: list[FloatArray] = field(default_factory=list)  # filled by the first segm pass
    boundaries: list[Any] = field(default_factory=list)  # by the first boundary pass

    @property
    def n_categories(self) -> int:
        return len(self.gt_offsets) - 1

    def gt_slice(self, k: int) -> slice:
        return slice(int(self.gt_offsets[k]), int(self.gt_offsets[k + 1]))

    def dt_slice(self, k: int) -> slice:
        return slice(int(self.dt_offsets[k]), int(self.dt_offsets[k + 1]))

    def category_id_of(self, k: int) -> int:
        return int(self.cat_ids[k]) if self.params.use_cats else -1

    def category_name_of(self, k: int) -> str:
        return self.cat_names[k] if self.params.use_cats else "all"


def prepare(dataset: Dataset, results: ResultSet, params: CocoParams) -> Prepared:
    """Group, sort and rank; see the module docstring."""
    gt: CocoAnnotations = dataset.data(CocoAnnotations)
    dt: CocoResults = results.data(CocoResults)
    n_img = len(gt.image_id)
    img_pos = np.empty(n_img, dtype=np.int64)
    img_pos[np.argsort(gt.image_id, kind="stable")] = np.arange(n_img)
    img_ok = np.ones(n_img, dtype=bool)
    if params.image_ids is not None:
        img_ok = np.isin(gt.image_id, np.asarray(params.image_ids, dtype=np.int64))
    cat_ok = np.ones(len(gt.category_id), dtype=bool)
    if params.category_ids is not None:
        cat_ok = np.isin(gt.category_id, np.asarray(params.category_ids, dtype=np.int64))
    # category position among the selected categories (ascending id = class order)
    cat_pos = np.cumsum(cat_ok) - 1
    n_cat = int(cat_ok.sum())
    n_k = n_cat if params.use_cats else 1

    obj = dataset.objects
    g_sel = np.flatnonzero(img_ok[obj.image_index] & cat_ok[obj.label])
    g_img = img_pos[obj.image_index[g_sel]]
    g_cat = cat_pos[obj.label[g_sel]]
    det = results.detections
    n_det = len(det.score)
    d_sel: IntArray | None = None  # (None: every detection, no gathers through it)
    if not (img_ok.all() and cat_ok.all()):
        d_sel = np.flatnonzero(img_ok[det.image_index] & cat_ok[det.label])
        d_sel = None if len(d_sel) == n_det else d_sel
    d_image = det.image_index if d_sel is None else det.image_index[d_sel]
    d_label = det.label if d_sel is None else det.label[d_sel]
    d_cat = None
    if params.use_cats:
        g_group = g_cat * n_img + g_img
        d_group = cat_pos[d_label]  # category * n_img + image, in place (no temporaries)
        d_group *= n_img
        d_group += img_pos[d_image]
        g_k = g_cat
    else:
        d_cat = cat_pos[d_label]  # (the tie: with ``use_cats`` a group has one category)
        g_group, d_group = g_img, img_pos[d_image]
        g_k = np.zeros_like(g_cat)
    g_order = np.lexsort((g_sel, g_cat, g_group))
    g_rows = g_sel[g_order]
    d_order, rank = rank_detections(
        d_group,
        n_k * n_img,
        det.score if d_sel is None else det.score[d_sel],
        d_cat,
        params.max_dets[-1],
    )
    d_rows = d_order if d_sel is None else d_sel[d_order]
    # the sorted groups give each detection's image position and its category's range without
    # gathering through the (random) sort order again; positions made narrow at once
    sorted_group = d_group[d_order]
    del d_group
    pos_type = np.int32 if n_img < 2**31 - 1 else np.int64
    d_pos: Index = np.empty(len(sorted_group), dtype=pos_type)
    if params.use_cats:
        np.remainder(sorted_group, n_img, out=d_pos, casting="unsafe")
    else:
        d_pos[:] = sorted_group
    index_of_pos: Index = np.empty(n_img, dtype=pos_type)
    index_of_pos[img_pos] = np.arange(n_img)
    kk = np.arange(n_k + 1)
    if params.use_cats:
        dt_offsets = np.searchsorted(sorted_group, kk * n_img, side="left").astype(np.int64)
    else:
        dt_offsets = np.array([0, len(d_order)], dtype=np.int64)

    ignore = gt.iscrowd[g_rows].copy()
    if params.iou_type == "boundary" and gt.ignore is not None:
        ignore |= gt.ignore[g_rows]  # boundary-iou-api's ``_prepare``: ignore or iscrowd
    if params.iou_type == "keypoints":
        ignore |= gt.num_keypoints[g_rows] == 0
    return Prepared(
        params=params,
        gt_anno=gt,
        dt_anno=dt,
        cat_ids=gt.category_id[cat_ok],
        cat_names=tuple(n for n, ok in zip(dataset.classes, cat_ok, strict=True) if ok),
        gt_rows=g_rows,
        gt_group=g_group[g_order],
        gt_ann_id=gt.ann_id[g_rows],
        gt_area=gt.area[g_rows],
        gt_crowd=gt.iscrowd[g_rows],
        gt_ignore=ignore,
        gt_offsets=np.searchsorted(g_k[g_order], kk, side="left").astype(np.int64),
        dt_rows=_narrow(d_rows, n_det),
        dt_group=_narrow(sorted_group, n_k * n_img),
        dt_rank=_narrow(rank, n_det),
        dt_score=det.score[d_rows],
        dt_area=rows_of(dt, "area", d_rows),  # (a box area made from its box: not made whole)
        dt_image_pos=d_pos,
        dt_image_index=index_of_pos[d_pos],
        dt_offsets=dt_offsets,
    )


def rank_detections(
    group: IntArray, n_groups: int, score: FloatArray, tie: IntArray | None, cap: int
) -> tuple[IntArray, IntArray]:
    """Positions of the detections sorted by ``group`` (in ``[0, n_groups)``), then descending
    ``score`` (NaN last), then ascending ``tie`` (if given), then position (stable), only the
    first ``cap`` of each group; and each one's rank in its group (int64). In linear time on the
    compiled kernel (``_order.c``) where it is built, else by ``np.lexsort``."""
    module = kernel.load("_order")
    if module is not None:
        order, rank = module.group_rank(group, n_groups, score, tie, cap)
        return order, rank
    order = np.lexsort((-score, group) if tie is None else (tie, -score, group))
    sorted_group = group[order]
    rank = np.arange(len(order)) - np.searchsorted(sorted_group, sorted_group, side="left")
    keep = rank < cap
    return order[keep], rank[keep]


def _mask_boxes(prep: Prepared) -> tuple[FloatArray, FloatArray]:
    """``rleToBbox`` of every detection and GT mask (by row), computed once per ``Prepared``."""
    if not prep.mask_boxes:
        for t in (prep.dt_anno.masks, prep.gt_anno.masks):
            assert t is not None
            prep.mask_boxes.append(t.mask_boxes())
    return prep.mask_boxes[0], prep.mask_boxes[1]


def _boundaries(prep: Prepared) -> tuple[RleTable, RleTable, FloatArray, FloatArray]:
    """Boundary masks of the evaluated detections and non-crowd GT (other rows empty) and their
    ``rleToBbox``. Cached in ``prep.boundaries``, which ``Prepared`` copies made by
    ``dataclasses.replace`` share: rows are added as those copies need them."""
    dt, gt = prep.dt_anno.masks, prep.gt_anno.masks
    assert dt is not None and gt is not None
    ratio = prep.params.dilation_ratio
    cache = prep.boundaries  # [ratio, (table, box, done) for detections, then for GT]
    if not cache or cache[0] != ratio:
        cache[:] = [ratio, None, None]
    need = (prep.dt_rows, prep.gt_rows[~prep.gt_crowd])  # a crowd pair's IoU is its mask IoU
    for j, (t, rows) in enumerate(((dt, need[0]), (gt, need[1])), start=1):
        old = cache[j]
        if old is not None and old[2][rows].all():
            continue
        prev = (old[0].counts, old[0].offsets, old[2]) if old is not None else None
        c, o = boundaries(t.counts, t.offsets, t.height, t.width, rows, ratio, prev)
        done = np.zeros(len(t), dtype=bool) if old is None else old[2].copy()
        done[rows] = True
        table = RleTable(c, o, t.height, t.width)
        cache[j] = (table, rc.bboxes(table.counts, table.offsets, table.height, table.width), done)
    (d_tab, d_box, _), (g_tab, g_box, _) = cache[1], cache[2]
    return d_tab, g_tab, d_box, g_box


def similarities(
    prep: Prepared, gs: slice, ds: slice, g_group: IntArray, d_group: IntArray
) -> tuple[IntArray, IntArray, FloatArray]:
    """All same-group (detection, GT) pairs of one category slice and their IoU / OKS.

    Returns local row indices into the slices and the similarity, float64 (E,)."""
    ent_det, ent_gt = sim.pair_up(d_group, g_group)
    gt, dt = prep.gt_anno, prep.dt_anno
    g_rows, d_rows = prep.gt_rows[gs], prep.dt_rows[ds]
    crowd = prep.gt_crowd[gs][ent_gt]
    kind = prep.params.iou_type
    if kind == "bbox":
        s = box_iou_pairs(dt.bbox[d_rows][ent_det], gt.bbox[g_rows][ent_gt], crowd)
    elif kind in ("segm", "boundary"):
        s = _mask_similarity(prep, d_rows[ent_det], g_rows[ent_gt], crowd)
    elif not prep.params.use_cats and not prep.params.fix_keypoints_no_cats:
        s = np.zeros(len(ent_det))  # pycocotools' computeOks ignores useCats: no pairs at all
    else:
        rows = d_rows[ent_det], g_rows[ent_gt]  # the whole tables: no copy of their keypoints
        s = sim.oks_pairs(dt.keypoints, gt.keypoints, gt.bbox, gt.area, *rows)
    return ent_det, ent_gt, s


def _mask_similarity(
    prep: Prepared, det_row: IntArray, gt_row: IntArray, crowd: npt.NDArray[np.bool_]
) -> FloatArray:
    """Mask (or boundary) IoU of aligned (detection, GT) row pairs, float64 (E,)."""
    kind, gt, dt = prep.params.iou_type, prep.gt_anno, prep.dt_anno
    if gt.masks is None or dt.masks is None:
        raise ValueError(f"{kind} evaluation needs masks: read with masks / task='segm'")
    d_box, g_box = _mask_boxes(prep)
    s = sim.mask_iou_pairs(dt.masks, gt.masks, det_row, gt_row, crowd, d_box, g_box)
    if kind == "boundary":
        s = sim.boundary_iou(s, *_boundaries(prep), det_row, gt_row, crowd)
    return s


def run_similarities(prep: Prepared, k0: int, k1: int) -> dict[int, FloatArray]:
    """``similarities(...)[2]`` of categories ``k0 .. k1-1`` (their own groups), by category; the
    masks of all their pairs paired up and compared in one call (the kernel's threads spread
    once over the run's pairs, not once per category)."""
    if prep.params.iou_type not in ("segm", "boundary"):
        out = {}
        for k in range(k0, k1):
            gs, ds = prep.gt_slice(k), prep.dt_slice(k)
            out[k] = similarities(prep, gs, ds, prep.gt_group[gs], prep.dt_group[ds])[2]
        return out
    if k1 <= k0:
        return {}
    # the groups are sorted across categories and never shared by two: the run's pairs at
    # once, in the order of its categories' own pairs one after another
    d0, g0 = int(prep.dt_offsets[k0]), int(prep.gt_offsets[k0])
    ds, gs = slice(d0, int(prep.dt_offsets[k1])), slice(g0, int(prep.gt_offsets[k1]))
    ent_det, ent_gt = sim.pair_up(prep.dt_group[ds], prep.gt_group[gs])
    rows = prep.dt_rows[ds][ent_det], prep.gt_rows[gs][ent_gt]
    s = _mask_similarity(prep, *rows, prep.gt_crowd[gs][ent_gt])
    cuts = np.searchsorted(ent_det, prep.dt_offsets[k0 + 1 : k1] - d0, side="left")
    return dict(zip(range(k0, k1), np.split(s, cuts), strict=True))
