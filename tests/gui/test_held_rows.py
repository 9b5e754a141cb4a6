"""``HeldRowsModel``: rows set again with the same keys change only the cells that differ, and
leave the model exactly as a rebuild would (texts, the first column's colour, flags); a change of
keys rebuilds. Random tables, each step against a model built afresh from the same rows."""

from __future__ import annotations

import random

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from vocviewer.gui.widgets.rows_table import HeldRowsModel

HEADERS = ("Rank", "Class", "Score", "Verdict", "IoU")
COLORS = [None, QColor("#d93025"), QColor("#1e8e3e"), QColor("#9aa0a6")]


def _cells(model: HeldRowsModel) -> list[tuple[object, ...]]:
    out = []
    for r in range(model.rowCount()):
        for c in range(model.columnCount()):
            i = model.index(r, c)
            fg = model.data(i, Qt.ItemDataRole.ForegroundRole)
            out.append((model.data(i), None if fg is None else fg.color().name(), i.flags()))
    return out


def test_rows_set_again_equal_a_rebuild(qtbot) -> None:
    rng = random.Random(3)
    model, changed = HeldRowsModel(HEADERS), []
    model.dataChanged.connect(lambda a, b, _roles: changed.append((a.row(), a.column())))
    keys = list(range(40))
    rows = [tuple(rng.choice("ab") for _ in HEADERS) for _ in keys]
    colors = [rng.choice(COLORS) for _ in keys]
    for step in range(30):
        if step % 10 == 9:  # other keys: rebuilt
            keys = rng.sample(range(100), rng.randrange(1, 40))
        rows = [
            tuple(t if rng.random() < 0.8 else rng.choice("abc") for t in rows[i % len(rows)])
            for i in range(len(keys))
        ]
        colors = [c if rng.random() < 0.8 else rng.choice(COLORS) for c in colors[: len(keys)]]
        colors += [rng.choice(COLORS) for _ in range(len(keys) - len(colors))]
        before, changed[:] = model.rows, []
        model.set_rows(rows, keys, colors)
        fresh = HeldRowsModel(HEADERS)
        fresh.set_rows(rows, keys, colors)
        assert _cells(model) == _cells(fresh)
        assert (model.rows, model.keys) == (rows, keys)
        if step % 10 != 9 and step:  # in place: only differing texts (and colours) announced
            texts = {
                (r, c) for r, row in enumerate(rows) for c in range(5) if row[c] != before[r][c]
            }
            assert texts <= set(changed) <= texts | {(r, 0) for r in range(len(rows))}
