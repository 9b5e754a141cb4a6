"""What each error costs: TIDE's error breakdown (Bolya et al., ECCV 2020), as ``tidecv`` 1.0.1.

Definitions (``tidecv`` defaults: foreground IoU ``t_f = 0.5``, background ``t_b = 0.1``, boxes,
at most ``max_dets = 100`` detections per image over all classes, kept by descending score):

- Matching, per image, detections by descending score (stable): each takes the unused
  ground truth (GT) of its class with the largest IoU (first in annotation order on ties) if that
  IoU is ``>= t_f``. Crowd GT are ignore regions: an unmatched detection whose crowd IoU
  (intersection / detection area) with a crowd GT of its class is ``> t_f`` is *ignored* — left
  out of AP, yet still given an error type below.
- Every unmatched detection gets the first type that applies; "max" is over all the image's
  non-crowd GT: no GT in the image → **Bkg**; ``t_b <= max IoU with its class <= t_f`` → **Loc**
  (target: that GT, used or not — so a box at exactly ``t_f`` on a used GT is Loc, not Dupe);
  ``max IoU with another class >= t_f`` → **Cls** (target: that GT, used or not);
  ``max IoU with a used GT of its class >= t_f`` → **Dupe**; ``max IoU with any GT <= t_b`` →
  **Bkg**; otherwise **Both** (wrong class and poorly localised).
- **Miss**: a GT left unmatched that no Cls / Loc error targets while it is unused.

Oracle fixes (``TIDERun.fix_errors``; each type fixed alone, dAP = mAP after - mAP before, negative
values set to 0): Cls / Loc: the highest-scoring error (the first in processing order) that
targets an unused GT becomes a true positive — in the GT's class for Cls — and the other errors
aimed at it, or aimed at a used GT, are removed (an ignored detection can be the one fixed, and
it marks its GT as not missed); Both / Dupe / Bkg: removed; Miss: the GT no
longer counts as a positive. Special (not clamped): FalsePos scores true positives 1 and false
positives 0 (perfect precision, same recall); FalseNeg removes every unmatched GT from the
positives (perfect recall, same precision). AP and the ranking of the rebuilt lists are in
``tide_fix``. Classes with detections but no GT count in the mean with AP 0, as in ``tidecv``;
its baseline AP (``TideResult.ap``) is therefore close to, not equal to, COCOeval's AP50.

Families: COCO boxes in ``tide_coco``. The breakdown (``tide``) only needs ``TideEvidence`` (in
``tide_evidence``, with the error codes; re-exported here), and ``assemble_evidence`` applies the
BestGTMatch and Miss rules to any family's matches. VOC is implemented in ``tide_voc``: VOC's own
TP verdicts (``ovmax >= 0.5``, ``+1`` pixel sizes), difficult objects in the crowd's part,
TIDE's typing with the same convention and TIDE's AP. VisDrone (``tide_visdrone``): the toolkit's
matches at IoU 0.5 under its 500-detection cap, ignore-flagged objects in the crowd's part.
ILSVRC DET (``tide_ilsvrc``): the devkit's matches, overlaps measured relative to each object's
own threshold ``min(0.5, wh / ((w + 10)(h + 10)))``; the 5-guess classification tasks have no
boxes to fix and are left out. COCO masks: ``tide_coco`` with mask IoU (tidecv's mask mode).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core.arrays import frozen
from vocviewer.core.dataset import ObjectTable
from vocviewer.core.results import Detections
from vocviewer.evaluation.matching import group_offsets, same_image_pairs
from vocviewer.evaluation.tide_evidence import (
    BKG,
    BOTH,
    CLS,
    DUPE,
    KIND_NAMES,
    LOC,
    MAIN_TYPES,
    NOT_EVALUATED,
    SPECIAL_TYPES,
    TRUE_POSITIVE,
    TideEvidence,
)
from vocviewer.evaluation.tide_fix import mean_ap, scenario_aps

__all__ = [
    "KIND_NAMES",
    "MAIN_TYPES",
    "SPECIAL_TYPES",
    "TideEvidence",
    "TideResult",
    "assemble_evidence",
    "error_kinds",
    "tide",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, eq=False)
class TideResult:
    """TIDE's breakdown in AP points (0-100), as ``tidecv`` prints it.

    ap : the mAP at ``pos_threshold`` (``TIDERun.ap``)
    main : dAP of fixing each of ``MAIN_TYPES`` alone (clamped at 0)
    special : dAP of ``SPECIAL_TYPES`` (not clamped)
    classes : class names; class_ap : float64 (K,) per-class AP (0 where not counted);
    class_fixed_ap : per-class AP after each fix (keys of ``main`` and ``special``);
    class_counted : per scenario (``"AP"`` and every fix), bool (K,) classes in the mean
    evidence : the per-detection / per-GT verdicts; max_dets : the per-image cap (0: none)
    """

    ap: float
    main: dict[str, float]
    special: dict[str, float]
    classes: tuple[str, ...]
    class_ap: FloatArray
    class_fixed_ap: dict[str, FloatArray]
    class_counted: dict[str, BoolArray]
    evidence: TideEvidence
    pos_threshold: float = 0.5
    background_threshold: float = 0.1
    max_dets: int = 100

    def counts(self) -> dict[str, int]:
        """Number of errors of each main type."""
        return {name: self.evidence.count(name) for name in MAIN_TYPES}

    def class_delta(self, name: str) -> FloatArray:
        """Per-class dAP of one fix (a ``main`` or ``special`` key), float64 (K,); main types are
        clamped at 0 as ``tidecv`` clamps its overall ones."""
        delta = self.class_fixed_ap[name] - self.class_ap
        return np.maximum(delta, 0.0) if name in MAIN_TYPES else delta

    def to_json(self, *, per_class: bool = False) -> dict[str, Any]:
        """``{"main": {...}, "special": {...}}`` (plus ``"ap"``, ``"counts"`` and, optionally,
        ``"per_class"`` keyed by class name)."""
        out: dict[str, Any] = {
            "main": dict(self.main),
            "special": dict(self.special),
            "ap": self.ap,
            "counts": self.counts(),
        }
        if per_class:
            deltas = {n: self.class_delta(n) for n in (*MAIN_TYPES, *SPECIAL_TYPES)}
            out["per_class"] = {
                c: {
                    "ap": float(self.class_ap[k]),
                    "main": {n: float(deltas[n][k]) for n in MAIN_TYPES},
                    "special": {n: float(deltas[n][k]) for n in SPECIAL_TYPES},
                }
                for k, c in enumerate(self.classes)
                if self.class_counted["AP"][k]
            }
        return out


def tide(
    evidence: TideEvidence,
    classes: tuple[str, ...],
    *,
    pos_threshold: float = 0.5,
    background_threshold: float = 0.1,
    max_dets: int = 100,
) -> TideResult:
    """The breakdown from evidence of any family (the thresholds are only recorded here)."""
    per = scenario_aps(evidence, len(classes))
    base_ap = per["AP"][0]
    base = mean_ap(*per["AP"])
    main = {n: max(mean_ap(*per[n]) - base, 0.0) for n in MAIN_TYPES}
    special = {n: mean_ap(*per[n]) - base for n in SPECIAL_TYPES}
    return TideResult(
        ap=base,
        main=main,
        special=special,
        classes=classes,
        class_ap=frozen(base_ap, np.float64),
        class_fixed_ap={n: frozen(per[n][0], np.float64) for n in (*MAIN_TYPES, *SPECIAL_TYPES)},
        class_counted={n: frozen(v[1], np.bool_) for n, v in per.items()},
        evidence=evidence,
        pos_threshold=pos_threshold,
        background_threshold=background_threshold,
        max_dets=max_dets,
    )


def assemble_evidence(
    dets: Detections,
    objects: ObjectTable,
    proc: IntArray,
    match: IntArray,
    kind: npt.NDArray[np.int8],
    target: IntArray,
    ignored: BoolArray,
    reg: IntArray,
    gt_counted: BoolArray,
) -> TideEvidence:
    """``TideEvidence`` from a family's verdicts, with TIDE's BestGTMatch and Miss rules.

    ``proc`` int64 (P,): the evaluated rows of ``dets`` in processing order; per processed
    detection: ``match`` (index into ``reg`` or -1), ``kind``, ``target`` (index into ``reg`` or
    -1), ``ignored``. ``reg`` int64: the object rows that are positives (``gt_counted``, (G,))."""
    label, score = dets.label, dets.score
    n_det, n_proc, n_reg = len(label), len(proc), len(reg)
    matched = match >= 0
    used = np.zeros(n_reg, dtype=bool)
    used[match[matched]] = True
    # BestGTMatch: among the Cls / Loc errors aimed at an unused GT, the first one fixes it
    claims = np.flatnonzero(((kind == CLS) | (kind == LOC)) & (target >= 0))
    claims = claims[~used[target[claims]]]
    usable = np.zeros(n_reg, dtype=bool)
    usable[target[claims]] = True
    eligible = claims[score[proc[claims]] > -1.0]  # tidecv's best_score starts at -1
    _, first = np.unique(target[eligible], return_index=True)
    fix = np.zeros(n_proc, dtype=bool)
    fix[eligible[first]] = True

    n_obj = len(objects.label)
    gt_row = np.where(matched, match, target)
    to_obj = np.where(gt_row >= 0, reg[np.maximum(gt_row, 0)], -1)
    position = np.full(n_det, -1, dtype=np.int64)
    position[proc] = np.arange(n_proc)
    kind_all = np.full(n_det, NOT_EVALUATED, dtype=np.int8)
    kind_all[proc] = np.where(matched, TRUE_POSITIVE, kind)
    matched_obj = np.zeros(n_obj, dtype=bool)
    matched_obj[reg[used]] = True
    missed = np.zeros(n_obj, dtype=bool)
    missed[reg[~used & ~usable]] = True
    return TideEvidence(
        image_index=dets.image_index,
        label=label,
        score=score,
        position=position,
        kind=kind_all,
        ignored=_scatter(n_det, proc, ignored, False),
        gt=_scatter(n_det, proc, to_obj, -1),
        fixable=_scatter(n_det, proc, fix, False),
        gt_image=objects.image_index,
        gt_label=objects.label,
        gt_counted=gt_counted,
        gt_matched=matched_obj,
        gt_missed=missed,
    )


def _scatter(n: int, rows: IntArray, values: npt.NDArray[Any], fill: Any) -> npt.NDArray[Any]:
    out = np.full(n, fill, dtype=values.dtype)
    out[rows] = values
    return out


def error_kinds(
    iou: FloatArray,
    same: BoolArray,
    used: BoolArray,
    pair_gt: IntArray,
    r_off: IntArray,
    p_img: IntArray,
    matched: BoolArray,
    t_f: float,
    t_b: float,
) -> tuple[npt.NDArray[np.int8], IntArray]:
    """Error kind of every detection (TRUE_POSITIVE where matched) and its target GT (index into
    the non-crowd GT: Loc / Cls target, Dupe's used GT; else -1). The masked IoUs are products,
    as ``tidecv`` forms them, so a NaN IoU spoils every test (→ Both) as there."""
    n = len(p_img)
    kind = np.full(n, BKG, dtype=np.int8)  # detections in an image without GT
    target = np.full(n, -1, dtype=np.int64)
    count = r_off[p_img + 1] - r_off[p_img]
    rows = np.flatnonzero((count > 0) & ~matched)
    if len(rows) == 0:
        kind[matched] = TRUE_POSITIVE
        return kind, target
    sel = np.repeat(~matched, count)  # pairs of unmatched detections, still detection-major
    v_iou, v_same, v_gt = iou[sel], same[sel], pair_gt[sel]
    seg_start = np.cumsum(count[rows]) - count[rows]
    cls_max, cls_at = _seg_max(v_iou * v_same, seg_start)
    non_max, non_at = _seg_max(v_iou * ~v_same, seg_start)
    dup_max, dup_at = _seg_max(used[v_gt] * v_iou * v_same, seg_start)
    any_max, _ = _seg_max(v_iou, seg_start)
    loc = (t_b <= cls_max) & (cls_max <= t_f)
    cls = ~loc & (non_max >= t_f)
    dupe = ~loc & ~cls & (dup_max >= t_f)
    bkg = ~loc & ~cls & ~dupe & (any_max <= t_b)
    kind[rows] = np.select([loc, cls, dupe, bkg], [LOC, CLS, DUPE, BKG], BOTH)
    at = np.select([loc, cls, dupe], [cls_at, non_at, dup_at], -1)
    target[rows] = np.where(at >= 0, v_gt[np.maximum(at, 0)], -1)
    kind[matched] = TRUE_POSITIVE
    return kind, target


def verdict_evidence(
    dets: Detections,
    objects: ObjectTable,
    n_images: int,
    verdicts: tuple[BoolArray, BoolArray, BoolArray, IntArray],
    counted: BoolArray,
    pair_iou: Callable[[IntArray, IntArray], FloatArray],
    *,
    pos_threshold: float = 0.5,
    background_threshold: float = 0.1,
    untyped_ignored: bool = False,
) -> TideEvidence:
    """``TideEvidence`` from a protocol's own verdicts, its matches kept as they are (VOC,
    ILSVRC, VisDrone, LVIS), then TIDE's typing of every other detection.

    ``verdicts``: per detection row (D,) ``evaluated`` (a data point), ``tp``, ``ignored`` (left
    out of AP, still typed unless ``untyped_ignored``) and ``matched`` (a TP's object row);
    ``counted`` bool (G,): the positives; ``pair_iou(det_rows, obj_rows)``: the protocol's
    overlap of aligned pairs, with its own convention (0 where disjoint). Processing order:
    image, then descending score, then row."""
    evaluated, tp_row, ignored_row, matched = verdicts
    rows = np.flatnonzero(evaluated)
    proc = rows[np.lexsort((rows, -dets.score[rows], dets.image_index[rows]))]
    reg = np.flatnonzero(counted)  # image-sorted (objects are), file order within an image
    reg_of = np.full(len(objects.label), -1, dtype=np.int64)
    reg_of[reg] = np.arange(len(reg))
    tp = tp_row[proc]
    match = np.where(tp, reg_of[np.maximum(matched[proc], 0)], -1)
    if np.any(match[tp] < 0):
        raise ValueError("a true positive matched an object that is not a positive")
    used = np.zeros(len(reg), dtype=bool)
    used[match[tp]] = True
    p_img = dets.image_index[proc]
    r_off = group_offsets(objects.image_index[reg], n_images)
    pair_det, pair_gt = same_image_pairs(p_img, r_off)
    iou = pair_iou(proc[pair_det], reg[pair_gt])
    same = dets.label[proc][pair_det] == objects.label[reg][pair_gt]
    kind, target = error_kinds(
        iou, same, used, pair_gt, r_off, p_img, tp, pos_threshold, background_threshold
    )
    ignored = ignored_row[proc]
    if untyped_ignored:  # no error type, never the fix of an object
        kind[ignored] = NOT_EVALUATED
        target[ignored] = -1
    return assemble_evidence(dets, objects, proc, match, kind, target, ignored, reg, counted)


def _seg_max(values: FloatArray, seg_start: IntArray) -> tuple[FloatArray, IntArray]:
    """Per segment (non-empty, consecutive), the maximum (NaN if any value is NaN) and the
    position of its first occurrence (``np.argmax``; -1 for a NaN maximum)."""
    seg_max = np.maximum.reduceat(values, seg_start)
    seg = np.repeat(np.arange(len(seg_start)), np.diff(np.append(seg_start, len(values))))
    pos = np.where(values == seg_max[seg], np.arange(len(values)), len(values))
    first = np.minimum.reduceat(pos, seg_start)
    return seg_max, np.where(first < len(values), first, -1)
