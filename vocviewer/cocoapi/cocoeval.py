"""``COCOeval`` and ``Params``: pycocotools' evaluation API on vocviewer's vectorised evaluator.

Use it as pycocotools' (``COCOeval(gt, dt, "bbox")``, change ``params``, then ``evaluate()``,
``accumulate()``, ``summarize()``); ``stats``, ``eval`` (``params``, ``counts``, ``date``,
``precision``, ``recall``, ``scores``) and ``evalImgs`` hold the same numbers, in the same shapes
and order. ``evaluate()`` matches all images of a category at once (``engine.py``); ``evalImgs``
is built from those matches only when first read (a list of ``K x A x I`` dicts is what makes
pycocotools slow). ``ious`` is filled on first read too.
"""

from __future__ import annotations

import copy
import datetime
import time
from collections import defaultdict
from itertools import repeat
from typing import Any

import numpy as np

import vocviewer.cocoapi.columns as columns
import vocviewer.cocoapi.compact as compact
from vocviewer.cocoapi.accumulate import accumulate_eval_imgs, summary
from vocviewer.cocoapi.coco import paused_gc, say
from vocviewer.cocoapi.engine import (
    category_curves,
    category_entries,
    category_ious,
    match_category,
)
from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.families.coco.accumulate import CategoryCurves
from vocviewer.families.coco.columns import CocoAnnotations
from vocviewer.families.coco.params import CocoParams
from vocviewer.families.coco.prepare import Prepared, prepare
from vocviewer.families.coco.similarity import KEYPOINT_SIGMAS

#: Immutable values a deep copy may share: a list of only these is copied as a list.
_ATOMS = (int, float, str, np.integer, np.floating)


class Params:
    """pycocotools' ``Params`` (same attributes and defaults)."""

    def __deepcopy__(self, memo: dict[int, Any]) -> Params:
        """``copy.deepcopy`` (``evaluate()`` keeps one), a list of numbers (``imgIds``:
        thousands of numpy integers) copied as a new list of the same immutable numbers."""
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        for name, value in self.__dict__.items():
            if id(value) in memo:
                new.__dict__[name] = memo[id(value)]
            elif type(value) is list and all(map(isinstance, value, repeat(_ATOMS))):
                new.__dict__[name] = memo[id(value)] = list(value)
            else:
                new.__dict__[name] = copy.deepcopy(value, memo)
        return new

    def setDetParams(self) -> None:
        self.imgIds: list[Any] = []
        self.catIds: list[Any] = []
        self.iouThrs = np.linspace(0.5, 0.95, int(np.round((0.95 - 0.5) / 0.05)) + 1, endpoint=True)
        self.recThrs = np.linspace(0.0, 1.00, int(np.round((1.00 - 0.0) / 0.01)) + 1, endpoint=True)
        self.maxDets = [1, 10, 100]
        self.areaRng: list[list[float]] = [
            [0**2, 1e5**2],
            [0**2, 32**2],
            [32**2, 96**2],
            [96**2, 1e5**2],
        ]
        self.areaRngLbl = ["all", "small", "medium", "large"]
        self.useCats = 1

    def setKpParams(self) -> None:
        self.imgIds = []
        self.catIds = []
        self.iouThrs = np.linspace(0.5, 0.95, int(np.round((0.95 - 0.5) / 0.05)) + 1, endpoint=True)
        self.recThrs = np.linspace(0.0, 1.00, int(np.round((1.00 - 0.0) / 0.01)) + 1, endpoint=True)
        self.maxDets = [20]
        self.areaRng = [[0**2, 1e5**2], [32**2, 96**2], [96**2, 1e5**2]]
        self.areaRngLbl = ["all", "medium", "large"]
        self.useCats = 1
        self.kpt_oks_sigmas = KEYPOINT_SIGMAS.copy()  # pycocotools' 17 person sigmas

    def __init__(self, iouType: str = "segm") -> None:
        if iouType in ("segm", "bbox"):
            self.setDetParams()
        elif iouType == "keypoints":
            self.setKpParams()
        else:
            raise Exception("iouType not supported")
        self.iouType = iouType
        self.useSegm: Any = None  # deprecated, as in pycocotools


def _columns_of(coco: Any, key: tuple[Any, ...], build: Any) -> Any:
    """``build()``, cached on the ``COCO`` object until its next ``createIndex()``."""
    cache = getattr(coco, "_columns", None)
    if cache is None:
        return build()
    if key not in cache:
        cache[key] = build()
    return cache[key]


def _lazy(coco: Any, *, keep: bool) -> compact.Lazy | None:
    """``coco``'s file not yet decoded into dicts (``compact.py``), or None; with ``keep``
    off, the dicts are decoded now (the evaluation needs them)."""
    lazy: compact.Lazy | None = getattr(coco, "_lazy", None)
    if lazy is not None and not keep:
        coco._materialize()
        return None
    return lazy


def _ground_truth(coco: Any, masks: bool) -> Dataset:
    lazy = _lazy(coco, keep=True)
    cache: dict[Any, Any] = getattr(coco, "_columns", None) or {}
    if not masks and ("gt", True) in cache:
        return cache["gt", True]  # type: ignore[no-any-return]
    if lazy is not None:
        build = lambda: compact.ground_truth(coco, lazy, masks=masks)  # noqa: E731
        return _columns_of(coco, ("gt", masks), build)  # type: ignore[no-any-return]
    return _columns_of(coco, ("gt", masks), lambda: columns.ground_truth(coco, masks=masks))  # type: ignore[no-any-return]


def _results(coco: Any, gt: Dataset, kind: str) -> ResultSet:
    key = ("dt", kind, gt)  # (the Dataset itself, by identity)
    lazy: compact.Lazy | None = getattr(coco, "_lazy", None)
    keep = lazy is not None and compact.readable(lazy, kind)
    lazy = _lazy(coco, keep=keep)  # else the evaluation reads the dicts

    def build() -> ResultSet:
        if lazy is not None:
            return compact.results(lazy, gt, kind)
        return columns.results(coco, gt, kind=kind)

    return _columns_of(coco, key, build)  # type: ignore[no-any-return]


def _unique(values: Any) -> Any:
    """``np.unique(values)``: without its first call's import of ``numpy.ma`` (~20 ms) for
    integers and strings (sorted, then the first of each run: the same array)."""
    a = np.asarray(values)
    if a.dtype.kind not in "iuUS":
        return np.unique(a)
    a = np.sort(a, axis=None)
    return a[np.concatenate(([True], a[1:] != a[:-1]))] if len(a) else a


def _every_or(ids: tuple[int, ...], known: Any) -> tuple[int, ...] | None:
    """``None`` ("all", no filtering to do) where ``ids`` (sorted, unique) are exactly the
    ``known`` ids, else ``ids``."""
    if len(ids) == len(known) and np.array_equal(np.asarray(ids), np.sort(known)):
        return None
    return ids


def _params(p: Params, gt: Dataset) -> CocoParams:
    g: CocoAnnotations = gt.data(CocoAnnotations)
    img_ids, cat_ids = tuple(int(i) for i in p.imgIds), tuple(int(c) for c in p.catIds)
    return CocoParams(
        iou_type=p.iouType,
        use_cats=bool(p.useCats),
        iou_thresholds=np.asarray(p.iouThrs, dtype=np.float64),
        recall_thresholds=np.asarray(p.recThrs, dtype=np.float64),
        max_dets=tuple(int(m) for m in p.maxDets),
        area_ranges=tuple((float(a[0]), float(a[1])) for a in p.areaRng),
        area_names=tuple(p.areaRngLbl),
        image_ids=_every_or(img_ids, g.image_id),
        category_ids=_every_or(cat_ids, g.category_id),
    )


class COCOeval:
    """pycocotools' ``COCOeval(cocoGt, cocoDt, iouType)``; see the module docstring."""

    def __init__(self, cocoGt: Any = None, cocoDt: Any = None, iouType: str = "segm") -> None:
        if not iouType:
            say("iouType not specified. use default iouType segm")
        self.cocoGt = cocoGt
        self.cocoDt = cocoDt
        self.eval: dict[str, Any] = {}
        self.params = Params(iouType=iouType)
        self._paramsEval: Any = {}
        self.stats: Any = []
        self._eval_imgs: Any = defaultdict(list)
        self._ious: dict[Any, Any] | None = {}
        self._prep: Prepared | None = None
        self._curves: list[CategoryCurves] = []
        self._lines: list[str] = []
        if cocoGt is not None:
            self.params.imgIds = sorted(cocoGt.getImgIds())
            self.params.catIds = sorted(cocoGt.getCatIds())

    # --- evaluate ------------------------------------------------------------------------------
    def evaluate(self) -> None:
        """Match every detection (per image and category, all at once); see ``evalImgs``."""
        with paused_gc():
            self._evaluate()

    def _evaluate(self) -> None:
        tic = time.time()
        say("Running per image evaluation...")
        p = self.params
        if p.useSegm is not None:
            p.iouType = "segm" if p.useSegm == 1 else "bbox"
            say(f"useSegm (deprecated) is not None. Running {p.iouType} evaluation")
        say(f"Evaluate annotation type *{p.iouType}*")
        p.imgIds = list(_unique(p.imgIds))
        if p.useCats:
            p.catIds = list(_unique(p.catIds))
        p.maxDets = sorted(p.maxDets)
        self.params = p
        segm = p.iouType == "segm"
        gt = _ground_truth(self.cocoGt, segm)
        dt = _results(self.cocoDt, gt, p.iouType)  # cached by the Dataset itself (by identity)
        columns.check_read_fields(gt, dt, p)
        prep = prepare(gt, dt, _params(p, gt))
        sigmas = p.kpt_oks_sigmas if p.iouType == "keypoints" else None
        self._curves = category_curves(prep, sigmas)  # every category at once (kernel)
        self._prep = prep
        self._eval_imgs = None  # built from the matches when first read
        self._ious = None
        self.eval = {}
        self._paramsEval = copy.deepcopy(self.params)
        say(f"DONE (t={time.time() - tic:0.2f}s).")

    @property
    def evalImgs(self) -> Any:
        """pycocotools' per (category, area range, image) dicts, ``[K x A x I]`` flat."""
        if self._eval_imgs is None:
            with paused_gc():  # (a million dicts: the collector would run again and again)
                self._eval_imgs = self._build_eval_imgs()
        return self._eval_imgs

    @evalImgs.setter
    def evalImgs(self, value: Any) -> None:
        self._eval_imgs = value
        self._prep = None  # accumulate() now reads these, as pycocotools does

    def _cat_positions(self, pe: Any) -> dict[int, int]:
        prep = self._prep
        assert prep is not None
        if not pe.useCats:
            return {-1: 0}
        return {int(c): k for k, c in enumerate(prep.cat_ids.tolist())}

    def _build_eval_imgs(self) -> list[Any]:
        prep, pe = self._prep, self._paramsEval
        assert prep is not None
        cat_ids = pe.catIds if pe.useCats else [-1]
        n_img, n_area = len(pe.imgIds), len(pe.areaRng)
        out: list[Any] = [None] * (len(cat_ids) * n_area * n_img)
        where = self._cat_positions(pe)
        img_pos = {int(i): n for n, i in enumerate(pe.imgIds)}
        sigmas = pe.kpt_oks_sigmas if pe.iouType == "keypoints" else None
        lazy = getattr(self.cocoDt, "_lazy", None)
        if lazy is not None and lazy.int_scores():
            lazy = _lazy(self.cocoDt, keep=False)  # the int scores are what evalImgs holds
        dt_anns = {} if lazy is not None else getattr(self.cocoDt, "anns", {})
        first = next(iter(dt_anns.values()), {"score": 0.0})
        as_given = type(first.get("score")) is not float  # numpy scores (loadNumpyAnnotations)
        for kk, c in enumerate(cat_ids):
            k = where.get(int(c))
            if k is None:
                continue
            cm = match_category(prep, k, sigmas)
            found = category_entries(prep, cm, pe.areaRng, pe.maxDets[-1], c)
            for (a, img), entry in found.items():
                n = img_pos[img]
                entry["image_id"] = pe.imgIds[n]
                if as_given:
                    entry["dtScores"] = [dt_anns[i]["score"] for i in entry["dtIds"]]
                out[(kk * n_area + a) * n_img + n] = entry
        return out

    def _has_eval_imgs(self) -> bool:
        """``bool(self.evalImgs)`` without building it: pycocotools' list holds an entry (maybe
        ``None``) per (category, area range, image) of the evaluated ``params``."""
        pe = self._paramsEval
        if self._prep is None or not isinstance(pe, Params):
            return bool(self._eval_imgs)
        n_cats = len(pe.catIds) if pe.useCats else 1
        return n_cats * len(pe.areaRng) * len(pe.imgIds) > 0

    @property
    def ious(self) -> dict[Any, Any]:
        """IoU / OKS matrices ``(D, G)`` per ``(imgId, catId)`` as ``computeIoU`` leaves them
        (detections by score, cut to the largest cap; ground truth in annotation order;
        ``[]`` where either is empty)."""
        if self._ious is None:
            with paused_gc():
                self._ious = self._build_ious()
        return self._ious

    @ious.setter
    def ious(self, value: dict[Any, Any]) -> None:
        self._ious = value

    def _build_ious(self) -> dict[Any, Any]:
        prep, pe = self._prep, self._paramsEval
        if prep is None:
            return {}
        cat_ids = pe.catIds if pe.useCats else [-1]
        where = self._cat_positions(pe)
        sigmas = pe.kpt_oks_sigmas if pe.iouType == "keypoints" else None
        found = {}
        for c in cat_ids:
            k = where.get(int(c))
            found[c] = {} if k is None else category_ious(prep, k, sigmas)
        return {(img, c): found[c].get(int(img), []) for img in pe.imgIds for c in cat_ids}

    # --- accumulate / summarize ----------------------------------------------------------------
    def _fast_path(self, p: Any) -> bool:
        pe = self._paramsEval
        if self._prep is None or not isinstance(pe, Params):
            return False
        return (
            bool(p.useCats) == bool(pe.useCats)
            and list(p.catIds) == list(pe.catIds if pe.useCats else [-1])
            and list(p.imgIds) == list(pe.imgIds)
            and [tuple(a) for a in p.areaRng] == [tuple(a) for a in pe.areaRng]
            and list(p.maxDets) == list(pe.maxDets)
            and np.array_equal(p.iouThrs, pe.iouThrs)
            and np.array_equal(p.recThrs, pe.recThrs)
        )

    def accumulate(self, p: Any = None) -> None:
        """Precision / recall / scores per (IoU, recall, category, area, cap) into ``eval``."""
        say("Accumulating evaluation results...")
        tic = time.time()
        if not self._has_eval_imgs():
            say("Please run evaluate() first")
        if p is None:
            p = self.params
        p.catIds = p.catIds if p.useCats == 1 else [-1]
        t, r = len(p.iouThrs), len(p.recThrs)
        k, a, m = len(p.catIds) if p.useCats else 1, len(p.areaRng), len(p.maxDets)
        if self._fast_path(p):
            where = self._cat_positions(self._paramsEval)
            found = [where.get(int(c)) for c in p.catIds]
            if k and None not in found:  # every category evaluated: stacked in one copy
                curves = [self._curves[pos] for pos in found if pos is not None]
                precision = np.stack([cv.precision for cv in curves], axis=2)
                recall = np.stack([cv.recall for cv in curves], axis=1)
                scores = np.stack([cv.scores for cv in curves], axis=2)
            else:
                precision, scores = -np.ones((t, r, k, a, m)), -np.ones((t, r, k, a, m))
                recall = -np.ones((t, k, a, m))
                for kk, pos in enumerate(found):
                    if pos is not None:
                        cv = self._curves[pos]
                        precision[:, :, kk], recall[:, kk] = cv.precision, cv.recall
                        scores[:, :, kk] = cv.scores
        else:
            precision, recall, scores = accumulate_eval_imgs(self.evalImgs, p, self._paramsEval)
        self.eval = {
            "params": p,
            "counts": [t, r, k, a, m],
            "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S"),
            "precision": precision,
            "recall": recall,
            "scores": scores,
        }
        say(f"DONE (t={time.time() - tic:0.2f}s).")

    def summarize(self) -> None:
        """Print the 12 (bbox / segm) or 10 (keypoints) summary lines; set ``stats``."""
        if not self.eval:
            raise Exception("Please run accumulate() first")
        self.stats, self._lines = summary(self.params, self.eval, say)

    def __str__(self) -> str:
        """The summary lines (pycocotools prints them and returns None)."""
        if not self.eval:
            return "COCOeval (not accumulated)"
        return "\n".join(summary(self.params, self.eval)[1])
