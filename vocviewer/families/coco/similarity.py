"""Similarity of (detection, ground truth) pairs for COCOeval: box IoU, mask IoU, keypoint OKS,
Boundary IoU (boundary-iou-api's ``computeBoundaryIoU``).

Pairs are given as aligned index arrays into detection and GT columns; every function computes
exactly what pycocotools computes for that pair (``maskApi.c`` ``bbIou`` / ``rleIou``,
``cocoeval.py`` ``computeOks``), in the same expression order.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vocviewer import kernel
from vocviewer.core import mask_iou
from vocviewer.core import rle_columns as rc
from vocviewer.core.boxes import box_iou_pairs
from vocviewer.families.coco.columns import RleTable
from vocviewer.families.coco.rle_strings import RleStrings

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

#: COCO's per-keypoint OKS constants (``Params.kpt_oks_sigmas``), the 17 person keypoints.
KEYPOINT_SIGMAS: FloatArray = (
    np.array(
        [
            0.26,
            0.25,
            0.25,
            0.35,
            0.35,
            0.79,
            0.79,
            0.72,
            0.72,
            0.62,
            0.62,
            1.07,
            1.07,
            0.87,
            0.87,
            0.89,
            0.89,
        ]
    )
    / 10.0
)


def pair_up(det_group: IntArray, gt_group: IntArray) -> tuple[IntArray, IntArray]:
    """All (detection, GT) pairs of the same group.

    ``det_group`` and ``gt_group`` must be sorted. Returns aligned int64 (E,) row arrays, sorted
    by detection then GT row."""
    lo = np.searchsorted(gt_group, det_group, side="left")
    cnt = np.searchsorted(gt_group, det_group, side="right") - lo
    ent_det = np.repeat(np.arange(len(det_group)), cnt)
    first = np.repeat(np.cumsum(cnt) - cnt, cnt)
    ent_gt = lo[ent_det] + (np.arange(len(ent_det)) - first)
    return ent_det.astype(np.int64), ent_gt.astype(np.int64)


def mask_iou_pairs(
    det: RleTable,
    gt: RleTable,
    det_row: IntArray,
    gt_row: IntArray,
    crowd: npt.NDArray[np.bool_],
    det_box: FloatArray,
    gt_box: FloatArray,
) -> FloatArray:
    """``rleIou`` of aligned mask pairs (rows of ``det`` and ``gt``; ``*_box`` their
    ``rleToBbox`` by row): float64 (E,).

    Pairs whose RLE boxes do not overlap are 0, masks of different sizes -1 (as pycocotools);
    the others are intersection / union counted on the runs, never on pixels. On the compiled
    kernel where it is built (threads across pairs). Detections kept as strings
    (``RleStrings``) are decoded here, only those a pair needs: by the kernel's threads, one at a
    time (``string_iou_pairs``), else a chunk of pairs at a time."""
    k = kernel.load("_rle")
    if isinstance(det, RleStrings) and not det.decoded:
        if k is not None:
            strings = (det.chars, det.start, det.offsets, det.height, det.width)
            gt_masks = (gt.counts, gt.offsets, gt.height, gt.width)
            given = (det_row, gt_row, crowd, det_box, gt_box)
            got = k.string_iou_pairs(*strings, *gt_masks, *given, det.raw)
            if got is not None:
                return got  # type: ignore[no-any-return]
        out = np.empty(len(det_row), dtype=np.float64)
        for a, b in det.pair_chunks(det_row):
            used, at = np.unique(det_row[a:b], return_inverse=True)
            part = det.transient(used)
            pair = (at.astype(np.int64).reshape(-1), gt_row[a:b], crowd[a:b])
            out[a:b] = mask_iou_pairs(part, gt, *pair, det_box[used], gt_box)
        return out
    if k is not None:
        det_masks = (det.counts, det.offsets, det.height, det.width)
        gt_masks = (gt.counts, gt.offsets, gt.height, gt.width)
        out = k.iou_pairs(*det_masks, *gt_masks, det_row, gt_row, crowd, det_box, gt_box)
        if out is not None:
            return out  # type: ignore[no-any-return]
    out = box_iou_pairs(det_box[det_row], gt_box[gt_row], crowd)
    cand = np.flatnonzero(out > 0)
    i, j = det_row[cand], gt_row[cand]
    same = (det.height[i] == gt.height[j]) & (det.width[i] == gt.width[j])
    out[cand[~same]] = -1.0
    cand, i, j = cand[same], i[same], j[same]
    if len(cand) == 0:
        return out
    ui, ii = np.unique(i, return_inverse=True)
    uj, jj = np.unique(j, return_inverse=True)
    dc, do = rc.take(det.counts, det.offsets, ui)
    gc, go = rc.take(gt.counts, gt.offsets, uj)
    inter = rc.intersections(rc.Intervals(dc, do), rc.Intervals(gc, go), ii, jj)
    d_area = rc.areas(dc, do)[ii]
    union = d_area + rc.areas(gc, go)[jj] - inter
    for e in np.flatnonzero(_inner_empty(dc, do)[ii] & _inner_empty(gc, go)[jj]):
        walked = mask_iou.joint_walk(dc[do[ii[e]] : do[ii[e] + 1]], gc[go[jj[e]] : go[jj[e] + 1]])
        inter[e], union[e] = walked  # (rleIou's walk stops early on these: see joint_walk)
    union = np.where(crowd[cand], d_area, union)
    out[cand] = np.where(inter == 0, 0.0, inter / np.maximum(union, 1))
    return out


def _inner_empty(counts: IntArray, offsets: IntArray) -> npt.NDArray[np.bool_]:
    """Per mask: a run of length zero after its first (``core.masks.has_inner_empty_run``)."""
    first = np.zeros(len(counts), dtype=bool)
    first[offsets[:-1][np.diff(offsets) > 0]] = True
    rows = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    return np.bincount(rows[(counts == 0) & ~first], minlength=len(offsets) - 1) > 0


def boundary_iou(
    mask_iou: FloatArray,
    det_boundary: RleTable,
    gt_boundary: RleTable,
    det_box: FloatArray,
    gt_box: FloatArray,
    det_row: IntArray,
    gt_row: IntArray,
    crowd: npt.NDArray[np.bool_],
) -> FloatArray:
    """boundary-iou-api's ``computeBoundaryIoU`` for aligned pairs, float64 (E,): a crowd GT's
    pair keeps its ``mask_iou`` (``rleIou`` with crowd rules); any other pair takes min(mask IoU,
    ``rleIou`` of the two boundary masks) (``*_boundary``: boundary masks by row, ``*_box``
    their ``rleToBbox``; see ``core.mask_boundary``)."""
    out = mask_iou.copy()
    keep = np.flatnonzero(~crowd)
    if len(keep):
        i, j, no = det_row[keep], gt_row[keep], crowd[keep]
        b = mask_iou_pairs(det_boundary, gt_boundary, i, j, no, det_box, gt_box)
        out[keep] = np.minimum(mask_iou[keep], b)
    return out


def oks_pairs(
    det_kp: FloatArray,
    gt_kp: FloatArray,
    gt_box: FloatArray,
    gt_area: FloatArray,
    ent_det: IntArray,
    ent_gt: IntArray,
    sigmas: FloatArray = KEYPOINT_SIGMAS,
) -> FloatArray:
    """``computeOks`` for aligned pairs: float64 (E,).

    ``det_kp`` (D, K, 3), ``gt_kp`` (G, K, 3) as ``x, y, v``; ``gt_box`` (G, 4) ``x, y, w, h``;
    ``gt_area`` (G,). GT keypoints with ``v > 0`` are compared; a GT without any is compared by
    the detections' distances outside its box enlarged by its size on every side. On the
    compiled kernel where it is built (``_oks.c``: threads across pairs, numpy's own exp loop)."""
    var = (sigmas * 2) ** 2
    k = len(sigmas)
    out = np.zeros(len(ent_det), dtype=np.float64)
    if len(ent_det) == 0:
        return out
    if det_kp.shape[1] != k or gt_kp.shape[1] != k:
        raise ValueError(f"keypoints must have {k} points for OKS")
    if (kern := kernel.load("_oks")) is not None:  # threads across pairs, numpy's exp loop
        den = np.asarray(gt_area, dtype=np.float64) + np.spacing(1)
        pairs = (det_kp, gt_kp, gt_box, den, var, ent_det, ent_gt)
        if (got := kern.oks(*pairs)) is not None:  # a block of pairs at a time
            return got  # type: ignore[no-any-return]
        ne, start = kern.exponents(*pairs)  # numpy's exp loop not found: np.exp between
        return kern.mean_rows(np.exp(ne, out=ne), start)  # type: ignore[no-any-return]
    dkx, dky = det_kp[:, :, 0], det_kp[:, :, 1]
    gkx, gky = np.ascontiguousarray(gt_kp[:, :, 0]), np.ascontiguousarray(gt_kp[:, :, 1])
    # per GT: which points are compared (the labelled ones, or all 17 without any), in order
    vis: npt.NDArray[np.bool_] = np.asarray(gt_kp[:, :, 2] > 0)
    has: npt.NDArray[np.bool_] = np.asarray(vis.any(axis=1))
    pattern = np.where(has[:, None], vis, True)
    with np.errstate(all="ignore"):  # non-finite or huge keypoints: IEEE values, as numpy's
        dx = dkx[ent_det] - gkx[ent_gt]
        dy = dky[ent_det] - gky[ent_gt]
        off = np.flatnonzero(~has[ent_gt])  # pairs with a GT without keypoints: outside its box
        if len(off):
            bb = gt_box[ent_gt[off]]
            x0 = (bb[:, 0] - bb[:, 2])[:, None]
            x1 = (bb[:, 0] + bb[:, 2] * 2)[:, None]
            y0 = (bb[:, 1] - bb[:, 3])[:, None]
            y1 = (bb[:, 1] + bb[:, 3] * 2)[:, None]
            xd, yd = dkx[ent_det[off]], dky[ent_det[off]]
            z = 0.0
            dx[off] = np.maximum(z, x0 - xd) + np.maximum(z, xd - x1)
            dy[off] = np.maximum(z, y0 - yd) + np.maximum(z, yd - y1)
        # e = (dx**2 + dy**2) / var / (area + eps) / 2, in place, in pycocotools' order
        e = np.square(dx, out=dx)
        e += np.square(dy, out=dy)
        e /= var
        e /= (gt_area + np.spacing(1))[ent_gt][:, None]
        e /= 2
        ex = np.exp(np.negative(e, out=e), out=e)
    # sum over the compared points: each row's compared values moved to the front in order,
    # then rows grouped by how many there are, so numpy sums every row exactly as it sums
    # pycocotools' compacted 1-D vector (same length, same order, same pairwise summation)
    n_cmp = pattern.sum(axis=1)[ent_gt]
    full = n_cmp == k
    out[full] = np.sum(ex[full], axis=1) / k
    part = np.flatnonzero(~full)
    if len(part):
        front = np.argsort(~pattern, axis=1, kind="stable")[ent_gt[part]]
        packed = np.take_along_axis(ex[part], front, axis=1)
        n_part = n_cmp[part]
        for n in np.unique(n_part).tolist():
            rows = np.flatnonzero(n_part == n)
            out[part[rows]] = np.sum(np.ascontiguousarray(packed[rows, :n]), axis=1) / n
    return out
