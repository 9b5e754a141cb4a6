"""Object characteristics (Hoiem, Chodpathumwan and Dai, ECCV 2012; IJCV 2015 §6.2): how AP
changes with the objects' size, aspect ratio, truncation, occlusion, difficulty, ...

For one characteristic every object of interest falls in one bin (``bins`` int64 (G,), -1: in
none). The normalised AP of class ``k`` on bin ``b`` (``AP_N``, IJCV 2015 eq. 6, ``normalised_ap``)
takes as positives the class's objects in ``b``; of its ranked detections:

* a detection on an object of the bin (a true positive, or a detection the protocol ignored because
  it hit an ignore object — a VOC difficult or COCO crowd object) is a true positive if it is the
  first ranked detection on that object, else ignored;
* a detection on an object of *another* bin (or of none) is ignored — neither TP nor FP;
* a false positive stays a false positive.

``N`` in eq. 6 is one constant for every class and bin (the paper's choice: the mean number of
positives per class over the whole set; overridable), so a bin holding few objects is not penalised
for its size. The average over recall is ``ap_rule`` (``"allpoints"`` or ``"11point"``) on the
normalised curve. Per bin the figure shows the mean of ``AP_N`` over the classes that have objects
in the bin, with its standard error over those classes (``std(ddof=1) / sqrt(n)``); the summary
is the *sensitivity* (max - min of the bin means) and the *impact* (max bin mean - the overall
``AP_N``, all positives of the class), Hoiem et al. §4.

Bins: ``size_bins`` / ``aspect_bins`` split each class's objects at the 10th, 30th, 70th and
90th within-class percentiles of ``sqrt(area)`` (XS, S, M, L, XL) and of ``width / height``
(XT, T, M, W, XW: extra tall ... extra wide); ``flag_bins`` / ``level_bins`` take a flag or a
level (VOC truncated / occluded / difficult, COCO crowd, VisDrone truncation 0-1 and occlusion
0-2); ``range_bins`` COCO's area ranges. Families build ``ClassRanking`` from their own verdicts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core.arrays import nan_to_null
from vocviewer.evaluation.ap import voc_ap_11_point, voc_ap_all_points
from vocviewer.evaluation.normalised_ap import normalised_precision_det

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

#: Within-class percentiles that split sizes and aspect ratios (Hoiem et al.: 10/20/40/20/10 %).
PERCENTILES = (10.0, 30.0, 70.0, 90.0)
SIZE_BINS = ("XS", "S", "M", "L", "XL")
ASPECT_BINS = ("XT", "T", "M", "W", "XW")


@dataclass(frozen=True, eq=False)
class ClassRanking:
    """One class's ranked detections (rank order, best first).

    tp, fp : bool (D,)  the protocol's verdict (neither: ignored, keeps its slot)
    obj : int64 (D,)    the object row hit — the match of a TP, or the ignore object an
                        ignored detection hit — else -1
    """

    name: str
    label: int
    tp: BoolArray
    fp: BoolArray
    obj: IntArray


@dataclass(frozen=True, eq=False)
class Characteristic:
    """``AP_N`` per class and bin of one characteristic, and its summary.

    ap_n : float64 (K, B) NaN where the class has no objects in the bin; npos : int64 (K, B)
    mean, se : float64 (B,) over the classes with objects in the bin (se NaN for fewer than 2)
    overall : mean over classes of ``AP_N`` with every positive (``counted``) of the class
    obj_bin : int64 (G,) each object row's bin (``Dataset.objects`` rows; -1: in none or of no
              ranked class); found : bool (G,) whether a detection counted as its true
              positive in ``AP_N`` (a TP, or an ignored detection on an ignore object) hit it
              (empty arrays where unknown)
    """

    name: str
    bins: tuple[str, ...]
    class_names: tuple[str, ...]
    ap_n: FloatArray
    npos: IntArray
    mean: FloatArray
    se: FloatArray
    overall: float
    n_pos: float
    obj_bin: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    found: BoolArray = field(default_factory=lambda: np.zeros(0, bool))

    def objects_in(self, b: int, label: npt.ArrayLike | None = None, k: int = -1) -> IntArray:
        """Object rows of bin ``b`` (ascending), only those of class ``k`` if ``k`` >= 0
        (``label``: int64 (G,) class index of each object row, needed then)."""
        hit = self.obj_bin == b
        if k >= 0:
            hit &= np.asarray(label, dtype=np.int64) == k
        return np.flatnonzero(hit).astype(np.int64)

    @property
    def sensitivity(self) -> float:
        """max - min of the bin means (NaN if no bin is defined)."""
        ok = self.mean[~np.isnan(self.mean)]
        return float(ok.max() - ok.min()) if len(ok) else float("nan")

    @property
    def impact(self) -> float:
        """max bin mean - the overall ``AP_N``."""
        ok = self.mean[~np.isnan(self.mean)]
        return float(ok.max() - self.overall) if len(ok) else float("nan")

    def to_json(self) -> dict[str, Any]:
        """``{"bins", "mean", "se", "objects", "overall", "sensitivity", "impact",
        "per_class": {class: {bin: {"ap_n", "npos"}}}}`` (NaN as null)."""
        return {
            "bins": list(self.bins),
            "mean": [nan_to_null(float(v)) for v in self.mean],
            "se": [nan_to_null(float(v)) for v in self.se],
            "objects": [int(v) for v in self.npos.sum(axis=0)],
            "overall": nan_to_null(self.overall),
            "sensitivity": nan_to_null(self.sensitivity),
            "impact": nan_to_null(self.impact),
            "per_class": {
                c: {
                    b: {"ap_n": nan_to_null(float(self.ap_n[k, j])), "npos": int(self.npos[k, j])}
                    for j, b in enumerate(self.bins)
                    if self.npos[k, j]
                }
                for k, c in enumerate(self.class_names)
            },
        }


def bin_ap_n(
    ranking: ClassRanking, in_bin: BoolArray, n_pos: float, ap_rule: str = "allpoints"
) -> tuple[float, int]:
    """``(AP_N, positives)`` of one class on the objects ``in_bin`` (bool (G,) over object rows,
    already restricted to the class's objects of interest); NaN without positives."""
    npos = int(np.count_nonzero(in_bin))
    if npos == 0:
        return float("nan"), 0
    hit = ranking.obj >= 0
    mine = hit & in_bin[np.maximum(ranking.obj, 0)] & (ranking.tp | ~ranking.fp)
    first = np.zeros(len(mine), dtype=bool)
    rows = np.flatnonzero(mine)
    _, at = np.unique(ranking.obj[rows], return_index=True)
    first[rows[at]] = True
    prec, rec = normalised_precision_det(first, ranking.fp, npos, n_pos)
    if ap_rule == "11point":
        return voc_ap_11_point(rec, prec), npos
    if ap_rule != "allpoints":
        raise ValueError(f"unknown AP rule {ap_rule!r}")
    return voc_ap_all_points(rec, prec), npos


def characteristic(
    name: str,
    bin_names: Sequence[str],
    bins: npt.ArrayLike,
    rankings: Sequence[ClassRanking],
    obj_label: npt.ArrayLike,
    counted: npt.ArrayLike,
    n_pos: float,
    ap_rule: str = "allpoints",
) -> Characteristic:
    """``AP_N`` of every class (``rankings``) on every bin (module docstring).

    bins : int64 (G,) bin of each object row (-1: none); obj_label : int64 (G,);
    counted : bool (G,) the ordinary positives (for ``overall``)."""
    b = np.asarray(bins, dtype=np.int64)
    lab = np.asarray(obj_label, dtype=np.int64)
    cnt = np.asarray(counted, dtype=bool)
    n_cls, n_bin = len(rankings), len(bin_names)
    ap_n = np.full((n_cls, n_bin), np.nan)
    npos = np.zeros((n_cls, n_bin), dtype=np.int64)
    overall = np.full(n_cls, np.nan)
    found = np.zeros(len(lab), dtype=bool)
    ranked = np.zeros(len(lab), dtype=bool)
    for k, r in enumerate(rankings):
        of_class = lab == r.label
        ranked |= of_class
        hit = r.obj[(r.obj >= 0) & (r.tp | ~r.fp)]
        found[hit[hit < len(found)]] = True
        for j in range(n_bin):
            ap_n[k, j], npos[k, j] = bin_ap_n(r, of_class & (b == j), n_pos, ap_rule)
        overall[k] = bin_ap_n(r, of_class & cnt, n_pos, ap_rule)[0]
    mean = np.full(n_bin, np.nan)
    se = np.full(n_bin, np.nan)
    for j in range(n_bin):
        v = ap_n[:, j][~np.isnan(ap_n[:, j])]
        if len(v):
            mean[j] = float(np.mean(v))
        if len(v) > 1:
            se[j] = float(np.std(v, ddof=1) / np.sqrt(len(v)))
    ok = overall[~np.isnan(overall)]
    return Characteristic(
        name=name,
        bins=tuple(bin_names),
        class_names=tuple(r.name for r in rankings),
        ap_n=ap_n,
        npos=npos,
        mean=mean,
        se=se,
        overall=float(np.mean(ok)) if len(ok) else float("nan"),
        n_pos=n_pos,
        obj_bin=np.where(ranked & (b >= 0) & (b < n_bin), b, -1).astype(np.int64),
        found=found,
    )


def percentile_bins(values: npt.ArrayLike, label: npt.ArrayLike, mask: npt.ArrayLike) -> IntArray:
    """Bins 0..4 of ``values`` split at each class's 10/30/70/90th percentiles (``np.percentile``,
    linear) over the rows ``mask``; a value on a split point goes to the upper bin; -1 outside
    ``mask`` or where the value is not finite."""
    v = np.asarray(values, dtype=np.float64)
    lab = np.asarray(label, dtype=np.int64)
    m = np.asarray(mask, dtype=bool) & np.isfinite(v)
    out = np.full(len(v), -1, dtype=np.int64)
    for k in np.unique(lab[m]):
        rows = np.flatnonzero(m & (lab == k))
        edges = np.percentile(v[rows], PERCENTILES)
        out[rows] = np.searchsorted(edges, v[rows], side="right")
    return out


def size_bins(box: npt.ArrayLike, label: npt.ArrayLike, mask: npt.ArrayLike) -> IntArray:
    """``SIZE_BINS`` by within-class percentile of ``sqrt(w * h)`` (box float (G, 4) xyxy)."""
    b = np.asarray(box, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        side = np.sqrt(np.maximum(b[:, 2] - b[:, 0], 0) * np.maximum(b[:, 3] - b[:, 1], 0))
    return percentile_bins(side, label, mask)


def aspect_bins(box: npt.ArrayLike, label: npt.ArrayLike, mask: npt.ArrayLike) -> IntArray:
    """``ASPECT_BINS`` by within-class percentile of ``width / height`` (xyxy boxes)."""
    b = np.asarray(box, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (b[:, 2] - b[:, 0]) / (b[:, 3] - b[:, 1])
    return percentile_bins(ratio, label, mask)


def level_bins(levels: npt.ArrayLike, n_levels: int, mask: npt.ArrayLike) -> IntArray:
    """A level 0..n_levels-1 per object as its bin (-1 outside ``mask`` or out of range)."""
    lv = np.asarray(levels, dtype=np.int64)
    ok = np.asarray(mask, dtype=bool) & (lv >= 0) & (lv < n_levels)
    return np.where(ok, lv, -1).astype(np.int64)


def flag_bins(flag: npt.ArrayLike, mask: npt.ArrayLike) -> IntArray:
    """Bin 1 where ``flag``, 0 where not, -1 outside ``mask``."""
    return level_bins(np.asarray(flag, dtype=np.int64), 2, mask)


def range_bins(area: npt.ArrayLike, edges: Sequence[float], mask: npt.ArrayLike) -> IntArray:
    """Bin ``i`` where ``edges[i] <= area < edges[i + 1]`` (COCO's area ranges without "all":
    ``(0, 32**2, 96**2, 1e5**2)``); -1 outside ``mask`` or every range."""
    a = np.asarray(area, dtype=np.float64)
    e = np.asarray(edges, dtype=np.float64)
    i = np.searchsorted(e, a, side="right") - 1
    ok = np.asarray(mask, dtype=bool) & (i >= 0) & (i < len(e) - 1)
    return np.where(ok, i, -1).astype(np.int64)


def all_characteristics(
    specs: Mapping[str, tuple[Sequence[str], IntArray]],
    rankings: Sequence[ClassRanking],
    obj_label: npt.ArrayLike,
    counted: npt.ArrayLike,
    n_pos: float,
    ap_rule: str = "allpoints",
) -> dict[str, Characteristic]:
    """``characteristic`` for each ``name -> (bin names, bins)`` of ``specs``."""
    return {
        name: characteristic(name, names, bins, rankings, obj_label, counted, n_pos, ap_rule)
        for name, (names, bins) in specs.items()
    }


def characteristics_json(
    chars: Mapping[str, Characteristic], n_pos: float, n_pos_default: float
) -> dict[str, Any]:
    """The ``"characteristics"`` entry of ``analyze --json``."""
    return {
        "n_pos": n_pos,
        "n_pos_default": n_pos_default,
        "measure": "normalised AP (IJCV 2015 eq. 6) per bin; mean and standard error over classes",
        **{name: c.to_json() for name, c in chars.items()},
    }
