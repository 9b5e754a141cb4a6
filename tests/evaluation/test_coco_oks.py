"""``oks_pairs`` against pycocotools' own ``COCOeval.computeOks``, bit for bit."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from vocviewer.families.coco.similarity import KEYPOINT_SIGMAS, oks_pairs, pair_up

cocoeval = pytest.importorskip("pycocotools.cocoeval")


def _image(rng: np.random.Generator, n_gt: int, n_dt: int) -> tuple[list[Any], list[Any]]:
    gts, dts = [], []
    for j in range(n_gt):
        x, y, w, h = (
            rng.uniform(0, 300),
            rng.uniform(0, 300),
            rng.uniform(1, 200),
            rng.uniform(1, 200),
        )
        kp = np.column_stack(
            (x + rng.uniform(0, w, 17), y + rng.uniform(0, h, 17), rng.integers(1, 3, 17))
        )
        kp[rng.permutation(17)[: j % 18]] = 0  # every count of labelled points, 17 .. 0
        area = float(w * h * rng.uniform(0.2, 1.0)) if j % 5 else float(rng.uniform(0, 2))
        gts.append({"bbox": [x, y, w, h], "area": area, "keypoints": kp.ravel().tolist()})
    for i in range(n_dt):
        kp = np.column_stack((rng.uniform(-50, 550, (17, 2)), np.ones(17)))
        if i < n_gt:  # near a GT, at several spreads
            g = np.array(gts[i]["keypoints"]).reshape(17, 3)
            kp[:, :2] = g[:, :2] + rng.normal(0, 10.0 ** rng.uniform(-1, 2), (17, 2))
        dts.append({"score": float(1 - i / 100), "keypoints": kp.ravel().tolist()})
    return gts, dts


@pytest.mark.parametrize("seed", range(4))
def test_oks_pairs_equals_compute_oks(seed: int) -> None:
    rng = np.random.default_rng(seed)
    ev = cocoeval.COCOeval(iouType="keypoints")
    ev.params.imgIds, ev.params.catIds = [1, 2, 3], [1]
    ev._gts, ev._dts = {}, {}
    for img, (n_gt, n_dt) in zip((1, 2, 3), ((40, 20), (18, 12), (3, 0)), strict=True):
        ev._gts[img, 1], ev._dts[img, 1] = _image(rng, n_gt, n_dt)
    gts = [g for img in (1, 2, 3) for g in ev._gts[img, 1]]
    dts = [d for img in (1, 2, 3) for d in ev._dts[img, 1]]
    g_group = np.repeat([1, 2, 3], [len(ev._gts[i, 1]) for i in (1, 2, 3)])
    d_group = np.repeat([1, 2, 3], [len(ev._dts[i, 1]) for i in (1, 2, 3)])
    ent_det, ent_gt = pair_up(d_group, g_group)
    got = oks_pairs(
        np.array([d["keypoints"] for d in dts], float).reshape(-1, 17, 3),
        np.array([g["keypoints"] for g in gts], float).reshape(-1, 17, 3),
        np.array([g["bbox"] for g in gts], float),
        np.array([g["area"] for g in gts], float),
        ent_det,
        ent_gt,
        KEYPOINT_SIGMAS,
    )
    d0 = np.concatenate(([0], np.cumsum(np.bincount(d_group)[1:])))
    g0 = np.concatenate(([0], np.cumsum(np.bincount(g_group)[1:])))
    for img in (1, 2, 3):
        want = np.asarray(ev.computeOks(img, 1))
        if len(ev._dts[img, 1]) == 0:
            assert not np.any(d_group[ent_det] == img)
            continue
        sel = d_group[ent_det] == img
        mine = np.zeros_like(want)
        mine[ent_det[sel] - d0[img - 1], ent_gt[sel] - g0[img - 1]] = got[sel]
        assert np.array_equal(mine, want)
