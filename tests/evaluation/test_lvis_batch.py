"""LVIS's whole-array steps give what the per-category ones they replace give, value for value:
``federated_prepare`` = ``federated_prepared(prepare(...))``; ``class_views`` = ``coco_class``
per category; ``category_summary`` = ``collect_lvis(...).summary()``; the cap ranked only
on crowded images = the cap ranked everywhere."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pycocotools")

from tests.parity.lvis_data import write_lvis
from vocviewer.evaluation.result import Verdict
from vocviewer.families.coco.prepare import prepare
from vocviewer.families.coco.view import coco_class
from vocviewer.families.lvis import evaluate as ev_lvis
from vocviewer.families.lvis import view as lvis_view
from vocviewer.families.lvis.class_views import class_views
from vocviewer.families.lvis.columns import MAX_DETS_PER_IMAGE, LvisAnnotations
from vocviewer.families.lvis.prepare import federated_prepare, score_order
from vocviewer.families.lvis.ranked import category_evidence, rank_order
from vocviewer.families.lvis.reader import read_lvis, read_lvis_results
from vocviewer.families.lvis.summary import category_summary
from vocviewer.families.views import ViewChoice, box_pair_iou


def _case(tmp_path: Path, kind: str, seed: int = 5, crowded: int = 2) -> tuple[Any, Any]:
    ann, res = write_lvis(tmp_path, seed, kind=kind, ignore=True, crowded=crowded)
    ds = read_lvis(ann, masks=kind == "segm")
    return ds, read_lvis_results(ds, res, task=kind)


@pytest.mark.parametrize("task", ["bbox", "segm", "boundary"])
def test_federated_prepare_is_coco_prepare_then_the_federated_rules(
    tmp_path: Path, task: str
) -> None:
    ds, rs = _case(tmp_path, "bbox" if task == "bbox" else "segm")
    sel = ev_lvis.select(ds, rs)
    params = ev_lvis.lvis_params(task)
    want = ev_lvis.federated_prepared(prepare(ds, rs, params), sel)
    got = federated_prepare(
        ds,
        rs,
        params,
        sel.object_evaluated,
        sel.object_ignored,
        sel.status == ev_lvis.EVALUATED,
        score_order(ds, rs),
    )
    assert (sel.status == ev_lvis.OVER_CAP).any()
    assert (sel.status == ev_lvis.NO_AREA).any() or task != "bbox"  # (a zero-area box)
    for name in (
        "cat_ids",
        "gt_rows",
        "gt_group",
        "gt_ann_id",
        "gt_area",
        "gt_crowd",
        "gt_ignore",
        "gt_offsets",
        "dt_rows",
        "dt_group",
        "dt_score",
        "dt_area",
        "dt_image_pos",
        "dt_image_index",
        "dt_offsets",
    ):
        assert np.array_equal(getattr(got, name), getattr(want, name), equal_nan=True), name
    assert got.cat_names == want.cat_names
    # the rank among evaluated detections: never above COCO's, below the cap as COCO's is
    assert (got.dt_rank <= want.dt_rank).all() and (want.dt_rank < MAX_DETS_PER_IMAGE).all()


def test_the_cap_ranks_only_crowded_images(tmp_path: Path) -> None:
    ds, rs = _case(tmp_path, "bbox", crowded=3)
    sel = ev_lvis.select(ds, rs)
    det = rs.detections
    count = np.bincount(det.image_index)
    assert (count > MAX_DETS_PER_IMAGE).sum() == 3 and sel.over_cap.sum() > 0
    # every image ranked: its entries (other categories' too) by score, ties by file order
    other = rs.data(ev_lvis.LvisResults)
    image = np.concatenate((det.image_index, other.image_index))
    score = np.concatenate((det.score, other.score))
    entry = np.concatenate((rs.data(ev_lvis.CocoResults).det_id - 1, other.entry))
    order = np.lexsort((entry, -score, image))
    first = np.searchsorted(image[order], image[order], "left")
    rank = np.empty(len(image), dtype=np.int64)
    rank[order] = np.arange(len(image)) - first
    assert np.array_equal(sel.over_cap, rank[: len(det)] >= MAX_DETS_PER_IMAGE)


@pytest.mark.parametrize(
    "choice", [ViewChoice(), ViewChoice(0.75), ViewChoice(0.95, "small"), ViewChoice(0.6, "large")]
)
def test_class_views_are_coco_class_of_each_category(tmp_path: Path, choice: ViewChoice) -> None:
    ds, rs = _case(tmp_path, "bbox")
    params = ev_lvis.lvis_params("bbox")
    raws = list(ev_lvis.iter_evaluate_lvis(ds, rs, "bbox"))
    exclude = lvis_view._never_missed(ds, rs)
    pair_iou = box_pair_iou(ds, rs)  # the TPs' box IoU
    got = class_views(
        ds, list(enumerate(raws)), choice, params.recall_thresholds, pair_iou, exclude
    )
    assert len(got) == len(raws) == len(ds.classes)
    for k, (raw, view) in enumerate(zip(raws, got, strict=True)):
        want = coco_class(ds, raw, k, choice, params.recall_thresholds, pair_iou, exclude)
        assert view.raw is raw and (view.iou, view.area) == (want.iou, want.area)
        assert view.ap_at == want.ap_at or (np.isnan(view.ap_at) and np.isnan(want.ap_at))
        for name in ("missed", "curve_recall", "curve_precision"):
            assert np.array_equal(getattr(view, name), getattr(want, name)), name
        a, b = view.evaluation, want.evaluation
        for name in ("class_index", "class_name", "task", "npos", "has_results", "ndet"):
            assert getattr(a, name) == getattr(b, name), name
        assert a.ap == b.ap or (np.isnan(a.ap) and np.isnan(b.ap))
        for name in ("order", "image_index", "score", "verdict", "best_gt", "duplicate_of"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), name
        for name in ("best_iou", "precision", "recall"):
            x, y = getattr(a, name), getattr(b, name)
            assert x.tobytes() == y.tobytes(), name  # bit for bit, NaN included
    # a subset, in another order: the same views
    some = [(k, raws[k]) for k in (3, 0, 7)]
    again = class_views(ds, some, choice, params.recall_thresholds, pair_iou, exclude)
    for (k, _), view in zip(some, again, strict=True):
        assert np.array_equal(view.missed, got[k].missed)
        assert view.evaluation.precision.tobytes() == got[k].evaluation.precision.tobytes()


@pytest.mark.parametrize("kind", ["bbox", "segm"])
def test_category_summary_is_the_collected_summary(tmp_path: Path, kind: str) -> None:
    ds, rs = _case(tmp_path, kind, seed=8)
    params = ev_lvis.lvis_params(kind)
    cats = tuple(ev_lvis.iter_evaluate_lvis(ds, rs, kind))
    want = ev_lvis.collect_lvis(cats, ds, rs, kind).summary()
    frequency = ds.data(LvisAnnotations).frequency
    got = category_summary(cats, frequency, params)
    assert list(got) == list(want)
    assert np.array(list(got.values())).tobytes() == np.array(list(want.values())).tobytes()
    empty = category_summary((), frequency[:0], params)
    assert set(empty.values()) == {-1.0}


def test_category_summary_of_a_partly_defined_curve(tmp_path: Path) -> None:
    """A curve neither all -1 nor all defined (not what COCO's accumulation gives): the means
    still select the entries > -1, as ``LVISEval``'s."""
    ds, rs = _case(tmp_path, "bbox", seed=8)
    params = ev_lvis.lvis_params("bbox")
    cats = list(ev_lvis.iter_evaluate_lvis(ds, rs, "bbox"))
    k = next(i for i, c in enumerate(cats) if (c.precision[:, :, 0, 0] > -1).all())
    precision = cats[k].precision.copy()
    precision[3, 7:, 0, 0] = -1.0
    cats[k] = dataclasses.replace(cats[k], precision=precision)
    want = ev_lvis.collect_lvis(tuple(cats), ds, rs, "bbox").summary()
    got = category_summary(cats, ds.data(LvisAnnotations).frequency, params)
    assert np.array(list(got.values())).tobytes() == np.array(list(want.values())).tobytes()


def test_category_summary_reads_the_kernels_block(tmp_path: Path) -> None:
    """On the compiled kernel every category's precision and recall lie in one buffer each
    (``consecutive`` gives the stacked view, no copy); the summary read from it is the collected
    summary, a curve partly defined in that buffer included; arrays of their own, or out of
    order, are stacked instead."""
    from vocviewer import kernel
    from vocviewer.families.lvis.summary import consecutive

    ds, rs = _case(tmp_path, "bbox", seed=8)
    params = ev_lvis.lvis_params("bbox")
    cats = list(ev_lvis.iter_evaluate_lvis(ds, rs, "bbox"))
    block = consecutive([c.precision for c in cats])
    if block is None:
        assert kernel.load("_match") is None  # the numpy path: arrays of their own
        pytest.skip("the _match kernel is not built (or VOCVIEWER_KERNEL=0)")
    assert np.shares_memory(block, cats[0].precision) and not block.flags.writeable
    assert np.array_equal(block, np.stack([c.precision for c in cats]))
    assert consecutive([c.precision for c in cats[::-1]]) is None
    assert consecutive([c.precision.copy() for c in cats]) is None
    assert consecutive([c.precision for c in cats[1:4]]) is not None
    frequency = ds.data(LvisAnnotations).frequency
    k = next(i for i, c in enumerate(cats) if (c.precision[:, :, 0, 0] > -1).all())
    cats[k].precision[3, 7:, 0, 0] = -1.0  # in the buffer itself
    want = ev_lvis.collect_lvis(tuple(cats), ds, rs, "bbox").summary()
    got = category_summary(cats, frequency, params)
    assert np.array(list(got.values())).tobytes() == np.array(list(want.values())).tobytes()


@pytest.mark.parametrize("by_image", [False, True])
def test_score_order(tmp_path: Path, by_image: bool) -> None:
    """Descending score, ties by image (ascending id), then file order; a file listing its
    images in that order (no image sort) and one that does not."""
    ann, res = write_lvis(tmp_path, 4, kind="bbox")
    if by_image:
        entries = json.loads(res.read_text())
        res.write_text(json.dumps(sorted(entries, key=lambda e: e["image_id"])))
    ds = read_lvis(ann, masks=False)
    rs = read_lvis_results(ds, res, task="bbox")
    det = rs.detections
    image_id = ds.data(ev_lvis.CocoAnnotations).image_id[det.image_index]
    assert (np.diff(image_id) >= 0).all() == by_image
    want = np.lexsort((np.arange(len(det)), image_id, -det.score))
    assert np.array_equal(score_order(ds, rs), want)


def test_category_evidence_follows_the_rows_it_is_given(tmp_path: Path) -> None:
    """Each detection keeps its own verdicts and matches whatever order the rank order lists
    the rows in (here: reversed within every category, so the kernel's order is not theirs)."""
    ds, rs = _case(tmp_path, "bbox")
    params = ev_lvis.lvis_params("bbox")
    sel = ev_lvis.select(ds, rs)
    by_score = score_order(ds, rs)
    evaluated = sel.status == ev_lvis.EVALUATED
    prep = federated_prepare(
        ds, rs, params, sel.object_evaluated, sel.object_ignored, evaluated, by_score
    )
    ro = rank_order(ds, rs, prep, by_score)
    runs = list(ev_lvis._category_matches(prep, sel))  # (the numpy path: one per category)
    rows = ro.rows.copy()
    for k in range(len(ds.classes)):
        a, b = ro.offsets[k], ro.offsets[k + 1]
        rows[a:b] = rows[a:b][::-1]
    flipped = dataclasses.replace(ro, rows=rows)

    def by_row(order: Any) -> dict[int, tuple[bytes, bytes]]:
        cats, k = [], 0
        for run in runs:
            cats += category_evidence(prep, k, run, order)
            k += len(run)
        return {
            int(r): (c.verdict[:, i].tobytes(), c.matched_gt[:, i].tobytes())
            for c in cats
            for i, r in enumerate(c.det_rows.tolist())
        }

    want = by_row(ro)
    got = by_row(flipped)
    assert got == want and len(want) == len(rs.detections)


@pytest.mark.parametrize("flip", [False, True])
def test_compiled_placement_is_the_numpy_placement(tmp_path: Path, flip: bool) -> None:
    """``_order.place`` (the kernel's verdicts and matches written at their rank-order
    columns, every threshold) writes what ``ranked._place`` writes with numpy, byte for byte,
    in the rank order and in rows the kernel does not rank so (reversed in each category)."""
    from vocviewer import kernel
    from vocviewer.families.lvis.ranked import _place

    module = kernel.load("_order")
    if module is None or kernel.load("_match") is None:
        pytest.skip("the kernels are not built (or VOCVIEWER_KERNEL=0)")
    ds, rs = _case(tmp_path, "bbox", seed=9)
    sel = ev_lvis.select(ds, rs)
    prep = federated_prepare(
        ds,
        rs,
        ev_lvis.lvis_params("bbox"),
        sel.object_evaluated,
        sel.object_ignored,
        sel.status == ev_lvis.EVALUATED,
    )
    ro = rank_order(ds, rs, prep)
    if flip:
        rows = ro.rows.copy()
        for k in range(len(ds.classes)):
            a, b = ro.offsets[k], ro.offsets[k + 1]
            rows[a:b] = rows[a:b][::-1]
        ro = dataclasses.replace(ro, rows=rows)
    (run,) = list(ev_lvis._category_matches(prep, sel))
    assert len(run) == len(ds.classes) and all(m.match0.dtype == np.int32 for m in run)
    got = category_evidence(prep, 0, run, ro)
    at = ro.position[ro.rows]
    on = np.flatnonzero(at >= 0)
    n_thr = len(prep.params.iou_thresholds)
    verdict = np.full((n_thr, len(at)), 7, dtype=np.int8)
    matched = np.full((n_thr, len(at)), -5, dtype=np.int32)
    _place(prep, 0, run, at, on, verdict, matched)
    off = np.flatnonzero(at < 0)
    verdict[:, off], matched[:, off] = Verdict.IGNORED, -1
    assert np.array_equal(np.concatenate([c.verdict for c in got], axis=1), verdict)
    assert np.array_equal(np.concatenate([c.matched_gt for c in got], axis=1), matched)
    assert (matched >= 0).any() and len(on) < len(at)


@pytest.mark.parametrize("shuffled", [False, True])
def test_group_rank_orders_are_the_score_sort_orders(tmp_path: Path, shuffled: bool) -> None:
    """``federated_prepare`` and ``rank_order`` without ``by_score`` (one ``group_rank`` each,
    on the compiled kernel) give the columns ``score_order``'s sorts give, on scores with many
    ties and a NaN, in file order by image and not."""
    from vocviewer import kernel

    if kernel.load("_order") is None:
        pytest.skip("the _order kernel is not built (or VOCVIEWER_KERNEL=0)")
    ann, res = write_lvis(tmp_path, 6, kind="bbox", ignore=True, crowded=2)
    entries = json.loads(res.read_text())
    rng = np.random.default_rng(6)
    for e in entries:
        e["score"] = round(e["score"], 1)  # ties within categories and images
    entries[len(entries) // 2]["score"] = float("nan")
    if shuffled:
        entries = [entries[i] for i in rng.permutation(len(entries))]
    res.write_text(json.dumps(entries))
    ds = read_lvis(ann, masks=False)
    rs = read_lvis_results(ds, res, task="bbox")
    sel = ev_lvis.select(ds, rs)
    params = ev_lvis.lvis_params("bbox")
    args = (ds, rs, params, sel.object_evaluated, sel.object_ignored)
    evaluated = sel.status == ev_lvis.EVALUATED
    by_score = score_order(ds, rs)
    want = federated_prepare(*args, evaluated, by_score)
    got = federated_prepare(*args, evaluated, None)
    for f in dataclasses.fields(want):
        if isinstance(getattr(want, f.name), np.ndarray):
            x, y = getattr(got, f.name), getattr(want, f.name)
            assert np.array_equal(x, y, equal_nan=True), f.name
    want_ro, got_ro = rank_order(ds, rs, want, by_score), rank_order(ds, rs, got, None)
    for name in ("rows", "offsets", "position"):
        assert np.array_equal(getattr(got_ro, name), getattr(want_ro, name)), name
    counts = np.unique(rs.detections.score[np.isfinite(rs.detections.score)], return_counts=True)
    assert counts[1].max() > 1 and np.isnan(rs.detections.score).any()


@pytest.mark.parametrize("n", [1, 7, 101, 1010, 4099])
def test_row_means_are_each_rows_own_mean(n: int) -> None:
    """``class_views._means``: every row's ``np.mean(row[row > -1])`` bit for bit (NaN for
    none), rows all defined (one reduction), partly defined and all -1 alike."""
    from vocviewer.families.lvis.class_views import _means

    rng = np.random.default_rng(n)
    rows = rng.random((40, n)) * rng.choice([1e-3, 1.0, 1e6], size=(40, 1))
    rows[5] = -1.0
    rows[7, ::3] = -1.0
    rows[9, -1] = -1.0
    got = _means(rows)
    for k, row in enumerate(rows):
        want = float(np.mean(row[row > -1])) if (row > -1).any() else float("nan")
        assert np.float64(want).tobytes() == got[k].tobytes(), k


def test_background_summary_gives_its_value_or_its_exception() -> None:
    """``view._Background`` (the summary computed beside the views): the work's value, started
    or not; its exception raised again in the caller's thread."""
    from vocviewer.families.lvis.view import _Background

    started = _Background(lambda: 41 + 1)
    started.start()
    assert started.result() == 42 and _Background(lambda: "here").result() == "here"

    def fails() -> None:
        raise ZeroDivisionError("in the thread")

    failing = _Background(fails)
    failing.start()
    with pytest.raises(ZeroDivisionError, match="in the thread"):
        failing.result()
