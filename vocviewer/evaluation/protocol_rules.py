"""Box AP at one IoU threshold under switchable protocol rules, for ``reconcile``.

``Rules`` holds every rule in which COCO's ``COCOeval`` (AP50) and the VOC devkit
(``VOCevaldet``) differ; ``COCO``, ``VOC2012`` and ``VOC2007`` are their settings, and
``COCO_TO_VOC`` the switches, each a small function changing one rule, in the order ``reconcile``
applies them. ``mean_ap`` evaluates any mix, so that each switch is measured alone on the same
detections. At the end points it follows the official code to the operation: pycocotools'
``bbIou`` on ``x, y, w, h`` boxes, its greedy matching (regular objects first, crowd regions
absorbing, ``IoU >= t``), per-image per-class detection cap, ranking by image id then score, its
101-point envelope and mean over every (recall, class) entry; the devkit's best-overlap matching
(``ov > t``, duplicates false, difficult objects absorbing), ``+1`` pixel sizes, stable ranking in
file order and ``VOCap`` (all points) / 11-point AP. Flagged objects are COCO's crowd regions or
VOC's difficult objects: ignored by both protocols (a crowd region is VOC's difficult object).

Where the data is federated (LVIS: ``Columns.federated``), ``LVIS`` and ``LVIS_TO_COCO`` add
``LVISEval``'s rules: 300 detections per image over all classes (``LVISResults``), detections of
a category neither on the image nor verified absent left out, unmatched detections of a
not-exhaustively annotated category ignored, the annotations' ``ignore`` field instead of
``iscrowd`` (no crowd regions), and boxes and objects of area 0 (or not finite) left out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from vocviewer.core.boxes import box_iou_pairs, overlap_pairs
from vocviewer.evaluation.ap import voc_ap_11_point, voc_ap_all_points, voc_precision_recall

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, eq=False)
class Columns:
    """Ground truth and detections of one result set, family-free.

    gt_image, gt_label : int64 (G,), rows in annotation order within each image;
    gt_xywh : float64 (G, 4) ``x, y, w, h`` in continuous pixels (COCO's ``bbox``; VOC's
    ``xmin - 1, ymin - 1, xmax - xmin + 1, ymax - ymin + 1``); gt_voc : float64 (G, 4) the same
    boxes as VOC's 1-based inclusive ``xmin, ymin, xmax, ymax`` (COCO's: ``x + 1, y + 1, x + w,
    y + h``); gt_flag : bool (G,) crowd region
    / difficult; gt_area : float64 (G,) the area the area ranges read (COCO's ``area`` field);
    det_image, det_label : int64 (D,), det_xywh, det_voc : float64 (D, 4), det_score : float64 (D,), rows
    in file order; image_key : int64 (I,) COCO's image order (its image id); n_classes;
    has_results : bool (K,) the classes results were given for (VOC: a file per class)."""

    gt_image: IntArray
    gt_label: IntArray
    gt_xywh: FloatArray
    gt_voc: FloatArray
    gt_flag: BoolArray
    gt_area: FloatArray
    det_image: IntArray
    det_label: IntArray
    det_xywh: FloatArray
    det_voc: FloatArray
    det_score: FloatArray
    image_key: IntArray
    n_classes: int
    has_results: BoolArray
    federated: Federated | None = None


@dataclass(frozen=True, eq=False)
class Federated:
    """LVIS's federated facts, in ``Columns``' rows: per detection (D,) ``over_cap`` (beyond its
    image's 300 highest scores, ``LVISResults``), ``unverified`` (its category neither on the
    image nor verified absent), ``no_area`` (area not in (0, inf)), ``not_exhaustive`` (its
    category not exhaustively annotated on the image); per object (G,) ``no_area`` and
    ``ignore`` (the annotation's ``ignore`` field)."""

    det_over_cap: BoolArray
    det_unverified: BoolArray
    det_no_area: BoolArray
    det_not_exhaustive: BoolArray
    gt_no_area: BoolArray
    gt_ignore: BoolArray


@dataclass(frozen=True)
class Rules:
    """One mix of rules. ``cap``: detections kept per image and class (``None``: all);
    ``area``: (lo, hi) px² outside which objects and unmatched detections are ignored
    (``None``: none); ``crowd_overlap``: a flagged object's overlap is intersection over the
    detection's area (COCO's crowd) rather than IoU; ``fallback``: a detection takes the best
    free object, regular ones first (COCO), rather than the best object, a duplicate if taken
    (VOC); ``strict``: ``IoU > t`` (VOC) rather than ``>= t``; ``plus_one``: VOC's inclusive
    pixel sizes; ``tie_order``: ``"image"`` (COCO: image id, then score within the image) or
    ``"file"``; ``interpolation``: ``"101"``, ``"all"`` or ``"11"``; ``average``: the classes the
    mean is over, ``"objects"`` (COCO: those with objects to find) or ``"results"`` (VOC's mAP:
    those with results and a defined AP); ``iou``: the threshold. Federated data only
    (``Columns.federated``): ``lvis_cap`` LVIS's 300 per image over all classes;
    ``verified_only`` unverified categories' detections left out; ``not_exhaustive`` their
    unmatched detections ignored; ``ignore_field`` the ``ignore`` field flags objects (ignored,
    never absorbing; no crowd); ``positive_area`` boxes and objects of area 0 left out.
    ``agnostic``: class-agnostic matching (pycocotools' ``useCats=0``): every detection against
    every object of its image, as one class (objects and detections of an image in category
    order, then their own), the cap per image."""

    cap: int | None
    area: tuple[float, float] | None
    crowd_overlap: bool
    fallback: bool
    strict: bool
    plus_one: bool
    tie_order: str
    interpolation: str
    average: str
    iou: float = 0.5
    lvis_cap: bool = False
    verified_only: bool = False
    not_exhaustive: bool = False
    ignore_field: bool = False
    positive_area: bool = False
    agnostic: bool = False


COCO = Rules(100, (0.0, 1e10), True, True, False, False, "image", "101", "objects")
VOC2012 = Rules(None, None, False, False, False, True, "file", "all", "results")  # ov >= 0.5
VOC2007 = replace(VOC2012, interpolation="11")
LVIS = replace(
    COCO,
    cap=None,
    lvis_cap=True,
    verified_only=True,
    not_exhaustive=True,
    ignore_field=True,
    positive_area=True,
)


def no_cap(r: Rules) -> Rules:
    return replace(r, cap=None)


def no_area_range(r: Rules) -> Rules:
    return replace(r, area=None)


def plain_iou_for_flagged(r: Rules) -> Rules:
    return replace(r, crowd_overlap=False)


def best_object_matching(r: Rules) -> Rules:
    return replace(r, fallback=False)


def strict_threshold(r: Rules) -> Rules:
    return replace(r, strict=True)


def plus_one_pixels(r: Rules) -> Rules:
    return replace(r, plus_one=True)


def file_tie_order(r: Rules) -> Rules:
    return replace(r, tie_order="file")


def all_points(r: Rules) -> Rules:
    return replace(r, interpolation="all")


def classes_with_results(r: Rules) -> Rules:
    return replace(r, average="results")


def eleven_points(r: Rules) -> Rules:
    return replace(r, interpolation="11")


Switch = Callable[[Rules], Rules]

#: (rule, what changes, switch), in the order applied from COCO (AP50) to VOC2012
COCO_TO_VOC: tuple[tuple[str, str, Switch], ...] = (
    ("maxDets", "COCO's 100 detections per image and class -> all", no_cap),
    ("area range", "COCO's area range all [0, 1e10] -> none", no_area_range),
    ("crowd overlap", "crowd: intersection over detection area -> IoU", plain_iou_for_flagged),
    (
        "matching",
        "best free object, regular first -> best object, duplicate if taken",
        best_object_matching,
    ),
    ("+1 pixel", "continuous sizes -> VOC's inclusive pixel sizes (+1)", plus_one_pixels),
    ("tie order", "tied scores by image id -> by file order", file_tie_order),
    ("interpolation", "101 recall points -> all points (VOCap)", all_points),
    ("classes averaged", "classes with objects -> classes with results", classes_with_results),
)
#: (rule, what changes, switch), in the order applied from LVIS (AP50) to COCO
LVIS_TO_COCO: tuple[tuple[str, str, Switch], ...] = (
    (
        "LVIS maxDets",
        "LVIS's 300 detections per image over all classes -> COCO's 100 per image and class",
        lambda r: replace(r, lvis_cap=False, cap=100),
    ),
    (
        "federated",
        "detections of a category neither on the image nor verified absent: left out -> counted",
        lambda r: replace(r, verified_only=False),
    ),
    (
        "not exhaustive",
        "unmatched detections of a not-exhaustively annotated category: ignored -> false positives",
        lambda r: replace(r, not_exhaustive=False),
    ),
    (
        "ignore field",
        "the annotations' ignore field, no crowd -> iscrowd as ignored, absorbing regions",
        lambda r: replace(r, ignore_field=False),
    ),
    (
        "positive areas",
        "boxes and objects of area 0 (or not finite) left out -> COCO's area range [0, 1e10]",
        lambda r: replace(r, positive_area=False),
    ),
)
#: a rule no protocol here uses, measured from COCO alone (``Reconciliation.what_if``)
CLASS_AGNOSTIC: tuple[str, str, Switch] = (
    "class-agnostic matching",
    "pycocotools' useCats=0: every detection matched to every object of its image, one class",
    lambda r: replace(r, agnostic=True),
)
#: VOC2012 to VOC2007: the interpolation alone
VOC2012_TO_2007: tuple[tuple[str, str, Switch], ...] = (
    ("11 points", "all points -> 11 recall points (VOC2007)", eleven_points),
)


def _overlaps(
    dx: FloatArray, gx: FloatArray, d: FloatArray, g: FloatArray, flag: BoolArray, r: Rules
) -> FloatArray:
    """(D, G) overlaps of one image and class: pycocotools' ``bbIou`` order of operations on
    ``x, y, w, h`` (``dx``, ``gx``), or the devkit's with ``plus_one`` on the 1-based inclusive
    boxes ``d``, ``g``; 0 without intersection."""
    if r.plus_one:
        dd, gg = np.repeat(d, len(g), 0), np.tile(g, (len(d), 1))
        ok, ov = overlap_pairs(dd, gg, plus_one=True)
        ov = np.where(ok, ov, 0.0).reshape(len(d), len(g))
        if r.crowd_overlap and flag.any():
            iw = np.minimum(dd[:, 2], gg[:, 2]) - np.maximum(dd[:, 0], gg[:, 0]) + 1
            ih = np.minimum(dd[:, 3], gg[:, 3]) - np.maximum(dd[:, 1], gg[:, 1]) + 1
            da = (dd[:, 2] - dd[:, 0] + 1) * (dd[:, 3] - dd[:, 1] + 1)
            crowd = np.where(ok, iw * ih / da, 0.0).reshape(len(d), len(g))
            ov = np.where(flag[None, :], crowd, ov)
        return ov
    pairs = np.repeat(dx, len(gx), 0), np.tile(gx, (len(dx), 1))
    crowd = np.tile(flag & r.crowd_overlap, len(dx))
    return box_iou_pairs(*pairs, crowd).reshape(len(dx), len(gx))


def _match(ov: FloatArray, ignore: BoolArray, absorbs: BoolArray, r: Rules) -> IntArray:
    """Per detection (rank order) the object it matched, or -1 (both protocols' greedy scans)."""
    n_det, n_gt = ov.shape
    taken = np.zeros(n_gt, dtype=bool)
    match = np.full(n_det, -1, dtype=np.int64)
    t = min(r.iou, 1 - 1e-10)
    order = np.argsort(ignore, kind="mergesort")  # COCO: regular objects first
    for d in range(n_det):
        if r.fallback:
            best, m = t, -1
            for g in order:
                if taken[g] and not absorbs[g]:
                    continue
                if m > -1 and not ignore[m] and ignore[g]:
                    break
                if ov[d, g] < best or (r.strict and ov[d, g] <= r.iou):
                    continue
                best, m = ov[d, g], int(g)
        else:
            if n_gt == 0:
                continue
            g = int(np.argmax(ov[d]))  # the first of equal maxima (the devkit's ">" scan)
            ok = ov[d, g] > r.iou if r.strict else ov[d, g] >= t
            m = g if ok and (ignore[g] or not taken[g]) else -1
            if ok and m == -1:
                match[d] = -2  # a duplicate: false positive
                continue
        if m > -1:
            match[d] = m
            if not absorbs[m]:
                taken[m] = True
    return match


def class_curve(c: Columns, k: int, r: Rules) -> tuple[FloatArray, FloatArray, int]:
    """(tp, fp, npos) of class ``k`` in rank order (ignored detections dropped)."""
    gk, dk = np.flatnonzero(c.gt_label == k), np.flatnonzero(c.det_label == k)
    if r.agnostic:  # one class: every row, in category order (pycocotools' useCats=0)
        gk = np.argsort(c.gt_label, kind="stable").astype(np.int64)
        dk = np.argsort(c.det_label, kind="stable").astype(np.int64)
    fed, flag, unmatched_ignored = c.federated, c.gt_flag, np.zeros(len(c.det_label), bool)
    if fed is not None:
        gk = gk[~(r.positive_area & fed.gt_no_area[gk])]
        dropped = (r.lvis_cap & fed.det_over_cap[dk]) | (r.verified_only & fed.det_unverified[dk])
        dk = dk[~(dropped | (r.positive_area & fed.det_no_area[dk]))]
        if r.not_exhaustive:
            unmatched_ignored = fed.det_not_exhaustive
        if r.ignore_field:
            flag = np.zeros(len(c.gt_flag), dtype=bool)
    g_area_out = np.zeros(len(gk), dtype=bool)
    if r.area is not None:
        g_area_out = (c.gt_area[gk] < r.area[0]) | (c.gt_area[gk] > r.area[1])
    g_flagged = fed.gt_ignore[gk] if fed is not None and r.ignore_field else flag[gk]
    g_ignore = g_flagged | g_area_out
    npos = int(np.count_nonzero(~g_ignore))
    kept: list[tuple[int, float, int, bool]] = []  # (image key, score, file row, tp)
    for img in np.unique(c.det_image[dk]):
        rows = dk[c.det_image[dk] == img]
        rows = rows[np.argsort(-c.det_score[rows], kind="mergesort")][: r.cap]
        gi = np.flatnonzero(c.gt_image[gk] == img)
        gr = gk[gi]
        ov = _overlaps(c.det_xywh[rows], c.gt_xywh[gr], c.det_voc[rows], c.gt_voc[gr], flag[gr], r)
        m = _match(ov, g_ignore[gi], flag[gr], r)
        dxy = c.det_xywh[rows]
        d_out = np.zeros(len(rows), dtype=bool)
        if r.area is not None:
            a = dxy[:, 2] * dxy[:, 3]
            d_out = (a < r.area[0]) | (a > r.area[1])
        for j, row in enumerate(rows):
            hit = m[j] >= 0
            if (hit and g_ignore[gi][m[j]]) or (
                m[j] == -1 and (d_out[j] or unmatched_ignored[row])
            ):
                continue
            kept.append((int(c.image_key[img]), float(c.det_score[row]), int(row), hit))
    if r.tie_order == "image":  # pycocotools: images by id, each by score; then a stable sort
        kept.sort(key=lambda e: (e[0], -e[1]))
    else:
        kept.sort(key=lambda e: e[2])
    kept.sort(key=lambda e: -e[1])
    tp = np.array([e[3] for e in kept], dtype=np.float64)
    return tp, 1.0 - tp, npos


def _coco_101(tp: FloatArray, fp: FloatArray, npos: int) -> FloatArray:
    """pycocotools' ``accumulate`` for one class: precision at 101 recall thresholds."""
    ctp, cfp = np.cumsum(tp), np.cumsum(fp)
    rc = ctp / npos
    pr = ctp / (cfp + ctp + np.spacing(1))
    pr = np.maximum.accumulate(pr[::-1])[::-1] if len(pr) else pr
    rec_thr = np.linspace(0.0, 1.00, int(np.round((1.00 - 0.0) / 0.01)) + 1)
    inds = np.searchsorted(rc, rec_thr, side="left")
    q = np.zeros(len(rec_thr))
    ok = inds < len(pr)
    q[ok] = pr[inds[ok]]
    return q


def mean_ap(c: Columns, r: Rules) -> float:
    """Mean AP over the classes with objects to find (COCO: mean of every (recall, class)
    precision entry, its summary's order; VOC: mean of the per-class APs)."""
    per_class: list[FloatArray] = []
    aps: list[float] = []
    for k in range(1 if r.agnostic else c.n_classes):
        if r.average == "results" and not c.has_results[k]:
            continue
        tp, fp, npos = class_curve(c, k, r)
        if npos == 0 and (r.average == "objects" or r.interpolation == "101"):
            continue
        if r.interpolation == "101":
            per_class.append(_coco_101(tp, fp, npos))
        else:
            prec, rec = voc_precision_recall(tp, fp, npos)
            ap = (voc_ap_all_points if r.interpolation == "all" else voc_ap_11_point)(rec, prec)
            if not np.isnan(ap):
                aps.append(ap)
    if r.interpolation == "101":  # pycocotools' mean over the (recall, class) entries
        s = np.stack(per_class, axis=1) if per_class else np.zeros((0, 0))
        return float(np.mean(s[s > -1])) if s.size else -1.0
    return float(np.mean(aps)) if aps else float("nan")
