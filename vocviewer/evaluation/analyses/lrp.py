"""Localisation-Recall-Precision error (LRP, Oksuz et al., ECCV 2018; "One metric to measure
them all", TPAMI 2022) and optimal LRP, by the rules of the authors' COCO evaluator
(kemaloksuz/LRP-Error, ``pycocotools/cocoeval.py``: ``accumulate``).

Over a class's ranks in order (``ClassEvaluation``, the protocol's IoU ``tau``): after the top
``r + 1`` ranks, ``TP`` and ``FP`` count the ``TP`` and the ``FP`` / ``DUPLICATE`` ranks
(``IGNORED`` ranks count as neither but keep their place), ``FN = npos - TP`` and the
localisation error is ``loc = sum over TPs of (1 - IoU)`` (IoU with the matched object)::

    LRP_r = (loc / (1 - tau) + FP + FN) / (TP + FP + FN)

oLRP is its minimum over ranks (the first on ties); at that rank its components are
``loc / TP`` (oLRP Loc, the mean ``1 - IoU``), ``FP / (TP + FP)`` and ``FN / npos``, and its
threshold is that rank's score. A class with objects but no true positive (or no detection) has
oLRP 1, FN 1 and NaN localisation, FP and threshold; a class without objects (``npos`` 0) has
none (left out). moLRP and the mean components average the classes that have them (NaN left
out).

As an analysis (``ANALYSIS``, ``vocviewer analyze --lrp``): oLRP of the detection classes at the
IoU of their verdicts — box IoU, mask IoU (``segm``) or OKS (``keypoints``), as LRP-Error reads
them (``bench/check_lrp_official.py`` checks all three against it); left out, with a note, for
Boundary AP (LRP-Error has no boundary IoU) and where a true positive has no IoU.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.evaluation.analyses.base import Analysis, Subject, TextPart, verdict_iou
from vocviewer.evaluation.result import ClassEvaluation, Verdict

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class ClassLRP:
    """One class's optimal LRP (``rank``: the optimal rank, -1 with no TP) and its components
    (module docstring), with the counts there."""

    name: str
    npos: int
    olrp: float
    loc: float
    fp: float
    fn: float
    threshold: float
    rank: int
    n_tp: int
    n_fp: int
    n_fn: int

    def to_dict(self) -> dict[str, Any]:
        d = {
            "olrp": self.olrp,
            "loc": self.loc,
            "fp": self.fp,
            "fn": self.fn,
            "threshold": self.threshold,
            "tp_count": self.n_tp,
            "fp_count": self.n_fp,
            "fn_count": self.n_fn,
        }
        return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in d.items()}


def lrp_curve(ev: ClassEvaluation, tau: float) -> FloatArray:
    """LRP after each rank of ``ev`` (float64 (D,)); ``ValueError`` if a TP has no IoU."""
    v = ev.verdict
    tp = v == Verdict.TP
    iou = np.asarray(ev.best_iou, dtype=np.float64)
    if np.any(tp & np.isnan(iou)):
        raise ValueError(f"class {ev.class_name!r}: LRP needs the IoU of every true positive")
    fp = (v == Verdict.FP) | (v == Verdict.DUPLICATE)
    tp_num = np.cumsum(tp)
    fp_num = np.cumsum(fp)
    fn_num = ev.npos - tp_num
    loc = tp_num - np.cumsum(np.where(tp, iou, 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        out: FloatArray = (loc / (1 - tau) + fp_num + fn_num) / (tp_num + fp_num + fn_num)
    return out


def class_lrp(ev: ClassEvaluation, tau: float) -> ClassLRP | None:
    """Optimal LRP of one class at IoU ``tau`` (``None`` if it has no objects)."""
    if ev.npos == 0:
        return None
    v = ev.verdict
    tp = v == Verdict.TP
    if not np.any(tp):
        nan = math.nan
        n_fp = int(np.count_nonzero((v == Verdict.FP) | (v == Verdict.DUPLICATE)))
        return ClassLRP(ev.class_name, ev.npos, 1.0, nan, nan, 1.0, nan, -1, 0, n_fp, ev.npos)
    lrps = lrp_curve(ev, tau)
    r = int(np.argmin(lrps))
    n_tp = int(np.count_nonzero(tp[: r + 1]))
    n_fp = int(np.count_nonzero(((v == Verdict.FP) | (v == Verdict.DUPLICATE))[: r + 1]))
    loc = n_tp - float(np.cumsum(np.where(tp, ev.best_iou, 0.0))[r])
    with np.errstate(invalid="ignore", divide="ignore"):
        loc_c = float(np.float64(loc) / np.float64(n_tp))
        fp_c = float(np.float64(n_fp) / np.float64(n_tp + n_fp))
    n_fn = ev.npos - n_tp
    return ClassLRP(
        ev.class_name,
        ev.npos,
        float(lrps[r]),
        loc_c,
        fp_c,
        n_fn / ev.npos,
        float(ev.score[r]),
        r,
        n_tp,
        n_fp,
        n_fn,
    )


def _mean(xs: Sequence[float]) -> float:
    kept = [x for x in xs if not math.isnan(x)]
    return float(np.mean(kept)) if kept else math.nan


@dataclass(frozen=True)
class LRPResult:
    """Per class index its ``ClassLRP`` (classes without objects absent) at IoU ``tau``, and the
    means over classes: ``molrp`` and its components."""

    tau: float
    per_class: dict[int, ClassLRP]

    @property
    def molrp(self) -> float:
        return _mean([c.olrp for c in self.per_class.values()])

    def means(self) -> dict[str, float]:
        """``moLRP``, ``moLRP_loc``, ``moLRP_fp``, ``moLRP_fn`` (NaN where no class has one)."""
        cs = list(self.per_class.values())
        return {
            "moLRP": self.molrp,
            "moLRP_loc": _mean([c.loc for c in cs]),
            "moLRP_fp": _mean([c.fp for c in cs]),
            "moLRP_fn": _mean([c.fn for c in cs]),
        }

    def thresholds(self) -> dict[str, float | None]:
        """Class name -> its LRP-optimal threshold (``None``: none)."""
        return {
            c.name: (None if math.isnan(c.threshold) else c.threshold)
            for c in self.per_class.values()
        }

    def to_dict(self) -> dict[str, Any]:
        means = {k: (None if math.isnan(v) else v) for k, v in self.means().items()}
        return {
            "tau": self.tau,
            **means,
            "per_class": {c.name: c.to_dict() for c in self.per_class.values()},
        }


def optimal_lrp(evs: Sequence[ClassEvaluation], tau: float) -> LRPResult:
    """oLRP of every detection class of ``evs`` at the IoU threshold ``tau`` of their verdicts."""
    if not 0 <= tau < 1:
        raise ValueError(f"LRP's IoU threshold must lie in [0, 1), got {tau}")
    out: dict[int, ClassLRP] = {}
    for ev in evs:
        if ev.task == "det":
            c = class_lrp(ev, tau)
            if c is not None:
                out[ev.class_index] = c
    return LRPResult(float(tau), out)


# --- the analysis (``ANALYSIS``) --------------------------------------------------------------
@dataclass(frozen=True)
class LRPOptions:
    """``vocviewer analyze --lrp`` has no options (its IoU is the verdicts')."""


@dataclass(frozen=True, eq=False)
class LRPAnalysis:
    """``lrp`` (``None``: left out, ``note`` says why)."""

    lrp: LRPResult | None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """``"lrp"``, or ``"lrp_note"`` where it is left out."""
        return {"lrp": self.lrp.to_dict()} if self.lrp is not None else {"lrp_note": self.note}

    def text(self) -> TextPart:
        """Per class its oLRP and threshold; moLRP after the overall row."""
        blank = f"{'-':>6} {'-':>7}"
        rows = {}
        per = self.lrp.per_class if self.lrp is not None else {}
        for k, c in per.items():
            th = "-" if math.isnan(c.threshold) else f"{c.threshold:.3f}"
            rows[k] = f"{f'{c.olrp:.3f}':>6} {th:>7}"
        suffix = "" if self.lrp is None else f"  moLRP {self.lrp.molrp:.4f}"
        notes = (self.note,) if self.note else ()
        return TextPart(
            "optimal LRP", f"{'oLRP':>6} {'oLRPthr':>7}", rows, blank, blank, suffix, notes
        )

    def figures(self, title: str) -> list[tuple[str, str]]:
        return []


#: IoU kinds LRP-Error does not evaluate (``ViewChoice.iou_kind``: it has no boundary IoU)
UNCHECKED_IOU_KINDS = ("boundary",)


def compute(s: Subject, o: LRPOptions) -> LRPAnalysis:
    """oLRP of ``s``'s detection classes at the IoU of their verdicts (boxes, masks, keypoints:
    what the official LRP-Error code evaluates)."""
    if (kind := s.evidence.choice.iou_kind) in UNCHECKED_IOU_KINDS:
        return LRPAnalysis(None, f"LRP left out: LRP-Error has no {kind} IoU")
    try:
        return LRPAnalysis(optimal_lrp(list(s.evidence.evaluations("det")), verdict_iou(s)))
    except ValueError as err:
        return LRPAnalysis(None, f"LRP left out: {err}")


ANALYSIS = Analysis(
    "lrp",
    "Optimal LRP: localisation, recall and precision error",
    "optimal LRP, its components and thresholds, moLRP",
    LRPOptions,
    compute,
)
