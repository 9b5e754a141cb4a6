"""``vocviewer analyze`` through the real CLI: on the embedded demo (VOC det / cls) and on
coco-mini with generated results. The numbers must equal the library's own calls and the official
evaluations; outputs inside the dataset are refused."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.evaluation.test_tide import gen_results
from vocviewer.cli import main
from vocviewer.evaluation.analysis_curves import CURVE_NAMES
from vocviewer.evaluation.normalised_ap import normalised_aps
from vocviewer.families.coco.analyze_curves import analyze_coco
from vocviewer.families.coco.columns import CocoAnnotations
from vocviewer.families.coco.evaluate import CocoParams, evaluate_coco
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results
from vocviewer.families.coco.tide import coco_tide
from vocviewer.families.registry import open_dataset, open_results
from vocviewer.families.voc.evaluate import evaluate_voc_cls, evaluate_voc_det
from vocviewer.families.voc.tide import voc_tide

ANN = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "coco-mini" / "annotations"
GT = ANN / "instances_val2017.json"
needs_mini = pytest.mark.skipif(not GT.is_file(), reason="coco-mini not available")


def run(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[int, str, str]:
    code = main(["analyze", *map(str, argv)])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def perturbed(demo: Any, folder: Path, seed: int) -> Path:
    """A second detector: the demo's detection files with every score jittered."""
    rng = np.random.default_rng(seed)
    out = folder / "Main"
    out.mkdir(parents=True)
    for f in sorted((demo.results_dir / "Main").glob("comp4_det_val_*.txt")):
        lines = []
        for line in f.read_text().splitlines():
            img, score, *box = line.split()
            lines.append(" ".join([img, f"{float(score) + rng.normal(0, 0.3):.6f}", *box]))
        (out / f.name).write_text("\n".join(lines) + "\n")
    return folder


def test_demo_det_json_equals_the_library(demo: Any, tmp_path: Path, capsys) -> None:
    out = tmp_path / "a.json"
    code, text, _ = run(
        capsys, demo.year_dir, "--results", demo.results_dir, "--bootstrap", 200, "--json", out
    )
    assert code == 0
    payload = json.loads(out.read_text())
    assert payload["protocol"] == "voc" and payload["task"] == "det"
    assert payload["image_set"] == "val" and "paired" not in payload
    (name,) = payload["sets"]
    entry = payload["sets"][name]
    dataset = open_dataset(demo.year_dir)
    results = open_results(dataset, [demo.results_dir], image_set="val")
    ev = evaluate_voc_det(dataset, results, image_set="val")
    # bootstrap point == the official mAP; the interval holds it
    boot = entry["bootstrap"]["mAP"]
    assert boot["point"] == ev.mean_ap() == entry["mAP"]
    assert boot["ci"][0] <= boot["point"] <= boot["ci"][1]
    assert boot["level"] == 0.95 and boot["replicates"] == 200
    for c in ev.classes:
        if c.has_results and not np.isnan(c.ap):
            assert entry["bootstrap"]["per_class"][c.class_name]["point"] == c.ap
            assert entry["per_class"][c.class_name]["ap"] == c.ap
    # TIDE == voc_tide, in tidecv's keys
    tide = voc_tide(dataset, results, ev, image_set="val")
    assert entry["tide"]["main"] == tide.main and entry["tide"]["special"] == tide.special
    assert set(entry["tide"]["main"]) == {"Cls", "Loc", "Both", "Dupe", "Bkg", "Miss"}
    assert set(entry["tide"]["special"]) == {"FalsePos", "FalseNeg"}
    # normalised AP beside AP, with the N used
    apn = normalised_aps(ev)
    n_pos = float(np.mean([c.npos for c in ev.classes if c.npos > 0]))  # sofa has none
    assert entry["normalised_ap"]["n_pos"] == pytest.approx(n_pos, abs=0)
    assert entry["per_class"]["person"]["ap_n"] == apn["person"]
    # the printed summary, with a per-class table: AP, its interval, AP_N
    assert f"{ev.mean_ap():.3f}" in text and "TIDE" in text and f"{tide.main['Loc']:.2f}" in text
    (row,) = [line.split() for line in text.splitlines() if line.startswith("person ")]
    lo, hi = entry["bootstrap"]["per_class"]["person"]["ci"]
    ap = ev.by_name("person").ap
    assert row == ["person", f"{ap:.3f}", f"[{lo:.3f},", f"{hi:.3f}]", f"{apn['person']:.3f}"]
    assert f"(AP_N, N = {n_pos:.1f})" in text


def test_paired_with_itself_is_exactly_zero_and_seed_reproduces(demo, tmp_path, capsys) -> None:
    outs = []
    for i in range(2):
        out = tmp_path / f"p{i}.json"
        code, text, _ = run(
            capsys,
            demo.year_dir,
            "--results",
            demo.results_dir,
            demo.results_dir,
            "--bootstrap",
            300,
            "--seed",
            7,
            "--json",
            out,
        )
        assert code == 0
        outs.append(json.loads(out.read_text()))
    assert outs[0] == outs[1]
    a, b = outs[0]["sets"]  # unique names
    assert b == f"{a}-2"
    (pair,) = outs[0]["paired"]
    assert pair["difference"] == 0.0 and pair["ci"] == [0.0, 0.0]
    assert pair["verdict"] == "no significant difference"
    assert "no significant difference" in text
    other = tmp_path / "o.json"
    assert (
        run(
            capsys,
            demo.year_dir,
            "--results",
            demo.results_dir,
            "--bootstrap",
            300,
            "--seed",
            8,
            "--json",
            other,
        )[0]
        == 0
    )
    ci7 = outs[0]["sets"][a]["bootstrap"]["mAP"]["ci"]
    assert json.loads(other.read_text())["sets"][a]["bootstrap"]["mAP"]["ci"] != ci7


def test_three_sets_give_ranks_and_figures(demo, tmp_path, capsys) -> None:
    second = perturbed(demo, tmp_path / "noisy", 1)
    out, figs = tmp_path / "r.json", tmp_path / "figs"
    code, text, _ = run(
        capsys,
        demo.year_dir,
        "--image-set",
        "val",
        "--results",
        demo.results_dir,
        second,
        demo.results_dir,
        "--bootstrap",
        200,
        "--json",
        out,
        "--figures",
        figs,
    )
    assert code == 0
    payload = json.loads(out.read_text())
    names = list(payload["sets"])
    assert len(payload["paired"]) == 3 and set(payload["ranks"]) == set(names)
    for r in payload["ranks"].values():
        assert 1 <= r["range"][0] <= r["range"][1] <= 3 and 1 <= r["rank"] <= 3
    noisy = payload["sets"]["noisy"]["mAP"]
    assert noisy != payload["sets"][names[0]]["mAP"]
    assert "rank by mAP" in text
    written = sorted(p.name for p in figs.iterdir())
    assert {f"tide_{n}.svg" for n in names} <= set(written) and "pr_person.svg" in written
    svg = (figs / "pr_person.svg").read_text()
    assert svg.count("<polygon") == 3 and svg.count("<polyline") == 3
    assert "<rect" in (figs / "tide_noisy.svg").read_text()


def test_demo_classification(demo, tmp_path, capsys) -> None:
    out = tmp_path / "c.json"
    code, _, _ = run(
        capsys,
        demo.year_dir,
        "--task",
        "cls",
        "--results",
        demo.results_dir,
        "--bootstrap",
        100,
        "--json",
        out,
    )
    assert code == 0
    entry = next(iter(json.loads(out.read_text())["sets"].values()))
    dataset = open_dataset(demo.year_dir)
    ev = evaluate_voc_cls(
        dataset, open_results(dataset, [demo.results_dir], image_set="val"), image_set="val"
    )
    assert entry["bootstrap"]["mAP"]["point"] == ev.mean_ap()
    assert "tide" not in entry and entry["normalised_ap"]["n_neg"] > 0
    assert entry["per_class"]["dog"]["ap_n"] == normalised_aps(ev)["dog"]


def test_output_inside_the_dataset_is_refused(demo, capsys) -> None:
    target = demo.year_dir / "analysis.json"
    code, _, err = run(capsys, demo.year_dir, "--results", demo.results_dir, "--json", target)
    assert code == 1 and "refusing to write inside" in err and not target.exists()
    figs = demo.devkit / "figs"
    code, _, err = run(capsys, demo.year_dir, "--results", demo.results_dir, "--figures", figs)
    assert code == 1 and "refusing to write inside" in err and not figs.exists()


def test_bad_arguments_give_a_message(demo, tmp_path, capsys) -> None:
    code, _, err = run(capsys, demo.year_dir, "--results", demo.results_dir, "--bootstrap", 0)
    assert code == 1 and "--bootstrap" in err
    code, _, err = run(capsys, demo.year_dir, "--results", demo.results_dir, "--level", 1.5)
    assert code == 1 and "--level" in err
    missing = tmp_path / "missing"
    code, _, err = run(capsys, demo.year_dir, "--results", missing)
    assert code == 1 and f"{missing}: no such file or folder" in err
    code, _, err = run(capsys, demo.year_dir, "--results", demo.results_dir, "--task", "bbox")
    assert code == 1 and "--task bbox: a VOCdevkit is analysed for det or cls" in err
    code, _, err = run(capsys, demo.year_dir, "--results", demo.results_dir, "--image-set", "x")
    assert code == 1 and "no results for image set 'x'" in err


@pytest.fixture(scope="module")
def coco_results(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    gt = json.loads(GT.read_text())
    folder = tmp_path_factory.mktemp("coco_res")
    paths = []
    for seed in (1, 2):
        p = folder / f"res{seed}.json"
        p.write_text(json.dumps(gen_results(gt, seed)))
        paths.append(p)
    return paths


@needs_mini
def test_coco_tide_and_bootstrap_equal_the_library(coco_results, tmp_path, capsys) -> None:
    out = tmp_path / "coco.json"
    code, text, _ = run(
        capsys, GT, "--results", *coco_results, coco_results[0], "--bootstrap", 100, "--json", out
    )
    assert code == 0
    payload = json.loads(out.read_text())
    assert payload["protocol"] == "coco" and list(payload["sets"]) == [
        "res1.json",
        "res2.json",
        "res1.json-2",
    ]
    dataset = read_coco(GT, None, masks=False)
    for path, name in zip(coco_results, ("res1.json", "res2.json"), strict=True):
        results = read_coco_results(dataset, path, task="bbox")
        entry = payload["sets"][name]
        tide = coco_tide(dataset, results)
        assert entry["tide"]["main"] == tide.main and entry["tide"]["special"] == tide.special
        stats = evaluate_coco(dataset, results, CocoParams.for_task("bbox")).stats()
        boot = entry["bootstrap"]
        assert abs(boot["mAP"]["point"] - stats["AP"]) <= 1e-12
        assert abs(boot["AP50"]["point"] - stats["AP50"]) <= 1e-12
        assert "AP@[.50:.95]" in boot["mAP"]["metric"] and "AP@0.50" in boot["AP50"]["metric"]
        for key in ("mAP", "AP50"):
            assert boot[key]["ci"][0] < boot[key]["ci"][1]
    pairs = {(p["a"], p["b"]): p for p in payload["paired"]}
    same = pairs[("res1.json", "res1.json-2")]
    assert same["difference"] == 0.0 and same["verdict"] == "no significant difference"
    assert "ranks" in payload and "res2.json" in text


@needs_mini
def test_coco_figures_and_refusal(coco_results, tmp_path, capsys) -> None:
    figs = tmp_path / "figs"
    code, _, _ = run(capsys, GT, "--results", coco_results[0], "--bootstrap", 20, "--figures", figs)
    assert code == 0
    assert (figs / "tide_res1.svg").is_file() and (figs / "pr_person.svg").is_file()
    code, _, err = run(capsys, GT, "--results", coco_results[0], "--json", ANN / "x.json")
    assert code == 1 and "refusing" in err


@pytest.mark.parametrize(("fmt", "magic"), [("png", b"\x89PNG"), ("pdf", b"%PDF")])
def test_png_and_pdf_figures(demo, tmp_path, capsys, fmt: str, magic: bytes) -> None:
    figs = tmp_path / fmt
    code, text, _ = run(
        capsys,
        demo.year_dir,
        "--results",
        demo.results_dir,
        "--bootstrap",
        20,
        "--figures",
        figs,
        "--format",
        fmt,
    )
    assert code == 0
    tide = figs / f"tide_{demo.results_dir.name}.{fmt}"
    assert str(tide) in text and tide.read_bytes().startswith(magic)
    assert (figs / f"pr_person.{fmt}").read_bytes().startswith(magic)
    assert not list(figs.glob("*.svg"))


def test_progress_goes_to_a_terminal_only(demo, capsys, monkeypatch) -> None:
    assert (
        "bootstrap"
        not in run(capsys, demo.year_dir, "--results", demo.results_dir, "--bootstrap", 40)[2]
    )
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    err = run(capsys, demo.year_dir, "--results", demo.results_dir, "--bootstrap", 40)[2]
    assert "\rbootstrap 2/40" in err and "\rbootstrap 40/40" in err


def test_lost_ground_truth_stops_analyze_unless_keep_going(demo, tmp_path, capsys):
    """As for ``eval``: an object left out of the ground truth (here a non-numeric ``xmin``)
    stops the analysis; ``--keep-going`` analyses the rest and marks it NOT OFFICIAL."""
    import shutil

    root = tmp_path / "data"
    shutil.copytree(demo.devkit, root)
    year = root / demo.year_dir.name
    xml = sorted((year / "Annotations").glob("*.xml"))[0]
    text = xml.read_text()
    start = text.index("<xmin>") + len("<xmin>")
    xml.write_text(text[:start] + "abc" + text[text.index("</xmin>") :])
    results = root / "results" / demo.year_dir.name
    out = tmp_path / "out" / "a.json"
    code, _, err = run(capsys, year, "--results", results, "--bootstrap", 20, "--json", out)
    assert code == 1 and f"{xml.name}:" in err and "--keep-going" in err and not out.exists()
    args = (year, "--results", results, "--bootstrap", 20, "--json", out, "--keep-going")
    code, _, err = run(capsys, *args)
    assert code == 0 and "NOT OFFICIAL" in err
    assert json.loads(out.read_text())["official"] is False


@needs_mini
def test_coco_analyze_areas_equal_the_library(coco_results, tmp_path, capsys) -> None:
    """``"analysis"``: the areas of ``analyze_coco`` overall (every area range), per
    supercategory and per category (area all); the summary prints the overall legend."""
    out = tmp_path / "coco.json"
    code, text, _ = run(capsys, GT, "--results", *coco_results, "--bootstrap", 10, "--json", out)
    assert code == 0
    payload = json.loads(out.read_text())
    dataset = read_coco(GT, None, masks=False)
    for path in coco_results:
        analysis = payload["sets"][path.name]["analysis"]
        a = analyze_coco(dataset, read_coco_results(dataset, path, task="bbox"), CocoParams())
        assert analysis["curves"] == list(CURVE_NAMES) and analysis["max_dets"] == 100
        assert set(analysis["overall"]) == set(a.area_names) == {"all", "small", "medium", "large"}
        for area in a.area_names:
            assert analysis["overall"][area] == a.overall(area).areas
        assert analysis["supercategories"] == {
            s: a.supercategory(s).areas for s in a.supercategory_names
        }
        assert analysis["categories"] == {
            n: a.category(int(c)).areas
            for c, n in zip(a.category_ids, a.category_names, strict=True)
        }
        assert "precision" not in json.dumps(analysis)  # areas only, the curves are in figures
        assert analysis["overall"]["all"]["FN"] == 1.0
        areas = analysis["overall"]["all"]
        # only these steps are guaranteed (C75 <= C50 <= Loc is not: COCO's greedy matching with
        # crowd and out-of-range ignores, see evaluation/coco_analyze.py)
        assert 0 < areas["Loc"] <= areas["Sim"] <= areas["Oth"] <= areas["BG"] <= 1
        legend = " ".join(
            f"[{v:.3f}] {k}".replace("[0.", "[.").replace("[1.000]", "[1.00]")
            for k, v in a.overall().areas.items()
        )
        assert f"{path.name}" in text and legend in text


@needs_mini
@pytest.mark.parametrize(("fmt", "magic"), [("svg", b"<?xml"), ("png", b"\x89PNG")])
def test_coco_analyze_figures(coco_results, tmp_path, capsys, fmt: str, magic: bytes) -> None:
    """One stacked-area figure overall and one per supercategory, valid SVG / PNG."""
    from xml.etree import ElementTree

    figs = tmp_path / "figs"
    args = ("--results", coco_results[0], "--bootstrap", 10, "--figures", figs, "--format", fmt)
    code, text, _ = run(capsys, GT, *args)
    assert code == 0
    dataset = read_coco(GT, None, masks=False)
    sups = sorted(set(dataset.data(CocoAnnotations).supercategory))
    names = [f"analyze_res1.{fmt}", *(f"analyze_res1_{s}.{fmt}" for s in sups)]
    for name in names:
        data = (figs / name).read_bytes()
        assert data.startswith(magic) and str(figs / name) in text
    if fmt == "svg":
        root = ElementTree.fromstring((figs / names[0]).read_bytes())
        ns = "{http://www.w3.org/2000/svg}"
        assert len(root.findall(f"{ns}polygon")) == len(CURVE_NAMES)
        legend = [t.text or "" for t in root.iter(f"{ns}text")]
        assert any(t.endswith("] C75") for t in legend) and "[1.00] FN" in legend
    else:
        from PySide6.QtGui import QImage

        image = QImage(str(figs / names[0]))
        assert not image.isNull() and image.width() > 300
    code, _, err = run(capsys, GT, "--results", coco_results[0], "--figures", ANN / "figs")
    assert code == 1 and "refusing" in err and not (ANN / "figs").exists()


def test_per_class_files_of_one_competition_are_one_set(demo, tmp_path, capsys) -> None:
    """``--results comp4_det_val_*.txt`` (as a shell expands it) is one set, as ``eval`` reads
    it; a folder given twice is two sets."""
    files = sorted((demo.results_dir / "Main").glob("comp4_det_val_*.txt"))
    out = tmp_path / "g.json"
    code, _, _ = run(capsys, demo.year_dir, "--results", *files, "--bootstrap", 20, "--json", out)
    assert code == 0
    sets = json.loads(out.read_text())["sets"]
    assert list(sets) == ["comp4"] and sets["comp4"]["files"] == len(files)
    dataset = open_dataset(demo.year_dir)
    ev = evaluate_voc_det(dataset, open_results(dataset, files, image_set="val"), image_set="val")
    assert sets["comp4"]["mAP"] == ev.mean_ap()
