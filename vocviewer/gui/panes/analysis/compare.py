"""``CompareView``: the Analysis tab's bootstrap page — for the selected class (AP) or the mean
over classes (the family's headline mean AP), each bootstrapped result set's value with its
percentile interval and, with three or more sets, its rank and rank range; then for every pair
the paired difference ``A − B`` on the same resampled images with its interval and verdict (the
VOC retrospective's §3.5 tables; ``evaluation.bootstrap_stats``)."""

from __future__ import annotations

import math
from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QHeaderView, QLabel, QVBoxLayout, QWidget

from vocviewer.evaluation.bootstrap_stats import A_BETTER, B_BETTER
from vocviewer.gui.models.analysis_tasks import BootstrapOutcome
from vocviewer.gui.models.state import AppState
from vocviewer.gui.widgets.rows_table import RowsTable

SET_HEADERS = ("Result set", "Value", "Interval", "Rank", "Range")
PAIR_HEADERS = ("A − B", "Diff.", "Interval", "Verdict")
EMPTY = (
    "Run a bootstrap (below) to see intervals here: Bootstrap mAP for the current result set, "
    "Compare all result sets for every pair's difference."
)
#: the verdict's colour where the difference is significant
BETTER_COLOR = QColor("#2e7d32")


def fit_rows(table: RowsTable, n: int, most: int = 10) -> None:
    """Make ``table`` as tall as its header and ``n`` rows (at most ``most``; it scrolls then)."""
    rows = max(1, min(n, most))
    height = table.horizontalHeader().height() + rows * table.verticalHeader().defaultSectionSize()
    table.setFixedHeight(height + 2 * table.frameWidth() + 2)


class CompareView(QWidget):
    """Intervals, rank ranges and paired differences of the latest bootstrap."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.header = QLabel(EMPTY)
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.sets = RowsTable(SET_HEADERS)
        self.pairs_label = QLabel()
        self.pairs_label.setWordWrap(True)
        self.pairs = RowsTable(PAIR_HEADERS)
        for table in (self.sets, self.pairs):  # short tables: every column fits its contents
            table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
            table.horizontalHeader().setStretchLastSection(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.header)
        layout.addWidget(self.sets)
        layout.addWidget(self.pairs_label)
        layout.addWidget(self.pairs)
        layout.addStretch(1)
        self.outcome: BootstrapOutcome | None = None
        self.set_rows: list[tuple[str, ...]] = []
        self.pair_rows: list[tuple[str, ...]] = []
        state.class_changed.connect(lambda _k: self.redraw())

    def set_outcome(self, outcome: BootstrapOutcome | None) -> None:
        self.outcome = outcome
        self.redraw()

    def redraw(self) -> None:
        out, ds, k = self.outcome, self.state.dataset, self.state.selected_class
        self.set_rows, self.pair_rows = [], []
        if out is None or ds is None:
            self.sets.set_rows([], [], [])
            self.pairs.set_rows([], [], [])
            self.pairs_label.setText("")
            self.header.setText(EMPTY)
            return
        boot, r = out.boot, out.boot.result
        cls = ds.classes[k] if k >= 0 else None
        if cls is not None and cls not in r.class_names:
            cls = None
        what = f"AP of <b>{escape(cls)}</b>" if cls else f"<b>{escape(boot.metric)}</b>"
        unit = " (percent)" if boot.percent else ""
        self.header.setText(
            f"{what}{unit}: bootstrap over images with replacement, {r.replicates} replicates, "
            f"seed {r.seed}, {boot.level:.0%} percentile intervals; every set on the same "
            "resampled images"
        )
        ranks = {x.name: x for x in r.rank_ranges(cls, boot.level)} if len(r.set_names) > 2 else {}
        fmt = self._fmt
        for name in r.set_names:
            i = r.interval(name, cls, boot.level)
            rr = ranks.get(name)
            self.set_rows.append(
                (
                    name,
                    fmt(i.point),
                    f"[{fmt(i.low)}, {fmt(i.high)}]",
                    str(rr.rank) if rr else "—",
                    (f"{rr.low}–{rr.high}" if rr.low != rr.high else str(rr.low)) if rr else "—",
                )
            )
        self.sets.set_rows(
            self.set_rows, list(range(len(self.set_rows))), [None] * len(r.set_names)
        )
        for col in (3, 4):  # ranks: three or more sets
            self.sets.setColumnHidden(col, not ranks)
        colors: list[QColor | None] = []
        dark = self.palette().color(QPalette.ColorRole.Base).lightness() < 128
        better = BETTER_COLOR.lighter(180) if dark else BETTER_COLOR
        for j, a in enumerate(r.set_names):
            for b in r.set_names[j + 1 :]:
                p = r.paired(a, b, cls, boot.level)
                d = p.difference
                verdict = {A_BETTER: f"{a} better", B_BETTER: f"{b} better"}.get(
                    p.verdict, p.verdict
                )
                self.pair_rows.append(
                    (
                        f"{a} − {b}",
                        fmt(d.point, True),
                        f"[{fmt(d.low, True)}, {fmt(d.high, True)}]",
                        verdict,
                    )
                )
                colors.append(better if p.verdict in (A_BETTER, B_BETTER) else None)
        self.pairs.set_rows(self.pair_rows, list(range(len(self.pair_rows))), colors)
        for table, n in ((self.sets, len(self.set_rows)), (self.pairs, len(self.pair_rows))):
            fit_rows(table, n)
        self.pairs_label.setText(
            "Paired differences A − B (significant where the interval excludes 0):"
            if self.pair_rows
            else "Add another result set and compare them to see paired differences."
        )

    def _fmt(self, v: float, signed: bool = False) -> str:
        if math.isnan(v):
            return "—"
        digits = 2 if self.outcome is not None and self.outcome.boot.percent else 3
        return f"{v:+.{digits}f}" if signed else f"{v:.{digits}f}"
