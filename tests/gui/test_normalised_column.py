"""The AP table's normalised AP column (IJCV 2015 eq. 6 beside AP) equals what ``vocviewer
analyze --json`` reports for the same result set under the same label (``AP_N@0.50``: VOC's and
VisDrone's ``ap_n``, COCO's and LVIS's ``ap_n50``; ILSVRC's ``AP_N``), with the same ``N``; the
printed analyze table labels its columns alike."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.gui.test_consistency import (
    coco_case,
    ilsvrc_case,
    lvis_case,
    open_case,
    table_text,
    visdrone_case,
    voc_case,
)
from vocviewer.cli import main

#: family -> (case builder, the analyze JSON's per-class key at IoU 0.5, the column's label)
CASES = {
    "voc": (lambda tmp, demo: voc_case(tmp, demo), "ap_n", "AP_N@0.50"),
    "coco": (lambda tmp, demo: coco_case(tmp), "ap_n50", "AP_N@0.50"),
    "lvis": (lambda tmp, demo: lvis_case(tmp), "ap_n50", "AP_N@0.50"),
    "visdrone": (lambda tmp, demo: visdrone_case(tmp), "ap_n", "AP_N@0.50"),
    "ilsvrc": (lambda tmp, demo: ilsvrc_case(tmp), "ap_n", "AP_N"),
}


def analyze_json(case: Any, tmp: Path) -> dict[str, Any]:
    out = tmp / "analyze.json"
    args = ["analyze", str(case.path), "--results", *map(str, case.sets[0]), "--bootstrap", "2"]
    args += [a for a in case.cli if a != "--protocol" and a != "visdrone"]
    for k, v in case.sources.items():
        if f"--{k}" not in case.cli:
            args += [f"--{k}", str(v)]
    assert main([*args, "--json", str(out)]) == 0
    (entry,) = json.loads(out.read_text())["sets"].values()
    return dict(entry)


def test_analyze_labels_each_normalised_column_by_its_iou(tmp_path, capsys):
    """COCO-style families print AP_N over .50:.95 and at .50 under labels that say so (the
    window's column is the second); one label, one definition."""
    case = lvis_case(tmp_path)
    entry = analyze_json(case, tmp_path)
    text = capsys.readouterr().out
    columns = entry["normalised_ap"]["columns"]
    assert columns == {"AP_N[.5:.95]": "ap_n", "AP_N@0.50": "ap_n50"}
    (head,) = [line for line in text.splitlines() if line.startswith("class ")]
    assert head.split()[-2:] == ["AP_N[.5:.95]", "AP_N@0.50"]
    assert " AP_N " not in head + " "


@pytest.mark.parametrize("family", list(CASES))
def test_normalised_ap_column_equals_analyze(qtbot, make_window, tmp_path, demo, family, capsys):
    build, key, label = CASES[family]
    case = build(tmp_path, demo)
    entry = analyze_json(case, tmp_path)
    capsys.readouterr()
    assert entry["normalised_ap"]["columns"][label] == key  # the same label, the same number
    win = open_case(qtbot, make_window, case)
    st, model = win.state, win.ap_table.ap_model
    st.set_current_results(0)
    model.refresh()
    col = model.headers().index(label)
    n_pos, aps = model.normalised()
    assert n_pos == pytest.approx(entry["normalised_ap"]["n_pos"], abs=1e-12)
    classes = st.dataset.classes
    compared = 0
    for c, v in entry["per_class"].items():
        if c not in classes:
            continue
        expected = v[key]
        got = aps[classes.index(c)]
        if expected is None:
            assert got != got, c  # NaN: no positives
        else:
            assert got == pytest.approx(expected, abs=1e-12), c
            assert table_text(win, classes.index(c), col) == f"{expected:.3f}"
            compared += 1
    assert compared >= 3
    defined = [v[key] for v in entry["per_class"].values() if v[key] is not None]
    assert table_text(win, len(classes), col) == f"{sum(defined) / len(defined):.3f}"


@pytest.mark.parametrize("family", list(CASES))
def test_own_positives_give_the_ap_back(qtbot, make_window, tmp_path, demo, family):
    """With ``N`` = a class's own positives, eq. 6 is plain precision: the normalised AP under the
    family's rule is the AP the window shows for the class at that IoU."""
    from vocviewer.evaluation.normalised_ap import normalised_det_ap

    case = CASES[family][0](tmp_path, demo)
    win = open_case(qtbot, make_window, case)
    st = win.state
    rule = st.evaluation.settings.ap_rule
    checked = 0
    for view in st.evaluations[0].views.values():
        ev = view.evaluation
        if ev.npos > 0 and view.ap_at == view.ap_at:
            got = normalised_det_ap(ev, rule, float(ev.npos))
            assert got == pytest.approx(view.ap_at, abs=1e-12), ev.class_name
            checked += 1
    assert checked >= 3


def test_a_rederived_choice_brings_its_normalised_ap_from_the_worker(
    qtbot, make_window, tmp_path, capsys
):
    """At IoU 0.75 (re-derived from the stored evidence) the column's AP_N is the one the
    re-deriving worker computed (``ResultEvaluations.normalised``); back at 0.5 it still equals
    ``vocviewer analyze``'s."""
    case = coco_case(tmp_path)
    entry = analyze_json(case, tmp_path)
    capsys.readouterr()
    win = open_case(qtbot, make_window, case)
    st, model = win.state, win.ap_table.ap_model
    st.set_current_results(0)
    for iou in (0.75, 0.5):
        with qtbot.waitSignal(st.evaluation.evidence_replaced, timeout=60_000):
            st.evaluation.set_iou(iou)
        qtbot.waitUntil(st.is_idle, timeout=60_000)
        ready = st.evaluations[0].normalised
        assert ready is not None and ready[0] == st.evaluation.settings.ap_rule
        model.refresh()
        if iou == 0.75:
            assert model.normalised()[1] is ready[2]  # taken, not computed again
    n_pos, aps = model.normalised()
    assert n_pos == pytest.approx(entry["normalised_ap"]["n_pos"], abs=1e-12)
    classes = st.dataset.classes
    for c, v in entry["per_class"].items():
        if c in classes and v["ap_n50"] is not None:
            assert aps[classes.index(c)] == pytest.approx(v["ap_n50"], abs=1e-12), c
