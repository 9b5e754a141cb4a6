"""The Analysis tab reads the window's evidence (``Evidence``: the ``ClassView``s that
``evaluate_views`` gave at the window's choice) instead of evaluating again, and computes the same
numbers as from a fresh evaluation — at the official choice and at another IoU or area.

Each family's evaluator entry point is wrapped with a counter (the real function runs). The only
extra evaluation by design: COCO's ``analyze()`` curves run COCOeval once more at their own IoUs
(.75, .5, .1; ``analyze_coco`` through ``evaluate_coco``), which the window's record (.50:.95)
does not hold. (LVIS's ``analyze()`` re-matches at those IoUs too, through its own
``prepare`` / ``lvis_precision``, not the evaluator entry point.)"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.gui.test_protocol_window import INSTANCES, write_coco_results
from tests.parity.lvis_data import write_lvis
from tests.test_cli_analyze_families import TOY_DET, TOY_GT, ilsvrc_case, write_visdrone
from vocviewer.families.evidence import collect
from vocviewer.families.registry import benchmark_of, open_dataset, open_results
from vocviewer.families.view_analysis import view_analysis, view_bootstrap
from vocviewer.families.views import ViewChoice


def count_calls(monkeypatch: pytest.MonkeyPatch, fn: Callable[..., Any]) -> list[dict[str, Any]]:
    """Wrap ``fn`` wherever a loaded ``vocviewer`` module binds it; each call's keyword
    arguments are appended to the list returned."""
    calls: list[dict[str, Any]] = []

    def counted(*args: Any, **kw: Any) -> Any:
        calls.append(kw)
        return fn(*args, **kw)

    for name, module in list(sys.modules.items()):
        if name.startswith("vocviewer") and getattr(module, fn.__name__, None) is fn:
            monkeypatch.setattr(module, fn.__name__, counted)
    return calls


def _voc(tmp_path: Path) -> tuple[Any, Any, str | None]:
    from vocviewer.demo import write_demo

    demo = write_demo(tmp_path)
    ds = open_dataset(demo.year_dir)
    return ds, open_results(ds, [demo.results_dir], image_set="val"), "val"


def _coco(tmp_path: Path) -> tuple[Any, Any, str | None]:
    if not INSTANCES.is_file():
        pytest.skip("coco-mini is not here")
    ds = open_dataset(INSTANCES)
    return ds, open_results(ds, [write_coco_results(ds, tmp_path / "r.json")]), None


def _lvis(tmp_path: Path) -> tuple[Any, Any, str | None]:
    ann, res_path = write_lvis(tmp_path, 3, ignore=True)
    ds = open_dataset(ann)
    return ds, open_results(ds, [res_path]), None


def _visdrone(tmp_path: Path) -> tuple[Any, Any, str | None]:
    split = write_visdrone(tmp_path, TOY_GT, {"res": TOY_DET})
    ds = open_dataset(split)
    return ds, open_results(ds, [tmp_path / "res"]), None


def _ilsvrc(tmp_path: Path) -> tuple[Any, Any, str | None]:
    from vocviewer.families.ilsvrc.reader import read_ilsvrc_det, read_ilsvrc_det_results

    gt, devkit, (pred, *_), _, _ = ilsvrc_case(tmp_path)
    ds = read_ilsvrc_det(gt, devkit)
    return ds, read_ilsvrc_det_results(ds, pred), None


#: family → (case, evaluator module and entry point, choice away from the default, extra
#: evaluations by design in one analysis + one bootstrap)
CASES = {
    "voc": (_voc, "voc.evaluate", "iter_evaluate_voc_det", ViewChoice(0.7, "all", "val"), 0),
    "coco": (_coco, "coco.evaluate", "iter_evaluate_coco", ViewChoice(0.7, "small"), 1),
    "lvis": (_lvis, "lvis.evaluate", "iter_evaluate_lvis", ViewChoice(0.75), 0),
    "visdrone": (_visdrone, "visdrone.evaluate", "evaluate_visdrone", ViewChoice(0.6), 0),
    "ilsvrc": (_ilsvrc, "ilsvrc.evaluate", "evaluate_ilsvrc_det", ViewChoice(0.5), 0),
}


@pytest.mark.parametrize("family", list(CASES))
def test_analyses_read_the_windows_evidence(tmp_path: Path, monkeypatch, family: str) -> None:
    case, module, entry, choice, by_design = CASES[family]
    ds, res, image_set = case(tmp_path)
    bench = benchmark_of(ds)
    for name in ("analyze", "view", "analyze_curves"):  # loaded first: their bindings count
        if importlib.util.find_spec(f"vocviewer.families.{family}.{name}") is not None:
            importlib.import_module(f"vocviewer.families.{family}.{name}")
    evaluator = getattr(importlib.import_module(f"vocviewer.families.{module}"), entry)
    calls = count_calls(monkeypatch, evaluator)
    window = collect(bench.evaluate_views(ds, res, choice), choice)  # the window's record
    assert len(calls) == 1  # the window's evaluation
    got = view_analysis(ds, res, image_set, window)
    boot = view_bootstrap(ds, [res], image_set, 50, 3, windows=[window])
    assert len(calls) == 1 + by_design, calls

    fresh = view_analysis(ds, res, image_set)  # the family's evaluator again: same numbers
    assert got is not None and fresh is not None and boot is not None
    assert got.tide.main == pytest.approx(fresh.tide.main, abs=1e-12)
    assert got.tide.special == pytest.approx(fresh.tide.special, abs=1e-12)
    assert set(got.characteristics) == set(fresh.characteristics)
    for name, c in got.characteristics.items():
        assert np.array_equal(c.mean, fresh.characteristics[name].mean, equal_nan=True)
    if fresh.curves is not None:
        assert got.curves is not None
        assert got.curves.overall.areas == pytest.approx(fresh.curves.overall.areas, nan_ok=True)
    again = view_bootstrap(ds, [res], image_set, 50, 3)
    assert again is not None
    assert json.dumps(boot.interval(res.name).__dict__) == json.dumps(
        again.interval(res.name).__dict__
    )
