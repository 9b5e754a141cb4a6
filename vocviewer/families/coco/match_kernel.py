"""COCOeval's matching and accumulation on the compiled kernel (``vocviewer/kernel/_match.c``).

``kernel_categories`` runs categories ``k0 .. k1-1`` of a ``Prepared`` through the kernel, with
the GIL released and the categories spread over the machine's cores: box IoU (``bbIou``) or a
similarity given per category in ``similarities`` order (masks, OKS), the greedy matching of
every area range and IoU threshold, the verdicts and the accumulated curves. It returns
``None`` where the kernel is not built (or ``VOCVIEWER_KERNEL=0``): the caller then takes the
numpy path (``matching.greedy_match`` + ``accumulate.accumulate_category``), which gives the
same arrays, bit for bit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer import kernel
from vocviewer.evaluation.result import Verdict
from vocviewer.families.coco.accumulate import CategoryCurves
from vocviewer.families.coco.prepare import Prepared

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]

#: The kernel's verdict codes: TP, FP, ignored.
_CODES = np.array([Verdict.TP, Verdict.FP, Verdict.IGNORED], dtype=np.int8)


@dataclass(frozen=True, eq=False)
class FullMatches:
    """Every area range's matching: ``match`` int64 (A, T, D) GT position in the category's
    slice (-1: none); ``gt_ignore`` bool (A, G); ``dt_ignore``, ``tp``, ``fp`` bool (A, T, D)."""

    match: IntArray
    gt_ignore: BoolArray
    dt_ignore: BoolArray
    tp: BoolArray
    fp: BoolArray


@dataclass(frozen=True, eq=False)
class KernelCategory:
    """One category from the kernel.

    ``curves``: ``accumulate_category``'s (``order``: slice positions in rank order); ``npig``
    int64 (A,); ``match0`` int32 (T, D) (GT slice position, -1: none; int64 on the numpy
    path; with ``object_rows`` the matched object's ``Dataset.objects`` row instead) and
    ``verdict0`` int8 (T, D) (``Verdict``) of area range 0 ("all"), detections in rank order;
    ``full``: every area range's matching (slice order) when asked for, else ``None``;
    ``tp_iou0``: float64 (D,) each true positive's similarity with its match at the first
    threshold, NaN elsewhere (rank order; ``with_tp_similarity``), else ``None``."""

    curves: CategoryCurves
    npig: IntArray
    match0: npt.NDArray[np.signedinteger[Any]]
    verdict0: npt.NDArray[np.int8]
    full: FullMatches | None
    object_rows: bool = False
    tp_iou0: FloatArray | None = None


def with_tp_similarity(
    prep: Prepared, k: int, m: KernelCategory, sim: FloatArray, gt_pos: IntArray | None
) -> KernelCategory:
    """``m`` (category ``k``) with ``tp_iou0`` read in ``sim``, the similarities its matching
    read (``kernel_categories``' ``similarities[k]``: each TP's is there, the very number a
    second computation for the pair would give; none is computed again). ``gt_pos``: each
    object row's position in ``prep``'s GT order (``prep.gt_rows`` inverted; needed where
    ``m.object_rows``)."""
    gs, ds = prep.gt_slice(k), prep.dt_slice(k)
    g_group, d_group = prep.gt_group[gs], prep.dt_group[ds]
    lo = np.searchsorted(g_group, d_group, side="left")  # (pair_up's layout: by detection,
    count = np.searchsorted(g_group, d_group, side="right") - lo  # its group's GT in order)
    first = np.cumsum(count) - count
    match, tp = m.match0[0], m.verdict0[0] == Verdict.TP
    hit = np.flatnonzero(tp & (match >= 0))
    q = match[hit].astype(np.int64)
    if m.object_rows:
        assert gt_pos is not None
        q = gt_pos[q] - gs.start
    p = m.curves.order[hit]
    out = np.full(len(match), np.nan)
    out[hit] = sim[first[p] + q - lo[p]]
    out.flags.writeable = False  # (the views' best_iou: shared, never written)
    return replace(m, tp_iou0=out)


def _flags(a: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """Booleans as the kernel's uint8 flags (no copy where already bool and contiguous)."""
    return np.ascontiguousarray(a, dtype=bool).view(np.uint8)


def available() -> bool:
    """Whether the kernel is built and turned on."""
    return kernel.load("_match") is not None


def kernel_categories(
    prep: Prepared,
    k0: int,
    k1: int,
    *,
    similarities: Mapping[int, FloatArray] | None = None,
    dt_extra_ignore: BoolArray | None = None,
    id0_quirk: bool = True,
    full: bool = False,
    object_rows: bool = False,
    evidence: bool = True,
) -> list[KernelCategory] | None:
    """Categories ``k0 .. k1-1`` of ``prep`` (``None``: the kernel is not available).

    ``similarities``: category -> float64 (E,) the similarity of its pairs in ``pair_up``
    order, i.e. each (image, category) group's (detections x GT) matrix, row-major, groups in
    prepared order (``None``: box IoU of ``bbox`` columns, computed by the kernel); masks and
    OKS plug in here. ``dt_extra_ignore``
    bool (prepared detections,): ignored when unmatched whatever the area (LVIS's
    not-exhaustive categories). ``id0_quirk``: a match to a GT of annotation id 0 counts as
    none (pycocotools' ``dtm == 0``; ``CocoParams.fix_id0`` turns it off). ``full``: also
    every area range's matching (``FullMatches``). ``object_rows``: ``match0`` holds the
    matched objects' rows (``prep.gt_rows``, written by the kernel: no gather after it) where
    every row fits int32, else slice positions as without it (``KernelCategory.object_rows``
    says which). ``evidence`` off: ``match0`` and ``verdict0`` are left empty (0, 0) (the
    curves alone, e.g. for the pycocotools drop-in)."""
    mod = kernel.load("_match")
    p = prep.params
    g0, g1 = int(prep.gt_offsets[k0]), int(prep.gt_offsets[k1])
    if mod is None:
        return None
    if g1 - g0 >= 2**31 and int(np.diff(prep.gt_offsets[k0 : k1 + 1]).max()) >= 2**31:
        raise ValueError("a category of 2**31 ground truth objects or more")  # (int32 match0)
    d0, d1 = int(prep.dt_offsets[k0]), int(prep.dt_offsets[k1])
    gs, ds = slice(g0, g1), slice(d0, d1)
    gt_rows, dt_rows = prep.gt_rows[gs], prep.dt_rows[ds]
    sim = sim_off = gt_box = dt_box = None
    if similarities is None:
        # (``take`` along axis 0: several times faster than fancy indexing of (N, 4) rows)
        gt_box = np.take(prep.gt_anno.bbox, gt_rows, axis=0)
        dt_box = np.take(prep.dt_anno.bbox, dt_rows, axis=0)
    else:
        parts = [similarities.get(k, np.zeros(0)) for k in range(k0, k1)]
        sim_off = np.r_[0, np.cumsum([len(s) for s in parts])].astype(np.int64)
        sim = np.concatenate(parts) if parts else np.zeros(0)
    id0 = prep.gt_ann_id[gs] == 0 if id0_quirk else np.zeros(g1 - g0, dtype=bool)
    extra = None if dt_extra_ignore is None else _flags(dt_extra_ignore[ds])
    rows = object_rows and len(prep.gt_anno.ann_id) < 2**31  # (int32 match0)
    raw = mod.evaluate(
        gt_box,
        np.asarray(prep.gt_group[gs], dtype=np.int64),
        _flags(prep.gt_crowd[gs]),
        _flags(prep.gt_ignore[gs]),
        prep.gt_area[gs],
        _flags(id0),
        (prep.gt_offsets[k0 : k1 + 1] - g0).astype(np.int64),
        dt_box,
        np.asarray(prep.dt_group[ds], dtype=np.int64),
        np.asarray(prep.dt_rank[ds], dtype=np.int64),
        prep.dt_score[ds],
        prep.dt_area[ds],
        extra,
        (prep.dt_offsets[k0 : k1 + 1] - d0).astype(np.int64),
        sim,
        sim_off,
        np.asarray(p.iou_thresholds, dtype=np.float64),
        np.array([a[0] for a in p.area_ranges], dtype=np.float64),
        np.array([a[1] for a in p.area_ranges], dtype=np.float64),
        np.array(p.max_dets, dtype=np.int64),
        np.asarray(p.recall_thresholds, dtype=np.float64),
        _CODES,
        np.arange(k1 - k0, dtype=np.int64),
        full,
        kernel.cores(),
        prep.gt_rows[gs] if rows else None,
        evidence,
    )
    out = []
    for r in raw:
        precision, recall, scores, order, npig, match0, verdict0 = r[:7]
        everything = FullMatches(*r[7:]) if full else None
        curves = CategoryCurves(precision, recall, scores, order)
        out.append(KernelCategory(curves, npig, match0, verdict0, everything, rows))
    return out
