"""A new analysis is one module (``tests/toy_analysis.py``) registered at run time: it reaches
``vocviewer analyze`` (its flag and option, refused without the flag, its column in the printed
table, its JSON key, its figure named by the set) and the Python API, with numbers counted here
from the evidence one rank at a time. The window's page: ``tests/gui/test_toy_analysis_page``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import vocviewer
from tests.test_cli_analyze import run
from tests.toy_analysis import TOY
from vocviewer.evaluation.analyses import registry
from vocviewer.evaluation.result import Verdict
from vocviewer.families.beyond_ap import evidence_for
from vocviewer.families.registry import open_dataset, open_results


@pytest.fixture
def toy() -> Iterator[None]:
    registry.register(TOY)
    yield
    registry.unregister(TOY.name)


def _counted(demo: Any, top: int) -> dict[str, int]:
    """TPs among each class's top ranks, one rank at a time."""
    ds = open_dataset(demo.year_dir)
    res = open_results(ds, [demo.results_dir], image_set="val")
    out = {}
    for e in evidence_for(ds, res, "val").evaluations("det"):
        out[e.class_name] = sum(
            1 for r in range(min(top, len(e.verdict))) if e.verdict[r] == Verdict.TP
        )
    return out


def test_a_registered_analysis_reaches_analyze_and_the_api(
    toy, demo, tmp_path: Path, capsys
) -> None:
    out, figs = tmp_path / "a.json", tmp_path / "figs"
    argv = [demo.year_dir, "--results", demo.results_dir, "--bootstrap", 2]
    code, text, _ = run(
        capsys, *argv, "--toy-precision", "--toy-top", 3, "--json", out, "--figures", figs
    )
    assert code == 0
    ((name, entry),) = json.loads(out.read_text())["sets"].items()
    want = _counted(demo, 3)
    assert entry["toy_precision"] == {"top": 3, "per_class": want}
    assert "operating_point" not in entry and "lrp" not in entry  # only what is asked
    assert f"{name}: TPs in the top 3 at IoU 0.50" in text
    table = text.split(f"{name}: TPs in the top 3")[1].splitlines()
    assert table[1].split() == ["class", "topTP"]
    cat = next(line for line in table if line.startswith("cat "))
    assert cat.split() == ["cat", str(want["cat"])]
    assert f"toy_{Path(name).stem}.svg" in {p.name for p in figs.iterdir()}
    api = vocviewer.beyond_ap(demo.year_dir, demo.results_dir, image_set="val", toy_top=3)
    assert api.to_dict()["toy_precision"] == entry["toy_precision"]
    # beside the built-in ones: their columns and keys unchanged, the toy's after them
    code, text, _ = run(capsys, *argv, "--lrp", "--toy-precision", "--json", out)
    entry = next(iter(json.loads(out.read_text())["sets"].values()))
    assert list(entry)[-3:] == ["beyond_iou", "lrp", "toy_precision"]
    assert "optimal LRP and TPs in the top 5 at IoU 0.50" in text


def test_its_option_needs_its_flag_and_is_in_the_help(toy, demo, capsys) -> None:
    code, _, err = run(capsys, demo.year_dir, "--results", demo.results_dir, "--toy-top", 3)
    assert code == 1 and "--toy-top needs --toy-precision" in err
    with pytest.raises(SystemExit):
        run(capsys, "--help")
    assert "--toy-precision" in capsys.readouterr().out


def test_unregistered_it_is_gone(demo, capsys) -> None:
    with pytest.raises(SystemExit):
        run(capsys, demo.year_dir, "--results", demo.results_dir, "--toy-precision")
    assert "unrecognized arguments: --toy-precision" in capsys.readouterr().err
