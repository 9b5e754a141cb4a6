"""COCO's ``analyze()`` under LVIS's rules: the nested PR curves C75, C50, Loc, Sim, Oth, BG, FN.

``coco_analyze`` ports ``CocoEval.analyze``; here every evaluation in it is ``LVISEval``'s
(``lvis.py``): only the detections LVIS evaluates (category on the image or verified absent, its
image's 300 highest scores, area in (0, inf)), LVIS's cap of 300 per image instead of COCO's 100,
annotations ignored by their ``ignore`` field (no crowd), and an unmatched detection of a category
not exhaustively annotated on its image ignored, not a false positive. Per category ``k`` and area
range:

- C75, C50, Loc: LVIS's precision at IoU .75, .50 and .10 (C75 and C50 equal ``LVISEval``'s);
- Sim: IoU .10, ``k``'s detections against the annotations of ``k``'s supercategory, every other
  category's carrying ``ignore`` (a detection on a similar object is ignored) — LVIS v1 files
  have no ``supercategory`` (a category has a WordNet ``synset``, not its hypernyms): without one
  every category shares the empty one, so Sim equals Oth, as ``analyze()`` computes it on such a
  file (``LvisAnalysis.similar`` is False then);
- Oth: the same against every annotation; BG = ``Oth > 0``; FN = 1.

Categories without ground truth in the area range are undefined (NaN), and the overall, per
frequency group (r / c / f) and per supercategory curves are means over the defined categories
only — as ``LVISEval``'s summary leaves them out (``analyze()`` on COCO counts them as 0; most
LVIS categories have no ground truth in a given split).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis_curves import CURVE_NAMES, AnalysisCurves
from vocviewer.families.coco.accumulate import accumulate_category
from vocviewer.families.coco.analyze_curves import ANALYSIS_IOUS, restrict_prepared
from vocviewer.families.coco.columns import CocoAnnotations
from vocviewer.families.coco.evaluate import match_category
from vocviewer.families.coco.prepare import Prepared, prepare
from vocviewer.families.lvis.columns import LvisAnnotations
from vocviewer.families.lvis.evaluate import LvisSelection, federated_prepared, lvis_params, select

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

__all__ = ["LvisAnalysis", "analyze_lvis", "lvis_precision"]


def lvis_precision(prep: Prepared, k: int, sel: LvisSelection) -> FloatArray:
    """Category (group) ``k`` of a ``federated_prepared`` preparation, matched and accumulated as
    ``LVISEval`` does: float64 (T, R, A) at the largest cap, -1 where undefined."""
    p = prep.params
    ds = prep.dt_slice(k)
    m = match_category(prep, k)
    not_exhaustive = sel.not_exhaustive[prep.dt_rows[ds]]
    if not not_exhaustive.any():
        return np.asarray(m.curves.precision[..., -1])
    fp = m.fp & ~not_exhaustive[None, None, :]  # unmatched there: ignored, not a false positive
    curves = accumulate_category(
        prep.dt_score[ds],
        prep.dt_image_pos[ds],
        prep.dt_rank[ds],
        m.tp,
        fp,
        m.npig,
        p.recall_thresholds,
        p.max_dets,
    )
    return np.asarray(curves.precision[..., -1])


@dataclass(frozen=True, eq=False)
class LvisAnalysis:
    """``analyze()``'s output under LVIS's rules.

    precision : float64 (7, R, K, A) — curve (``CURVE_NAMES``), recall threshold, category
    (ascending id), area range (``area_names``); NaN where the category has no ground truth in
    the range. ``similar``: whether the file groups categories (``supercategory``)."""

    recall: FloatArray
    area_names: tuple[str, ...]
    category_ids: npt.NDArray[np.int64]
    category_names: tuple[str, ...]
    frequency: npt.NDArray[np.str_]
    supercategories: tuple[str, ...]
    similar: bool
    precision: FloatArray

    @property
    def supercategory_names(self) -> tuple[str, ...]:
        """Distinct supercategories, sorted (none when the file has none)."""
        return tuple(sorted(set(self.supercategories))) if self.similar else ()

    def defined(self, area: str = "all") -> BoolArray:
        """bool (K,): categories with ground truth in ``area``."""
        a = self.area_names.index(area)
        return np.asarray(~np.isnan(self.precision[0, 0, :, a]), dtype=bool)

    def _curves(self, name: str, area: str, keep: BoolArray) -> AnalysisCurves:
        a = self.area_names.index(area)
        ps = self.precision[:, :, keep & self.defined(area), a]
        mean = ps.mean(axis=2) if ps.shape[2] else np.full(ps.shape[:2], np.nan)
        return AnalysisCurves(name, area, self.recall, *mean)

    def category(self, category_id: int, area: str = "all") -> AnalysisCurves:
        """One category's curves (by category id; NaN if it has no ground truth in ``area``)."""
        keep = self.category_ids == category_id
        if not keep.any():
            raise KeyError(f"no category with id {category_id}")
        a = self.area_names.index(area)
        name = self.category_names[int(np.argmax(keep))]
        return AnalysisCurves(
            name, area, self.recall, *self.precision[:, :, int(np.argmax(keep)), a]
        )

    def frequency_group(self, group: str, area: str = "all") -> AnalysisCurves:
        """The mean of the curves of the defined categories of frequency ``group`` (r, c, f)."""
        return self._curves(group, area, self.frequency == group)

    def supercategory(self, name: str, area: str = "all") -> AnalysisCurves:
        """The mean of the curves of ``name``'s defined categories."""
        keep = np.array([s == name for s in self.supercategories], dtype=bool)
        if not self.similar or not keep.any():
            raise KeyError(f"no supercategory {name!r}")
        return self._curves(name, area, keep)

    def overall(self, area: str = "all") -> AnalysisCurves:
        """The mean of every defined category's curves."""
        return self._curves("all", area, np.ones(len(self.category_ids), dtype=bool))


def analyze_lvis(dataset: Dataset, results: ResultSet, task: str = "bbox") -> LvisAnalysis:
    """Run ``analyze()`` under LVIS's rules (module docstring) on ``families.lvis.reader`` input."""
    sel = select(dataset, results)
    params = replace(lvis_params(task), iou_thresholds=np.array(ANALYSIS_IOUS))
    prep = federated_prepared(prepare(dataset, results, params), sel)
    n_r, n_k, n_a = len(params.recall_thresholds), prep.n_categories, len(params.area_ranges)
    ps = np.zeros((len(CURVE_NAMES), n_r, n_k, n_a))
    for k in range(n_k):
        ps[:3, :, k, :] = lvis_precision(prep, k, sel)
    one = replace(params, use_cats=False, iou_thresholds=np.array([0.1]))
    base = federated_prepared(prepare(dataset, results, one), sel)
    gt: CocoAnnotations = dataset.data(CocoAnnotations)
    gt_cat = dataset.objects.label[base.gt_rows]
    dt_cat = results.detections.label[base.dt_rows]
    sup = np.array(gt.supercategory, dtype=object)
    everything = np.ones(len(gt_cat), dtype=bool)
    for k in range(n_k):
        mine, other = dt_cat == k, gt_cat != k
        sim = restrict_prepared(base, one, sup[gt_cat] == sup[k], other, mine)
        ps[3, :, k, :] = lvis_precision(sim, 0, sel)[0]
        oth = restrict_prepared(base, one, everything, other, mine)
        ps[4, :, k, :] = lvis_precision(oth, 0, sel)[0]
    ps[ps == -1] = np.nan
    ps[5] = np.where(np.isnan(ps[4]), np.nan, ps[4] > 0)
    ps[6] = np.where(np.isnan(ps[4]), np.nan, 1.0)
    return LvisAnalysis(
        recall=np.asarray(params.recall_thresholds, dtype=np.float64),
        area_names=params.area_names,
        category_ids=gt.category_id.copy(),
        category_names=tuple(dataset.classes),
        frequency=dataset.data(LvisAnnotations).frequency.copy(),
        supercategories=tuple(gt.supercategory),
        similar=any(s != "" for s in gt.supercategory),
        precision=ps,
    )
