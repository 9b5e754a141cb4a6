"""Mask IoU of COCO RLEs as pycocotools' ``rleIou`` computes it (``bbIou`` of the masks'
``rleToBbox`` boxes as its filter, crowd semantics, -1 for masks of different sizes, and its
joint run walk's early stop on masks that hold empty runs), and box IoU as ``bbIou``. Masks
as in ``core.masks`` (column-major runs, from a run of 0s).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer import kernel
from vocviewer.core.masks import Counts, area, intersection, to_bbox


def has_inner_empty_run(counts: npt.ArrayLike) -> bool:
    """Whether an RLE holds a run of length zero after its first (its encoder never writes one;
    ``rleIou`` may stop early on two such masks: ``joint_walk``)."""
    return bool((np.asarray(counts, dtype=np.int64)[1:] == 0).any())


def joint_walk(a: npt.ArrayLike, b: npt.ArrayLike) -> tuple[int, int]:
    """``rleIou``'s joint walk over two masks' runs, step for step: the intersection and union
    it counts, in pixels. It ends where both masks' next runs are empty at once, after a
    boundary the two share: before their end only if both ``has_inner_empty_run``."""
    ra = np.asarray(a, dtype=np.int64).tolist()
    rb = np.asarray(b, dtype=np.int64).tolist()
    ca, cb = (ra[0] if ra else 0), (rb[0] if rb else 0)
    ia = ib = 1
    va = vb = False
    inter = union = 0
    more = True
    while more:
        c = min(ca, cb)
        if va or vb:
            union += c
            inter += c if va and vb else 0
        ca -= c
        if ca == 0 and ia < len(ra):
            ca, ia, va = ra[ia], ia + 1, not va
        cb -= c
        if cb == 0 and ib < len(rb):
            cb, ib, vb = rb[ib], ib + 1, not vb
        more = ca + cb > 0
    return inter, union


def bbox_iou(
    det: npt.ArrayLike, gt: npt.ArrayLike, iscrowd: npt.ArrayLike | None = None
) -> npt.NDArray[np.float64]:
    """IoU ``float64 (D, G)`` of ``x, y, w, h`` boxes, in ``bbIou``'s expression order.

    For a crowd ground truth the overlap is intersection / detection area. Non-overlapping pairs
    (width or height ``<= 0``) are 0."""
    d = np.asarray(det, dtype=np.float64).reshape(-1, 1, 4)
    g = np.asarray(gt, dtype=np.float64).reshape(1, -1, 4)
    crowd = np.zeros(g.shape[1], bool) if iscrowd is None else np.asarray(iscrowd, bool)
    da = d[..., 2] * d[..., 3]
    ga = g[..., 2] * g[..., 3]
    iw = np.fmin(d[..., 2] + d[..., 0], g[..., 2] + g[..., 0]) - np.fmax(d[..., 0], g[..., 0])
    ih = np.fmin(d[..., 3] + d[..., 1], g[..., 3] + g[..., 1]) - np.fmax(d[..., 1], g[..., 1])
    inter = iw * ih
    union = np.where(crowd[None, :], da, da + ga - inter)
    ok = (iw > 0) & (ih > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(ok, inter / np.where(ok, union, 1.0), 0.0)
    return np.asarray(out, dtype=np.float64)


def rle_iou(
    det: Sequence[npt.ArrayLike],
    gt: Sequence[npt.ArrayLike],
    iscrowd: npt.ArrayLike,
    det_hw: npt.ArrayLike,
    gt_hw: npt.ArrayLike,
) -> npt.NDArray[np.float64]:
    """Mask IoU ``float64 (D, G)`` of RLEs of the sizes ``det_hw`` / ``gt_hw`` (int (D, 2) /
    (G, 2) rows ``height, width`` in pixels), as ``rleIou``.

    Pairs whose RLE bounding boxes do not overlap are 0, the others -1 where the two masks'
    sizes differ; a crowd ground truth divides the intersection by the detection's area."""
    crowd = np.asarray(iscrowd, dtype=bool).reshape(-1)
    dh, dw = np.ascontiguousarray(np.asarray(det_hw, dtype=np.int64).reshape(-1, 2).T)
    gh, gw = np.ascontiguousarray(np.asarray(gt_hw, dtype=np.int64).reshape(-1, 2).T)
    sizes = (dh, dw, gh, gw)
    k = kernel.load("_rle")
    out = _kernel_rle_iou(k, det, gt, crowd, sizes) if k is not None else None
    if out is not None:
        return out
    db = np.array([to_bbox(c, h, w) for c, h, w in zip(det, dh, dw, strict=True)])
    gb = np.array([to_bbox(c, h, w) for c, h, w in zip(gt, gh, gw, strict=True)])
    out = bbox_iou(db.reshape(-1, 4), gb.reshape(-1, 4), crowd)
    dar = [area(c) for c in det]
    gar = [area(c) for c in gt]
    for i, j in zip(*np.nonzero(out > 0), strict=True):
        if dh[i] != gh[j] or dw[i] != gw[j]:
            out[i, j] = -1.0
            continue
        if has_inner_empty_run(det[i]) and has_inner_empty_run(gt[j]):
            inter, union = joint_walk(det[i], gt[j])
        else:
            inter = intersection(det[i], gt[j])
            union = dar[i] + gar[j] - inter
        union = dar[i] if crowd[j] else union
        out[i, j] = 0.0 if inter == 0 else inter / union
    return out


def _kernel_rle_iou(
    k: Any,
    det: Sequence[npt.ArrayLike],
    gt: Sequence[npt.ArrayLike],
    crowd: Any,
    sizes: tuple[Counts, Counts, Counts, Counts],
) -> npt.NDArray[np.float64] | None:
    """``rle_iou`` on the kernel (every pair), or ``None`` where it declines."""
    tables = []
    for masks, h, w in ((det, *sizes[:2]), (gt, *sizes[2:])):
        parts = [np.asarray(c, dtype=np.int64).reshape(-1) for c in masks]
        counts = np.concatenate(parts) if parts else np.zeros(0, np.int64)
        offsets = np.cumsum([0] + [len(p) for p in parts], dtype=np.int64)
        tables.append((counts, offsets, h, w, k.bboxes(counts, offsets, h, w)))
    (dc, do, dh, dw, db), (gc, go, gh, gw, gb) = tables
    nd, ng = len(do) - 1, len(go) - 1
    rows_d = np.repeat(np.arange(nd, dtype=np.int64), ng)
    rows_g = np.tile(np.arange(ng, dtype=np.int64), nd)
    out = k.iou_pairs(dc, do, dh, dw, gc, go, gh, gw, rows_d, rows_g, crowd[rows_g], db, gb)
    return None if out is None else np.asarray(out).reshape(nd, ng)
