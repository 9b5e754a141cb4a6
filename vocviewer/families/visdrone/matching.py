"""VisDrone per-image matching (``evalRes.m`` + ``compOas.m``), vectorised over all images.

Within one (image, class) group, detections are visited by descending score (ties: file order);
ground truth is ordered evaluated rows first, then ignore-flagged rows, each in file order. A
detection takes, among the *unmatched evaluated* GT with overlap ``>= thr``, the one with the
largest overlap (ties go to the **later** GT) → TP, and that GT becomes matched. Failing that, if
an ignore-flagged GT has overlap ``>= thr`` it is ignored (such GT absorb any number of
detections); otherwise it is an FP. Overlaps (no +1): ``iw = min(x+w) - max(x)``, ``ih`` likewise,
0 unless both are > 0; ``t = iw*ih``; evaluated GT ``t / (da + ga - t)``, ignore-flagged GT
``t / da`` with ``da = w*h`` of the detection.

Every threshold is ``>= 0.5``, so only pairs with overlap ``>= 0.5`` are kept (sparse). The greedy
order is resolved in rounds: a detection is *ready* when it is the best-ranked undecided claimant
of every still-unmatched GT it qualifies for; ready detections take their best GT at once. The
best-ranked undecided detection of each group is always ready, so this reproduces the sequential
scan exactly. ``match_all`` runs every threshold and cap: on the compiled kernel
(``vocviewer/kernel/_greedy.c``: that sequential scan per group, on every core) where it is built,
else with ``Matcher``; both give identical verdicts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vocviewer import kernel

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
MIN_THRESHOLD = 0.5
#: Pairs per step: bounded memory, and short numpy calls (a worker thread holds the interpreter
#: lock through each one, and the window waits meanwhile).
_CHUNK = 500_000


def overlaps(
    det: FloatArray, gt: FloatArray, ignore: npt.NDArray[np.bool_]
) -> tuple[npt.NDArray[np.bool_], FloatArray]:
    """``compOas`` on aligned pairs (``ltwh`` float64 (P, 4) each): (considered, overlap)."""
    with np.errstate(all="ignore"):  # NaN / inf / 1e308 rows: IEEE results, overlap NaN or 0
        dx2 = det[:, 0] + det[:, 2]
        dy2 = det[:, 1] + det[:, 3]
        gx2 = gt[:, 0] + gt[:, 2]
        gy2 = gt[:, 1] + gt[:, 3]
        da = det[:, 2] * det[:, 3]
        ga = gt[:, 2] * gt[:, 3]
        iw = np.minimum(dx2, gx2) - np.maximum(det[:, 0], gt[:, 0])
        ih = np.minimum(dy2, gy2) - np.maximum(det[:, 1], gt[:, 1])
        ok = (iw > 0) & (ih > 0)
        t = iw * ih
        u = np.where(ignore, da, da + ga - t)
        ov = np.where(ok, t / u, 0.0)
    return ok, ov


@dataclass(frozen=True)
class PairTable:
    """Detection–GT pairs of the same group with overlap ``>= 0.5``.

    det, gt : int64 (P,)    detection and GT rows (caller's numbering)
    overlap : float64 (P,)
    ignore : bool (P,)      GT is ignore-flagged
    """

    det: IntArray
    gt: IntArray
    overlap: FloatArray
    ignore: npt.NDArray[np.bool_]


def build_pairs(
    det_group: IntArray,
    det_ltwh: FloatArray,
    gt_group: IntArray,
    gt_ltwh: FloatArray,
    gt_ignore: npt.NDArray[np.bool_],
) -> PairTable:
    """All same-group pairs whose overlap reaches 0.5, built in chunks of ≤ ~``_CHUNK`` pairs."""
    g_order = np.argsort(gt_group, kind="stable")
    g_sorted = gt_group[g_order]
    start = np.searchsorted(g_sorted, det_group, side="left")
    count = np.searchsorted(g_sorted, det_group, side="right") - start
    out: list[tuple[IntArray, IntArray, FloatArray, npt.NDArray[np.bool_]]] = []
    cum = np.cumsum(count)
    lo = 0
    while lo < len(det_group):
        base = cum[lo - 1] if lo else 0
        hi = max(lo + 1, int(np.searchsorted(cum, base + _CHUNK, side="right")))
        d = np.arange(lo, hi, dtype=np.int64)
        c = count[lo:hi]
        pd = np.repeat(d, c)
        offs = np.arange(len(pd), dtype=np.int64) - np.repeat(np.cumsum(c) - c, c)
        pg = g_order[np.repeat(start[lo:hi], c) + offs]
        ign = gt_ignore[pg]
        ok, ov = overlaps(det_ltwh[pd], gt_ltwh[pg], ign)
        keep = ok & (ov >= MIN_THRESHOLD)
        out.append((pd[keep], pg[keep].astype(np.int64), ov[keep], ign[keep]))
        lo = hi
    if not out:
        z = np.zeros(0, dtype=np.int64)
        return PairTable(z, z, np.zeros(0), np.zeros(0, dtype=bool))
    return PairTable(
        np.concatenate([o[0] for o in out]),
        np.concatenate([o[1] for o in out]),
        np.concatenate([o[2] for o in out]),
        np.concatenate([o[3] for o in out]),
    )


@dataclass(frozen=True)
class Matcher:
    """Pairs pre-sorted for ``match``; build once with ``Matcher.create``, run per (thr, cap)."""

    pairs: PairTable
    by_gt: IntArray  # evaluated pairs sorted by (gt, detection priority)
    pref: IntArray  # per pair: position in (det, -overlap, -gt order) order (evaluated pairs)
    ign_sorted: IntArray  # ignore pairs sorted by (det, gt order)
    n_det: int
    n_gt: int

    @classmethod
    def create(cls, pairs: PairTable, det_priority: IntArray, n_gt: int) -> Matcher:
        """``det_priority``: smaller = visited earlier within its group (int64 (D,), unique)."""
        ev = np.flatnonzero(~pairs.ignore)
        by_gt = ev[np.lexsort((det_priority[pairs.det[ev]], pairs.gt[ev]))]
        pref_order = ev[np.lexsort((-pairs.gt[ev], -pairs.overlap[ev], pairs.det[ev]))]
        pref = np.zeros(len(pairs.det), dtype=np.int64)
        pref[pref_order] = np.arange(len(pref_order), dtype=np.int64)
        ig = np.flatnonzero(pairs.ignore)
        ign_sorted = ig[np.lexsort((pairs.gt[ig], pairs.det[ig]))]
        return cls(pairs, by_gt, pref, ign_sorted, len(det_priority), n_gt)

    def match(
        self, threshold: float, active: npt.NDArray[np.bool_]
    ) -> tuple[npt.NDArray[np.int8], IntArray]:
        """Verdicts for the ``active`` detections at ``threshold``.

        Returns ``verdict`` int8 (D,): 1 TP, 0 FP, -1 ignored (inactive rows: 0) and ``gt`` int64
        (D,): the GT taken (TP) or absorbing (ignored), else -1. GT rows are numbered in the
        caller's order, which must be file order within each group (ties go to the higher row).
        """
        p = self.pairs
        verdict = np.zeros(self.n_det, dtype=np.int8)
        taken = np.full(self.n_det, -1, dtype=np.int64)
        # ignore-flagged GT: the first (lowest row) qualifying one absorbs the detection
        ig = self.ign_sorted
        ig = ig[(p.overlap[ig] >= threshold) & active[p.det[ig]]]
        if len(ig):
            first = np.ones(len(ig), dtype=bool)
            first[1:] = p.det[ig][1:] != p.det[ig][:-1]
            d = p.det[ig][first]
            verdict[d] = -1
            taken[d] = p.gt[ig][first]
        sel = self.by_gt
        sel = sel[(p.overlap[sel] >= threshold) & active[p.det[sel]]]
        pd, pg = p.det[sel], p.gt[sel]
        pref = self.pref[sel]
        matched = np.zeros(self.n_gt, dtype=bool)
        while len(pd):
            first = np.ones(len(pd), dtype=bool)
            first[1:] = pg[1:] != pg[:-1]
            blocked = np.zeros(self.n_det, dtype=bool)
            blocked[pd[~first]] = True
            ready = ~blocked[pd]
            r = np.flatnonzero(ready)
            r = r[np.argsort(pref[r], kind="stable")]
            rd = pd[r]
            head = np.ones(len(r), dtype=bool)
            head[1:] = rd[1:] != rd[:-1]
            chosen = r[head]
            verdict[pd[chosen]] = 1
            taken[pd[chosen]] = pg[chosen]
            matched[pg[chosen]] = True
            keep = ~ready & ~matched[pg]
            pd, pg, pref = pd[keep], pg[keep], pref[keep]
        return verdict, taken


def match_all(
    det_group: IntArray,
    det_ltwh: FloatArray,
    det_score: FloatArray,
    det_pos: IntArray,
    gt_group: IntArray,
    gt_ltwh: FloatArray,
    gt_ignore: npt.NDArray[np.bool_],
    thresholds: FloatArray,
    caps: IntArray,
) -> tuple[npt.NDArray[np.int8], IntArray]:
    """The verdicts of every detection at every threshold and cap.

    Detections in file order; each group is visited by descending ``det_score`` (NaN last, ties
    in file order); ``det_pos`` int64 (D,): a detection's position among its image's rows
    (active under caps above it); boxes ``ltwh`` float64; GT rows in file order within each
    group. Returns ``verdict`` int8 (T, Y, D) as ``Matcher.match`` (1 TP, 0 FP or inactive, -1
    ignored) and ``taken`` int64 (T, D) at the last cap: the GT row taken or absorbing, else -1.
    """
    n, n_thr, n_cap = len(det_group), len(thresholds), len(caps)
    if (k := kernel.load("_greedy")) is not None:
        verdicts: npt.NDArray[np.int8]
        taken: IntArray
        verdicts, taken = k.visdrone_match(
            np.argsort(det_group, kind="stable"),  # the kernel orders each group itself
            det_group,
            det_ltwh,
            det_pos,
            np.argsort(gt_group, kind="stable"),
            gt_group,
            gt_ltwh,
            np.ascontiguousarray(gt_ignore, dtype=bool).view(np.uint8),
            np.asarray(thresholds, dtype=np.float64),
            np.asarray(caps, dtype=np.int64),
            det_score,
            MIN_THRESHOLD,
            kernel.cores(),
        )
        return verdicts, taken
    prio = np.empty(n, dtype=np.int64)
    prio[np.lexsort((np.arange(n), -det_score, det_group))] = np.arange(n, dtype=np.int64)
    pairs = build_pairs(det_group, det_ltwh, gt_group, gt_ltwh, gt_ignore)
    matcher = Matcher.create(pairs, prio, len(gt_group))
    verdicts = np.zeros((n_thr, n_cap, n), dtype=np.int8)
    taken = np.full((n_thr, n), -1, dtype=np.int64)
    for t, thr in enumerate(thresholds):
        for y, cap in enumerate(caps):
            verdicts[t, y], got = matcher.match(float(thr), det_pos < cap)
        taken[t] = got
    return verdicts, taken
