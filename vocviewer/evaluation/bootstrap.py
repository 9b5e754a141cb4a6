"""Bootstrap over images: AP and mAP of every bootstrap replicate, vectorised (IJCV 2015 §3.5).

A replicate draws ``n`` images with replacement from the ``n`` evaluated images and evaluates
the same results on that sample. Nothing has to be re-matched: matching is per image, so a copied
image's detections keep their verdicts, and the ranking keeps its order (copies of a detection
rank next to it). A replicate is therefore a vector ``w`` of image multiplicities, and its curves
are weighted cumulative sums over the one ranked list::

    npos = Σ_units w[u] · positives[u]
    ctp[r] = Σ_{i ≤ r} w[unit[i]] · tp[i]        cden[r] = Σ_{i ≤ r} w[unit[i]] · (tp[i] + fp[i])
    rec = ctp / npos                             prec = ctp / cden

and AP follows with the official rule (``ap.py``). With ``w = 1`` this is the official evaluation
bit for bit; for any ``w`` it equals the official evaluation of the explicitly resampled image
list (each copy of an image a new image, copies of a detection adjacent in the ranking, which they
are unless scores tie): 11-point bit for bit, all points up to the rounding of the final sum (one
step of ``w·Δrec`` instead of ``w`` steps of ``Δrec``; < 1e-15 in the tests).

Only the ranks of true positives matter for AP: precision after a false positive or an ignored
item never exceeds the precision at the preceding true positive, and recall only moves at true
positives. The engine gathers each replicate's weights for the counted items up to the last true
positive, sums them between consecutive true positives (``np.add.reduceat``) and does the float
work on the true-positive ranks only, ``(T, C)`` for ``C`` replicates of a chunk.

Family-agnostic input (``RankedEvidence``), one per class and result set:

* VOC detection / classification (``bootstrap_voc.py``): units are the images of the evaluated
  list; ``tp``/``fp`` from the verdicts (duplicates are FP, difficult matches neither);
  ``positives`` = non-difficult objects (det) or label-1 entries (cls) per image.
* ILSVRC DET: the same as VOC detection, with its own verdicts and ``npos`` (blacklisted GT left
  out); AP is ``VOCap`` (``"allpoints"``).
* VisDrone: units = images; ``positives`` = GT rows including ignore-flagged ones, and the official
  recall denominator is ``max(1, npos)`` (a rule to add; AP is ``VOCap`` × 100 at cap 500).
* COCO / LVIS: per (category, area range, IoU threshold) the ranked detections after the maxDets cut,
  ``tp``/``fp`` from ``dtMatches``/``dtIgnore``, ``positives`` = non-ignored GT per image; the
  101-point rule with ``eps`` (a rule to add here; the engine is the same).

Randomness: replicate ``r`` of seed ``s`` draws its image indices from
``default_rng(SeedSequence(s, spawn_key=(r,)))`` (``replicate_images``), so every replicate is
reproducible on its own and the results do not depend on the chunk size.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from vocviewer.evaluation.ap import VOC07_RECALL_LEVELS
from vocviewer.evaluation.bootstrap_stats import BootstrapResult

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
AP_RULES = ("allpoints", "11point")
#: Elements of the largest per-chunk weight array (int32); bounds the memory of a chunk (~64 MB).
DEFAULT_CHUNK_ELEMENTS = 1 << 24
#: Recall levels of the PR bands (VOC; COCO uses its own 101 recall thresholds, the same values).
RECALL_GRID = np.linspace(0.0, 1.0, 101).tolist()


class BootstrapCancelled(Exception):
    """Raised between chunks when ``cancelled()`` returned True."""


@dataclass(frozen=True, eq=False)
class RankedEvidence:
    """One class's ranked list reduced to what the bootstrap needs.

    Attributes
    ----------
    name
        Class name.
    unit : int64 (D,)
        Resampling unit (image position, ``0 <= unit < n_units``) of the item at each rank.
    tp, fp : bool (D,)
        Verdict at each rank; neither = ignored (keeps its slot). Never both.
    positives : int64 (n_units,)
        Positives per unit (``npos`` = their sum). A unit with a true positive has one or more.
    in_mean
        Whether the class counts towards the mean AP (VOC: it has a results file).
    """

    name: str
    unit: IntArray
    tp: npt.NDArray[np.bool_]
    fp: npt.NDArray[np.bool_]
    positives: IntArray
    in_mean: bool = True
    _tp_rows: IntArray = field(init=False, repr=False)
    _rows: IntArray = field(init=False, repr=False)  # counted ranks up to the last TP
    _seg_start: IntArray = field(init=False, repr=False)  # reduceat starts: one segment per TP
    _units: tuple[tuple[IntArray, IntArray], ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        unit = np.asarray(self.unit, dtype=np.int64)
        tp = np.asarray(self.tp, dtype=bool)
        fp = np.asarray(self.fp, dtype=bool)
        pos = np.asarray(self.positives, dtype=np.int64)
        if not (unit.shape == tp.shape == fp.shape) or unit.ndim != 1 or pos.ndim != 1:
            raise ValueError(f"{self.name}: unit, tp and fp must be 1-D arrays of one length")
        if len(unit) and (unit.min() < 0 or unit.max() >= len(pos)):
            raise ValueError(f"{self.name}: unit out of range 0..{len(pos) - 1}")
        if np.any(tp & fp):
            raise ValueError(f"{self.name}: an item is both TP and FP")
        if np.any(pos[unit[tp]] < 1):
            raise ValueError(f"{self.name}: a true positive on a unit without positives")
        for name, arr in (("unit", unit), ("tp", tp), ("fp", fp), ("positives", pos)):
            object.__setattr__(self, name, arr)
        tp_rows = np.flatnonzero(tp)
        counted = np.flatnonzero(tp | fp)
        rows = counted[counted <= tp_rows[-1]] if len(tp_rows) else counted[:0]
        seg = np.r_[0, np.searchsorted(rows, tp_rows[:-1], side="right")].astype(np.int64)
        has = np.flatnonzero(pos)
        units = (  # (units, count per unit) of: positives, every item, counted items
            (has, pos[has]),
            tuple(np.unique(unit, return_counts=True)),
            tuple(np.unique(unit[counted], return_counts=True)),
        )
        for name, value in (("_tp_rows", tp_rows), ("_rows", rows), ("_seg_start", seg)):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_units", units)

    def weighted_counts(self, w: npt.NDArray[np.int32]) -> tuple[IntArray, IntArray, IntArray]:
        """Per column of ``w`` (n_units, C): (npos, items, counted items) of the replicate."""
        out = tuple(
            (cnt[:, None] * w[u]).sum(axis=0, dtype=np.int64)
            if len(u)
            else np.zeros(w.shape[1], dtype=np.int64)
            for u, cnt in self._units
        )
        return out[0], out[1], out[2]

    @property
    def npos(self) -> int:
        """Positives of the whole (unresampled) set."""
        return int(self.positives.sum())


@dataclass(frozen=True, eq=False)
class EvidenceSet:
    """One result set's evidence over classes, on a fixed list of units (images).

    ``unit_key`` identifies the units (VOC: their image rows); sets compared with each other must
    have equal keys, so that a replicate resamples the same images for all of them.
    """

    name: str
    ap_rule: str
    classes: tuple[RankedEvidence, ...]
    unit_key: IntArray

    def __post_init__(self) -> None:
        if self.ap_rule not in AP_RULES:
            raise ValueError(f"unknown AP rule {self.ap_rule!r}; expected one of {AP_RULES}")
        n = len(self.unit_key)
        for c in self.classes:
            if len(c.positives) != n:
                raise ValueError(f"{self.name}/{c.name}: {len(c.positives)} units, expected {n}")

    @property
    def n_units(self) -> int:
        return len(self.unit_key)


def replicate_images(seed: int, replicate: int, n_units: int) -> IntArray:
    """The units (0..n_units-1) drawn, with replacement, for replicate ``replicate``."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(replicate,)))
    return rng.integers(0, n_units, size=n_units, dtype=np.int64)


def replicate_weights(seed: int, first: int, count: int, n_units: int) -> npt.NDArray[np.int32]:
    """Multiplicities, int32 (n_units, count): column ``j`` is replicate ``first + j``."""
    w = np.empty((n_units, count), dtype=np.int32)
    for j in range(count):
        w[:, j] = np.bincount(replicate_images(seed, first + j, n_units), minlength=n_units)
    return w


def interpolated_precision(
    ev: RankedEvidence, w: npt.NDArray[np.int32], levels: Sequence[float]
) -> FloatArray:
    """Per replicate (column of ``w``) and recall level ``t``, the official 11-point sample:
    NaN-skipping max of precision over the ranks with ``recall >= t`` (NaN if all are NaN, 0 if
    there are none). float64 (C, len(levels))."""
    return _curves(ev, w, levels)[1]


def class_ap(ev: RankedEvidence, w: npt.NDArray[np.int32], ap_rule: str) -> FloatArray:
    """AP of ``ev`` under ``ap_rule`` for every column of ``w``, float64 (C,)."""
    return _ap_and_precision(ev, w, ap_rule, ())[0]


def _ap_and_precision(
    ev: RankedEvidence, w: npt.NDArray[np.int32], ap_rule: str, grid: Sequence[float]
) -> tuple[FloatArray, FloatArray]:
    """(AP (C,), interpolated precision at ``grid`` (C, G)) in one pass over the ranks."""
    if ap_rule == "11point":
        n = len(VOC07_RECALL_LEVELS)
        p = _curves(ev, w, (*VOC07_RECALL_LEVELS, *grid))[1]
        ap = np.zeros(w.shape[1])
        for i in range(n):  # the official order of additions
            ap = ap + p[:, i] / 11
        return ap, p[:, n:]
    return _curves(ev, w, grid)


def _curves(
    ev: RankedEvidence, w: npt.NDArray[np.int32], levels: Sequence[float]
) -> tuple[FloatArray, FloatArray]:
    """(all-points AP (C,), interpolated precision at ``levels`` (C, L)) for weights ``w``."""
    n_rep = w.shape[1]
    npos, items, counted = ev.weighted_counts(w)
    tp_rows = ev._tp_rows
    ap = np.zeros(n_rep)
    prec_at = np.zeros((n_rep, len(levels)))
    lvl = np.asarray(levels, dtype=np.float64)
    # precision at rank 0..: NaN until an item with weight is counted, then >= 0
    p0 = np.where(counted > 0, 0.0, np.nan)
    if len(tp_rows):
        cden = np.add.reduceat(w[ev.unit[ev._rows]], ev._seg_start, axis=0, dtype=np.int64)
        cden = np.cumsum(cden, axis=0)
        ctp = np.cumsum(w[ev.unit[tp_rows]], axis=0, dtype=np.int64)
        with np.errstate(divide="ignore", invalid="ignore"):
            prec = ctp / cden  # (T, C); NaN only while nothing has weight
            rec = ctp / npos
        env = np.fmax.accumulate(prec[::-1], axis=0)[::-1]
        # all points: Σ Δrec · max(env, 0) where recall changes, in rank order (VOCap.m)
        drec = np.diff(rec, axis=0, prepend=0.0)
        terms = np.where(drec != 0, drec * np.fmax(env, 0.0), 0.0)
        ap = np.cumsum(terms, axis=0)[-1]  # sequential, as the official cumsum
        p0 = np.fmax(env[0], p0)
        if len(lvl):
            first = np.empty((n_rep, len(lvl)), dtype=np.int64)
            rec_t = np.ascontiguousarray(rec.T)
            for j in range(n_rep):
                first[j] = np.searchsorted(rec_t[j], lvl, side="left")
            take = np.minimum(first, len(tp_rows) - 1)
            p = np.take_along_axis(env.T, take, axis=1)
            prec_at = np.where(first < len(tp_rows), p, 0.0)
    # level <= 0: every rank qualifies (none if the replicate holds no item at all)
    prec_at[:, lvl <= 0] = np.where(items > 0, p0, 0.0)[:, None]
    # no positives: recall is NaN (0/0) at every rank, so no rank reaches a level
    empty = npos == 0
    ap[empty] = np.nan
    prec_at[empty] = 0.0
    ap[items == 0] = 0.0  # an empty ranked list scores 0 whatever npos is
    return ap, prec_at


def mean_ap(ap: FloatArray, in_mean: npt.NDArray[np.bool_]) -> FloatArray:
    """Per row of ``ap`` (C, K): mean of the defined APs of the classes ``in_mean`` — the rule and
    the arithmetic of ``EvalResult.mean_ap``. NaN where none is defined."""
    out = np.full(ap.shape[0], np.nan)
    sel = ap[:, in_mean]
    for j in range(len(out)):
        row = sel[j][~np.isnan(sel[j])]
        if len(row):
            out[j] = float(np.mean(row))
    return out


@dataclass(frozen=True, eq=False)
class BootstrapChunk:
    """Replicates ``first .. first + count - 1``: ``ap`` float64 (S, count, K) per set and class,
    ``precision`` float64 (S, K, count, G) at the recall grid (G = 0 without a grid)."""

    first: int
    count: int
    ap: FloatArray
    precision: FloatArray


def _check_sets(sets: Sequence[EvidenceSet]) -> None:
    if not sets:
        raise ValueError("no result sets to bootstrap")
    for s in sets[1:]:
        if not np.array_equal(s.unit_key, sets[0].unit_key):
            raise ValueError(f"{s.name!r} is evaluated on other images than {sets[0].name!r}")
        if [c.name for c in s.classes] != [c.name for c in sets[0].classes]:
            raise ValueError(f"{s.name!r} has other classes than {sets[0].name!r}")
        if s.ap_rule != sets[0].ap_rule:
            raise ValueError(f"{s.name!r} uses AP rule {s.ap_rule!r}, {sets[0].name!r} another")


def _evaluate(
    sets: Sequence[EvidenceSet], w: npt.NDArray[np.int32], grid: FloatArray
) -> tuple[FloatArray, FloatArray]:
    n_rep = w.shape[1]
    n_cls = len(sets[0].classes)
    ap = np.empty((len(sets), n_rep, n_cls))
    prec = np.empty((len(sets), n_cls, n_rep, len(grid)))
    for s, es in enumerate(sets):
        for k, ev in enumerate(es.classes):
            ap[s, :, k], prec[s, k] = _ap_and_precision(ev, w, es.ap_rule, grid.tolist())
    return ap, prec


def iter_bootstrap(
    sets: Sequence[EvidenceSet],
    replicates: int = 1000,
    seed: int = 0,
    *,
    recall_grid: Sequence[float] | None = None,
    chunk: int | None = None,
) -> Iterator[BootstrapChunk]:
    """Yield the replicates in chunks (a worker reports progress and may stop between chunks).

    All sets are evaluated on the same resampled images. ``chunk`` replicates per chunk; by
    default as many as keep the largest weight array under ``DEFAULT_CHUNK_ELEMENTS``."""
    _check_sets(sets)
    grid = np.asarray(recall_grid if recall_grid is not None else (), dtype=np.float64)
    longest = max((len(c.unit) for s in sets for c in s.classes), default=1)
    size = chunk or max(1, DEFAULT_CHUNK_ELEMENTS // max(longest, sets[0].n_units, 1))
    for first in range(0, replicates, size):
        count = min(size, replicates - first)
        w = replicate_weights(seed, first, count, sets[0].n_units)
        ap, prec = _evaluate(sets, w, grid)
        yield BootstrapChunk(first, count, ap, prec)


def bootstrap(
    sets: Sequence[EvidenceSet],
    replicates: int = 1000,
    seed: int = 0,
    *,
    recall_grid: Sequence[float] | None = None,
    chunk: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> BootstrapResult:
    """Bootstrap every set's per-class AP and mAP over images; see the module docstring.

    ``recall_grid``: recall levels at which to keep each replicate's interpolated precision (PR
    bands), e.g. ``np.linspace(0, 1, 101)``. ``progress(done, total)`` is called after each
    chunk; ``cancelled()`` is polled before each chunk and raises ``BootstrapCancelled``."""
    if replicates < 1:
        raise ValueError("replicates must be >= 1")
    _check_sets(sets)
    grid = np.asarray(recall_grid if recall_grid is not None else (), dtype=np.float64)
    ones = np.ones((sets[0].n_units, 1), dtype=np.int32)
    point_ap, point_prec = _evaluate(sets, ones, grid)
    n_cls = len(sets[0].classes)
    ap = np.empty((len(sets), replicates, n_cls))
    prec = np.empty((len(sets), n_cls, replicates, len(grid)))
    chunks = iter_bootstrap(sets, replicates, seed, recall_grid=recall_grid, chunk=chunk)
    done = 0
    while True:
        if cancelled is not None and cancelled():
            raise BootstrapCancelled(f"cancelled after {done} of {replicates} replicates")
        part = next(chunks, None)
        if part is None:
            break
        done = part.first + part.count
        ap[:, part.first : done] = part.ap
        prec[:, :, part.first : done] = part.precision
        if progress is not None:
            progress(done, replicates)
    in_mean = np.array([c.in_mean for c in sets[0].classes], dtype=bool)
    return BootstrapResult(
        set_names=tuple(s.name for s in sets),
        class_names=tuple(c.name for c in sets[0].classes),
        seed=seed,
        point_ap=point_ap[:, 0, :],
        point_map=np.array([mean_ap(point_ap[s], in_mean)[0] for s in range(len(sets))]),
        ap=ap,
        map=np.stack([mean_ap(ap[s], in_mean) for s in range(len(sets))]),
        recall_grid=grid,
        point_precision=point_prec[:, :, 0, :],
        precision=prec,
    )


def progress_chunk(sets: list[EvidenceSet], replicates: int) -> int:
    """Replicates per chunk: about 20 progress steps, never above the engine's memory bound."""
    longest = max((len(c.unit) for s in sets for c in s.classes), default=1)
    bound = max(1, DEFAULT_CHUNK_ELEMENTS // max(longest, sets[0].n_units, 1))
    return min(bound, max(1, -(-replicates // 20)))
