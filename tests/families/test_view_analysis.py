"""``families.view_analysis`` (the window's Analysis tab) gives, for VisDrone and ILSVRC, what
``vocviewer analyze`` prints for the same result set: TIDE's breakdown, the characteristics and
the bootstrap interval of the mean AP; LVIS under its federated rules too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.parity.lvis_data import write_lvis
from tests.test_cli_analyze_families import TOY_DET, TOY_GT, ilsvrc_case, write_visdrone
from vocviewer.cli import main
from vocviewer.families.ilsvrc.reader import read_ilsvrc_det, read_ilsvrc_det_results
from vocviewer.families.view_analysis import not_analysed, view_analysis, view_bootstrap
from vocviewer.families.visdrone.reader import read_visdrone, read_visdrone_results


def _analyze(capsys, *argv) -> dict:
    out = Path(argv[-1])
    assert main(["analyze", *map(str, argv[:-1]), "--json", str(out)]) == 0
    capsys.readouterr()
    return json.loads(out.read_text())


def _same_as_cli(ds, res, entry, image_set=None) -> None:
    got = view_analysis(ds, res, image_set)
    assert got is not None
    assert got.tide.main == pytest.approx(entry["tide"]["main"], abs=1e-12)
    assert got.tide.special == pytest.approx(entry["tide"]["special"], abs=1e-12)
    chars = {k: v for k, v in entry["characteristics"].items() if isinstance(v, dict)}
    assert set(got.characteristics) == set(chars) and chars
    for name, c in got.characteristics.items():
        shown = [float("nan") if v is None else v for v in chars[name]["mean"]]
        assert c.mean.tolist() == pytest.approx(shown, nan_ok=True)
    sets = view_bootstrap(ds, [res], image_set, 200, 7)
    assert sets is not None
    boot = sets.interval(res.name)
    expected = entry["bootstrap"]["mAP"]
    assert boot.point == pytest.approx(expected["point"], abs=1e-12)
    assert [boot.low, boot.high] == pytest.approx(expected["ci"], abs=1e-12)
    assert boot.replicates == 200 and boot.seed == 7


def test_visdrone_as_analyze(tmp_path: Path, capsys) -> None:
    split = write_visdrone(tmp_path, TOY_GT, {"res": TOY_DET})
    args = ["--results", tmp_path / "res", "--bootstrap", 200, "--seed", 7]
    p = _analyze(capsys, split, *args, tmp_path / "v.json")
    ds = read_visdrone(split)
    res = read_visdrone_results(ds, [tmp_path / "res"])
    _same_as_cli(ds, res, p["sets"]["res"])
    # hand-worked (test_cli_analyze_families): ranks Bkg, TP, Loc over 2 positives
    assert view_analysis(ds, res, None).tide.ap == pytest.approx(51 * 0.5 / 101 * 100)
    assert view_bootstrap(ds, [res], None, 20).interval(res.name).percent


def test_visdrone_curves_and_pairs_as_analyze(tmp_path: Path, capsys) -> None:
    """The window's curves are the CLI's ``analysis``; two sets bootstrapped together give the
    CLI's paired difference and rank ranges (a set against itself: exactly 0)."""
    second = [[(20, 20, 10, 10, 0.99, 4), *TOY_DET[0][1:]]]  # the Loc box placed on B
    split = write_visdrone(tmp_path, TOY_GT * 2, {"a": TOY_DET * 2, "b": second * 2})
    args = ["--results", tmp_path / "a", tmp_path / "b", "--bootstrap", 200, "--seed", 3]
    p = _analyze(capsys, split, *args, tmp_path / "v.json")
    ds = read_visdrone(split)
    a = read_visdrone_results(ds, [tmp_path / "a"])
    b = read_visdrone_results(ds, [tmp_path / "b"])
    curves = view_analysis(ds, a, None).curves
    expected = p["sets"]["a"]["analysis"]
    assert curves.overall.areas == pytest.approx(expected["overall"]["all"], nan_ok=True)
    car = ds.classes.index("car")
    assert curves.per_class[car].areas == pytest.approx(expected["categories"]["car"])
    both = view_bootstrap(ds, [a, b], None, 200, 3)
    for name in ("a", "b"):
        got = both.interval(name)
        assert [got.point, got.low, got.high] == pytest.approx(
            [
                p["sets"][name]["bootstrap"]["mAP"]["point"],
                *p["sets"][name]["bootstrap"]["mAP"]["ci"],
            ]
        )
    pair = both.result.paired("a", "b", None, 0.95)
    cli = p["paired"][0]
    assert (
        pair.difference.point == pytest.approx(cli["difference"]) and pair.verdict == cli["verdict"]
    )
    same = view_bootstrap(ds, [a, b], None, 50, 1).result.paired("a", "a", None, 0.95)
    assert (same.difference.point, same.difference.low, same.difference.high) == (0, 0, 0)
    assert both.bands is not None and len(both.bands.recall_grid) == 101


def test_ilsvrc_as_analyze(tmp_path: Path, capsys) -> None:
    gt, devkit, (pred, *_), _, _ = ilsvrc_case(tmp_path)
    args = ["--devkit", devkit, "--results", pred, "--bootstrap", 200, "--seed", 7]
    p = _analyze(capsys, gt, *args, tmp_path / "i.json")
    ds = read_ilsvrc_det(gt, devkit)
    res = read_ilsvrc_det_results(ds, pred)
    _same_as_cli(ds, res, p["sets"]["pred.txt"])
    assert view_analysis(ds, res, None).tide.counts()["Cls"] == 1  # the hand-worked case


def test_lvis_as_analyze(tmp_path: Path, capsys) -> None:
    """LVIS's analyser is the CLI's: TIDE, characteristics, the bootstrap interval, the curves,
    and two sets' paired difference; its point is LVISEval's AP (``analyze`` prints it too)."""
    from vocviewer.families.lvis.evaluate import evaluate_lvis
    from vocviewer.families.registry import open_dataset, open_results

    ann, res_path = write_lvis(tmp_path, 3, ignore=True)
    other = tmp_path / "other.json"
    found = json.loads(res_path.read_text())
    other.write_text(json.dumps([{**r, "score": r["score"] * 0.5} for r in found[::2]]))
    args = ["--results", res_path, other, "--bootstrap", 200, "--seed", 7]
    p = _analyze(capsys, ann, *args, tmp_path / "l.json")
    ds = open_dataset(ann)
    res = open_results(ds, [res_path])
    assert not_analysed(ds) is None
    _same_as_cli(ds, res, p["sets"]["results.json"])
    assert p["sets"]["results.json"]["mAP"] == evaluate_lvis(ds, res).ap()
    curves = view_analysis(ds, res, None).curves
    expected = p["sets"]["results.json"]["analysis"]
    assert curves.overall.areas == pytest.approx(expected["overall"]["all"])
    for k, c in curves.per_class.items():
        assert c.areas == pytest.approx(expected["categories"][ds.classes[k]])
    assert len(curves.per_class) == sum(
        v["C50"] is not None for v in expected["categories"].values()
    )
    b = open_results(ds, [other])
    both = view_bootstrap(ds, [res, b], None, 200, 7)
    pair = both.result.paired(res.name, b.name, None, 0.95)
    cli = p["paired"][0]
    assert [pair.difference.point, pair.difference.low, pair.difference.high] == pytest.approx(
        [cli["difference"], *cli["ci"]]
    )
    assert pair.verdict == cli["verdict"]
    assert both.bands is not None and len(both.bands.recall_grid) == 101
