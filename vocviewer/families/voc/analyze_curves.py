"""COCO ``analyze()``'s nested PR curves on PASCAL VOC detection, on VOC's own matching.

Per class, on the evaluation's ranking (descending score, ties in results-file order):

- C75, C50: VOC's verdicts at IoU .75 / .50 (``VOCevaldet``: each detection's candidate is the
  best-overlapping object of its class, inclusive +1 pixel boxes; a hit on a difficult object is
  ignored, a second hit on a taken object is a false positive, never a fall-back).
- Loc: the same matching at IoU .10: poor localisation forgiven, duplicates still false
  positives (as COCO's ``analyze``).
- Sim: Loc, and every Loc false positive (duplicates included) overlapping an object of a
  *similar* class (``evaluation.analysis.SIMILAR_GROUPS``: Hoiem et al.'s animals, vehicles,
  furniture, as the VOC retrospective groups them) by IoU >= .10 is ignored.
- Oth: the same with an object of *any* other class.

Other-class objects count whether difficult or not (they are objects; ``difficult`` only
excuses a miss of the object's own class). Ignored ranks are neither TP nor FP; the recall
denominator is VOC's ``npos`` (non-difficult objects) throughout. Each list is sampled on COCO's
101 recall levels (``interpolated_precision``; the area is the mean: VOC's own AP rule would make
the 11-point VOC2007 curves steps of width .1, and the all-points rule has no common recall axis
for a mean over classes), then BG = ``Oth > 0`` and FN = 1 (``ClassCurves``). ``ap`` adds each
list's AP under the evaluation's own rule (11-point / all points): C50's is VOC's AP.

Classes: those VOC's mean AP averages (a results file and a defined AP, i.e. ``npos > 0``);
groups and overall are means over them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core.arrays import nan_to_null
from vocviewer.core.boxes import overlap_pairs
from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis import MIN_OVERLAP, SIMILAR_GROUPS
from vocviewer.evaluation.analysis_curves import (
    COCO_RECALL,
    RANKED_CURVES,
    ClassCurves,
    interpolated_precision,
)
from vocviewer.evaluation.ap import voc_ap_11_point, voc_ap_all_points, voc_precision_recall
from vocviewer.evaluation.matching import group_offsets, same_image_pairs
from vocviewer.evaluation.result import ClassEvaluation, EvalResult, Verdict
from vocviewer.families.voc.evaluate import class_at

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

#: IoU thresholds of C75, C50 and Loc.
CURVE_IOUS = (0.75, 0.5, MIN_OVERLAP)


def voc_verdicts_at(dataset: Dataset, ev: ClassEvaluation, iou: float) -> npt.NDArray[np.int8]:
    """VOC's verdicts (``Verdict``) of ``ev``'s ranks at overlap threshold ``iou``
    (``families.voc.evaluate.class_at``: no measuring again)."""
    return class_at(dataset, ev, iou, "allpoints").verdict


def _confusions(
    dataset: Dataset,
    results: ResultSet,
    classes: list[ClassEvaluation],
    ranks: list[npt.NDArray[np.int64]],
    groups: Mapping[str, frozenset[str]],
) -> tuple[BoolArray, BoolArray]:
    """Whether each listed rank (``ranks[i]`` of ``classes[i]``, concatenated) overlaps an object
    of a similar class / of any other class by IoU >= ``MIN_OVERLAP`` in its image."""
    obj = dataset.objects
    pairs = list(zip(classes, ranks, strict=True))
    label = _joined([np.full(len(r), c.class_index, np.int64) for c, r in pairs])
    image = _joined([c.image_index[r] for c, r in pairs])
    rows = _joined([c.order[r] for c, r in pairs])
    offsets = group_offsets(obj.image_index, len(dataset.images))
    pd, pg = same_image_pairs(image, offsets)
    _, ov = overlap_pairs(results.detections.box[rows[pd]], obj.box[pg], plus_one=True)
    other = (obj.label[pg] != label[pd]) & (np.nan_to_num(ov, nan=-np.inf) >= MIN_OVERLAP)
    k = len(dataset.classes)
    member = np.zeros((len(groups), k), dtype=bool)
    for g, names in enumerate(groups.values()):
        member[g] = [c in names for c in dataset.classes]
    similar = (member.T.astype(np.int64) @ member.astype(np.int64)) > 0  # (K, K)
    sim = other & similar[label[pd], obj.label[pg]]
    n = len(label)
    return np.bincount(pd[sim], minlength=n) > 0, np.bincount(pd[other], minlength=n) > 0


def _joined(parts: list[npt.NDArray[np.int64]]) -> npt.NDArray[np.int64]:
    return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, dtype=np.int64)


def _rule_ap(rule: str, tp: BoolArray, fp: BoolArray, npos: int) -> float:
    prec, rec = voc_precision_recall(tp, fp, npos)
    return voc_ap_11_point(rec, prec) if rule == "11point" else voc_ap_all_points(rec, prec)


@dataclass(frozen=True, eq=False)
class VocCurves(ClassCurves):
    """``ClassCurves`` of VOC detection plus ``ap`` float64 (5, K): each ranked list's AP under
    the evaluation's ``ap_rule`` (row C50 = VOC's AP of the class)."""

    ap: FloatArray
    ap_rule: str

    def protocol_ap(self, classes: list[str] | None = None) -> dict[str, float]:
        """C75 ... Oth: the mean over ``classes`` (default all) of the lists' APs (VOC's rule)."""
        keep = [self.class_names.index(c) for c in classes] if classes is not None else None
        a = self.ap if keep is None else self.ap[:, keep]
        if a.shape[1] == 0:
            return {k: float("nan") for k in RANKED_CURVES}
        return {k: float(np.mean(a[i])) for i, k in enumerate(RANKED_CURVES)}

    def to_json(self) -> dict[str, Any]:
        """``ClassCurves.to_json`` plus ``"ious"``, ``"recall_levels"`` and ``"protocol_ap"``
        (``{"rule", "overall", "groups", "categories"}``: the same settings under VOC's AP rule,
        C75 to Oth)."""

        def nulls(d: dict[str, float]) -> dict[str, float | None]:
            return {k: nan_to_null(v) for k, v in d.items()}

        out = super().to_json()
        out["ious"] = dict(zip(RANKED_CURVES[:3], CURVE_IOUS, strict=True))
        out["recall_levels"] = len(self.recall)
        out["protocol_ap"] = {
            "rule": self.ap_rule,
            "overall": nulls(self.protocol_ap()),
            "groups": {g: nulls(self.protocol_ap(m)) for g, m in self.group_members().items()},
            "categories": {c: nulls(self.protocol_ap([c])) for c in self.class_names},
        }
        return out


def voc_curves(
    dataset: Dataset,
    results: ResultSet,
    ev: EvalResult,
    groups: Mapping[str, frozenset[str]] = SIMILAR_GROUPS,
) -> VocCurves:
    """``analyze()``'s curves of a VOC detection evaluation ``ev`` of ``results`` (module
    docstring); ``groups``: the similar classes."""
    classes = [c for c in ev.classes if c.has_results and not np.isnan(c.ap)]
    lists = [[voc_verdicts_at(dataset, c, t) for t in CURVE_IOUS] for c in classes]
    loc_fp = [np.flatnonzero(v[2] >= Verdict.FP) for v in lists]
    sim_hit, oth_hit = _confusions(dataset, results, classes, loc_fp, groups)
    bounds = np.cumsum([0, *(len(r) for r in loc_fp)])
    n = len(classes)
    precision = np.zeros((len(RANKED_CURVES), n, len(COCO_RECALL)))
    ap = np.zeros((len(RANKED_CURVES), n))
    for k, (c, v, fps) in enumerate(zip(classes, lists, loc_fp, strict=True)):
        s, o = sim_hit[bounds[k] : bounds[k + 1]], oth_hit[bounds[k] : bounds[k + 1]]
        loc = v[2]
        sim_fp = loc >= Verdict.FP
        sim_fp[fps[s]] = False
        oth_fp = loc >= Verdict.FP
        oth_fp[fps[o]] = False
        ranked = [(x == Verdict.TP, x >= Verdict.FP) for x in v]
        ranked += [(loc == Verdict.TP, sim_fp), (loc == Verdict.TP, oth_fp)]
        for i, (tp, fp) in enumerate(ranked):
            precision[i, k] = interpolated_precision(tp, fp, c.npos)
            ap[i, k] = _rule_ap(ev.ap_rule, tp, fp, c.npos)
    return VocCurves(
        COCO_RECALL, precision, tuple(c.class_name for c in classes), groups, ap, ev.ap_rule
    )
