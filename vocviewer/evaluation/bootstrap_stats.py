"""What the bootstrap replicates say (IJCV 2015 §3.5): percentile intervals, paired differences,
rank ranges and precision/recall bands.

Intervals are percentile intervals (Wasserman 2004, §8.3): the ``α/2`` and ``1 − α/2`` quantiles of
the replicates (``np.nanquantile``, linear interpolation), ``α = 1 − level``. Replicates where a
value is undefined (NaN: a class without positives in that sample under the all-points rule) are
left out of its quantiles; ``Interval.undefined`` counts them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vocviewer.core.arrays import nan_to_null

FloatArray = npt.NDArray[np.float64]

A_BETTER = "A better"
B_BETTER = "B better"
NO_DIFFERENCE = "no significant difference"


@dataclass(frozen=True)
class Interval:
    """A point estimate with its bootstrap percentile interval ``[low, high]``; ``median`` is the
    replicates' median (the paper's 0.5 column)."""

    point: float
    low: float
    median: float
    high: float
    level: float
    replicates: int
    undefined: int = 0


@dataclass(frozen=True)
class PairedDifference:
    """``A − B`` on the same resampled images, with its interval and the verdict: ``A_BETTER`` if
    the interval lies above 0, ``B_BETTER`` if below, else ``NO_DIFFERENCE``."""

    a: str
    b: str
    difference: Interval
    verdict: str


@dataclass(frozen=True)
class RankRange:
    """A set's rank on the full data (1 = best) and the quantiles of its rank over the replicates
    (``inverted_cdf``: ranks that occurred), as in the paper's "Rank" and "RR" columns."""

    name: str
    rank: int
    low: int
    high: int
    level: float


def _interval(point: float, values: FloatArray, level: float) -> Interval:
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    ok = values[~np.isnan(values)]
    alpha = 1.0 - level
    if len(ok):
        lo, med, hi = np.quantile(ok, [alpha / 2, 0.5, 1 - alpha / 2])
    else:
        lo = med = hi = np.nan
    return Interval(
        float(point), float(lo), float(med), float(hi), level, len(values), len(values) - len(ok)
    )


def _ranks(values: FloatArray) -> npt.NDArray[np.int64]:
    """Competition ranks along axis 0 (1 = largest; ties share the best rank; NaN ranks last)."""
    v = np.where(np.isnan(values), -np.inf, values)
    better = (v[None, :] > v[:, None]).sum(axis=1)
    return np.asarray(better + 1, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class BootstrapResult:
    """Bootstrap replicates of AP for ``S`` result sets, ``R`` replicates and ``K`` classes.

    Attributes
    ----------
    set_names, class_names
        Axis labels (S), (K).
    seed
        The seed that reproduces the replicates.
    point_ap : float64 (S, K)
        AP on the full data (equal to the official AP).
    point_map : float64 (S,)
        Mean AP on the full data (``EvalResult.mean_ap``).
    ap : float64 (S, R, K)
        AP per replicate.
    map : float64 (S, R)
        Mean AP per replicate (same rule as ``point_map``).
    recall_grid : float64 (G,)
        Recall levels of the precision bands (G = 0 if none were asked for).
    point_precision : float64 (S, K, G)
        Interpolated precision at the grid on the full data.
    precision : float64 (S, K, R, G)
        Interpolated precision at the grid per replicate.
    """

    set_names: tuple[str, ...]
    class_names: tuple[str, ...]
    seed: int
    point_ap: FloatArray
    point_map: FloatArray
    ap: FloatArray
    map: FloatArray
    recall_grid: FloatArray
    point_precision: FloatArray
    precision: FloatArray

    @property
    def replicates(self) -> int:
        return int(self.ap.shape[1])

    def _set(self, name: str) -> int:
        try:
            return self.set_names.index(name)
        except ValueError:
            raise KeyError(f"no result set {name!r} (have {', '.join(self.set_names)})") from None

    def _class(self, name: str) -> int:
        try:
            return self.class_names.index(name)
        except ValueError:
            raise KeyError(f"no class {name!r}") from None

    def _values(self, s: int, class_name: str | None) -> tuple[float, FloatArray]:
        if class_name is None:
            return float(self.point_map[s]), self.map[s]
        k = self._class(class_name)
        return float(self.point_ap[s, k]), self.ap[s, :, k]

    def interval(
        self, set_name: str, class_name: str | None = None, level: float = 0.95
    ) -> Interval:
        """Percentile interval of a set's AP of ``class_name`` (mAP if ``None``)."""
        return _interval(*self._values(self._set(set_name), class_name), level)

    def paired(
        self, a: str, b: str, class_name: str | None = None, level: float = 0.95
    ) -> PairedDifference:
        """``A − B`` per replicate (both on the same images) and its verdict (§3.5)."""
        pa, va = self._values(self._set(a), class_name)
        pb, vb = self._values(self._set(b), class_name)
        d = _interval(pa - pb, va - vb, level)
        verdict = A_BETTER if d.low > 0 else B_BETTER if d.high < 0 else NO_DIFFERENCE
        return PairedDifference(a, b, d, verdict)

    def rank_ranges(self, class_name: str | None = None, level: float = 0.95) -> list[RankRange]:
        """Every set's rank and rank range by AP of ``class_name`` (mAP if ``None``)."""
        if class_name is None:
            point, reps = self.point_map, self.map
        else:
            k = self._class(class_name)
            point, reps = self.point_ap[:, k], self.ap[:, :, k]
        rank = _ranks(point)
        per_rep = np.stack([_ranks(reps[:, r]) for r in range(reps.shape[1])], axis=1)
        alpha = 1.0 - level
        lo, hi = np.quantile(per_rep, [alpha / 2, 1 - alpha / 2], axis=1, method="inverted_cdf")
        return [
            RankRange(n, int(rank[s]), int(lo[s]), int(hi[s]), level)
            for s, n in enumerate(self.set_names)
        ]

    def pr_band(
        self, set_name: str, class_name: str, level: float = 0.95
    ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """(recall grid, point precision, low, high) float64 (G,) each: the percentile band of
        the interpolated precision at each recall level of the grid."""
        if not len(self.recall_grid):
            raise ValueError("no recall grid: run the bootstrap with recall_grid=...")
        s, k = self._set(set_name), self._class(class_name)
        alpha = 1.0 - level
        values = self.precision[s, k]
        q = [alpha / 2, 1 - alpha / 2]
        # np.quantile is vectorised; np.nanquantile loops over the columns in Python
        has_nan = bool(np.isnan(values).any())
        lo, hi = np.nanquantile(values, q, axis=0) if has_nan else np.quantile(values, q, axis=0)
        return self.recall_grid, self.point_precision[s, k], lo, hi

    def leaders(self, class_name: str | None = None, level: float = 0.95) -> list[str]:
        """The best set on the full data and every set not significantly worse than it (the
        paper's bold entries, Tables 9-13), in ``set_names`` order."""
        point = self.point_map if class_name is None else self.point_ap[:, self._class(class_name)]
        if np.all(np.isnan(point)):
            return []
        best = self.set_names[int(np.nanargmax(point))]
        return [
            n
            for n in self.set_names
            if n == best or self.paired(best, n, class_name, level).verdict == NO_DIFFERENCE
        ]

    def set_summary(self, set_name: str, level: float = 0.95) -> dict[str, object]:
        """JSON-ready intervals of one set: ``{"mAP": {"point", "ci", "level", "replicates"},
        "classes": {name: {"point", "ci"}}}`` (NaN as ``None``)."""
        m = self.interval(set_name, None, level)
        classes = {c: self.interval(set_name, c, level) for c in self.class_names}
        return {
            "mAP": {
                "point": nan_to_null(m.point),
                "ci": [nan_to_null(m.low), nan_to_null(m.high)],
                "level": level,
                "replicates": m.replicates,
            },
            "classes": {
                c: {"point": nan_to_null(i.point), "ci": [nan_to_null(i.low), nan_to_null(i.high)]}
                for c, i in classes.items()
            },
        }

    def paired_summary(self, level: float = 0.95) -> list[dict[str, object]]:
        """JSON-ready mAP differences for every pair (A before B in ``set_names``)."""
        pairs: list[dict[str, object]] = []
        for i, a in enumerate(self.set_names):
            for b in self.set_names[i + 1 :]:
                p = self.paired(a, b, None, level)
                d = p.difference
                pairs.append(
                    {
                        "a": a,
                        "b": b,
                        "difference": nan_to_null(d.point),
                        "ci": [nan_to_null(d.low), nan_to_null(d.high)],
                        "level": level,
                        "verdict": p.verdict,
                    }
                )
        return pairs

    def summary(self, level: float = 0.95) -> dict[str, object]:
        """JSON-ready: ``set_summary`` per set, ``paired_summary``, the mAP rank ranges, the seed
        and the number of replicates."""
        return {
            "sets": {n: self.set_summary(n, level) for n in self.set_names},
            "paired": self.paired_summary(level),
            "ranks": {
                r.name: {"rank": r.rank, "range": [r.low, r.high]}
                for r in self.rank_ranges(None, level)
            },
            "seed": self.seed,
            "replicates": self.replicates,
        }
