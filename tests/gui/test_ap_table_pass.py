"""The AP table's update pass (column kinds, left-out classes and the AP_N tooltip worked out
once a pass) shows what a table built afresh shows, texts, sort values and tooltips, after each
IoU and area change."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from tests.gui.test_consistency import coco_case, open_case
from tests.gui.test_rederive_panes import settled
from vocviewer.gui.panes.tables.ap_cells import SORT_ROLE
from vocviewer.gui.panes.tables.ap_table import ApTableModel


def cells(model: ApTableModel) -> list[Any]:
    roles = (Qt.ItemDataRole.DisplayRole, SORT_ROLE, Qt.ItemDataRole.ToolTipRole)
    return [
        [tuple(model.item(r, c).data(role) for role in roles) for c in range(model.columnCount())]
        for r in range(model.rowCount())
    ]


def test_updated_cells_equal_a_fresh_tables(qtbot, make_window, tmp_path):
    win = open_case(qtbot, make_window, coco_case(tmp_path))
    st, model = win.state, win.ap_table.ap_model
    qtbot.waitUntil(lambda: settled(win), timeout=60_000)
    for what, value in (("iou", 0.75), ("area", "small"), ("iou", 0.5), ("area", "all")):
        with qtbot.waitSignal(st.evaluation.evidence_replaced, timeout=60_000):
            (st.evaluation.set_iou if what == "iou" else st.evaluation.set_area)(value)
        qtbot.waitUntil(lambda: settled(win), timeout=60_000)
        fresh = ApTableModel(st)
        fresh.refresh()
        assert fresh.headers() == model.headers(), (what, value)
        got, want = cells(model), cells(fresh)
        assert got == want, (what, value)
        assert any(t and t[2] for row in want for t in row)  # tooltips compared too
