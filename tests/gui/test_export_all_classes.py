"""Ctrl+E with All classes exports the plot as shown (issue 20, item 7, the figure): every class's
curve, the legend's classes named with their AP, the plot's title; PNG, SVG and PDF; the status
bar says where it wrote. Before, it only added an info line to the message counter."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PIL import Image
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog

NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def demo_window(qtbot, make_window, demo):
    win = make_window()
    win.open_dataset(demo.year_dir, (demo.results_dir / "Main",))
    st = win.state
    qtbot.waitUntil(lambda: st.current_results >= 0 and st.is_idle(), timeout=60_000)
    assert st.selected_class == -1 and win.pr_pane.classes.on
    return win


def press_ctrl_e(qtbot, win, monkeypatch, target) -> None:
    """Ctrl+E as a user presses it, the save dialog answering ``target``."""
    monkeypatch.setattr(
        QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(target), ""))
    )
    win.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win, timeout=5000)
    qtbot.keyClick(win, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)


def test_svg_has_every_class_curve_and_the_legend(qtbot, demo_window, monkeypatch, tmp_path):
    win, st = demo_window, demo_window.state
    target = tmp_path / "all.svg"
    press_ctrl_e(qtbot, win, monkeypatch, target)
    assert target.is_file()
    assert win.status.label.text() == f"Wrote {target}"  # said where, in the status bar
    root = ET.fromstring(target.read_bytes())
    texts = [t.text for t in root.iter(f"{NS}text")]
    evals = st.evaluations[0].det
    listed = win.pr_pane.classes.listed
    assert len(listed) == 5  # "Best 5 classes", the legend's default
    for k in listed:  # the legend names each listed class with its AP, as on screen
        assert f"{st.dataset.classes[k]}  AP {evals[k].ap:.3f}" in texts
    finite = {k: np.isfinite(ev.recall) & np.isfinite(ev.precision) for k, ev in evals.items()}
    drawn = [k for k in evals if finite[k].any()]  # sofa: no positives, no recall, no line
    assert len(root.findall(f"{NS}polyline")) == len(drawn)  # every class's curve
    greys = [p for p in root.findall(f"{NS}polyline") if p.get("stroke") == "#969696"]
    assert len(greys) == len(drawn) - len(listed)
    mean = st.evaluations[0].headline("det", len(st.dataset.classes))
    assert any(re.fullmatch(rf"All classes mAP {mean:.3f}.*", t or "") for t in texts)


def test_legend_choice_is_exported_as_chosen(qtbot, demo_window, monkeypatch, tmp_path):
    win, st = demo_window, demo_window.state
    win.pr_pane.shown_combo.setCurrentIndex(1)
    win.pr_pane.shown_combo.activated.emit(1)  # "Worst 5 classes"
    target = tmp_path / "worst.svg"
    press_ctrl_e(qtbot, win, monkeypatch, target)
    texts = [t.text for t in ET.fromstring(target.read_bytes()).iter(f"{NS}text")]
    evals = st.evaluations[0].det
    worst = sorted((k for k in evals if len(evals[k])), key=lambda k: (evals[k].ap, k))[:5]
    named = [t for t in texts if t and "  AP " in t]
    assert named == [f"{st.dataset.classes[k]}  AP {evals[k].ap:.3f}" for k in worst]


@pytest.mark.parametrize("suffix", ["png", "pdf"])
def test_png_and_pdf_are_written(qtbot, demo_window, monkeypatch, tmp_path, suffix):
    win = demo_window
    target = tmp_path / f"all.{suffix}"
    press_ctrl_e(qtbot, win, monkeypatch, target)
    assert target.is_file() and win.status.label.text() == f"Wrote {target}"
    if suffix == "pdf":
        assert target.read_bytes().startswith(b"%PDF")
        return
    with Image.open(target) as im:
        rgb = im.convert("RGB")
        assert rgb.size[0] >= 640
        colours = {c for _, c in rgb.getcolors(1 << 20)}
    assert (31, 119, 180) in colours  # the first listed class's colour (#1f77b4)


def test_nothing_to_export_is_said_in_the_status_bar(qtbot, make_window, monkeypatch, tmp_path):
    win = make_window()
    press_ctrl_e(qtbot, win, monkeypatch, tmp_path / "none.png")
    assert not (tmp_path / "none.png").exists()
    assert "export a PR figure" in win.status.label.text()
