"""COCO's ``analyze()``: the nested PR curves C75, C50, Loc, Sim, Oth, BG, FN and their areas.

A columnar port of ``CocoEval.analyze`` (COCO API, ``MatlabAPI/CocoEval.m``), which has no
official Python version. For every category ``k`` (all categories of the ground truth) and every
area range, with at most 100 detections per image:

- C75, C50, Loc: the COCOeval precision at IoU .75, .50 and .10 (one run, ``useCats`` on).
  Loc ignores localisation errors, **not** duplicates (a second hit on an object is still an FP).
- Sim: IoU .10, ``useCats`` off, only ``k``'s detections, against the ground truth of ``k``'s
  supercategory where every object of another class carries ``ignore = 1`` — a detection on a
  similar object is ignored (neither TP nor FP), the recall denominator is unchanged.
- Oth: the same against all ground truth, every other class ignored.
- Then every -1 (no ground truth in the range) becomes 0; BG = ``Oth > 0`` (1 up to the
  highest recall reached, 0 after); FN = 1.

The area of a curve is its mean over the recall thresholds (the legend of the official plots).
Supercategory and overall curves are plain means of the per-category curves (categories without
ground truth count as 0, as in the official code). Ground-truth ``ignore`` is ``iscrowd`` as in
pycocotools (the MATLAB API would also honour an ``ignore`` field of the JSON).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis_curves import CURVE_NAMES, AnalysisCurves
from vocviewer.families.coco.columns import CocoAnnotations
from vocviewer.families.coco.evaluate import _evaluate_one, evaluate_coco
from vocviewer.families.coco.params import CocoParams
from vocviewer.families.coco.prepare import Prepared, prepare

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

ANALYSIS_IOUS = (0.75, 0.5, 0.1)
MAX_DETS = 100

__all__ = ["CURVE_NAMES", "AnalysisCurves", "CocoAnalysis", "analyze_coco"]


@dataclass(frozen=True, eq=False)
class CocoAnalysis:
    """``analyze()``'s output.

    precision : float64 (7, R, K, A) — curve (``CURVE_NAMES``), recall threshold, category
    (``category_ids`` order, ascending id), area range (``area_names``); no -1 left."""

    recall: FloatArray
    area_names: tuple[str, ...]
    category_ids: IntArray
    category_names: tuple[str, ...]
    supercategories: tuple[str, ...]
    precision: FloatArray

    @property
    def supercategory_names(self) -> tuple[str, ...]:
        """Distinct supercategories, sorted (MATLAB's ``unique``)."""
        return tuple(sorted(set(self.supercategories)))

    def _curves(self, name: str, area: str, keep: BoolArray) -> AnalysisCurves:
        a = self.area_names.index(area)
        ps = np.mean(self.precision[:, :, keep, a], axis=2)
        return AnalysisCurves(name, area, self.recall, *ps)

    def category(self, category_id: int, area: str = "all") -> AnalysisCurves:
        """One category's curves (by COCO category id)."""
        keep = self.category_ids == category_id
        if not keep.any():
            raise KeyError(f"no category with id {category_id}")
        return self._curves(self.category_names[int(np.argmax(keep))], area, keep)

    def supercategory(self, name: str, area: str = "all") -> AnalysisCurves:
        """The mean of the curves of ``name``'s categories."""
        keep = np.array([s == name for s in self.supercategories], dtype=bool)
        if not keep.any():
            raise KeyError(f"no supercategory {name!r}")
        return self._curves(name, area, keep)

    def overall(self, area: str = "all") -> AnalysisCurves:
        """The mean of every category's curves."""
        return self._curves("all", area, np.ones(len(self.category_ids), dtype=bool))

    def to_json(self) -> dict[str, Any]:
        """Per area range: overall, per supercategory and per category, curves and areas."""
        cats = [
            {
                "id": int(cid),
                "name": name,
                "supercategory": sup,
                "areas": {a: self.category(int(cid), a).to_json() for a in self.area_names},
            }
            for cid, name, sup in zip(
                self.category_ids, self.category_names, self.supercategories, strict=True
            )
        ]
        return {
            "curves": list(CURVE_NAMES),
            "recall": self.recall.tolist(),
            "max_dets": MAX_DETS,
            "overall": {a: self.overall(a).to_json() for a in self.area_names},
            "supercategories": {
                s: {a: self.supercategory(s, a).to_json() for a in self.area_names}
                for s in self.supercategory_names
            },
            "categories": cats,
        }


def restrict_prepared(
    base: Prepared, params: CocoParams, gt_keep: BoolArray, gt_ignore: BoolArray, dt_keep: BoolArray
) -> Prepared:
    """``base`` (``use_cats`` off, uncapped) cut to some GT / detections as one category,
    ``gt_ignore`` added to the GT ignore flags, detections re-ranked and capped per image."""
    g = np.flatnonzero(gt_keep)
    d = np.flatnonzero(dt_keep)
    group = base.dt_group[d]
    rank = np.arange(len(d)) - np.searchsorted(group, group, side="left")
    keep = rank < params.max_dets[-1]
    d, rank = d[keep], rank[keep]
    return replace(
        base,
        params=params,
        gt_rows=base.gt_rows[g],
        gt_group=base.gt_group[g],
        gt_ann_id=base.gt_ann_id[g],
        gt_area=base.gt_area[g],
        gt_crowd=base.gt_crowd[g],
        gt_ignore=base.gt_ignore[g] | gt_ignore[g],
        gt_offsets=np.array([0, len(g)], dtype=np.int64),
        dt_rows=base.dt_rows[d],
        dt_group=base.dt_group[d],
        dt_rank=rank,
        dt_score=base.dt_score[d],
        dt_area=base.dt_area[d],
        dt_image_pos=base.dt_image_pos[d],
        dt_image_index=base.dt_image_index[d],
        dt_offsets=np.array([0, len(d)], dtype=np.int64),
    )


def analyze_coco(
    dataset: Dataset, results: ResultSet, params: CocoParams | None = None
) -> CocoAnalysis:
    """Run ``analyze()`` on a COCO dataset and results (bbox or segm).

    From ``params`` (default ``CocoParams()``) only ``iou_type``, ``image_ids``,
    ``recall_thresholds``, ``area_ranges`` / ``area_names`` and ``fix_id0`` are used: like the
    official code, the analysis covers every category, IoU .75 / .5 / .1 and 100 detections."""
    params = params or CocoParams()
    if params.iou_type not in ("bbox", "segm", "boundary"):
        raise ValueError(
            f"analyze() is defined for bbox and segm (and boundary), not {params.iou_type!r}"
        )
    first = replace(
        params,
        use_cats=True,
        iou_thresholds=np.array(ANALYSIS_IOUS),
        max_dets=(MAX_DETS,),
        category_ids=None,
    )
    ev = evaluate_coco(dataset, results, first)
    n_r, n_k, n_a = len(params.recall_thresholds), len(ev.category_ids), len(params.area_ranges)
    ps = np.zeros((len(CURVE_NAMES), n_r, n_k, n_a))
    ps[:3] = ev.precision[..., 0]
    one = replace(first, use_cats=False, iou_thresholds=np.array([0.1]))
    gt: CocoAnnotations = dataset.data(CocoAnnotations)
    base = prepare(dataset, results, replace(one, max_dets=(np.iinfo(np.int64).max,)))
    gt_cat = dataset.objects.label[base.gt_rows]
    dt_cat = results.detections.label[base.dt_rows]
    sup = np.array(gt.supercategory, dtype=object)
    for k in range(n_k):
        mine = dt_cat == k
        other = gt_cat != k
        same_sup = sup[gt_cat] == sup[k]
        sim = restrict_prepared(base, one, same_sup, other, mine)
        ps[3, :, k, :] = _evaluate_one(sim, 0).precision[0, :, :, 0]
        oth = restrict_prepared(base, one, np.ones(len(gt_cat), dtype=bool), other, mine)
        ps[4, :, k, :] = _evaluate_one(oth, 0).precision[0, :, :, 0]
    ps[ps == -1] = 0.0
    ps[5] = ps[4] > 0
    ps[6] = 1.0
    return CocoAnalysis(
        recall=np.asarray(params.recall_thresholds, dtype=np.float64),
        area_names=params.area_names,
        category_ids=ev.category_ids,
        category_names=ev.category_names,
        supercategories=tuple(gt.supercategory),
        precision=ps,
    )
