"""Every number on screen is official or says why not (issue 20 items 1, 2, 7, 9).

One rule (``families.official``) decides it for ``vocviewer eval`` and the window: damaged
ground truth marks the PR title, the AP table, the Summary and Analysis tabs, the exported table
and figure and the saved session, with the reason on hover and once in the messages; a protocol
deviation chosen on one dataset is not carried to the next; a class the official code leaves
out of the averages shows "—", never 0.000; the exported AP table holds every column shown."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import Qt

from tests.gui.test_consistency import title, visdrone_case
from vocviewer.cli import main


def damaged_devkit(demo: Any, tmp: Path) -> Path:
    """A copy of the demo devkit with one annotation cut short and one ``<xmin>`` of ``abc``."""
    root = tmp / "copy"
    shutil.copytree(demo.year_dir.parent, root / "VOCdevkit")
    ann = root / "VOCdevkit" / demo.year_dir.name / "Annotations"
    cut = ann / "2012_000011.xml"
    cut.write_bytes(cut.read_bytes()[:150])
    bad = ann / "2012_000012.xml"
    bad.write_text(re.sub(r"<xmin>[^<]*</xmin>", "<xmin>abc</xmin>", bad.read_text(), count=1))
    return root / "VOCdevkit" / demo.year_dir.name


def opened(qtbot: Any, win: Any, path: Path, results: tuple[Path, ...]) -> Any:
    st = win.state
    win.open_dataset(path, results, None)
    qtbot.waitUntil(
        lambda: st.dataset is not None and st.current_results >= 0 and st.is_idle(),
        timeout=60_000,
    )
    qtbot.waitUntil(lambda: st.evaluations[0].summary is not None, timeout=10_000)
    win.ap_table.ap_model.refresh()
    return win


def messages(win: Any) -> list[str]:
    return [win.messages.list.item(i).text() for i in range(win.messages.count())]


def test_damaged_ground_truth_is_marked_wherever_its_numbers_appear(
    qtbot, make_window, demo, tmp_path, capsys
):
    year = damaged_devkit(demo, tmp_path)
    results = year.parent / "results" / year.name / "Main"
    # the CLI refuses it, and with --keep-going marks it: the window says the same words
    assert main(["eval", str(year), "--results", str(results)]) == 1
    capsys.readouterr()
    assert main(["eval", str(year), "--results", str(results), "--keep-going"]) == 0
    cli = [line for line in capsys.readouterr().out.splitlines() if "NOT OFFICIAL" in line]
    assert cli and "ground-truth problem(s) left objects out" in cli[0]
    win = opened(qtbot, make_window(), year, (results,))
    st, model = win.state, win.ap_table.ap_model
    (reason,) = st.evaluation.not_official(0)
    assert cli[0] == f"NOT OFFICIAL: {reason.text}"
    # AP table: every number column marked, the reason on hover
    heads = [" ".join(h.split()) for h in model.headers()]
    assert heads[1] == "AP NOT OFFICIAL (ground truth lost)"
    assert heads[4] == "AP_N@0.50 NOT OFFICIAL (ground truth lost)"
    assert "NOT OFFICIAL" not in heads[2] + heads[3]  # npos, ndet: counts
    tip = model.headerData(1, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert reason.text in tip
    # PR title (All classes and one class), with the reason on hover
    assert "NOT OFFICIAL (ground truth lost)" in title(win)
    assert reason.text in win.pr_pane.plot.getPlotItem().titleLabel.toolTip()
    win.ap_table.selectRow(st.dataset.classes.index("person"))
    assert "person" in title(win) and "NOT OFFICIAL" in title(win)
    # Summary tab: its column and its title
    summary = win.summary
    summary.refresh()
    assert summary.table.item(0, 0).text() == "mAP"  # the numbers themselves unchanged
    assert summary.table.item(0, 1).text() == model.item(len(st.dataset.classes), 1).text()
    assert "NOT OFFICIAL" in summary.table.horizontalHeaderItem(1).text()
    assert reason.text in summary.table.horizontalHeaderItem(1).toolTip()
    assert "NOT OFFICIAL" in summary.title.text() and reason.text in summary.title.toolTip()
    # Analysis tab's header, once analysed
    win.right_tabs.setCurrentWidget(win.analysis)
    qtbot.waitUntil(lambda: "TIDE" in win.analysis.header.text(), timeout=60_000)
    assert "NOT OFFICIAL" in win.analysis.header.text()
    assert reason.text in win.analysis.header.toolTip()
    # once in the messages, however often the numbers are redrawn
    st.evaluation.set_iou(0.55)
    qtbot.waitUntil(lambda: st.is_idle() and st.evaluations[0].summary is not None, timeout=60_000)
    told = [m for m in messages(win) if m.startswith("NOT OFFICIAL:") and "ground-truth" in m]
    assert len(told) == 1, messages(win)
    assert "IoU 0.55" in " ".join(model.headers()[1].split())  # the IoU is said as well
    st.evaluation.set_iou(0.5)
    qtbot.waitUntil(lambda: st.is_idle() and st.evaluations[0].summary is not None, timeout=60_000)
    # exports: the table's titles and notes, the figure's title, the saved session
    out = tmp_path / "out"
    out.mkdir()
    win.export_table(str(out / "ap.csv"))
    head = next(csv.reader(io.StringIO((out / "ap.csv").read_text())))
    assert head[1] == "AP NOT OFFICIAL (ground truth lost)"
    win.export_table(str(out / "ap.json"))
    payload = json.loads((out / "ap.json").read_text())
    assert payload["not_official"] == [reason.text]
    win.export_table(str(out / "ap.md"))
    assert f"NOT OFFICIAL: {reason.text}" in (out / "ap.md").read_text()
    win.export_pr(str(out / "pr.svg"))
    assert "NOT OFFICIAL" in (out / "pr.svg").read_text()
    saved = win.sessions.save_session(out / "s.json")
    assert json.loads(saved.read_text())["evaluation"]["not_official"] == [reason.text]


def test_intact_ground_truth_is_not_marked(qtbot, make_window, demo):
    win = opened(qtbot, make_window(), demo.year_dir, (demo.results_dir / "Main",))
    assert win.state.evaluation.not_official(0) == ()
    assert not any("NOT OFFICIAL" in h for h in win.ap_table.ap_model.headers())
    assert "NOT OFFICIAL" not in title(win) and "NOT OFFICIAL" not in win.summary.title.text()
    assert not any("NOT OFFICIAL" in m for m in messages(win))


@pytest.fixture
def start(make_window):
    """Windows on a settings file or ``QSettings`` (``make_window``)."""
    return make_window


def test_a_protocol_deviation_is_not_carried_to_another_dataset(qtbot, start, demo, tmp_path):
    """IoU 0.75 on VisDrone (where every IoU is official), then a VOC devkit: it opens at 0.5,
    official, in the same window and in a new one on the same settings; view preferences
    (the score threshold) are remembered."""
    ini = tmp_path / "vocviewer.ini"
    case = visdrone_case(tmp_path)
    first = start(ini)
    st = first.state
    opened(qtbot, first, case.path, tuple(case.sets[0]))
    st.evaluation.set_iou(0.75)
    st.set_threshold(0.3)
    qtbot.waitUntil(st.is_idle, timeout=30_000)
    assert st.evaluation.iou == 0.75 and st.evaluation.official()
    opened(qtbot, first, demo.year_dir, (demo.results_dir / "Main",))
    assert st.evaluation.iou == 0.5 and first.protocol.iou_combo.currentData() == 0.5
    assert st.evaluation.not_official(0) == ()
    assert "NOT OFFICIAL" not in title(first)
    st.evaluation.set_iou(0.7)  # a deviation on VOC itself is not remembered either
    qtbot.waitUntil(st.is_idle, timeout=30_000)
    first.close()  # saves the settings
    second = start(ini)
    assert second.state.score_threshold == 0.3  # a view preference: kept
    opened(qtbot, second, demo.year_dir, (demo.results_dir / "Main",))
    assert second.state.evaluation.iou == 0.5 and second.state.evaluation.official()
    assert "NOT OFFICIAL" not in " ".join(second.ap_table.ap_model.headers())


def test_a_session_keeps_its_deviation_and_marks_it(qtbot, make_window, demo, tmp_path):
    win = opened(qtbot, make_window(), demo.year_dir, (demo.results_dir / "Main",))
    st = win.state
    st.evaluation.set_iou(0.7)
    qtbot.waitUntil(lambda: st.is_idle() and st.evaluations[0].summary is not None, timeout=30_000)
    saved = win.sessions.save_session(tmp_path / "s.json")
    assert "IoU threshold 0.7" in json.loads(saved.read_text())["evaluation"]["not_official"][0]
    other = make_window()
    other.sessions.open_session(saved)
    ost = other.state
    qtbot.waitUntil(
        lambda: ost.dataset is not None and ost.current_results >= 0 and ost.is_idle(),
        timeout=60_000,
    )
    assert ost.evaluation.iou == 0.7
    qtbot.waitUntil(lambda: "NOT OFFICIAL (IoU 0.70)" in title(other), timeout=10_000)


def visdrone_without_a_class(tmp: Path) -> tuple[Path, Path]:
    """A VisDrone split where category 3 (bicycle) has no ground truth but detections."""
    from tests.test_cli_analyze_families import random_visdrone, write_visdrone

    gts, dets = random_visdrone(np.random.default_rng(5), 12, 0.6)
    gts = [[g for g in rows if g[5] != 3] for rows in gts]
    dets[0].append((5, 5, 20, 20, 0.9, 3))
    split = write_visdrone(tmp, gts, {"res": dets})
    return split, tmp / "res"


def test_visdrone_class_without_ground_truth_shows_a_dash(qtbot, make_window, tmp_path, capsys):
    split, res = visdrone_without_a_class(tmp_path)
    assert main(["eval", str(split), "--results", str(res)]) == 0
    (line,) = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("bicycle")]
    assert "not in the averages" in line
    win = opened(qtbot, make_window(), split, (res,))
    model, k = win.ap_table.ap_model, win.state.dataset.classes.index("bicycle")
    model.refresh()
    heads = model.headers()
    ap, apn = 1, heads.index("AP_N@0.50")
    for col in (ap, apn):
        item = model.item(k, col)
        assert item.text() == "—"
        assert "not in the averages" in item.toolTip()
    others = [model.item(r, ap).text() for r in range(len(win.state.dataset.classes)) if r != k]
    assert any(re.fullmatch(r"0\.\d{3}", t) and t != "0.000" for t in others)
    win.ap_table.selectRow(k)
    assert "AP — (no ground truth: not in the averages)" in title(win)
    assert "0.000" not in title(win).split("AP —")[1]
    legend = [label.text for _, label in win.pr_pane.legend.items]
    assert any("AP[.5:.95] —" in t for t in legend) and not any("0.000" in t for t in legend)


def test_the_exported_ap_table_holds_every_column_shown(qtbot, make_window, demo, tmp_path):
    win = opened(qtbot, make_window(), demo.year_dir, (demo.results_dir / "Main",))
    model = win.ap_table.ap_model
    heads, rows = model.shown()
    assert heads == ["Class", "AP", "npos", "ndet", "AP_N@0.50", "cls AP"]
    out = tmp_path / "ap.csv"
    win.export_table(str(out))
    table = list(csv.reader(io.StringIO(out.read_text())))
    assert table[0] == heads and table[1:] == rows
    n = len(win.state.dataset.classes)
    for col in range(1, len(heads)):  # what the table shows, cell by cell
        for row in (0, 7, n):
            assert table[1 + row][col] == model.item(row, col).text()
    win.export_table(str(tmp_path / "ap.json"))
    payload = json.loads((tmp_path / "ap.json").read_text())
    assert payload["columns"] == heads and payload["not_official"] == []
    person = next(r for r in payload["rows"] if r["Class"] == "person")
    k = win.state.dataset.classes.index("person")
    assert person["npos"] == win.state.evaluations[0].det[k].npos
    # unrounded in JSON: the number behind the shown digits
    assert f"{person['AP_N@0.50']:.3f}" == model.item(k, 4).text()
    assert person["cls AP"] == win.state.evaluations[0].cls[k].ap
    assert f"{person['cls AP']:.3f}" == model.item(k, 5).text()
    tex = win.export_table(str(tmp_path / "ap.tex")) or (tmp_path / "ap.tex").read_text()
    assert "AP\\_N@0.50" in tex and "cls AP" in tex
