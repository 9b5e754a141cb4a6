"""``coco_accumulate``: the integer form of ``searchsorted(recall, recThrs)``, and whole categories
against ``COCOeval.accumulate``'s own loops."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vocviewer.families.coco.accumulate import _recall_index, accumulate_category

REC_THRS = np.linspace(0.0, 1.00, int(np.round((1.00 - 0.0) / 0.01)) + 1, endpoint=True)


@settings(max_examples=300, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.integers(1, 2000), st.lists(st.booleans(), min_size=0, max_size=60)),
        min_size=1,
        max_size=5,
    ),
    extra=st.lists(st.floats(0, 1.2), max_size=5),
)
def test_recall_index_equals_searchsorted(
    rows: list[tuple[int, list[bool]]], extra: list[float]
) -> None:
    nd = min(len(s) for _, s in rows)
    npig = np.array([n for n, _ in rows], dtype=np.int64)
    tp = np.array([s[:nd] for _, s in rows], dtype=bool).reshape(len(rows), nd)
    scale = np.maximum(1, npig // max(nd, 1))[:, None]  # reach high recall too
    tp_cum = np.minimum(np.cumsum(tp, axis=1) * scale, npig[:, None])
    thrs = np.concatenate((REC_THRS, np.array(extra, dtype=np.float64)))
    want = [np.searchsorted(r / n, thrs, side="left") for r, n in zip(tp_cum, npig, strict=True)]
    got = _recall_index(tp_cum, npig, thrs)
    assert np.array_equal(got, np.array(want).reshape(got.shape))


def _pycocotools_accumulate(
    score: np.ndarray,
    image_pos: np.ndarray,
    rank: np.ndarray,
    tp: np.ndarray,
    fp: np.ndarray,
    npig: np.ndarray,
    rec_thrs: np.ndarray,
    max_dets: tuple[int, ...],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``COCOeval.accumulate`` for one category, transcribed loop for loop from cocoeval.py."""
    n_area, n_thr, _ = tp.shape
    n_rec = len(rec_thrs)
    precision = -np.ones((n_thr, n_rec, n_area, len(max_dets)))
    recall = -np.ones((n_thr, n_area, len(max_dets)))
    scores = -np.ones((n_thr, n_rec, n_area, len(max_dets)))
    by_image = sorted(range(len(score)), key=lambda i: (image_pos[i], rank[i]))
    for a in range(n_area):
        for m, cap in enumerate(max_dets):
            e = [i for i in by_image if rank[i] < cap]
            dt_scores = score[e]
            inds = np.argsort(-dt_scores, kind="mergesort")
            dt_sorted = dt_scores[inds]
            tps, fps = tp[a][:, e][:, inds], fp[a][:, e][:, inds]
            if npig[a] == 0:
                continue
            tp_sum = np.cumsum(tps, axis=1).astype(dtype=float)
            fp_sum = np.cumsum(fps, axis=1).astype(dtype=float)
            for t, (tpc, fpc) in enumerate(zip(tp_sum, fp_sum, strict=True)):
                nd = len(tpc)
                rc = tpc / npig[a]
                pr = tpc / (fpc + tpc + np.spacing(1))
                q, ss = np.zeros((n_rec,)), np.zeros((n_rec,))
                recall[t, a, m] = rc[-1] if nd else 0
                prl, ql = pr.tolist(), q.tolist()
                for i in range(nd - 1, 0, -1):
                    if prl[i] > prl[i - 1]:
                        prl[i - 1] = prl[i]
                found = np.searchsorted(rc, rec_thrs, side="left")
                try:
                    for ri, pi in enumerate(found):
                        ql[ri] = prl[pi]
                        ss[ri] = dt_sorted[pi]
                except IndexError:
                    pass
                precision[t, :, a, m] = np.array(ql)
                scores[t, :, a, m] = ss
    return precision, recall, scores


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    dets=st.lists(
        st.tuples(st.integers(0, 3), st.sampled_from([0.1, 0.5, 0.5, 0.9, 0.25])),
        max_size=25,
    ),
    states=st.lists(st.integers(0, 2), min_size=2 * 3 * 25, max_size=2 * 3 * 25),
    npig=st.tuples(st.integers(0, 12), st.integers(0, 12)),
    max_dets=st.sampled_from([(1, 10, 100), (1, 2, 3), (2,)]),
    thrs=st.sampled_from(["coco", "coarse"]),
)
def test_accumulate_category_equals_pycocotools_loops(
    dets: list[tuple[int, float]],
    states: list[int],
    npig: tuple[int, int],
    max_dets: tuple[int, ...],
    thrs: str,
) -> None:
    """Detections (image, score) with TP / FP / ignored flags per (area, threshold) drawn
    freely (TP counts may even exceed ``npig``): every array equals the transcribed loops."""
    n = len(dets)
    image_pos = np.array([d[0] for d in dets], dtype=np.int64)
    score = np.array([d[1] for d in dets], dtype=np.float64)
    rank = np.zeros(n, dtype=np.int64)
    for i in range(n):  # rank within the image by descending score, file order on ties
        rank[i] = sum(
            1
            for j in range(n)
            if dets[j][0] == dets[i][0]
            and (score[j] > score[i] or (score[j] == score[i] and j < i))
        )
    state = np.array(states[: 2 * 3 * n], dtype=np.int64).reshape(2, 3, n)
    tp, fp = state == 1, state == 2
    rec = REC_THRS if thrs == "coco" else np.array([0.0, 0.3, 0.5, 1.0, 1.1])
    npig_a = np.array(npig, dtype=np.int64)
    got = accumulate_category(score, image_pos, rank, tp, fp, npig_a, rec, max_dets)
    want = _pycocotools_accumulate(score, image_pos, rank, tp, fp, npig_a, rec, max_dets)
    for g, w in zip((got.precision, got.recall, got.scores), want, strict=True):
        np.testing.assert_array_equal(g, w)
