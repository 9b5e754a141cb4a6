"""``vocviewer analyze`` on VisDrone-DET and ILSVRC DET through the real CLI: hand-worked TIDE
cases on each protocol's own verdicts, the bootstrap points equal to the official numbers, the
JSON layout, and the figures."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.evaluation.test_ilsvrc import reference as ilsvrc_reference
from tests.evaluation.test_ilsvrc import write_fixture
from tests.evaluation.test_visdrone_reference import reference as visdrone_reference
from vocviewer.cli import main
from vocviewer.evaluation.tide import KIND_NAMES
from vocviewer.families.ilsvrc.evaluate import evaluate_ilsvrc_det
from vocviewer.families.ilsvrc.reader import read_ilsvrc_det, read_ilsvrc_det_results
from vocviewer.families.ilsvrc.tide import ilsvrc_evidence
from vocviewer.families.visdrone.analyze import visdrone_curves
from vocviewer.families.visdrone.bootstrap import engine_points, visdrone_evidence
from vocviewer.families.visdrone.evaluate import evaluate_visdrone
from vocviewer.families.visdrone.reader import read_visdrone, read_visdrone_results
from vocviewer.families.visdrone.tide import visdrone_evidence as visdrone_tide_evidence
from vocviewer.families.visdrone.tide import visdrone_tide

MAIN = {"Cls", "Loc", "Both", "Dupe", "Bkg", "Miss"}


def run(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[int, str, str]:
    code = main(["analyze", *map(str, argv)])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def write_visdrone(root: Path, gts: list[list[tuple]], sets: dict[str, list[list[tuple]]]) -> Path:
    """A split with ``gts[i]`` rows ``(x, y, w, h, score, category, truncation, occlusion)`` and
    one result folder per set (rows ``(x, y, w, h, score, category)``)."""
    split = root / "split"
    (split / "annotations").mkdir(parents=True)
    (split / "images").mkdir()
    for i, rows in enumerate(gts):
        text = "".join(",".join(str(v) for v in r) + "\n" for r in rows)
        (split / "annotations" / f"{i:04d}.txt").write_text(text)
    for name, per_image in sets.items():
        (root / name).mkdir()
        for i, rows in enumerate(per_image):
            text = "".join(",".join(str(v) for v in r) + ",-1,-1\n" for r in rows)
            (root / name / f"{i:04d}.txt").write_text(text)
    return split


# one image: cars A (0,0,10,10) and B (20,20,10,10), an ignore-flagged car C (60,0,10,10)
TOY_GT = [[(0, 0, 10, 10, 1, 4, 0, 0), (20, 20, 10, 10, 1, 4, 1, 2), (60, 0, 10, 10, 0, 4, 0, 0)]]
TOY_DET = [
    [
        (50, 50, 5, 5, 0.95, 4),  # background (no overlap) → Bkg
        (0, 0, 10, 10, 0.9, 4),  # TP on A
        (25, 20, 10, 10, 0.8, 4),  # IoU 50 / 150 = 1/3 with B → Loc
        (60, 0, 10, 10, 0.7, 4),  # on the ignore-flagged C → ignored by the toolkit
        (0, 0, 10, 10, 0.6, 11),  # "others": never evaluated
    ]
]


def test_visdrone_tide_hand_worked(tmp_path: Path) -> None:
    """TIDE's 101-point AP on the toolkit's verdicts: ranks Bkg, TP, Loc over 2 positives give
    precision .5 up to recall .5 → 51 · .5 / 101 · 100; fixing Loc makes ranks FP, TP, TP →
    2/3 at every recall level; removing the Bkg error gives 1 up to recall .5."""
    split = write_visdrone(tmp_path, TOY_GT, {"res": TOY_DET})
    ds = read_visdrone(split)
    res = read_visdrone_results(ds, [tmp_path / "res"])
    ev = evaluate_visdrone(ds, res)
    assert ev.verdict[:, 0].tolist() == [0, 1, 0, -1, -2]
    t = visdrone_tide(ds, res, ev)
    base = 51 * 0.5 / 101 * 100
    assert t.ap == pytest.approx(base, abs=1e-12)
    assert t.main["Loc"] == pytest.approx(200 / 3 - base, abs=1e-12)
    assert t.main["Bkg"] == pytest.approx(51 / 101 * 100 - base, abs=1e-12)
    assert t.main["Cls"] == t.main["Dupe"] == t.main["Miss"] == 0.0
    e = visdrone_tide_evidence(ds, res, ev)
    assert [KIND_NAMES[int(k)] for k in e.kind] == ["Bkg", "TP", "Loc", "Bkg", "-"]
    assert e.ignored.tolist() == [False, False, False, True, False]
    assert e.gt_counted.tolist() == [True, True, False]  # the ignore-flagged car is no positive


def test_visdrone_nested_curves_hand_worked(tmp_path: Path) -> None:
    """Car's ranks FP, TP, FP (IoU 1/3), ignored over 3 positives (the ignore-flagged car counts,
    as in the toolkit's recall): C50 keeps precision .5 up to recall 1/3 (34 of the 101 levels);
    at IoU 0.1 the third detection is a TP, 2/3 up to recall 2/3 (67 levels); BG is 1 there."""
    split = write_visdrone(tmp_path, TOY_GT, {"res": TOY_DET})
    ds = read_visdrone(split)
    res = read_visdrone_results(ds, [tmp_path / "res"])
    car = visdrone_curves(ds, res, evaluate_visdrone(ds, res)).to_json()["categories"]["car"]
    expected = {"C75": 17 / 101, "C50": 17 / 101, "Loc": 67 * 2 / 3 / 101, "BG": 67 / 101}
    expected |= {"Sim": expected["Loc"], "Oth": expected["Loc"], "FN": 1.0}
    assert car == pytest.approx(expected, abs=1e-12)


def random_visdrone(rng: np.random.Generator, n_img: int, quality: float) -> tuple[list, list]:
    gts, dets = [], []
    for _ in range(n_img):
        g, d = [], []
        for _ in range(int(rng.integers(3, 9))):
            x, y = (int(v) for v in rng.integers(0, 300, 2))
            w, h = (int(v) for v in rng.integers(6, 60, 2))
            cat = int(rng.integers(1, 11))
            g.append(
                (
                    x,
                    y,
                    w,
                    h,
                    int(rng.random() > 0.1),
                    cat,
                    int(rng.integers(0, 2)),
                    int(rng.integers(0, 3)),
                )
            )
            if rng.random() < quality:
                j = rng.normal(0, 0.2 * (1.2 - quality), 4)
                d.append(
                    (
                        round(x + j[0] * w, 1),
                        round(y + j[1] * h, 1),
                        round(w * (1 + j[2]), 1),
                        round(h * (1 + j[3]), 1),
                        round(float(rng.random()), 3),
                        cat if rng.random() > 0.1 else int(rng.integers(1, 11)),
                    )
                )
        for _ in range(int(rng.integers(0, 4))):
            d.append(
                (
                    int(rng.integers(0, 300)),
                    int(rng.integers(0, 300)),
                    20,
                    20,
                    round(float(rng.random() * 0.5), 3),
                    int(rng.integers(1, 11)),
                )
            )
        gts.append(g)
        dets.append(d)
    return gts, dets


@pytest.fixture(scope="module")
def visdrone_split(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path], list]:
    root = tmp_path_factory.mktemp("visdrone")
    rng = np.random.default_rng(3)
    gts, good = random_visdrone(rng, 25, 0.85)
    weak = [[(*r[:4], round(r[4] * 0.5, 3), r[5]) for r in d[::2]] for d in good]
    split = write_visdrone(root, gts, {"good": good, "weak": weak})
    ref = [([(*r[:6],) for r in g], d, 0, 0) for g, d in zip(gts, good, strict=True)]
    return split, [root / "good", root / "weak"], ref


def test_visdrone_cli_json_and_figures(visdrone_split: Any, tmp_path: Path, capsys) -> None:
    split, sets, ref = visdrone_split
    out, figs = tmp_path / "v.json", tmp_path / "figs"
    argv = [split, "--results", *sets, "--bootstrap", 200, "--json", out, "--figures", figs]
    code, text, err = run(capsys, *argv)
    assert code == 0, err
    p = json.loads(out.read_text())
    assert p["protocol"] == "visdrone" and p["task"] == "det" and p["official"]
    good = p["sets"]["good"]
    _, _, summary = visdrone_reference(ref)  # the loop transcription of evalDET.m
    assert good["mAP"] == pytest.approx(summary["AP"], abs=1e-12)
    assert good["bootstrap"]["mAP"]["point"] == good["mAP"]
    lo, hi = good["bootstrap"]["mAP"]["ci"]
    assert lo <= good["mAP"] <= hi and good["bootstrap"]["mAP"]["replicates"] == 200
    assert good["bootstrap"]["AP50"]["point"] == pytest.approx(summary["AP50"], abs=1e-12)
    assert set(good["tide"]["main"]) == MAIN and set(good["tide"]["special"]) == {
        "FalsePos",
        "FalseNeg",
    }
    assert set(good["characteristics"]) >= {"size", "aspect", "truncation", "occlusion"}
    assert good["characteristics"]["occlusion"]["bins"] == ["none", "partial", "heavy"]
    assert all("ap_n" in c for c in good["per_class"].values())
    (pair,) = p["paired"]
    assert pair["a"] == "good" and pair["verdict"] == "A better"
    assert set(pair["per_class"]["car"]) == {"difference", "ci", "verdict"}
    assert "TIDE" in text and "object characteristics" in text and "occlusion" in text
    names = {f.name for f in figs.iterdir()}
    assert {"tide_good.svg", "characteristics_weak.svg", "pr_car.svg"} <= names
    assert {"analyze_good.svg", "analyze_weak_cars.svg"} <= names
    assert set(good["analysis"]["groups"]) == {"people", "cars", "cycles"}
    assert good["analysis"]["overall"]["all"]["C50"] == pytest.approx(
        np.mean([a["C50"] for a in good["analysis"]["categories"].values()]), abs=1e-12
    )
    for f in figs.iterdir():
        ET.parse(f)  # well-formed SVG
    # the legend lies below the axes and the "Recall" label, never over a curve or band
    pr = (figs / "pr_car.svg").read_text()
    axes_bottom = float(re.search(r'y="([\d.]+)"[^>]*>Recall</text>', pr)[1])  # type: ignore[index]
    rows = re.findall(r'<text x="[\d.]+" y="([\d.]+)"[^>]*>(good|weak)  AP \d', pr)
    assert [n for _, n in rows] == ["good", "weak"]
    assert min(float(y) for y, _ in rows) > axes_bottom


def test_visdrone_bootstrap_engine_equals_the_toolkit(visdrone_split: Any) -> None:
    split, sets, _ = visdrone_split
    ds = read_visdrone(split)
    res = read_visdrone_results(ds, [sets[0]])
    ev = evaluate_visdrone(ds, res)
    e = visdrone_evidence(ds, res, ev, "good")
    assert engine_points(e.evidence) == pytest.approx(e.point_ap, abs=1e-9)


def ilsvrc_case(root: Path) -> tuple[Path, Path, list[Path], list, list]:
    images = [[(0, 1, 1, 50, 50), (1, 5, 5, 30, 30), (2, 60, 60, 69, 69)], [(0, 1, 1, 40, 40)]]
    preds = [
        (1, 1, 0.9, 1, 1, 50, 50),  # TP
        (1, 3, 0.85, 63, 63, 72, 72),  # small object 10x10: thr .25, IoU 49/151 = .32 → TP
        (2, 1, 0.8, 1, 1, 10, 10),  # IoU 100/1600 = .0625 with its object → Bkg
        (1, 2, 0.7, 5, 5, 30, 30),  # TP
        (2, 2, 0.6, 1, 1, 40, 40),  # wrong class over a label-0 object → Cls
    ]
    gt, devkit, pred = write_fixture(root, images, preds)
    other = root / "other.txt"
    other.write_text("".join(" ".join(map(str, p)) + "\n" for p in preds[:2]))
    return gt, devkit, [pred, other, pred], images, preds


def test_ilsvrc_tide_kinds_relative_to_each_threshold(tmp_path: Path) -> None:
    gt, devkit, (pred, *_), _, _ = ilsvrc_case(tmp_path)
    ds = read_ilsvrc_det(gt, devkit)
    res = read_ilsvrc_det_results(ds, pred)
    ev = evaluate_ilsvrc_det(ds, res)
    e = ilsvrc_evidence(ds, res, ev)
    assert [KIND_NAMES[int(k)] for k in e.kind] == ["TP", "TP", "Bkg", "TP", "Cls"]


def test_ilsvrc_cli_three_sets(tmp_path: Path, capsys) -> None:
    gt, devkit, preds, images, rows = ilsvrc_case(tmp_path)
    out, figs = tmp_path / "i.json", tmp_path / "figs"
    code, text, err = run(
        capsys,
        gt,
        "--devkit",
        devkit,
        "--results",
        *preds,
        "--bootstrap",
        100,
        "--json",
        out,
        "--figures",
        figs,
        "--format",
        "png",
    )
    assert code == 0, err
    p = json.loads(out.read_text())
    assert p["protocol"] == "ilsvrc" and list(p["sets"]) == ["pred.txt", "other.txt", "pred.txt-2"]
    entry = p["sets"]["pred.txt"]
    ref = ilsvrc_reference(images, rows)  # the devkit's per-label AP, from a plain loop
    for k, name in enumerate(["name 1", "name 2", "name 3"][: len(ref)]):
        assert entry["per_class"][name]["ap"] == pytest.approx(ref[k], abs=1e-12)
        assert entry["bootstrap"]["per_class"][name]["point"] == pytest.approx(ref[k], abs=1e-12)
    assert entry["mAP"] == pytest.approx(np.mean(ref), abs=1e-12)
    assert set(entry["tide"]["main"]) == MAIN and entry["tide"]["counts"]["Cls"] == 1
    assert set(entry["characteristics"]) >= {"size", "aspect"}
    assert set(p["ranks"]) == set(p["sets"]) and len(p["paired"]) == 3
    same = next(q for q in p["paired"] if q["b"] == "pred.txt-2" and q["a"] == "pred.txt")
    assert same["difference"] == 0.0 and same["ci"] == [0.0, 0.0]
    assert all(v["difference"] == 0.0 for v in same["per_class"].values())
    png = figs / "characteristics_pred.png"  # the set's name without its extension
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    chars = {f.name for f in figs.glob("characteristics_*")}  # two sets share the stem "pred"
    assert chars == {f"characteristics_{n}.png" for n in ("pred", "other", "pred-2")}
    assert "rank by mAP" in text
