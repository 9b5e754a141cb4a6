"""``vocviewer analyze`` on VOC det writes COCO ``analyze()``'s nested curves (JSON, summary
lines, figures), and the window's analyser gives the same curves: on the hand-worked devkit of
``test_voc_analyze_curves`` and on the demo."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.evaluation.test_voc_analyze_curves import assert_nested, hand_worked, write_devkit
from vocviewer.cli import main
from vocviewer.evaluation.analysis_curves import CURVE_NAMES
from vocviewer.evaluation.render.analyze_curves_svg import area_label
from vocviewer.families.registry import open_dataset, open_results
from vocviewer.families.view_analysis import view_analysis
from vocviewer.families.voc.analyze_curves import voc_curves
from vocviewer.families.voc.evaluate import evaluate_voc_det


def analyze(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[dict[str, Any], str]:
    out = Path(argv[-1])
    assert main(["analyze", *map(str, argv[:-1]), "--json", str(out)]) == 0
    return json.loads(out.read_text()), capsys.readouterr().out


def legend(areas: dict[str, float]) -> str:
    return " ".join(f"{area_label(v)} {k}" for k, v in areas.items())


def test_hand_worked_devkit_through_the_cli(tmp_path: Path, capsys) -> None:
    year_dir, res = write_devkit(tmp_path)
    figs = tmp_path / "figs"
    argv = (year_dir, "--results", res, "--bootstrap", 10, "--figures", figs, tmp_path / "a.json")
    payload, text = analyze(capsys, *argv)
    analysis = payload["sets"]["res"]["analysis"]
    expected = hand_worked()
    assert analysis["curves"] == list(CURVE_NAMES)
    assert analysis["ious"] == {"C75": 0.75, "C50": 0.5, "Loc": 0.1}
    assert analysis["recall_levels"] == 101
    assert_nested(analysis["categories"], expected)
    overall = {k: (expected["car"][k] + expected["dog"][k]) / 2 for k in CURVE_NAMES}
    assert analysis["overall"]["all"] == pytest.approx(overall, abs=1e-12)
    assert set(analysis["groups"]) == {"animals", "vehicles"}
    assert analysis["protocol_ap"]["overall"]["C50"] == payload["sets"]["res"]["mAP"]
    assert legend(overall) in text and "VOC AP (allpoints): C75 0.250" in text
    # one figure overall and one per similar group with a class here, valid SVG
    names = sorted(p.name for p in figs.glob("analyze_*"))
    assert names == ["analyze_res.svg", "analyze_res_animals.svg", "analyze_res_vehicles.svg"]
    svg = ET.parse(figs / "analyze_res_animals.svg").getroot()
    titles = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}title")]
    assert titles == list(CURVE_NAMES)
    shown = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")]
    assert f"{area_label(expected['dog']['Sim'])} Sim" in shown


def test_demo_json_equals_the_library_and_the_window(demo: Any, tmp_path: Path, capsys) -> None:
    argv = (demo.year_dir, "--results", demo.results_dir, "--bootstrap", 10, tmp_path / "d.json")
    payload, text = analyze(capsys, *argv)
    (entry,) = payload["sets"].values()
    ds = open_dataset(demo.year_dir)
    rs = open_results(ds, [demo.results_dir], image_set="val")
    ev = evaluate_voc_det(ds, rs, image_set="val")
    lib = voc_curves(ds, rs, ev)
    assert entry["analysis"] == json.loads(json.dumps(lib.to_json()))
    assert legend(lib.curves().areas) in text
    # the window's Analysis tab: the same curves, overall and per class (by class index)
    got = view_analysis(ds, rs, "val")
    assert got is not None and got.curves is not None
    assert got.curves.overall.areas == entry["analysis"]["overall"]["all"]
    per_class = {ds.classes[k]: c.areas for k, c in got.curves.per_class.items()}
    assert per_class == entry["analysis"]["categories"]
    averaged = [c.class_name for c in ev.classes if c.has_results and c.npos > 0]
    assert list(per_class) == averaged == list(lib.class_names) and len(averaged) >= 15
    bird = got.curves.per_class[ds.classes.index("bird")]
    assert bird.c50.tolist() == lib.curves(["bird"]).c50.tolist() and len(bird.recall) == 101


def test_classification_has_no_curves(demo: Any, tmp_path: Path, capsys) -> None:
    argv = (demo.year_dir, "--results", demo.results_dir, "--task", "cls", "--bootstrap", 5)
    payload, text = analyze(capsys, *argv, tmp_path / "c.json")
    assert all("analysis" not in e for e in payload["sets"].values())
    assert "analyze()-style" not in text
