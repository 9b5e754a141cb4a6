"""COCO ``analyze()``'s nested curves from per-class ranked verdicts, for any family.

A family supplies, per class, its ranked lists under the five settings C75, C50, Loc, Sim, Oth
(true / false positive indicators per rank; an ignored rank is neither) and the number of
positives; ``interpolated_precision`` samples each on COCO's 101 recall levels (the precision
envelope: the highest precision at any recall >= the level, 0 past the last recall reached).
``ClassCurves`` holds them and gives the seven curves (``AnalysisCurves``) of one class, of a
group of similar classes or of all classes: the mean of the per-class curves, BG per class
``Oth > 0`` (1 up to the highest recall Oth reaches) before the mean, as COCO's ``analyze``
does, and FN = 1. The area of a curve is its mean over the recall levels (COCO's legend).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core.arrays import nan_to_null

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

#: the seven curves of COCO's ``analyze()``, outermost first
CURVE_NAMES = ("C75", "C50", "Loc", "Sim", "Oth", "BG", "FN")
#: COCO's recall thresholds ``0:.01:1`` (``np.linspace``, as pycocotools builds them).
COCO_RECALL = np.linspace(0.0, 1.0, 101)
#: The five curves a family computes (BG and FN follow from Oth).
RANKED_CURVES = CURVE_NAMES[:5]


@dataclass(frozen=True, eq=False)
class AnalysisCurves:
    """The seven curves of one setting (a category, a supercategory or all, one area range).

    Every curve is float64 (R,) precision at ``recall`` (COCO's 101 thresholds 0:.01:1)."""

    name: str
    area: str
    recall: FloatArray
    c75: FloatArray
    c50: FloatArray
    loc: FloatArray
    sim: FloatArray
    oth: FloatArray
    bg: FloatArray
    fn: FloatArray

    def curves(self) -> dict[str, FloatArray]:
        """Curve name (``CURVE_NAMES``) -> precision."""
        vals = (self.c75, self.c50, self.loc, self.sim, self.oth, self.bg, self.fn)
        return dict(zip(CURVE_NAMES, vals, strict=True))

    @property
    def areas(self) -> dict[str, float]:
        """Curve name -> area under it (mean precision over the recall thresholds)."""
        return {k: float(np.mean(v)) for k, v in self.curves().items()}

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "area": self.area,
            "ap": self.areas,
            "precision": {k: v.tolist() for k, v in self.curves().items()},
        }


def interpolated_precision(
    tp: BoolArray, fp: BoolArray, npos: int, recall: FloatArray = COCO_RECALL
) -> FloatArray:
    """COCO's sampling of one ranked list's precision envelope at ``recall`` (float64 (R,)).

    ``tp``/``fp`` bool (D,) in rank order (an ignored rank has both False and changes nothing);
    0 without positives or detections and past the highest recall reached."""
    if npos <= 0 or not len(tp):
        return np.zeros(len(recall))
    ctp, cfp = np.cumsum(tp), np.cumsum(fp)
    with np.errstate(invalid="ignore", divide="ignore"):
        prec = np.nan_to_num(ctp / (ctp + cfp))
    env = np.maximum.accumulate(prec[::-1])[::-1]
    at = np.searchsorted(ctp / npos, recall, side="left")
    return np.where(at < len(env), env[np.minimum(at, len(env) - 1)], 0.0)


def areas_json(c: AnalysisCurves) -> dict[str, float | None]:
    """Curve name -> area (``None`` for NaN)."""
    return {k: nan_to_null(v) for k, v in c.areas.items()}


@dataclass(frozen=True, eq=False)
class ClassCurves:
    """The nested curves of each class: ``precision`` float64 (5, K, R) for C75, C50, Loc, Sim,
    Oth at ``recall`` (R levels, 0-1) of the classes ``class_names`` (K); ``groups``: similar
    classes by group name (members not among ``class_names`` are left out)."""

    recall: FloatArray
    precision: FloatArray
    class_names: tuple[str, ...]
    groups: Mapping[str, frozenset[str]]

    def group_members(self) -> dict[str, list[str]]:
        """Each group with at least one of ``class_names``: its members among them (in class
        order)."""
        out = {g: [c for c in self.class_names if c in m] for g, m in self.groups.items()}
        return {g: m for g, m in out.items() if m}

    def curves(self, classes: Sequence[str] | None = None, name: str = "all") -> AnalysisCurves:
        """The seven curves of the mean over ``classes`` (default: all; zeros if none)."""
        keep = [self.class_names.index(c) for c in classes] if classes is not None else None
        p = self.precision if keep is None else self.precision[:, keep]
        if p.shape[1] == 0:
            p = np.zeros((5, 1, len(self.recall)))
        bg = (p[4] > 0).mean(axis=0)
        c75, c50, loc, sim, oth = p.mean(axis=1)
        fn = np.ones_like(bg)
        return AnalysisCurves(name, "all", self.recall, c75, c50, loc, sim, oth, bg, fn)

    def per_class(self) -> dict[str, AnalysisCurves]:
        """Class name -> its seven curves."""
        return {c: self.curves([c], c) for c in self.class_names}

    def to_json(self) -> dict[str, Any]:
        """``{"curves", "overall": {"all": areas}, "groups": {group: areas},
        "categories": {class: areas}}`` (areas: curve name -> area)."""
        return {
            "curves": list(CURVE_NAMES),
            "overall": {"all": areas_json(self.curves())},
            "groups": {g: areas_json(self.curves(m, g)) for g, m in self.group_members().items()},
            "categories": {c: areas_json(v) for c, v in self.per_class().items()},
        }
