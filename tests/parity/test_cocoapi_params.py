"""``vocviewer.cocoapi.Params``: ``copy.deepcopy`` (``evaluate()`` keeps one as
``_paramsEval``) gives what pycocotools' gives: equal values, nothing shared that can change."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from vocviewer.cocoapi import Params


def _fill(p: Any) -> None:
    p.imgIds = list(np.unique(np.array([7, 3, 5])))  # numpy integers, as evaluate() leaves them
    p.catIds = [1, 2, 18]
    p.areaRng = [[0.0, 1e10], [0.0, 1024.0]]
    p.areaRngLbl = ["all", "small"]
    p.extra = {"ids": p.catIds, "mixed": [1, [2]]}
    p.alias = p.catIds  # one list under two names


def _same(a: Any, b: Any) -> None:
    assert type(a) is type(b)
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
    else:
        assert a == b


@pytest.mark.parametrize("iou_type", ["bbox", "segm", "keypoints"])
def test_deep_copy_equal_and_independent(iou_type: str) -> None:
    p = Params(iouType=iou_type)
    _fill(p)
    q = copy.deepcopy(p)
    assert type(q) is Params and vars(q).keys() == vars(p).keys()
    for name, value in vars(p).items():
        _same(value, getattr(q, name))
    assert q.alias is q.catIds and q.extra["ids"] is q.catIds  # aliasing kept, as deepcopy does
    for name in ("imgIds", "catIds", "areaRng", "iouThrs", "recThrs", "maxDets", "extra"):
        assert getattr(q, name) is not getattr(p, name)
    q.imgIds.append(9)
    q.catIds[0] = 4
    q.areaRng[1][1] = 5.0
    q.iouThrs[0] = 0.0
    q.extra["mixed"][1].append(3)
    assert p.imgIds == [3, 5, 7] and p.catIds == [1, 2, 18] and p.areaRng[1][1] == 1024.0
    assert p.iouThrs[0] == 0.5 and p.extra["mixed"] == [1, [2]]


@pytest.mark.parametrize("iou_type", ["bbox", "keypoints"])
def test_deep_copy_as_pycocotools(iou_type: str) -> None:
    ref_eval = pytest.importorskip("pycocotools.cocoeval")
    ours, ref = Params(iouType=iou_type), ref_eval.Params(iouType=iou_type)
    for p in (ours, ref):
        _fill(p)
    a, b = copy.deepcopy(ours), copy.deepcopy(ref)
    assert vars(a).keys() == vars(b).keys()
    for name in vars(b):
        _same(getattr(a, name), getattr(b, name))
