"""The per-class AP table: its item model and the pane built on it.

The AP table's cells are read from the ``Dataset`` and the ``ClassEvaluation`` objects in
``AppState`` and handed to a Qt-side ``QStandardItemModel``, so repainting stays in C++.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QColor, QFont, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QHeaderView, QTableView, QWidget

from vocviewer.families.official import explain, mark
from vocviewer.gui.models.ap_n import normalised_aps
from vocviewer.gui.models.debounce import REFRESH_DELAY_MS, Debounced
from vocviewer.gui.models.state import AppState
from vocviewer.gui.panes.tables.ap_cells import (
    APN_HELP,
    SORT_ROLE,
    MeanLastProxy,
    ap_tooltip,
    apn_label,
    apn_tooltip,
    fmt_ap,
    short_name,
)
from vocviewer.gui.widgets.rows_table import make_compact

MUTED = QColor("#80868b")


class ApTableModel(QStandardItemModel):
    """One row per class plus a mean row: class, one AP column per result set, then npos, ndet,
    normalised AP (IJCV 2015 eq. 6 at the shown IoU, ``N`` the mean positives over the classes
    with any; ``normalised``) and classification AP of the current result set. ``SORT_ROLE``
    gives numbers for sorting.

    The cells are worked out in Python by ``refresh`` / ``update_cells`` and held by Qt: painting
    never calls back into Python, where each call would first wait for the interpreter lock that
    an evaluating worker holds (thousands of calls per repaint of a Python model)."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self._headers: list[str] = []
        self._n_sets = 1
        self._cells: dict[tuple[int, int], tuple[str, float, str | None]] = {}
        self._normalised: tuple[object, float, dict[int, float], object] | None = None
        self._pass: dict[str, Any] = {}  # what every cell of an ``update_cells`` pass reads
        self._bold = QFont()
        self._bold.setBold(True)

    def refresh(self) -> None:
        """Re-read the shape (result sets, classes) and every cell; items are rebuilt only when
        the shape changed."""
        headers, self._n_sets = self._make_headers(), max(1, len(self.ap_sets()))
        n = len(self.classes())
        n_rows = n + 1 if n else 0
        if headers != self._headers and len(headers) == self.columnCount():
            # titles only (the AP_N column's IoU, a NOT OFFICIAL line): the items stay, each
            # cell is compared below (rebuilding 405 items took ~15 ms per IoU change)
            self._headers = headers
            self.setHorizontalHeaderLabels(headers)
        if headers != self._headers or n_rows != self.rowCount():
            self._headers = headers
            self._cells = {}
            self.setRowCount(0)
            self.setColumnCount(len(headers))
            self.setHorizontalHeaderLabels(headers)
            right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
            for row in range(n_rows):
                items = [QStandardItem() for _ in headers]
                for col, item in enumerate(items):
                    item.setEditable(False)
                    if col > 0:
                        item.setTextAlignment(right)
                    if row == n:
                        item.setFont(self._bold)
                self.appendRow(items)
        horizontal, tip_role = Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole
        for col, tip in enumerate(self._header_tips()):  # (each one set repaints the table)
            if self.headerData(col, horizontal, tip_role) != tip:
                self.setHeaderData(col, horizontal, tip, tip_role)
        self.update_cells()

    def update_cells(self, rows: Iterable[int] | None = None) -> None:
        """Re-read every cell's text, sort value and tooltip (of class rows ``rows`` and the mean
        row only, if given, while the AP_N column waits for every class); only changed cells
        are set."""
        # worked out once per pass, not per cell (81 rows x the columns)
        self._pass = {}
        self._pass = {
            "normalised": self.normalised(),
            "has_cls": self._has_cls(),
            "shows_apn": self._shows_apn(),
            "sets": self.ap_sets(),
        }
        cols = range(self.columnCount())
        self._pass["ap"] = [self._is_ap(c) for c in cols]  # each column's kind, once a pass
        self._pass["apn"] = [self._is_apn(c) for c in cols]
        self._pass["left_out"] = {}  # (result set, class) -> ``_left_out``
        self._pass["classes"], self._pass["cls_col"] = self.classes(), self._cls_col()
        try:
            n = len(self.classes())
            every = list(range(self.rowCount()))
            if rows is not None and self._pass["normalised"] is None:
                every = sorted({r for r in rows if 0 <= r < n} | ({n} & set(every)))
            changed = []
            for col in range(self.columnCount()):
                for row, cell in zip(every, self._column(col, every), strict=True):
                    if self._cells.get((row, col)) != cell:
                        self._cells[row, col] = cell
                        changed.append((row, col, cell))
            self._set_cells(changed)
        finally:
            self._pass = {}

    def classes(self) -> tuple[str, ...]:
        if "classes" in self._pass:
            return self._pass["classes"]  # type: ignore[no-any-return]
        return self.state.dataset.classes if self.state.dataset is not None else ()

    def _has_cls(self) -> bool:
        if "has_cls" in self._pass:
            return bool(self._pass["has_cls"])
        st = self.state
        return (
            st.current_results >= 0 and len(st.results[st.current_results].results.class_scores) > 0
        )

    def n_sets(self) -> int:
        """Number of AP columns: one per result set with curves (at least one)."""
        return self._n_sets

    def ap_sets(self) -> list[int]:
        """The result sets with an AP column: those that rank (``LoadedResults.has_curves``; a
        set of segmentation label PNGs has its numbers in the Summary tab)."""
        if "sets" in self._pass:
            return list(self._pass["sets"])
        return [i for i, r in enumerate(self.state.results) if r.has_curves]

    def _set_of(self, col: int) -> int:
        """The result set of AP column ``col`` (1-based after the class), else -1."""
        sets = self.ap_sets()
        return sets[col - 1] if 1 <= col <= len(sets) else -1

    def headers(self) -> list[str]:
        return self._headers

    def _make_headers(self) -> list[str]:
        """Column titles; the numbers' columns end in a second line ``NOT OFFICIAL (…)`` where
        ``families.official`` says so (the reasons in ``_header_tips``)."""
        st = self.state
        ev, i = st.evaluation, st.current_results

        def marked(title: str, index: int) -> str:
            m = mark(ev.not_official(index)).replace(" (", "\n(")  # 3 lines: narrow
            return f"{title}\n{m}" if m else title

        many, sets = len(st.results) > 1, self.ap_sets()  # a set without curves: no AP column
        titles = [
            short_name(st.results[j].results.name) if many else ev.settings.ap_name for j in sets
        ]
        aps = [marked(t, j) for j, t in zip(sets, titles, strict=True)] or [ev.settings.ap_name]
        apn = [marked(apn_label(ev.settings, ev.choice()), i)] if self._shows_apn() else []
        cls = [marked("cls AP", i)] if self._has_cls() else []
        return ["Class", *aps, "npos", "ndet", *apn, *cls]

    def _header_tips(self) -> list[str | None]:
        """Each column's tooltip: why its numbers are not official, if they are not."""
        ev, i, n = self.state.evaluation, self.state.current_results, self.n_sets()
        tips: list[str | None] = [None] * len(self._headers)
        for col in range(1, len(self._headers)):
            if col not in (n + 1, n + 2):
                tips[col] = explain(ev.not_official(self._set_of(col) if col <= n else i)) or None
        if self._shows_apn():
            tips[n + 3] = (tips[n + 3] + "\n\n" if tips[n + 3] else "") + APN_HELP
        return tips

    def _shows_apn(self) -> bool:
        if "shows_apn" in self._pass:
            return bool(self._pass["shows_apn"])
        st = self.state
        return bool(st.evaluations) and not self._summary_only(st.current_results)

    def shown(self) -> tuple[list[str], list[list[str]]]:
        """What the table shows, in class order (the mean row last): the column titles (a
        ``NOT OFFICIAL`` line joined with a space) and every cell's text."""
        heads = [h.replace("\n", " ") for h in self._headers]
        rows = [
            [
                str(self.item(r, c).data(Qt.ItemDataRole.DisplayRole) or "")
                for c in range(len(heads))
            ]
            for r in range(self.rowCount())
        ]
        return heads, rows

    def shown_values(self) -> list[list[float | None]]:
        """Each cell's number unrounded where the cell shows that number (its sort value rounds
        to the text: the JSON export's cells), else ``None``."""
        values: list[list[float | None]] = []
        for r in range(self.rowCount()):
            row: list[float | None] = []
            for c in range(self.columnCount()):
                item = self.item(r, c)
                text, value = item.data(Qt.ItemDataRole.DisplayRole), item.data(SORT_ROLE)
                try:
                    same = c > 0 and abs(float(text) - float(value)) <= 0.5001e-3
                except (TypeError, ValueError):
                    same = False
                row.append(float(value) if same else None)
            values.append(row)
        return values

    def _cls_col(self) -> int:
        if "cls_col" in self._pass:
            return int(self._pass["cls_col"])
        return self.n_sets() + 3 + self._shows_apn()

    def normalised(self) -> tuple[float, dict[int, float]] | None:
        """(``N``, class index -> AP_N) of the current result set at the shown IoU, under the
        family's AP rule; ``None`` until every class arrived. Kept until the evaluation
        changes (within an ``update_cells`` pass: the pass's)."""
        if "normalised" in self._pass:
            return self._pass["normalised"]
        st = self.state
        i = st.current_results
        if not 0 <= i < len(st.evaluations) or not self.classes():
            return None
        views = st.evaluations[i].views
        if len(views) < len(self.classes()):
            return None
        # AP_N reads the ranked evaluations only: another area range at the same threshold
        # keeps them (``rederive_views``), and so the AP_N (the key holds them: ids stay theirs)
        rule, evs = st.evaluation.settings.ap_rule, {k: v.evaluation for k, v in views.items()}
        key = (i, rule, tuple((k, id(e)) for k, e in evs.items()))
        if self._normalised is None or self._normalised[0] != key:
            ready = st.evaluations[i].normalised  # the re-deriving worker's, if it came so
            n_pos, aps = ready[1:] if ready and ready[0] == rule else normalised_aps(views, rule)
            self._normalised = (key, n_pos, aps, evs)
        return self._normalised[1], self._normalised[2]

    def _is_ap(self, col: int) -> bool:
        if "ap" in self._pass:
            return bool(self._pass["ap"][col])
        return 1 <= col <= self.n_sets() or (col == self._cls_col() and self._has_cls())

    def _is_apn(self, col: int) -> bool:
        if "apn" in self._pass:
            return bool(self._pass["apn"][col])
        return col == self.n_sets() + 3 and self._shows_apn()

    def _left_out(self, row: int, col: int) -> str | None:
        """Why the protocol leaves class ``row`` out of its averages (``ClassView.left_out``) in
        AP column ``col``'s result set (the current one's for AP_N); ``None``: it counts."""
        st, n = self.state, self.n_sets()
        i = col - 1 if 1 <= col <= n else st.current_results
        memo = self._pass.get("left_out")
        if memo is not None and (i, row) in memo:
            return memo[i, row]  # type: ignore[no-any-return]
        view = st.evaluation.view_of(i, row) if row < len(self.classes()) else None
        got = view.left_out if view is not None and view.left_out else None
        if memo is not None:
            memo[i, row] = got
        return got

    def _apn(self, row: int) -> float | None:
        got = self.normalised()
        if got is None:
            return None
        if row == len(self.classes()):  # the mean row
            values = [a for a in got[1].values() if not math.isnan(a)]
            return float(sum(values) / len(values)) if values else math.nan
        return got[1].get(row, math.nan)

    def text_of(self, row: int, col: int) -> str:
        """The text cell ``(row, col)`` gets from the state now (the mean row: ``len(classes)``)."""
        self._pass = {}
        return self._column(col, [row])[0][0]

    def _set_cells(self, changed: list[tuple[int, int, tuple[str, float, str | None]]]) -> None:
        """Set the ``(row, col, (text, sort value, tooltip))`` cells, then tell the views once
        per column (one signal per role and cell took ~1 ms of each IoU change)."""
        if not changed:
            return
        roles = [Qt.ItemDataRole.DisplayRole, SORT_ROLE, Qt.ItemDataRole.ToolTipRole]
        blocked = self.blockSignals(True)
        try:
            for row, col, cell in changed:
                item = self.item(row, col)
                for role, value in zip(roles, cell, strict=True):
                    item.setData(value, role)
        finally:
            self.blockSignals(blocked)
        spans: dict[int, tuple[int, int]] = {}  # column -> its first and last changed row
        for row, col, _cell in changed:
            first, last = spans.get(col, (row, row))
            spans[col] = (min(first, row), max(last, row))
        for col, (first, last) in spans.items():  # (the views repaint those columns only)
            self.dataChanged.emit(self.index(first, col), self.index(last, col), roles)

    def _column(self, col: int, rows: list[int]) -> list[tuple[str, float, str | None]]:
        """The cells ``(text, sort value, tooltip)`` of column ``col`` in ``rows`` (the mean
        row is ``len(classes)``), the column's kind worked out once, not per cell."""
        st, names, n_sets = self.state, self.classes(), self.n_sets()
        n, current = len(names), st.current_results
        if col == 0:
            return [(names[r] if r < n else "mean", float(r), None) for r in rows]
        ap, apn = self._is_ap(col), self._is_apn(col)
        if not ap and not apn:  # npos, ndet
            waiting = "…" if current >= 0 and not self._summary_only(current) else ""
            cells: list[tuple[str, float, str | None]] = []
            for r in rows:
                e = st.class_evaluation(r, "det") if r < n else None
                if e is None:
                    cells.append(("" if r >= n else waiting, -1.0, None))
                else:
                    value = e.npos if col == n_sets + 1 else e.ndet
                    cells.append((f"{value}", float(value), None))
            return cells
        lefts = [self._left_out(r, col) for r in rows]
        out = "{}: not in the averages (as the official code)"
        if apn:
            got = self.normalised()
            tip = None if got is None else apn_tooltip(got[0], st)
            cells = []
            for r, left in zip(rows, lefts, strict=True):
                value = None if left else self._apn(r)
                if left:
                    cells.append(("—", -1.0, out.format(left)))
                elif value is None or math.isnan(value):
                    cells.append(("…" if value is None else "—", -1.0, tip))
                else:
                    cells.append((f"{value:.3f}", value, tip))
            return cells
        i = self._set_of(col)  # (-1: the cls AP column, or the placeholder column)
        det = st.evaluations[i].det if col <= n_sets and 0 <= i < len(st.evaluations) else None
        if col <= n_sets:
            mean = self._mean("det", i)
            missing = "" if current < 0 or i < 0 or self._summary_only(i) else "…"
        else:
            mean, missing = self._mean("cls", current), ""
        cells = []
        for r, left in zip(rows, lefts, strict=True):
            if r < n and col <= n_sets:
                ev = det.get(r) if det is not None else None
            else:
                ev = st.class_evaluation(r, "cls") if r < n else None
            sort = -1.0 if ev is None or math.isnan(ev.ap) else float(ev.ap)
            if left:
                cells.append(("—", -1.0, out.format(left)))
            elif r >= n:
                cells.append((mean, -1.0, None))
            else:
                text = missing if ev is None and col <= n_sets else fmt_ap(ev)
                cells.append((text, sort, ap_tooltip(ev)))
        return cells

    def _summary_only(self, index: int) -> bool:
        """Result set ``index`` ranks nothing (segmentation label PNGs) or was evaluated to a
        summary without per-class results: nothing more will come for the table."""
        evals = self.state.evaluations
        if not 0 <= index < len(evals):
            return False
        if not self.state.results[index].has_curves:
            return True
        return evals[index].summary is not None and not evals[index].det

    def _mean(self, task: str, index: int) -> str:
        st = self.state
        if index < 0 or index >= len(st.evaluations):
            return ""
        evals = st.evaluations[index]
        mean = evals.headline(task, len(self.classes()))
        if mean is None:  # still coming, unless the set's summary came without classes
            waiting = (task == "det" or self._has_cls()) and not self._summary_only(index)
            return "…" if waiting else ""
        return "—" if math.isnan(mean) or mean < 0 else f"{mean:.3f}"


class ApTable(QTableView):
    """The per-class AP table (one AP column per result set; click a header to sort, the mean row
    stays last); selecting a row selects the class.

    (``app_state``, not ``state``: ``QAbstractItemView.state()`` exists.)"""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.app_state = state
        self.ap_model = ApTableModel(state, self)
        self.proxy = MeanLastProxy(self)
        self.proxy.setSourceModel(self.ap_model)
        self.proxy.setDynamicSortFilter(False)  # re-sort on header clicks, not on every class
        self.setModel(self.proxy)
        self.setSortingEnabled(True)
        self.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # class order until a header is clicked
        make_compact(self)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self._arrived: set[int] = set()  # classes arrived since the table's last update
        self._widths: dict[tuple[Any, ...], int] = {}  # a column's width by what it must hold
        self._reset()

        self.selectionModel().currentRowChanged.connect(self._on_row_changed)
        # one reset per event-loop turn: adding a result set alone emits three of these signals
        self._reset_later = Debounced(self._reset, 0, self)
        for signal in (
            state.dataset_loaded,
            state.current_results_changed,
            state.results_added,
            state.evaluation.started,
            state.evaluation.summary_changed,
        ):
            signal.connect(self._reset_later.request)
        state.evaluation.evidence_replaced.connect(self._reset_later.run_at_once)  # one change
        self._rows_later = Debounced(self._update_all_rows, REFRESH_DELAY_MS, self)
        state.evaluation.class_evaluated.connect(self._on_class_evaluated)
        state.evaluation.finished.connect(self._reset_later.flush_soon)
        state.evaluation.finished.connect(self._rows_later.flush_soon)
        state.class_changed.connect(self._sync_selection)

    def selectRow(self, row: int) -> None:
        """Select the row of class ``row`` (a source row), wherever sorting put it."""
        proxy_row = self.proxy.mapFromSource(self.ap_model.index(row, 0)).row()
        super().selectRow(proxy_row if proxy_row >= 0 else row)

    def _reset(self, *_args: object) -> None:
        self._arrived = set()  # the refresh reads every row
        self.ap_model.refresh()
        header = self.horizontalHeader()
        header.setStretchLastSection(False)
        # widths from the texts they must hold, once: sizing to contents would read every cell
        # again on each update (80 classes x every column, many times during an evaluation)
        fm, pad = self.fontMetrics(), 18
        names = (*self.ap_model.classes(), "mean")
        for c, title in enumerate(self.ap_model.headers()):
            texts = names if c == 0 else ("0.000", "00000")
            key = (texts, title, self.font().key())
            width = self._widths.get(key)  # measuring 81 names takes ~5 ms: once
            if width is None:
                width = max(fm.horizontalAdvance(t) for t in [*texts, *title.split("\n")]) + pad
                self._widths[key] = width
            if header.sectionResizeMode(c) != QHeaderView.ResizeMode.Interactive:
                header.setSectionResizeMode(c, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(c, width)
        self._sync_selection(self.app_state.selected_class)
        self.executeDelayedItemsLayout()

    def _on_class_evaluated(self, index: int, ev: Any) -> None:
        self._arrived.add(ev.class_index)
        self._rows_later.request()  # a burst of classes → one relayout of the table

    def _update_all_rows(self) -> None:
        """The rows of the classes that arrived since the last update (none: nothing to do)."""
        rows, self._arrived = self._arrived, set()
        if rows:
            self.ap_model.update_cells(rows)

    def _on_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            row = self.proxy.mapToSource(current).row()
            n = len(self.ap_model.classes())
            self.app_state.select_class(-1 if row >= n else row)

    def _sync_selection(self, k: int) -> None:
        current = self.proxy.mapToSource(self.currentIndex()).row()
        if k < 0:
            self.setCurrentIndex(QModelIndex())
            self.clearSelection()
        elif current != k and k < self.ap_model.rowCount():
            self.selectRow(k)
