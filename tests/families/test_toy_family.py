"""A new family is one folder plus one registry line (DESIGN.md rule 9): the test-only "tally"
family in ``tests/toy_family/`` is added to ``registry.BUILTIN`` and nothing else changes;
``vocviewer eval`` chooses it, prints its number, and the window's file types list it."""

from __future__ import annotations

from pathlib import Path

import pytest

from vocviewer.cli import main
from vocviewer.families import registry

TALLY = "tests.toy_family.benchmark:TallyBenchmark"


@pytest.fixture
def with_tally(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry as it would be with one more line in ``BUILTIN``, loaded afresh."""
    monkeypatch.setattr(registry, "BUILTIN", (*registry.BUILTIN, TALLY))
    monkeypatch.setattr(registry, "_REGISTRY", {})
    monkeypatch.setattr(registry, "_loaded", False)


@pytest.mark.usefixtures("with_tally")
def test_the_toy_family_is_chosen_and_prints_its_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "a tally file" in [t.dataset for t in registry.file_types()]  # before loading
    gt = tmp_path / "gt.tally"
    gt.write_text("a cat\na dog\nb cat\n")
    results = tmp_path / "r.txt"
    results.write_text("a cat 0.9\nb dog 0.8\nb cat 0.7\n")
    assert main(["eval", str(gt), "--results", str(results)]) == 0
    # cat: both detections hit (AP 1); dog: its one detection is on the wrong image (AP 0)
    assert capsys.readouterr().out == "TALLY mAP 0.500\n"
    assert [b.name for b in registry.registered()][-1] == "tally"
    assert "a tally file" in [t.dataset for t in registry.file_types()]


def test_without_its_line_the_toy_family_is_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gt = tmp_path / "gt.tally"
    gt.write_text("a cat\n")
    assert main(["eval", str(gt), "--results", str(gt)]) == 1
    assert "not a dataset vocviewer can read" in capsys.readouterr().err
