"""Box conventions and vectorised overlap.

Inside vocviewer every box is ``float64 (N, 4)`` as ``x1, y1, x2, y2`` holding the numbers the source
file gave, unchanged (no rounding, no clipping, no validation), so that protocols see bit-identical
values to the official code. What those numbers mean depends on the dataset's convention:

``"voc"``
    1-based, inclusive pixel indices: the box covers pixels ``x1..x2`` and ``y1..y2``. VOC and
    ILSVRC files. In continuous 0-based image coordinates it spans ``[x1 - 1, x2] x [y1 - 1, y2]``.
``"continuous"``
    0-based continuous coordinates: ``[x1, x2] x [y1, y2]``. COCO (``x, y, x + w, y + h``).

Each protocol applies its own area/IoU rule explicitly through ``overlap_pairs(..., plus_one=...)``.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

BoxConvention = Literal["voc", "continuous"]
Boxes = npt.NDArray[np.float64]


def to_continuous(boxes: npt.ArrayLike, convention: BoxConvention) -> Boxes:
    """Boxes in 0-based continuous image coordinates (for drawing), ``float64 (N, 4)`` xyxy."""
    b = np.array(boxes, dtype=np.float64, copy=True).reshape(-1, 4)
    if convention == "voc":
        b[:, 0] -= 1.0
        b[:, 1] -= 1.0
    return b


def to_xywh(boxes: npt.ArrayLike, convention: BoxConvention) -> Boxes:
    """xyxy boxes of ``convention`` as COCO's 0-based ``[x, y, width, height]``, ``float64
    (N, 4)``: for ``"voc"`` (1-based inclusive pixels) ``x = x1 - 1``, ``w = x2 - x1 + 1``."""
    b = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    one = 1.0 if convention == "voc" else 0.0
    return np.column_stack((b[:, :2] - one, b[:, 2:] - b[:, :2] + one))


def overlap_pairs(
    det: Boxes, gt: Boxes, *, plus_one: bool
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64]]:
    """Overlap of aligned box pairs ``det[i]`` vs ``gt[i]``, in the official expression order.

    With ``plus_one`` (VOC, ILSVRC; ``VOCevaldet.m:79-87``) sizes are inclusive pixel counts::

        iw = min(dx2, gx2) - max(dx1, gx1) + 1        ih likewise
        ua = (dx2-dx1+1)*(dy2-dy1+1) + (gx2-gx1+1)*(gy2-gy1+1) - iw*ih
        ov = iw*ih / ua

    without it (COCO, VisDrone) the ``+ 1`` terms are absent. ``min``/``max`` skip NaN as MATLAB's
    do; a NaN coordinate still yields a NaN overlap, which never passes a threshold.

    Returns
    -------
    considered : bool (N,)
        ``iw > 0 and ih > 0`` — the official code computes an overlap only for these pairs.
    overlap : float64 (N,)
        IoU for considered pairs, ``-inf`` elsewhere.
    """
    one = 1.0 if plus_one else 0.0
    d = np.asarray(det, dtype=np.float64).reshape(-1, 4)
    g = np.asarray(gt, dtype=np.float64).reshape(-1, 4)
    with np.errstate(all="ignore"):  # inf - inf, 1e308 overflows: IEEE results, no warnings
        iw = np.fmin(d[:, 2], g[:, 2]) - np.fmax(d[:, 0], g[:, 0]) + one
        ih = np.fmin(d[:, 3], g[:, 3]) - np.fmax(d[:, 1], g[:, 1]) + one
        considered = (iw > 0) & (ih > 0)
        inter = iw * ih
        ua = (
            (d[:, 2] - d[:, 0] + one) * (d[:, 3] - d[:, 1] + one)
            + (g[:, 2] - g[:, 0] + one) * (g[:, 3] - g[:, 1] + one)
            - inter
        )
        ov = inter / ua
    ov = np.where(considered, ov, -np.inf)
    return considered, ov


def box_iou_pairs(det: Boxes, gt: Boxes, crowd: npt.NDArray[np.bool_]) -> Boxes:
    """pycocotools' ``bbIou`` of aligned ``x, y, w, h`` pairs (COCO's 0-based continuous
    boxes): float64 (E,); 0 without overlap; a crowd object (``crowd``, bool (E,)) divides by the
    detection's area. ``fmin`` / ``fmax`` and ``not (w <= 0)`` keep C's NaN outcomes."""
    with np.errstate(all="ignore"):  # non-finite or huge results: IEEE values, as bbIou in C
        da = det[:, 2] * det[:, 3]
        ga = gt[:, 2] * gt[:, 3]
        iw = np.fmin(det[:, 2] + det[:, 0], gt[:, 2] + gt[:, 0]) - np.fmax(det[:, 0], gt[:, 0])
        ih = np.fmin(det[:, 3] + det[:, 1], gt[:, 3] + gt[:, 1]) - np.fmax(det[:, 1], gt[:, 1])
        ok = ~(iw <= 0) & ~(ih <= 0)  # C's `if (w <= 0) continue`: NaN goes on
        inter = iw * ih
        union = np.where(crowd, da, da + ga - inter)
        out = np.where(ok, inter / np.where(ok, union, 1.0), 0.0)
    return np.asarray(out, dtype=np.float64)
