"""Every view shows the same number: for each family (the demo, coco-mini, a generated VisDrone
split, a generated ILSVRC DET set, a generated LVIS file; the cases below), with two result sets
open, the PR title, the AP table, the Summary tab, the Compare counts, the confusion matrix totals
and ``vocviewer eval --json`` agree at the same settings (``check_agreement``, run over every
family of the registry by ``tests/families/test_common.py``); then each setting changes in turn
and no pane keeps an old value."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.evaluation.test_ilsvrc import WNIDS
from tests.evaluation.test_ilsvrc import write_fixture as write_ilsvrc
from tests.evaluation.test_visdrone_reference import random_images, write_split
from tests.gui.test_protocol_window import COCO_MINI, INSTANCES, write_coco_results
from vocviewer.cli import main
from vocviewer.evaluation.result import Verdict


@dataclass
class Case:
    """A dataset with two result sets: ``path`` and ``sources`` open it, ``sets`` are the
    result paths of A and B, ``cli`` the extra ``eval`` arguments, ``headline`` the JSON summary
    key of the one number (divided by ``scale``)."""

    path: Path
    sets: tuple[list[Path], list[Path]]
    headline: str
    scale: float = 1.0
    sources: dict[str, Path] = field(default_factory=dict)
    cli: list[str] = field(default_factory=list)


def _perturb_lines(src: Path, dst: Path, rng: np.random.Generator, score_col: int) -> None:
    """``dst``: ``src``'s lines, a fifth dropped, every score jittered (comma or space fields)."""
    out = []
    for line in src.read_text().splitlines():
        if not line.strip() or rng.random() < 0.2:
            continue
        sep = "," if "," in line else " "
        parts = line.split(sep)
        parts[score_col] = f"{min(1.0, max(0.0, float(parts[score_col]) + rng.normal(0, 0.2))):.4f}"
        out.append(sep.join(parts))
    dst.write_text("".join(x + "\n" for x in out))


def voc_case(tmp: Path, demo: Any) -> Case:
    a = sorted((demo.results_dir / "Main").glob("comp4_det_val_*.txt"))
    b_dir = tmp / "B"
    b_dir.mkdir()
    rng = np.random.default_rng(1)
    for f in a:
        _perturb_lines(f, b_dir / f.name, rng, 1)
    return Case(demo.year_dir, (a, sorted(b_dir.iterdir())), "mAP", cli=["--task", "det"])


def coco_case(tmp: Path) -> Case:
    if not INSTANCES.is_file():
        pytest.skip("coco-mini is not available")
    from vocviewer.families.registry import open_dataset

    ds = open_dataset(INSTANCES, images=COCO_MINI / "val2017")
    a = write_coco_results(ds, tmp / "a.json", seed=0)
    b = write_coco_results(ds, tmp / "b.json", seed=1)
    images = {"images": COCO_MINI / "val2017"}
    return Case(INSTANCES, ([a], [b]), "AP", sources=images, cli=["--task", "bbox"])


def visdrone_case(tmp: Path) -> Case:
    split, res = write_split(tmp, random_images(np.random.default_rng(7), 40))
    b = tmp / "resB"
    b.mkdir()
    rng = np.random.default_rng(2)
    for f in sorted(res.iterdir()):
        _perturb_lines(f, b / f.name, rng, 4)
    return Case(split, ([res], [b]), "AP", scale=100.0, cli=["--protocol", "visdrone"])


def ilsvrc_case(tmp: Path) -> Case:
    rng = np.random.default_rng(5)
    images, preds = [], []
    for i in range(30):
        objs = []
        for _ in range(int(rng.integers(1, 4))):
            x, y = (int(v) for v in rng.integers(0, 200, 2))
            objs.append((int(rng.integers(0, len(WNIDS))), x, y, x + 40, y + 30))
        images.append(objs)
        for c, x1, y1, x2, y2 in objs:
            j = rng.integers(-6, 7, 4)
            label = c + 1 if rng.random() < 0.85 else int(rng.integers(1, len(WNIDS) + 1))
            box = (x1 + j[0], y1 + j[1], x2 + j[2], y2 + j[3])
            preds.append((i + 1, label, round(float(rng.random()), 4), *box))
    gt, devkit, pred = write_ilsvrc(tmp, images, preds)
    b = tmp / "predB.txt"
    _perturb_lines(pred, b, np.random.default_rng(3), 2)
    return Case(gt, ([pred], [b]), "mAP", sources={"devkit": devkit}, cli=["--devkit", str(devkit)])


def lvis_case(tmp: Path) -> Case:
    pytest.importorskip("pycocotools")
    from tests.parity.lvis_data import make_lvis, make_results, write_lvis

    ann, a = write_lvis(tmp, 3)
    b = tmp / "resultsB.json"
    b.write_text(json.dumps(make_results(make_lvis(3), 4)))
    return Case(ann, ([a], [b]), "AP", cli=["--task", "bbox"])


def cli_json(case: Case, which: int, tmp: Path) -> dict[str, Any]:
    out = tmp / f"eval{which}.json"
    args = ["eval", str(case.path), "--results", *map(str, case.sets[which])]
    args += [*case.cli, "--json", str(out)]
    for k, v in case.sources.items():
        if f"--{k}" not in case.cli:
            args += [f"--{k}", str(v)]
    assert main(args) == 0
    return dict(json.loads(out.read_text()))


def open_case(qtbot: Any, make_window: Any, case: Case) -> Any:
    win = make_window()
    st = win.state
    win.open_dataset(case.path, tuple(case.sets[0]), None, **case.sources)
    qtbot.waitUntil(lambda: len(st.results) == 1 and st.is_idle(), timeout=60_000)
    st.add_results(case.sets[1])
    qtbot.waitUntil(lambda: len(st.results) == 2 and st.is_idle(), timeout=60_000)
    qtbot.waitUntil(lambda: all(e.summary is not None for e in st.evaluations), timeout=10_000)
    return win


def title(win: Any) -> str:
    return str(win.pr_pane.plot.getPlotItem().titleLabel.text)


def title_number(win: Any) -> str:
    m = re.search(r"(?:mAP|AP\[\.5:\.95\]|AP) (-?[0-9.]+)", title(win))
    assert m, title(win)
    return m.group(1)


def table_text(win: Any, row: int, col: int) -> str:
    model = win.ap_table.ap_model
    return model.text_of(row, col)


def fmt(x: float | None, undefined: str = "—") -> str:
    return undefined if x is None or np.isnan(x) else f"{x:.3f}"


def counted(st: Any, index: int, k: int) -> tuple[int, int]:
    """TPs and FPs of class ``k`` drawn at the score threshold, from the window's verdicts."""
    ev = st.evaluations[index].det[k]
    shown = ev.score >= st.score_threshold
    return int(np.sum(shown & (ev.verdict == Verdict.TP))), int(
        np.sum(shown & (ev.verdict >= Verdict.FP))
    )


def check_agreement(qtbot: Any, win: Any, case: Case, payloads: list[dict[str, Any]]) -> None:
    st, ds = win.state, win.state.dataset
    n = len(ds.classes)
    for which, payload in enumerate(payloads):  # the headline: table, PR title, Summary, CLI
        expected = fmt(payload["summary"][case.headline] / case.scale)
        assert table_text(win, n, 1 + which) == expected
        st.set_current_results(which)
        st.select_class(-1)
        assert title_number(win) == expected
        shown = win.summary.values()
        assert fmt(shown[case.headline] / case.scale) == expected
    st.set_current_results(0)
    per_class = [p["per_class"] for p in payloads]
    scale = case.scale if case.headline == "AP" and case.scale != 1 else 1.0
    checked = 0
    for k, name in enumerate(ds.classes):  # every evaluated class: table, PR title, CLI
        if name not in per_class[0] or k not in st.evaluations[0].det:
            continue
        if not st.evaluations[0].det[k].has_results:
            continue
        ap_a = per_class[0][name]["ap"]
        ap_b = per_class[1].get(name, {}).get("ap")
        ap_a = None if ap_a is None else ap_a / scale
        ap_b = None if ap_b is None else ap_b / scale

        # a class the official code leaves out of the averages (VisDrone: no image has one;
        # VOC / ILSVRC: no positives, AP NaN)
        def left_out(entry: dict) -> bool:
            no_positives = entry.get("npos") == 0 and (
                entry.get("ap") is None or entry["ap"] != entry["ap"]
            )
            return entry.get("images") == 0 or no_positives

        out_a = left_out(per_class[0][name])
        out_b = left_out(per_class[1].get(name, {}))
        assert table_text(win, k, 1) == ("—" if out_a else fmt(ap_a, "NaN")), name
        assert table_text(win, k, 2) == ("—" if out_b else fmt(ap_b, "NaN")), name
        st.select_class(k)
        if out_a:
            assert re.search(r"— \((no ground truth|no positives)", title(win)), title(win)
        elif len(st.evaluations[0].det[k]):
            shown = rf"AP(?:\[\.5:\.95\])? {re.escape(fmt(ap_a, 'nan'))}(?![0-9])"
            assert re.search(shown, title(win)), (name, title(win))
        # Compare: the per-image differences add up to the drawn totals, APs as in the table
        win.compare.refresh()
        cmp_rows = win.compare.table.rows_model
        tp_a, fp_a = counted(st, 0, k)
        tp_b, fp_b = counted(st, 1, k)
        cols = list(zip(*cmp_rows.rows, strict=True)) if cmp_rows.rows else [()] * 6
        assert sum(int(v) for v in cols[1]) - sum(int(v) for v in cols[2]) == tp_a - tp_b
        assert sum(int(v) for v in cols[4]) - sum(int(v) for v in cols[5]) == fp_a - fp_b
        text = win.compare.summary.text()
        assert f"AP A {fmt(ap_a, 'nan')}, B {fmt(ap_b, 'nan')}" in text, text
        checked += 1
    assert checked >= 3
    # the confusion matrix counts exactly the drawn TPs (its diagonal) of every class
    win.confusion.refresh()
    qtbot.waitUntil(lambda: win.confusion.matrix is not None and st.is_idle(), timeout=10_000)
    m = win.confusion.matrix
    evaluated = sorted(st.evaluations[0].det)
    assert int(np.trace(m.counts[:, :n])) == sum(counted(st, 0, k)[0] for k in evaluated)
    missed = st.evaluations[0].missed_at(ds, st.score_threshold)
    assert int(m.counts[:, n + 2].sum()) == int(np.count_nonzero(missed))


# every family's views against ``vocviewer eval --json`` (``check_agreement`` on the cases above):
# ``tests/families/test_common.py::test_every_view_shows_the_same_numbers``, over the registry


# --- each setting in turn: no pane keeps an old value ---------------------------------------------
def pane_values(win: Any) -> dict[str, Any]:
    """What each pane shows now, next to what the models say it should show."""
    from vocviewer.gui.widgets.verdict_style import row_style

    st, ev_model = win.state, win.state.evaluation
    i, k = st.current_results, st.selected_class
    evals = st.evaluations[i]
    out: dict[str, Any] = {}
    drawn = {int(it.row): int(evals.verdict_by_row[it.row]) for it in win.view.overlay_items("det")}
    out["overlays"] = all(v == int(evals.verdict_by_row[r]) for r, v in drawn.items())
    ev = st.class_evaluation(k)
    ranks = win.side.ranks.rows_model
    out["ranks"] = (
        ev is not None
        and len(ranks.keys) == len(ev)
        and all(
            ranks.text(r, 3) == row_style(evals, int(ev.order[r]))[2]
            and ranks.text(r, 1) == f"{ev.score[r]:.3f}"
            and ranks.text(r, 4) == f"{ev.precision[r]:.3f}"
            for r in range(0, len(ev), max(1, len(ev) // 50))
        )
    )
    out["ranks_class"] = win.side._ranks_class == k
    dets = win.side.detections.rows_model
    out["detections"] = all(
        row[3].startswith(row_style(evals, key)[2])
        for row, key in zip(dets.rows, dets.keys, strict=True)
    )
    view = ev_model.view_of(i, k)
    text = title(win)
    out["title_class"] = st.dataset.classes[k] in text
    if view is not None and ev_model.settings.averages_thresholds:
        area = "" if view.area == "all" else f" {view.area}"
        out["title_iou"] = f"AP{round(ev_model.iou * 100)}{area} {view.ap_at:.3f}" in text
    sel = st.selected_detection
    why = win.side.why.text()
    if sel is not None and int(ev.image_index[sel[1]]) == st.current_image:
        out["why"] = f"Rank {sel[1] + 1} of {len(ev)}" in why and (
            f"{ev_model.verdict_iou():g}" in why or "Ignored" in why or "No " in why
        )
    else:
        out["why"] = why.startswith("Select a detection")
    return out


def wait_views(qtbot: Any, win: Any) -> dict[str, Any]:
    st = win.state
    qtbot.waitUntil(
        lambda: st.is_idle() and win.view.shown_image == st.current_image, timeout=30_000
    )
    qtbot.wait(50)  # debounced panes
    qtbot.waitUntil(lambda: st.is_idle(), timeout=10_000)
    values = pane_values(win)
    win.right_tabs.setCurrentWidget(win.confusion)  # the tab refreshes when shown
    qtbot.waitUntil(lambda: st.is_idle(), timeout=10_000)
    m = win.confusion.matrix
    win.right_tabs.setCurrentIndex(0)
    values["confusion"] = (
        m is not None
        and m.score_threshold == st.score_threshold
        and m.iou_threshold == st.evaluation.verdict_iou()
    )
    values["compare"] = st.dataset.classes[st.selected_class] in win.compare.summary.text()
    return values


@pytest.mark.parametrize("family", ["visdrone", "coco"])
def test_every_pane_follows_every_setting(qtbot, make_window, tmp_path, family):
    case = visdrone_case(tmp_path) if family == "visdrone" else coco_case(tmp_path)
    win = open_case(qtbot, make_window, case)
    st = win.state
    k = max(st.evaluations[0].det, key=lambda c: len(st.evaluations[0].det[c]))
    steps = [
        ("class", lambda: st.select_class(k)),
        ("detection", lambda: st.click_pr_point(k, 3)),
        ("iou", lambda: st.evaluation.set_iou(0.8)),
        ("threshold", lambda: st.set_threshold(0.3)),
        ("image", lambda: st.step_image(1)),
        ("results", lambda: st.set_current_results(1)),
        ("iou again", lambda: st.evaluation.set_iou(0.6)),
        ("detection again", lambda: st.click_pr_point(k, 1)),
    ]
    if family == "coco":
        steps.insert(3, ("area", lambda: st.evaluation.set_area("small")))
    for name, change in steps:
        change()
        values = wait_views(qtbot, win)
        stale = [pane for pane, ok in values.items() if not ok]
        assert not stale, f"after changing the {name}: {stale}"


def test_voc_iou_choice_equals_the_cli_and_is_marked_not_official(
    qtbot, make_window, tmp_path, demo
):
    case = voc_case(tmp_path, demo)
    case.cli += ["--iou", "0.7"]
    payload = cli_json(case, 0, tmp_path)
    win = open_case(qtbot, make_window, case)
    st = win.state
    combo = win.protocol.iou_combo
    assert combo.itemText(combo.findData(0.7)) == "IoU ≥ 0.70 (NOT OFFICIAL)"
    assert combo.itemText(combo.findData(0.5)) == "IoU ≥ 0.50"
    st.evaluation.set_iou(0.7)
    qtbot.waitUntil(lambda: st.is_idle() and st.evaluations[0].summary is not None, timeout=30_000)
    assert "NOT OFFICIAL (IoU 0.70)" in " ".join(win.ap_table.ap_model.headers()[1].split())
    assert "NOT OFFICIAL (IoU 0.70)" in title(win)
    n = len(st.dataset.classes)
    assert table_text(win, n, 1) == fmt(payload["summary"]["mAP"])
    for name, row in payload["per_class"].items():
        shown = "—" if row["npos"] == 0 else fmt(row["ap"], "NaN")  # no positives: not in the mean
        assert table_text(win, st.dataset.classes.index(name), 1) == shown
    assert any("NOT OFFICIAL" in note for note in st.evaluations[0].summary.notes)
    st.evaluation.set_iou(0.5)  # back to the devkit's: official again
    qtbot.waitUntil(lambda: st.is_idle() and st.evaluations[0].summary is not None, timeout=30_000)
    assert "NOT OFFICIAL" not in win.ap_table.ap_model.headers()[1]
    assert not st.evaluations[0].summary.notes
