"""The bootstrap of several result sets in the real window: "Compare all result sets" on two demo
result sets gives the paired difference ``vocviewer analyze --results A B --bootstrap N --seed S
--json`` writes; with three sets the rank ranges; the PR plot draws the band
``view_bootstrap(...).bands.pr_band`` gives, only where it belongs, and hides it on request; and
"Walk" on TIDE's Cls walks the wrong-class false positives of both kinds."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import Qt

from tests.test_cli_analyze import perturbed
from vocviewer.cli import main
from vocviewer.evaluation.analysis import FPKind
from vocviewer.evaluation.result import Verdict
from vocviewer.gui.models.walk import WRONG_CLASS

N = 100  # replicates: few, the numbers are compared exactly


@pytest.fixture
def two_sets(qtbot, make_window, demo, tmp_path):
    second = perturbed(demo, tmp_path / "noisy", 1)
    win = make_window()
    st = win.state
    win.open_dataset(demo.year_dir, (demo.results_dir,), "val")
    qtbot.waitUntil(lambda: st.current_results >= 0 and st.is_idle(), timeout=60_000)
    st.add_results([second])
    qtbot.waitUntil(lambda: len(st.results) == 2 and st.is_idle(), timeout=60_000)
    st.set_current_results(0)
    win.right_tabs.setCurrentWidget(win.analysis)
    qtbot.waitUntil(lambda: win.analysis.tide is not None, timeout=30_000)
    win.second = second
    return win


def _compare(qtbot, win):
    row = win.analysis.boot
    assert row.compare_button.isVisible()
    row.replicates.setValue(N)
    with qtbot.waitSignal(win.analysis.jobs.boot_done, timeout=60_000) as done:
        qtbot.mouseClick(row.compare_button, Qt.MouseButton.LeftButton)
    return done.args[0]


def test_two_demo_sets_compare_as_the_cli_does(qtbot, two_sets, demo, tmp_path, capsys):
    win, st = two_sets, two_sets.state
    out = _compare(qtbot, win)
    assert len(out.sets) == 2 and out.boot.result.replicates == N
    target = tmp_path / "paired.json"
    argv = ["analyze", str(demo.year_dir), "--image-set", "val", "--results"]
    argv += [str(demo.results_dir), str(win.second), "--bootstrap", str(N), "--seed", "0"]
    assert main([*argv, "--json", str(target)]) == 0
    capsys.readouterr()
    payload = json.loads(target.read_text())
    (cli,) = payload["paired"]
    a, b = out.names
    mine = out.boot.result.paired(a, b, None, 0.95)
    assert mine.difference.point == pytest.approx(cli["difference"], abs=1e-12)
    assert [mine.difference.low, mine.difference.high] == pytest.approx(cli["ci"], abs=1e-12)
    assert mine.verdict == cli["verdict"]
    for name, key in zip(out.names, payload["sets"], strict=True):
        i = out.boot.interval(name)
        assert [i.low, i.high] == pytest.approx(payload["sets"][key]["bootstrap"]["mAP"]["ci"])

    # the page shows them, as the JSON has them
    page = win.analysis.compare
    assert win.analysis.stack.currentWidget() is page
    (pair,) = page.pair_rows
    assert pair[1] == f"{cli['difference']:+.3f}"
    assert pair[2] == f"[{cli['ci'][0]:+.3f}, {cli['ci'][1]:+.3f}]"
    assert cli["verdict"].split()[0] in pair[3]
    assert page.sets.isColumnHidden(3)  # ranks only for three or more sets
    # a class: its AP intervals and difference
    person = st.dataset.classes.index("person")
    st.select_class(person)
    d = out.boot.result.paired(a, b, "person", 0.95).difference
    assert page.pair_rows[0][1] == f"{d.point:+.3f}"
    assert "person" in page.header.text()


def test_three_sets_give_rank_ranges(qtbot, two_sets, demo, tmp_path):
    win, st = two_sets, two_sets.state
    st.add_results([perturbed(demo, tmp_path / "other", 2)])
    qtbot.waitUntil(lambda: len(st.results) == 3 and st.is_idle(), timeout=60_000)
    out = _compare(qtbot, win)
    page = win.analysis.compare
    assert len(page.pair_rows) == 3 and not page.sets.isColumnHidden(4)
    ranks = {r.name: r for r in out.boot.result.rank_ranges(None, 0.95)}
    for row in page.set_rows:
        r = ranks[row[0]]
        assert row[3] == str(r.rank)
        assert row[4] in (f"{r.low}–{r.high}", str(r.low))
    assert len(set(out.names)) == 3  # two sets share the name "comp4": made distinct


def test_pr_band_is_the_bootstrap_band_and_hides(qtbot, two_sets, demo):
    from vocviewer.families.registry import open_dataset, open_results
    from vocviewer.families.view_analysis import view_bootstrap

    win, st = two_sets, two_sets.state
    out = _compare(qtbot, win)
    person = st.dataset.classes.index("person")
    st.select_class(person)
    band = win.pr_pane.band
    qtbot.waitUntil(lambda: band.shown is not None, timeout=5000)
    ds = open_dataset(demo.year_dir)
    sets = [open_results(ds, [p], image_set="val") for p in (demo.results_dir, win.second)]
    sets = [replace(r, name=n) for r, n in zip(sets, out.names, strict=True)]
    ref = view_bootstrap(ds, sets, "val", N, 0)
    grid, _point, lo, hi = ref.bands.pr_band(out.names[0], "person")
    x, shown_lo, shown_hi = band.shown
    end = len(x)
    assert 0 < end <= len(grid) and np.all(hi[end:] == 0)
    np.testing.assert_allclose(x, grid[:end], atol=0)
    np.testing.assert_allclose(shown_lo, lo[:end], atol=1e-12)
    np.testing.assert_allclose(shown_hi, hi[:end], atol=1e-12)
    assert band.fill.isVisible() and "IoU 0.5" in band.fill.toolTip()
    labels = [label.text for _, label in win.pr_pane.legend.items]
    assert any("bootstrap band (IoU 0.5)" in t for t in labels)

    band.toggle.setChecked(False)  # the PR plot's menu: hide it
    assert band.shown is None and not band.fill.isVisible()
    band.toggle.setChecked(True)
    assert band.shown is not None
    st.evaluation.set_iou(0.7)  # another IoU draws another curve: no band at 0.5 under it
    qtbot.waitUntil(lambda: st.is_idle() and band.shown is None, timeout=30_000)
    assert "IoU 0.70" in band.reason


def test_cls_walks_both_wrong_class_kinds(qtbot, two_sets):
    win, st, pane = two_sets, two_sets.state, two_sets.analysis
    motorbike = st.dataset.classes.index("motorbike")  # the demo's has both kinds
    st.select_class(motorbike)
    pane.choose_bar("Cls")
    assert pane.walk_button.isEnabled()
    qtbot.mouseClick(pane.walk_button, Qt.MouseButton.LeftButton)
    assert win.walk.walk.mode.key == WRONG_CLASS
    ev = st.class_evaluation(motorbike)
    kinds = st.evaluations[st.current_results].fp_kind_by_row[ev.order]
    fp = np.isin(ev.verdict, (Verdict.FP, Verdict.DUPLICATE))
    want = np.flatnonzero(fp & np.isin(kinds, (FPKind.SIMILAR, FPKind.OTHER)))
    seen = []
    while win.walk.step(1):
        seen.append(st.selected_detection[1])
    assert seen == want.tolist()
    assert {int(kinds[r]) for r in seen} == {int(FPKind.SIMILAR), int(FPKind.OTHER)}
    pane.choose_bar("Both")  # wrong class and poorly placed: the same walk
    assert pane.list._walk_key == WRONG_CLASS
