"""The vectorised evaluation behind ``COCOeval``: vocviewer's COCO building blocks
(``coco_prepare``, ``coco_matching``, ``coco_accumulate``) run category by category, with
``kpt_oks_sigmas`` passed through, and pycocotools' ``evalImgs`` rebuilt from the matches.

``match_category`` matches and accumulates one category (``CategoryMatch``, in vocviewer's
columns); ``category_entries`` turns that into the ``evalImgs`` dicts ``evaluateImg`` returns;
``category_ious`` into ``computeIoU``'s matrices.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.families.coco import similarity as sim
from vocviewer.families.coco.accumulate import CategoryCurves
from vocviewer.families.coco.evaluate import _chunks
from vocviewer.families.coco.evaluate import match_category as coco_match
from vocviewer.families.coco.match_kernel import available, kernel_categories
from vocviewer.families.coco.prepare import Prepared, similarities

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, eq=False)
class CategoryMatch:
    """Category ``k`` of a ``Prepared``: ``match`` integer (A, T, D) the matched GT position in
    the category's GT slice (-1: none); ``gt_ignore`` bool (A, G); ``dt_ignore`` bool (A, T, D);
    ``curves`` the accumulated arrays."""

    k: int
    match: npt.NDArray[np.integer]
    gt_ignore: BoolArray
    dt_ignore: BoolArray
    curves: CategoryCurves


def _similarities(
    prep: Prepared, gs: slice, ds: slice, sigmas: npt.NDArray[np.float64] | None
) -> tuple[IntArray, IntArray, npt.NDArray[np.float64]]:
    """``coco_prepare.similarities``, with ``params.kpt_oks_sigmas`` for keypoints (``CocoParams``
    has no field for them); with ``useCats`` off, pycocotools' "no pairs" quirk is kept."""
    g_group, d_group = prep.gt_group[gs], prep.dt_group[ds]
    p = prep.params
    if p.iou_type != "keypoints" or sigmas is None or not p.use_cats:
        return similarities(prep, gs, ds, g_group, d_group)
    ent_det, ent_gt = sim.pair_up(d_group, g_group)
    gt, dt = prep.gt_anno, prep.dt_anno
    rows = prep.dt_rows[ds][ent_det], prep.gt_rows[gs][ent_gt]  # (the whole tables: no copies)
    sig = np.asarray(sigmas, dtype=np.float64)
    s = sim.oks_pairs(dt.keypoints, gt.keypoints, gt.bbox, gt.area, *rows, sig)
    return ent_det, ent_gt, s


def category_curves(
    prep: Prepared, sigmas: npt.NDArray[np.float64] | None = None
) -> list[CategoryCurves]:
    """Every category's accumulated arrays (``match_category(prep, k, sigmas).curves`` for
    each ``k``). On the compiled kernel, all at once: box IoU there, masks' and keypoints'
    similarity for every category in one call (its pairs cut by category), then the
    categories matched and accumulated across the cores."""
    p = prep.params
    n = prep.n_categories
    if not available() or not len(p.area_ranges):
        return [match_category(prep, k, sigmas).curves for k in range(n)]
    sims = None  # (box IoU: computed by the kernel)
    if p.iou_type != "bbox":
        whole_g = slice(0, int(prep.gt_offsets[-1]))
        whole_d = slice(0, int(prep.dt_offsets[-1]))
        ent_det, _, s = _similarities(prep, whole_g, whole_d, sigmas)
        cut = np.searchsorted(ent_det, prep.dt_offsets).tolist()  # (pairs sorted by detection)
        sims = {k: s[cut[k] : cut[k + 1]] for k in range(n)}
    out: list[CategoryCurves] = []
    for k0, k1 in _chunks(prep.dt_offsets):
        got = kernel_categories(
            prep, k0, k1, similarities=sims, id0_quirk=not p.fix_id0, evidence=False
        )
        assert got is not None
        out += [c.curves for c in got]
    return out


def match_category(
    prep: Prepared, k: int, sigmas: npt.NDArray[np.float64] | None = None
) -> CategoryMatch:
    """Match and accumulate category ``k`` exactly as ``evaluateImg`` + ``accumulate``
    (``families.coco.evaluate.match_category``, with ``sigmas`` for keypoints)."""
    gs, ds = prep.gt_slice(k), prep.dt_slice(k)
    box = prep.params.iou_type == "bbox"  # (the kernel computes box IoU itself)
    m = coco_match(prep, k, None if box else _similarities(prep, gs, ds, sigmas))
    return CategoryMatch(k, m.match, m.gt_ignore, m.dt_ignore, m.curves)


def _groups(group: IntArray) -> Iterator[tuple[int, int, int]]:
    """(group, start, stop) of each run of equal values in sorted ``group``."""
    if len(group) == 0:
        return
    cuts = np.flatnonzero(np.diff(group)) + 1
    starts = np.r_[0, cuts].tolist()
    stops = np.r_[cuts, len(group)].tolist()
    yield from zip(group[starts].tolist(), starts, stops, strict=True)


def category_entries(
    prep: Prepared, cm: CategoryMatch, area_rngs: Sequence[Any], max_det: int, cat_id: Any
) -> dict[tuple[int, int], dict[str, Any]]:
    """``evaluateImg``'s dict for every (area range index, image id) of one category that has
    ground truth or detections (``image_id`` is set by the caller). The arrays of all images are
    computed at once per area range; each entry holds its slices of them."""
    gs, ds = prep.gt_slice(cm.k), prep.dt_slice(cm.k)
    n_img = len(prep.gt_anno.image_id)
    sorted_ids = np.sort(prep.gt_anno.image_id)
    gt_group, dt_group = prep.gt_group[gs], prep.dt_group[ds]
    gt_id = prep.gt_ann_id[gs]
    n_gt = len(gt_id)
    gt_pad = np.append(gt_id, 0).astype(np.float64)  # index n_gt: "no match" -> 0
    dt_id = prep.dt_anno.det_id[prep.dt_rows[ds]]
    dt_ids, scores = dt_id.tolist(), prep.dt_score[ds].tolist()
    g_of = {g: (a, b) for g, a, b in _groups(gt_group)}
    d_of = {g: (a, b) for g, a, b in _groups(dt_group)}
    groups = []
    for grp in sorted(g_of.keys() | d_of.keys()):
        pos = grp % n_img if prep.params.use_cats else grp
        groups.append((int(sorted_ids[pos]), *g_of.get(grp, (0, 0)), *d_of.get(grp, (0, 0))))
    out: dict[tuple[int, int], dict[str, Any]] = {}
    empty = np.array([])  # one shared (size 0: nothing in it can change)
    for a, rng in enumerate(area_rngs):
        ig = cm.gt_ignore[a]
        perm = np.lexsort((np.arange(n_gt), ig, gt_group))  # per image: regular GT first
        where = np.empty(n_gt, dtype=np.int64)
        where[perm] = np.arange(n_gt)
        m = cm.match[a]
        hit = m >= 0
        dtm = gt_pad[np.where(hit, m, n_gt)]
        gtm = np.zeros((m.shape[0], n_gt))
        ti, di = np.nonzero(hit)
        gi = where[m[ti, di]]
        # a crowd GT matched again keeps the last (lowest-ranked) detection's id, as the loop
        # in evaluateImg leaves it: per (threshold, GT) the largest detection position wins
        key = ti * max(n_gt, 1) + gi
        order = np.lexsort((di, key))
        last = np.r_[key[order][1:] != key[order][:-1], True] if len(order) else order
        pick = order[last.astype(bool)]
        gtm[ti[pick], gi[pick]] = dt_id[di[pick]]
        gt_ids = gt_id[perm].tolist()
        gt_ig = ig[perm].astype(np.int64)
        dt_ig = cm.dt_ignore[a]
        for img, g0, g1, d0, d1 in groups:
            out[a, img] = {
                "image_id": img,
                "category_id": cat_id,
                "aRng": rng,
                "maxDet": max_det,
                "dtIds": dt_ids[d0:d1],
                "gtIds": gt_ids[g0:g1],
                "dtMatches": dtm[:, d0:d1],
                "gtMatches": gtm[:, g0:g1],
                "dtScores": scores[d0:d1],
                "gtIgnore": gt_ig[g0:g1] if g1 > g0 else empty,
                "dtIgnore": dt_ig[:, d0:d1],
            }
    return out


def category_ious(
    prep: Prepared, k: int, sigmas: npt.NDArray[np.float64] | None = None
) -> dict[int, npt.NDArray[np.float64]]:
    """``computeIoU`` / ``computeOks`` of category ``k`` by image id: float64 (D, G), detections
    by score and cut to the largest cap, ground truth in annotation order; only images with both."""
    p = prep.params
    if p.iou_type == "keypoints" and not p.use_cats:
        return {}  # computeOks looks up (image, -1): nothing
    gs, ds = prep.gt_slice(k), prep.dt_slice(k)
    ent_det, ent_gt, s = _similarities(prep, gs, ds, sigmas)
    g_of = {g: (a, b) for g, a, b in _groups(prep.gt_group[gs])}
    n_img = len(prep.gt_anno.image_id)
    sorted_ids = np.sort(prep.gt_anno.image_id)
    out: dict[int, npt.NDArray[np.float64]] = {}
    for grp, d0, d1 in _groups(prep.dt_group[ds]):
        if grp not in g_of:
            continue
        g0, g1 = g_of[grp]
        e0, e1 = np.searchsorted(ent_det, [d0, d1])
        mat = np.zeros((d1 - d0, g1 - g0))
        mat[ent_det[e0:e1] - d0, ent_gt[e0:e1] - g0] = s[e0:e1]
        out[int(sorted_ids[grp % n_img if p.use_cats else grp])] = mat
    return out
