"""One evaluation per result set: ``vocviewer eval`` and the Python API render the official layout
and JSON from the evidence the window gets (the family's ``evaluate_views`` stream, collected into
one ``families.evidence.Evidence``), calling the family's evaluator once per result set."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import vocviewer
from vocviewer.cli import main
from vocviewer.families import registry
from vocviewer.families.evidence import Evidence, collect
from vocviewer.families.views import ClassView, Summary, ViewChoice


def _count(monkeypatch: pytest.MonkeyPatch, module: Any, name: str, calls: Counter[str]) -> None:
    """Count the calls of ``module.name`` (the real function still runs)."""
    real: Callable[..., Any] = getattr(module, name)

    def counted(*args: Any, **kw: Any) -> Any:
        calls[name] += 1
        return real(*args, **kw)

    monkeypatch.setattr(module, name, counted)


@pytest.fixture
def voc_calls(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    from vocviewer.families.voc import evaluate as voc_evaluate
    from vocviewer.families.voc import view as voc_view

    calls: Counter[str] = Counter()
    for name in ("evaluate_voc_views", "iter_evaluate_voc_det", "iter_evaluate_voc_cls"):
        _count(monkeypatch, voc_view, name, calls)
    for name in ("evaluate_voc_det", "evaluate_voc_cls"):  # the old CLI-only path
        _count(monkeypatch, voc_evaluate, name, calls)
    return calls


def test_voc_eval_of_the_demo_evaluates_once_per_result_set(demo, voc_calls, capsys) -> None:
    assert main(["eval", str(demo.year_dir), "--results", str(demo.results_dir)]) == 0
    assert "mAP" in capsys.readouterr().out
    assert voc_calls == Counter(evaluate_voc_views=1, iter_evaluate_voc_det=1)
    voc_calls.clear()
    # two result sets (two folders): each evaluated once, by the window's evaluator
    sets = [str(demo.results_dir), str(demo.results_dir / "Main")]
    assert main(["eval", str(demo.year_dir), "--results", *sets]) == 0
    assert "summary of 2 result sets" in capsys.readouterr().out
    assert voc_calls == Counter(evaluate_voc_views=2, iter_evaluate_voc_det=2)
    voc_calls.clear()
    cls = ["eval", str(demo.year_dir), "--results", str(demo.results_dir), "--task", "cls"]
    assert main(cls) == 0
    assert voc_calls == Counter(evaluate_voc_views=1, iter_evaluate_voc_cls=1)


def test_the_api_evaluates_once_from_the_same_evidence(demo, voc_calls) -> None:
    ev = vocviewer.evaluate(demo.year_dir, demo.results_dir)
    assert voc_calls == Counter(evaluate_voc_views=1, iter_evaluate_voc_det=1)
    # the window's evidence for the same choice holds the same numbers
    voc = registry.get("voc")
    dataset = voc.read_dataset(demo.year_dir, {})
    results = voc.read_results(dataset, [demo.results_dir], image_set="val")
    choice = ViewChoice(0.5, image_set="val")
    evidence = collect(voc.evaluate_views(dataset, results, choice), choice)
    assert isinstance(evidence, Evidence) and evidence.official
    assert isinstance(evidence.summary, Summary)
    assert evidence.summary.stats["mAP"] == pytest.approx(ev.summary["mAP"])
    by_name = {v.evaluation.class_name: v for v in evidence.views("det")}
    assert all(isinstance(v, ClassView) for v in by_name.values())
    for name, numbers in ev.per_class.items():
        ap = by_name[name].evaluation.ap
        assert numbers["ap"] == pytest.approx(ap, nan_ok=True)


def _coco_files(tmp_path: Path) -> tuple[Path, list[Path]]:
    gt = {
        "images": [{"id": i, "width": 64, "height": 48, "file_name": f"{i}.jpg"} for i in (1, 2)],
        "categories": [{"id": 3, "name": "box"}, {"id": 5, "name": "disc"}],
        "annotations": [
            {"id": 1, "image_id": 1, "category_id": 3, "bbox": [8, 8, 20, 10], "area": 200.0},
            {"id": 2, "image_id": 2, "category_id": 5, "bbox": [4, 4, 30, 30], "area": 900.0},
        ],
    }
    for a in gt["annotations"]:
        a["iscrowd"] = 0
    ann = tmp_path / "gt.json"
    ann.write_text(json.dumps(gt))
    sets = []
    for i, dx in enumerate((0, 3)):
        dt = [
            {"image_id": 1, "category_id": 3, "bbox": [8 + dx, 8, 20, 10], "score": 0.9},
            {"image_id": 2, "category_id": 5, "bbox": [4, 4 + dx, 30, 30], "score": 0.8},
            {"image_id": 2, "category_id": 3, "bbox": [40, 4, 10, 10], "score": 0.3},
        ]
        sets.append(tmp_path / f"dt{i}.json")
        sets[-1].write_text(json.dumps(dt))
    return ann, sets


def test_coco_eval_evaluates_once_per_result_set(tmp_path, monkeypatch, capsys) -> None:
    from vocviewer.families.coco import evaluate as coco_evaluate
    from vocviewer.families.coco import view as coco_view

    calls: Counter[str] = Counter()
    for name in ("evaluate_coco_views", "iter_evaluate_coco"):
        _count(monkeypatch, coco_view, name, calls)
    _count(monkeypatch, coco_evaluate, "evaluate_coco", calls)  # the old CLI-only path
    ann, sets = _coco_files(tmp_path)
    assert main(["eval", str(ann), "--results", str(sets[0])]) == 0
    assert "Average Precision" in capsys.readouterr().out
    assert calls == Counter(evaluate_coco_views=1, iter_evaluate_coco=1)
    calls.clear()
    assert main(["eval", str(ann), "--results", *map(str, sets)]) == 0
    assert "summary of 2 result sets" in capsys.readouterr().out
    assert calls == Counter(evaluate_coco_views=2, iter_evaluate_coco=2)
    calls.clear()
    coco = vocviewer.evaluate(ann, sets[1])
    assert calls == Counter(evaluate_coco_views=1, iter_evaluate_coco=1)
    assert coco.benchmark == "coco" and 0 < coco.summary["AP"] < 1


def test_diagnosis_is_a_parameter_of_the_evaluation_not_shared_state(demo, monkeypatch) -> None:
    """The CLI asks for no false-positive diagnosis (``diagnose=False``); a window evaluation
    running meanwhile (interleaved, as the window's threads may) still diagnoses its views."""
    from vocviewer.families import views

    voc = registry.get("voc")
    dataset = voc.read_dataset(demo.year_dir, {})
    results = voc.read_results(dataset, [demo.results_dir], image_set="val")
    choice = ViewChoice(0.5, image_set="val")
    plain = voc.evaluate_views(dataset, results, choice, diagnose=False)
    window = voc.evaluate_views(dataset, results, choice)
    pairs = list(zip(plain, window, strict=True))
    det = [(a, b) for a, b in pairs if isinstance(a, ClassView) and a.evaluation.task == "det"]
    assert det and all(a.false_positives is None for a, _ in det)
    assert all(b.false_positives is not None for _, b in det)
    assert [a.evaluation.ap for a, _ in det] == pytest.approx(
        [b.evaluation.ap for _, b in det], nan_ok=True
    )
    calls: Counter[str] = Counter()
    _count(monkeypatch, views, "classify_false_positives", calls)
    assert main(["eval", str(demo.year_dir), "--results", str(demo.results_dir)]) == 0
    assert calls == Counter()  # the printed layout needs no diagnosis


def test_lvis_eval_evaluates_once_per_result_set(tmp_path, monkeypatch, capsys) -> None:
    pytest.importorskip("pycocotools")
    from tests.parity.lvis_data import write_lvis
    from vocviewer.families.lvis import evaluate as lvis_evaluate
    from vocviewer.families.lvis import view as lvis_view

    calls: Counter[str] = Counter()
    for name in ("evaluate_lvis_views", "iter_evaluate_lvis"):
        _count(monkeypatch, lvis_view, name, calls)
    _count(monkeypatch, lvis_evaluate, "evaluate_lvis", calls)  # the old CLI-only path
    ann, res = write_lvis(tmp_path, 21, kind="bbox")
    assert main(["eval", str(ann), "--results", str(res)]) == 0
    assert "catIds=all]" in capsys.readouterr().out
    assert calls == Counter(evaluate_lvis_views=1, iter_evaluate_lvis=1)
    calls.clear()
    lvis = vocviewer.evaluate(ann, res)
    assert calls == Counter(evaluate_lvis_views=1, iter_evaluate_lvis=1)
    assert lvis.benchmark == "lvis" and 0 < lvis.summary["AP"] < 1


def test_visdrone_eval_evaluates_once_per_result_set(tmp_path, monkeypatch, capsys) -> None:
    from tests.evaluation.test_visdrone_reference import write_split
    from vocviewer.families.visdrone import view as visdrone_view

    calls: Counter[str] = Counter()
    for name in ("evaluate_visdrone_views", "evaluate_visdrone"):
        _count(monkeypatch, visdrone_view, name, calls)
    images = [
        ([(0, 0, 10, 10, 1, 4), (20, 20, 10, 10, 1, 1)], [(0, 0, 10, 10, 0.9, 4)], 0, 0),
        ([(0, 0, 10, 10, 1, 4)], [(0, 0, 10, 12, 0.9, 4), (5, 5, 5, 5, 0.5, 9)], 0, 0),
    ]
    split, res = write_split(tmp_path, images)
    assert main(["eval", str(split), "--results", str(res), "--protocol", "visdrone"]) == 0
    assert "maxDets=500" in capsys.readouterr().out
    # the toolkit's evaluator once, reached through the window's stream (not beside it)
    assert calls == Counter(evaluate_visdrone_views=1, evaluate_visdrone=1)
    calls.clear()
    visdrone = vocviewer.evaluate(split, res)
    assert calls == Counter(evaluate_visdrone_views=1, evaluate_visdrone=1)
    assert visdrone.benchmark == "visdrone" and visdrone.per_class["car"]["ap"] > 0


def test_ilsvrc_det_eval_evaluates_once_per_result_set(tmp_path, monkeypatch, capsys) -> None:
    from tests.evaluation.test_ilsvrc import write_fixture
    from vocviewer.families.ilsvrc import view as ilsvrc_view

    calls: Counter[str] = Counter()
    for name in ("evaluate_ilsvrc_views", "evaluate_ilsvrc_det"):
        _count(monkeypatch, ilsvrc_view, name, calls)
    images = [[(0, 1, 1, 50, 50), (1, 5, 5, 30, 30)], [(0, 1, 1, 40, 40)]]
    preds = [(1, 1, 0.9, 1, 1, 50, 50), (2, 1, 0.8, 1, 1, 10, 10), (1, 2, 0.7, 5, 5, 30, 30)]
    gt, devkit, pred = write_fixture(tmp_path, images, preds)
    argv = ["eval", str(gt), "--results", str(pred), "--task", "det", "--devkit", str(devkit)]
    assert main(argv) == 0
    assert "Mean AP:" in capsys.readouterr().out
    # the devkit's evaluator once, reached through the window's stream (not beside it)
    assert calls == Counter(evaluate_ilsvrc_views=1, evaluate_ilsvrc_det=1)
    calls.clear()
    ilsvrc = vocviewer.evaluate(gt, pred, task="det", devkit=devkit)
    assert calls == Counter(evaluate_ilsvrc_views=1, evaluate_ilsvrc_det=1)
    assert ilsvrc.benchmark == "ilsvrc" and ilsvrc.per_class["name 1"]["ap"] > 0


BEYOND = ["--bootstrap", "2", "--operating-point", "--calibration", "--lrp"]


def test_voc_analyze_evaluates_once_per_result_set_beyond_ap_included(
    demo, voc_calls, capsys
) -> None:
    """TIDE, characteristics, curves, bootstrap and the analyses beyond AP all read the one
    evaluation of each set (``iter_evaluate_voc_det`` once per set; ``evaluate_voc_det`` (the old
    path) never; the cls evaluator never, though the window's defaults hold cls too)."""
    sets = [str(demo.results_dir), str(demo.results_dir / "Main")]
    argv = ["analyze", str(demo.year_dir), "--results", *sets, *BEYOND]
    assert main(argv) == 0
    assert "optimal LRP at IoU 0.50" in capsys.readouterr().out
    assert voc_calls == Counter(evaluate_voc_views=2, iter_evaluate_voc_det=2)
    voc_calls.clear()
    assert main(argv[:4] + BEYOND) == 0  # one set
    capsys.readouterr()
    assert voc_calls == Counter(evaluate_voc_views=1, iter_evaluate_voc_det=1)


def test_the_api_beyond_ap_evaluates_the_detections_only(demo, voc_calls) -> None:
    """``vocviewer.beyond_ap`` reads detections: the demo's results hold classification scores
    too, which it leaves unevaluated (one detection evaluation, no classification one); given
    the evidence a caller has, it evaluates nothing."""
    import vocviewer
    from vocviewer.families.beyond_ap import beyond_ap, evidence_for
    from vocviewer.families.registry import open_dataset, open_results

    def evaluated() -> tuple[int, int]:  # (detection, classification) evaluations
        return voc_calls["iter_evaluate_voc_det"], voc_calls["iter_evaluate_voc_cls"]

    b = vocviewer.beyond_ap(demo.year_dir, demo.results_dir, image_set="val")
    assert evaluated() == (1, 0)
    ds = open_dataset(demo.year_dir)
    res = open_results(ds, [demo.results_dir], image_set="val")
    assert len(res.class_scores) > 0  # the results do hold classification
    voc_calls.clear()
    evidence = evidence_for(ds, res, "val")
    assert evaluated() == (1, 0)
    voc_calls.clear()
    again = vocviewer.beyond_ap(ds, res, evidence=evidence)
    assert (
        not voc_calls and again.to_dict() == b.to_dict() == beyond_ap(ds, res, evidence).to_dict()
    )


def test_coco_analyze_evaluates_once_per_result_set_beyond_ap_included(
    tmp_path, monkeypatch, capsys
) -> None:
    """COCOeval at the protocol's parameters once per set (the views' stream), beyond AP
    included; ``analyze()``'s curves evaluate at their own parameters (IoU .75 / .5 / .1: another
    setting), once per set."""
    from vocviewer.families.coco import analyze_curves
    from vocviewer.families.coco import evaluate as coco_evaluate
    from vocviewer.families.coco import view as coco_view

    calls: Counter[str] = Counter()
    for name in ("evaluate_coco_views", "iter_evaluate_coco"):
        _count(monkeypatch, coco_view, name, calls)
    _count(monkeypatch, coco_evaluate, "evaluate_coco", calls)  # the old analyze-only path
    curves: Counter[str] = Counter()
    _count(monkeypatch, analyze_curves, "evaluate_coco", curves)  # another setting
    ann, sets = _coco_files(tmp_path)
    assert main(["analyze", str(ann), "--results", *map(str, sets), *BEYOND]) == 0
    assert "optimal LRP at IoU 0.50" in capsys.readouterr().out
    assert calls == Counter(evaluate_coco_views=2, iter_evaluate_coco=2)
    assert curves == Counter(evaluate_coco=2)


def test_visdrone_and_ilsvrc_analyze_evaluate_once_per_result_set(
    tmp_path, monkeypatch, capsys
) -> None:
    from tests.evaluation.test_ilsvrc import write_fixture
    from tests.evaluation.test_visdrone_reference import write_split
    from vocviewer.families.ilsvrc import view as ilsvrc_view
    from vocviewer.families.visdrone import view as visdrone_view

    calls: Counter[str] = Counter()
    _count(monkeypatch, visdrone_view, "evaluate_visdrone", calls)
    _count(monkeypatch, ilsvrc_view, "evaluate_ilsvrc_det", calls)
    images = [
        ([(0, 0, 10, 10, 1, 4), (20, 20, 10, 10, 1, 1)], [(0, 0, 10, 10, 0.9, 4)], 0, 0),
        ([(0, 0, 10, 10, 1, 4)], [(0, 0, 10, 12, 0.9, 4), (5, 5, 5, 5, 0.5, 9)], 0, 0),
    ]
    split, res = write_split(tmp_path / "visdrone", images)
    assert main(["analyze", str(split), "--results", str(res), *BEYOND]) == 0
    assert calls == Counter(evaluate_visdrone=1)
    calls.clear()
    boxes = [[(0, 1, 1, 50, 50), (1, 5, 5, 30, 30)], [(0, 1, 1, 40, 40)]]
    preds = [(1, 1, 0.9, 1, 1, 50, 50), (2, 1, 0.8, 1, 1, 10, 10), (1, 2, 0.7, 5, 5, 30, 30)]
    gt, devkit, pred = write_fixture(tmp_path / "ilsvrc", boxes, preds)
    argv = ["analyze", str(gt), "--results", str(pred), "--devkit", str(devkit), *BEYOND]
    assert main(argv) == 0
    assert calls == Counter(evaluate_ilsvrc_det=1)
    capsys.readouterr()
