"""The compiled OKS kernel (``vocviewer/kernel/_oks.c``) against the numpy path and pycocotools.

``similarity.oks_pairs`` on the kernel and with ``VOCVIEWER_KERNEL=0`` must give the same bytes,
and both what pycocotools' ``COCOeval.computeOks`` gives pair by pair: for COCO's 17 points and
other point counts (below, at and above numpy's 8-value pairwise block, with sigmas of one's
own), GTs with every count of labelled points, zero and tiny areas, detections far outside and
non-finite coordinates.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.kernel.switch import numpy_path
from vocviewer import kernel
from vocviewer.families.coco.similarity import KEYPOINT_SIGMAS, oks_pairs, pair_up

cocoeval = pytest.importorskip("pycocotools.cocoeval")
pytestmark = pytest.mark.skipif(kernel.load("_oks") is None, reason="_oks is not built")


def _case(rng: np.random.Generator, k: int, n_gt: int, n_dt: int) -> tuple[list[Any], list[Any]]:
    """GTs and detections of one image (pycocotools' dicts), with awkward values mixed in."""
    gts, dts = [], []
    for j in range(n_gt):
        x, y = rng.uniform(-20, 300, 2)
        w, h = rng.uniform(0, 200, 2) if j % 7 else (0.0, 0.0)
        kp = np.column_stack(
            (x + rng.uniform(0, w + 1, k), y + rng.uniform(0, h + 1, k), rng.integers(-1, 3, k))
        )
        kp[rng.permutation(k)[: j % (k + 1)], 2] = 0  # every count of labelled points
        area = [float(w * h * rng.uniform(0.2, 1)), 0.0, 1e-300, float(rng.uniform(0, 2))][j % 4]
        gts.append({"bbox": [x, y, w, h], "area": area, "keypoints": kp.ravel().tolist()})
    for i in range(n_dt):
        kp = np.column_stack((rng.uniform(-300, 600, (k, 2)), np.ones(k)))
        if i < n_gt:
            g = np.array(gts[i]["keypoints"]).reshape(k, 3)
            kp[:, :2] = g[:, :2] + rng.normal(0, 10.0 ** rng.uniform(-2, 2), (k, 2))
        if i % 11 == 3:
            kp[rng.integers(k), rng.integers(2)] = [np.nan, np.inf, -np.inf][i % 3]
        dts.append({"score": 1 - i / 100, "keypoints": kp.ravel().tolist()})
    return gts, dts


def _reference(gts: list[Any], dts: list[Any], sigmas: np.ndarray) -> np.ndarray:
    """pycocotools' ``computeOks`` (D, G) of one image, one category."""
    ev = cocoeval.COCOeval(iouType="keypoints")
    ev.params.kpt_oks_sigmas = sigmas
    ev.params.imgIds, ev.params.catIds = [1], [1]
    ev._gts, ev._dts = {(1, 1): gts}, {(1, 1): dts}
    with np.errstate(all="ignore"):
        return np.asarray(ev.computeOks(1, 1))


@pytest.mark.parametrize("k", [17, 1, 5, 8, 9, 16, 24])
def test_oks_kernel_equals_numpy_and_compute_oks(k: int) -> None:
    rng = np.random.default_rng(k)
    sigmas = KEYPOINT_SIGMAS if k == 17 else rng.uniform(0.02, 0.12, k)
    gts, dts = _case(rng, k, 30, 20)  # computeOks keeps maxDets[-1] = 20
    ent_det, ent_gt = pair_up(np.zeros(len(dts), np.int64), np.zeros(len(gts), np.int64))
    args = (
        np.array([d["keypoints"] for d in dts]).reshape(-1, k, 3),
        np.array([g["keypoints"] for g in gts]).reshape(-1, k, 3),
        np.array([g["bbox"] for g in gts]),
        np.array([g["area"] for g in gts]),
        ent_det,
        ent_gt,
        sigmas,
    )
    on = oks_pairs(*args)
    with numpy_path():
        off = oks_pairs(*args)
    assert on.dtype == off.dtype == np.float64
    assert on.tobytes() == off.tobytes()
    want = _reference(gts, dts, sigmas)
    assert want[ent_det, ent_gt].tobytes() == on.tobytes()


def test_oks_kernel_many_pairs_threads() -> None:
    """Enough pairs for several threads: the same bytes as the numpy path."""
    rng = np.random.default_rng(7)
    gts, dts = _case(rng, 17, 120, 200)
    g_group = np.repeat(np.arange(4), 30)
    d_group = np.repeat(np.arange(4), 50)
    ent_det, ent_gt = pair_up(d_group, g_group)
    args = (
        np.array([d["keypoints"] for d in dts]).reshape(-1, 17, 3),
        np.array([g["keypoints"] for g in gts]).reshape(-1, 17, 3),
        np.array([g["bbox"] for g in gts]),
        np.array([g["area"] for g in gts]),
        np.tile(ent_det, 3),
        np.tile(ent_gt, 3),
    )
    on = oks_pairs(*args)
    with numpy_path():
        off = oks_pairs(*args)
    assert len(on) == 18000 and on.tobytes() == off.tobytes()


def test_oks_kernel_rejects_rows_out_of_range() -> None:
    """Pair rows outside the tables: an error, never a read out of bounds."""
    kp = np.zeros((2, 17, 3))
    one = np.zeros(1, np.int64)
    with pytest.raises(ValueError, match="pair rows"):
        oks_pairs(kp, kp, np.zeros((2, 4)), np.ones(2), one + 2, one)


def test_oks_in_blocks_equals_exponents_and_np_exp() -> None:
    """``_oks.oks`` (exponents, ``np.exp`` and the means a block of pairs at a time, threads
    across pairs) gives the bytes of ``exponents`` + ``np.exp`` over all values + ``mean_rows``
    and of the numpy path: NaN coordinates of either sign (the NaN's sign kept as numpy keeps
    it), infinities, GTs without labelled points, more pairs than a block and a thread take."""
    oks = kernel.load("_oks")
    rng = np.random.default_rng(11)
    gts, dts = _case(rng, 17, 90, 120)
    det = np.array([d["keypoints"] for d in dts]).reshape(-1, 17, 3)
    gt = np.array([g["keypoints"] for g in gts]).reshape(-1, 17, 3)
    det[5, 3, 0], det[6, 4, 1] = np.nan, -np.nan
    gt[7, :, 2] = 0  # no labelled point: distances outside the enlarged box
    det[8, 2, 0] = -np.inf
    box, area = np.array([g["bbox"] for g in gts]), np.array([g["area"] for g in gts])
    ent_det, ent_gt = pair_up(np.repeat(np.arange(3), 40), np.repeat(np.arange(3), 30))
    ent_det, ent_gt = np.tile(ent_det, 4), np.tile(ent_gt, 4)  # 14,400 pairs
    var = (KEYPOINT_SIGMAS * 2) ** 2
    pairs = (det, gt, box, area + np.spacing(1), var, ent_det, ent_gt)
    got = oks.oks(*pairs)
    ne, start = oks.exponents(*pairs)
    two_step = oks.mean_rows(np.exp(ne, out=ne), start)
    with numpy_path():
        off = oks_pairs(det, gt, box, area, ent_det, ent_gt)
    assert np.isnan(got).any() and (np.signbit(got[np.isnan(got)])).any()
    assert got.tobytes() == two_step.tobytes() == off.tobytes()
