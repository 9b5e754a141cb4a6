"""``vocviewer analyze`` on an LVIS file: the JSON layout of COCO's analysis, every number read
off LVIS's own verdicts — AP / AP50 / APr / APc / APf and per-category AP equal to the ``lvis``
package's ``LVISEval``, TIDE equal to the library's ``lvis_tide`` — intervals, paired entries,
characteristics, the curves and the figures, for boxes and masks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("lvis")

from tests.parity.lvis_data import lvis_eval, write_lvis
from tests.parity.test_lvis_parity import category_ap
from vocviewer.cli import main
from vocviewer.evaluation.analysis_curves import CURVE_NAMES
from vocviewer.families.lvis.evaluate import evaluate_lvis
from vocviewer.families.lvis.reader import read_lvis, read_lvis_results
from vocviewer.families.lvis.tide import lvis_tide


def analyze(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[dict[str, Any], str]:
    out = Path(str(argv[-1]))
    assert main(["analyze", *map(str, argv[:-1]), "--json", str(out)]) == 0
    return json.loads(out.read_text()), capsys.readouterr().out


@pytest.mark.parametrize("kind", ["bbox", "segm"])
def test_analyze_lvis_numbers_are_lviseval_and_the_library(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    ann, res = write_lvis(tmp_path, 12, kind=kind, ignore=True)
    second = tmp_path / "second.json"
    second.write_text(json.dumps(json.loads(res.read_text())[1::2]))
    figures = tmp_path / "fig"
    payload, text = analyze(
        capsys,
        ann,
        "--results",
        res,
        second,
        "--task",
        kind,
        "--bootstrap",
        100,
        "--seed",
        3,
        "--figures",
        figures,
        tmp_path / "out.json",
    )
    assert payload["protocol"] == "lvis" and payload["task"] == kind and payload["official"]
    assert text.startswith(f"LVIS {kind}, 24 images")
    assert "analyze() under LVIS's rules" in text and "Sim = Oth" in text
    assert "note:" not in text  # every interval here holds its point
    ds = read_lvis(ann, masks=kind == "segm")
    for name, path in (("results.json", res), ("second.json", second)):
        entry = payload["sets"][name]
        ref = lvis_eval(ann, path, kind)
        for key in ("AP", "AP50", "AP75", "APr", "APc", "APf"):
            got = entry["mAP" if key == "AP" else key]
            assert got == pytest.approx(float(ref.results[key]), abs=1e-12), key
        boot = entry["bootstrap"]
        assert boot["mAP"]["point"] == entry["mAP"] and boot["AP50"]["point"] == entry["AP50"]
        assert boot["APr"]["point"] == entry["APr"] and boot["mAP"]["replicates"] == 100
        assert set(boot["bias"]) == {"mAP", "AP50"}
        for key in ("mAP", "AP50", "APr", "APc", "APf"):
            lo, hi = boot[key]["ci"]
            assert lo <= boot[key]["point"] <= hi, key
        per_ref = category_ap(ref.eval["precision"])
        names = [c["name"] for c in ref.lvis_gt.load_cats(ref.params.cat_ids)]
        got_ap = [entry["per_class"][n]["ap"] for n in names]
        np.testing.assert_allclose(
            np.array(got_ap, dtype=float), per_ref, atol=1e-12, equal_nan=True
        )
        results = read_lvis_results(ds, path, task=kind)
        tide = lvis_tide(ds, results, evaluate_lvis(ds, results, kind))
        assert entry["tide"]["main"] == tide.main and entry["tide"]["special"] == tide.special
        assert set(entry["tide"]["main"]) == {"Cls", "Loc", "Both", "Dupe", "Bkg", "Miss"}
        chars = entry["characteristics"]
        assert {"size", "aspect", "area", "frequency", "not_exhaustive"} <= set(chars)
        assert chars["frequency"]["bins"] == ["r", "c", "f"]
        a = entry["analysis"]
        assert a["curves"] == list(CURVE_NAMES) and a["max_dets"] == 300 and not a["similar"]
        assert a["overall"]["all"]["C50"] == pytest.approx(entry["AP50"], abs=1e-12)
        assert set(a["frequencies"]) == {"r", "c", "f"} and "supercategories" not in a
    pair = payload["paired"][0]
    assert (pair["a"], pair["b"]) == ("results.json", "second.json")
    assert pair["difference"] == pytest.approx(
        payload["sets"]["results.json"]["mAP"] - payload["sets"]["second.json"]["mAP"]
    )
    written = {p.name for p in figures.iterdir()}
    assert {
        "tide_results.svg",
        "analyze_results.svg",
        "analyze_second_f.svg",
        "characteristics_second.svg",
    } <= written
    assert not any(".json" in n for n in written)  # the sets' names without their extension
    assert any(n.startswith("pr_thing_") for n in written)


def test_analyze_lvis_refuses_keypoints_and_reports_keep_going(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ann, res = write_lvis(tmp_path, 13, crowded=0)
    found = json.loads(res.read_text())
    found[0]["score"] = "high"  # a bad row: refused, or skipped with --keep-going
    res.write_text(json.dumps(found))
    assert main(["analyze", str(ann), "--results", str(res), "--bootstrap", "10"]) == 1
    assert "score" in capsys.readouterr().err
    out = tmp_path / "o.json"
    argv = ["analyze", str(ann), "--results", str(res), "--bootstrap", "10", "--keep-going"]
    assert main([*argv, "--json", str(out)]) == 0
    assert "NOT OFFICIAL" in capsys.readouterr().err
    assert json.loads(out.read_text())["official"] is False


def test_an_interval_that_misses_its_point_is_pointed_out() -> None:
    """The bias note (LVIS's AP replicates can sit above the point): only when the interval
    misses the point, with the replicates' mean minus the point."""
    from vocviewer.evaluation.bootstrap_stats import BootstrapResult
    from vocviewer.families.lvis.analyze import bias, bias_note

    reps = np.linspace(0.30, 0.40, 101)

    def result(point: float) -> BootstrapResult:
        return BootstrapResult(
            ("a",),
            ("c",),
            0,
            np.array([[point]]),
            np.array([point]),
            reps[None, :, None],
            reps[None, :],
            np.zeros(0),
            np.zeros((1, 1, 0)),
            np.zeros((1, 1, 101, 0)),
        )

    assert bias(result(0.25), "a") == pytest.approx(0.10)
    note = bias_note(result(0.25), 0.95)
    assert note.startswith("note: a: the 95% interval [0.302, 0.398] misses the point 0.250")
    assert "bootstrap bias +0.100" in note
    assert bias_note(result(0.35), 0.95) == ""
