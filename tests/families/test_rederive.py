"""Re-deriving the stored evidence at another IoU threshold or area range (what the window does
when either changes) gives exactly the views a fresh evaluation at that choice gives: verdicts,
curves, AP and the false-positive diagnosis, whose overlap search is remembered per result set
(``evaluation.pair_overlaps.remembered_best``) and so must not depend on the choice it was
first made at. The fresh evaluation reads the results again (a new ``ResultSet``: nothing
remembered), so it searches every overlap anew."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from tests.gui.test_consistency import Case, coco_case, ilsvrc_case, lvis_case, visdrone_case
from vocviewer.families import registry
from vocviewer.families.views import ClassView, ViewChoice

CASES: dict[str, Callable[[Path], Case]] = {
    "coco": coco_case,
    "lvis": lvis_case,
    "visdrone": visdrone_case,
    "ilsvrc": ilsvrc_case,
}


def _same(a: np.ndarray, b: np.ndarray, what: str) -> None:
    assert a.shape == b.shape and a.dtype == b.dtype, what
    assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), what


def assert_same_view(got: ClassView, want: ClassView) -> None:
    """Every number of two views of one class, exactly (NaN equals NaN)."""
    name = want.evaluation.class_name
    assert (got.iou, got.area, got.left_out) == (want.iou, want.area, want.left_out), name
    assert got.ap_at == want.ap_at or (np.isnan(got.ap_at) and np.isnan(want.ap_at)), name
    _same(got.curve_recall, want.curve_recall, f"{name}: curve recall")
    _same(got.curve_precision, want.curve_precision, f"{name}: curve precision")
    _same(got.missed, want.missed, f"{name}: missed")
    ge, we = got.evaluation, want.evaluation
    for col in ("order", "score", "verdict", "best_gt", "best_iou", "precision", "recall"):
        _same(getattr(ge, col), getattr(we, col), f"{name}: {col}")
    assert (want.false_positives is None) == (got.false_positives is None), name
    if want.false_positives is not None and got.false_positives is not None:
        for col in ("kind", "confused_gt", "confused_iou", "same_gt", "same_iou"):
            g, w = getattr(got.false_positives, col), getattr(want.false_positives, col)
            _same(g, w, f"{name}: diagnosis {col}")


@pytest.mark.parametrize("kernel", ["1", "0"])  # the compiled kernels, then the numpy path
@pytest.mark.parametrize("family", sorted(CASES))
def test_rederived_views_equal_a_fresh_evaluation(
    family: str, kernel: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VOCVIEWER_KERNEL", kernel)
    case = CASES[family](tmp_path)
    dataset = registry.open_dataset(case.path, **case.sources)
    bench = registry.benchmark_of(dataset)
    settings = bench.view_settings(dataset)
    if not settings.rederives:
        pytest.skip(f"{family} evaluates anew at another choice")
    results = registry.open_results(dataset, case.sets[0])
    first = settings.default_choice()
    stored = [v for v in bench.evaluate_views(dataset, results, first) if isinstance(v, ClassView)]
    raws = {v.class_index: v.raw for v in stored}
    ious = [i for i in settings.iou_choices if i != first.iou][-1:] or [first.iou]
    # another threshold, then each area at it (its verdicts kept), then the first threshold and
    # its areas, and back: what was remembered at the other choices changes nothing
    areas = settings.areas[:3]
    choices = [ViewChoice(iou, a) for iou in (ious[0], first.iou) for a in areas] + [first]
    diagnosed = 0
    for choice in choices:
        got = bench.rederive_views(dataset, results, raws, choice)
        assert got is not None
        cold = registry.open_results(dataset, case.sets[0])  # nothing remembered for it
        fresh = bench.evaluate_views(dataset, cold, choice)
        want = {v.class_index: v for v in fresh if isinstance(v, ClassView)}
        assert [v.class_index for v in got] == sorted(want), choice
        for view in got:
            assert_same_view(view, want[view.class_index])
            fp = view.false_positives
            diagnosed += 0 if fp is None else int(np.count_nonzero(fp.kind))
    assert diagnosed > 0  # the diagnosis was compared on some false positives


def test_coco_goes_back_to_the_views_it_derived_without_deriving_them_again(tmp_path: Path) -> None:
    """The window's evaluation and the last two re-derived views are kept per class evidence:
    another area range right after opening, and going back to the previous threshold, give the
    very views again (their ranked evaluation and diagnosis: what the panes keep drawn), not new
    ones (which the test above shows equal a fresh evaluation)."""
    case = coco_case(tmp_path)
    dataset = registry.open_dataset(case.path, **case.sources)
    bench = registry.benchmark_of(dataset)
    results = registry.open_results(dataset, case.sets[0])
    first = bench.view_settings(dataset).default_choice()
    opened = {
        v.class_index: v
        for v in bench.evaluate_views(dataset, results, first)
        if isinstance(v, ClassView)
    }
    raws = {k: v.raw for k, v in opened.items()}

    def derived(choice: ViewChoice) -> dict[int, ClassView]:
        got = bench.rederive_views(dataset, results, raws, choice)
        assert got is not None
        return {v.class_index: v for v in got}

    small = derived(ViewChoice(first.iou, "small"))
    assert all(small[k].evaluation is opened[k].evaluation for k in opened)
    assert all(small[k].false_positives is opened[k].false_positives for k in opened)
    other = derived(ViewChoice(0.75))
    assert all(other[k].evaluation is not opened[k].evaluation for k in opened)
    back = derived(ViewChoice(first.iou))
    assert all(back[k].evaluation is opened[k].evaluation for k in opened)
    again = derived(ViewChoice(0.75, "large"))
    assert all(again[k].evaluation is other[k].evaluation for k in opened)


def test_coco_keeps_the_views_the_window_evaluated_undiagnosed_and_diagnosed_after(
    tmp_path: Path,
) -> None:
    """The window evaluates undiagnosed and diagnoses afterwards (``views.diagnose_pending``):
    another area right after, and going back to the first threshold, keep those very views with
    that very diagnosis (not diagnosed again), equal to a fresh evaluation's."""
    from vocviewer.families.views import diagnose_pending

    case = coco_case(tmp_path)
    dataset = registry.open_dataset(case.path, **case.sources)
    bench = registry.benchmark_of(dataset)
    settings = bench.view_settings(dataset)
    results = registry.open_results(dataset, case.sets[0])
    first = settings.default_choice()
    plain = list(bench.evaluate_views(dataset, results, first, diagnose=False))
    opened = {v.class_index: v for v in plain if isinstance(v, ClassView)}
    assert all(v.false_positives is None for v in opened.values())
    shown = {k: diagnose_pending(dataset, results, v, settings.rules) for k, v in opened.items()}
    raws = {k: v.raw for k, v in opened.items()}
    cold = registry.open_results(dataset, case.sets[0])
    fresh = bench.evaluate_views(dataset, cold, first)  # evaluated and diagnosed at once
    want = {v.class_index: v for v in fresh if isinstance(v, ClassView)}
    for choice in (ViewChoice(first.iou, "small"), ViewChoice(0.75), first):
        got = bench.rederive_views(dataset, results, raws, choice)
        assert got is not None
        if choice.iou == first.iou:
            for v in got:
                assert v.evaluation is opened[v.class_index].evaluation
                assert v.false_positives is shown[v.class_index].false_positives
    for v in got:  # back at the first choice
        assert_same_view(v, want[v.class_index])
