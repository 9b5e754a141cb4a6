"""``AnalysisPane``: what each error costs the current result set (TIDE's dAP per error type, for
the selected class or the mean over classes), ``analyze()``'s nested curves
(``curves``), the object characteristics (``characteristics``), a page per analysis beyond AP
that has one (``pages``: the operating point, the reliability diagram, ..., from the window's own
evidence) and the bootstrap of one or all result sets (``bootstrap``, ``compare``); the chart
combo chooses the page. Only TIDE's page and the comparison are built with the window; the others
the first time they are shown or reached (``AnalysisPane.built``).

The analysis is computed in a worker (``models.analysis_tasks``) as ``vocviewer analyze``
computes it for the family, once per result set, and only while the pane is shown; so are the
analyses beyond AP (``models.beyond_source``). Clicking a bar,
band or bin lists its members under the chart (``analysis_members``); choosing one selects it in
the image view (Enter or double-click also zooms to it); "Walk" sets the detection walk to the
closest mode. The bootstrap runs on demand, with progress and Cancel.
"""

from __future__ import annotations

from html import escape

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, Signal
from PySide6.QtGui import QColor, QPalette, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analyses.registry import analysis as analysis_named
from vocviewer.evaluation.analysis import object_name
from vocviewer.evaluation.characteristics import Characteristic
from vocviewer.evaluation.tide import KIND_NAMES, TideResult
from vocviewer.families.official import Reason, explain, mark, not_official_reasons
from vocviewer.families.view_analysis import ViewAnalysis
from vocviewer.families.views import ViewChoice
from vocviewer.gui.models.analysis_tasks import (
    BAR_WORDS,
    BARS,
    WALK_OF,
    AnalysisJobs,
    BootstrapOutcome,
    Members,
    bar_members,
    bar_values,
)
from vocviewer.gui.models.beyond_source import BeyondSource
from vocviewer.gui.models.state import AppState
from vocviewer.gui.models.walk import DetectionWalk
from vocviewer.gui.panes.analysis.bootstrap import BootstrapRow
from vocviewer.gui.panes.analysis.characteristics import CharacteristicsChart
from vocviewer.gui.panes.analysis.compare import CompareView
from vocviewer.gui.panes.analysis.curves import CurvesChart
from vocviewer.gui.panes.analysis.members import MemberList, chart_over_list, rich_header
from vocviewer.gui.panes.analysis.pages import AnalysisPage, page_key, pages
from vocviewer.gui.panes.pane_sizes import LIST_MIN_ROWS, keep_plot, keep_rows, scrolled
from vocviewer.gui.widgets.plot_theme import fixed_plot, theme_plot

#: a bar's half width (bars stand at x = 0, 1, ..., the special ones after a gap)
HALF = 0.35
#: the x position of each bar
X_OF: dict[str, float] = {n: float(i + (i >= 6) * 0.6) for i, n in enumerate(BARS)}
#: the axis' name of each bar (the special ones shortened so every name fits)
TICK = {**{n: n for n in BARS}, "FalsePos": "FP", "FalseNeg": "FN"}
#: the chart combo's data of the pages other than TIDE's ("") and the characteristics' (names)
CURVES, BOOTSTRAP = "#curves", "#bootstrap"
#: the characteristics' page's key in ``AnalysisPane.built`` (the combo's data is each name)
CHARS = "#chars"


class AnalysisPane(QWidget):
    """The TIDE chart over the chosen bar's members, and the bootstrap row.

    Signals
    -------
    zoom_requested()
        A member was opened (Enter / double-click): show it zoomed in.
    """

    zoom_requested = Signal()

    def __init__(
        self, state: AppState, walk: DetectionWalk | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.state, self.walk = state, walk
        self.jobs = AnalysisJobs(state, self)
        self.header = rich_header()
        self.plot = fixed_plot("dAP (AP points)")
        self.plot.getAxis("bottom").setTicks([[(X_OF[n], TICK[n]) for n in BARS]])
        self.bars = pg.BarGraphItem(x=[], height=[], width=2 * HALF)
        self.plot.addItem(self.bars)
        self.labels = {n: pg.TextItem(anchor=(0.5, 1.0)) for n in BARS}  # each bar's value
        for item in self.labels.values():
            self.plot.addItem(item)
        self.plot.scene().sigMouseClicked.connect(self._on_scene_click)
        self.list = MemberList(state, walk, "Click a bar to list its detections or objects.")
        self.list_label, self.walk_button = self.list.list_label, self.list.walk_button
        self.members = self.list.members
        self.boot = BootstrapRow(self.jobs, self._results, self._every)
        self.chart_combo = QComboBox()
        self.chart_combo.setToolTip(
            "What the chart shows: TIDE's breakdown, analyze()'s curves, one characteristic or "
            "the bootstrap's intervals and comparison"
        )
        self.chart_combo.addItem("What each error costs (TIDE)", "")
        self.compare = CompareView(state)
        self.beyond = BeyondSource(state, self)  # computed in a worker; ``ready`` redraws
        #: the page class of each analysis beyond AP that has one, by analysis name (``pages``)
        self.page_types: dict[str, type[AnalysisPage]] = {p.analysis: p for p in pages()}
        #: the pages built so far (``built``: the first time one is shown or reached)
        self._built: dict[str, QWidget] = {}

        self.splitter = chart_over_list(self.header, self.plot, self.list)
        self.stack = QStackedWidget()
        for page in (self.splitter, self.compare):
            self.stack.addWidget(page)
        content = self.content = QWidget()  # scrolls where the tab is shorter than it needs
        layout = QVBoxLayout(content)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.chart_combo)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.boot)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scrolled(content))
        keep_plot(self.plot, caption_lines=3)
        keep_rows(self.list.members, LIST_MIN_ROWS)
        for splitter in content.findChildren(QSplitter):
            splitter.setChildrenCollapsible(False)

        self.tide: TideResult | None = None
        self.characteristics: dict[str, Characteristic] = {}
        self.values: dict[str, float] = {}
        self.analysis: ViewAnalysis | None = None
        self.message: str | None = None
        self.bar: str | None = None
        self._dirty = True
        self._ink, self._muted, self._fill = "#000", "#888", QColor("#4477aa")
        self.apply_palette()

        self.list.zoom_requested.connect(self.zoom_requested)
        self.chart_combo.currentIndexChanged.connect(lambda _i: self._show_chart())
        self.beyond.ready.connect(self._on_beyond_ready)
        self.jobs.tide_ready.connect(self._on_tide)
        self.jobs.tide_failed.connect(self._on_tide_failed)
        self.jobs.boot_done.connect(self._on_boot_done)
        state.dataset_loaded.connect(self._on_dataset)
        state.results_added.connect(lambda _i: self.boot.update_sets())
        for signal in (
            state.current_results_changed,
            state.results_added,
            state.evaluation.started,  # another image set
            state.evaluation.finished,  # the window's ranks of the listed detections
            state.evaluation.evidence_replaced,
        ):
            signal.connect(self._invalidate)
        state.class_changed.connect(lambda _k: self._show())
        self.boot.update_sets()  # (the window builds it when first shown: sets may be in)

    # --- the pages, built when first shown (building them all takes the window ~0.1 s) -------
    def built(self, key: str) -> QWidget:
        """The page ``key`` (``CHARS``, ``CURVES`` or an analysis name of ``page_types``), built
        and added to the stack the first time it is asked for."""
        page = self._built.get(key)
        if page is not None:
            return page
        made: QWidget
        if key == CHARS:
            made = chart = CharacteristicsChart(self.state)
            lists, plots = [chart.list], [chart.plot]
        elif key == CURVES:
            made = curves = CurvesChart(self.state, self.walk)
            lists, plots = [curves.list], [curves.plot]
        else:
            made, lists, plots = self.page_types[key](self.state, self.beyond), [], []
            made.zoom_requested.connect(self.zoom_requested)  # type: ignore[attr-defined]
        for plot in plots:
            keep_plot(plot, caption_lines=3)
        for members in lists:
            keep_rows(members.members, LIST_MIN_ROWS)
            members.zoom_requested.connect(self.zoom_requested)
        for splitter in made.findChildren(QSplitter):
            splitter.setChildrenCollapsible(False)
        self._built[key] = made
        self.stack.addWidget(made)
        return made

    @property
    def chars(self) -> CharacteristicsChart:
        """The characteristics' page (built on first use)."""
        return self.built(CHARS)  # type: ignore[return-value]

    @property
    def curves(self) -> CurvesChart:
        """``analyze()``'s curves' page (built on first use)."""
        return self.built(CURVES)  # type: ignore[return-value]

    @property
    def pages(self) -> dict[str, AnalysisPage]:
        """The page of each analysis beyond AP, by analysis name (each built now if it was not)."""
        return {name: self.built(name) for name in self.page_types}  # type: ignore[misc]

    def room(self) -> int:
        """Height (px) that shows the charts and lists at their minimum sizes without scrolling."""
        return self.content.minimumSizeHint().height()

    # --- computing ---------------------------------------------------------------------------
    def _results(self) -> ResultSet | None:
        st = self.state
        return st.results[st.current_results].results if st.current_results >= 0 else None

    def _not_official(self) -> tuple[Reason, ...]:
        """Why the analysis (at IoU 0.5) of the current set is not official: the one rule."""
        st = self.state
        if st.dataset is None:
            return ()
        return not_official_reasons(
            st.dataset, st.evaluation.settings, ViewChoice(0.5), self._results()
        )

    def _every(self) -> list[ResultSet]:
        return [r.results for r in self.state.results]

    def _on_dataset(self, _dataset: Dataset) -> None:
        self.bar = None
        self.boot.boot_label.clear()
        self.boot.update_sets()
        self.compare.set_outcome(None)
        self._invalidate()

    def _on_boot_done(self, out: BootstrapOutcome | str) -> None:
        if isinstance(out, BootstrapOutcome):
            self.compare.set_outcome(out)
            self.choose_chart(BOOTSTRAP)

    def _invalidate(self, *_args: object) -> None:
        self._dirty = True
        if self.isVisible():
            self.refresh()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._dirty:
            self.refresh()

    def refresh(self) -> None:
        """Show the current result set's breakdown, computing it in a worker if needed."""
        self._dirty = False
        res, reason = self._results(), self.jobs.reason_not_analysed()
        if self.state.dataset is None or res is None or reason is not None:
            self._set_analysis(None, reason or "Add a result set to see what each error costs.")
            return
        known, analysis = self.jobs.cached(res)
        if known:
            self._set_analysis(analysis, self.jobs.reason_not_analysed())
            return
        self._set_analysis(None, f"Analysing {escape(res.name)} …")
        self.jobs.request_tide(res)

    def _on_tide(self, results: ResultSet, analysis: ViewAnalysis | None) -> None:
        if results is self._results():
            self._set_analysis(analysis, self.jobs.reason_not_analysed())

    def _on_tide_failed(self, results: ResultSet, why: str) -> None:
        if results is self._results():
            self._set_analysis(None, f"Not analysed: {escape(why)}")

    def _set_analysis(self, analysis: ViewAnalysis | None, message: str | None) -> None:
        self.analysis, self.message = analysis, message
        self.tide = analysis.tide if analysis is not None else None
        self.characteristics = analysis.characteristics if analysis is not None else {}
        chosen = self.chart_combo.currentData()
        self.chart_combo.blockSignals(True)
        while self.chart_combo.count() > 1:
            self.chart_combo.removeItem(1)
        self.chart_combo.addItem("Precision/recall as errors are removed (analyze())", CURVES)
        for name in self.page_types:
            self.chart_combo.addItem(analysis_named(name).title, page_key(name))
        for name in self.characteristics:
            self.chart_combo.addItem(f"Objects by {name} (normalised AP)", name)
        self.chart_combo.addItem("Bootstrap: intervals and comparison", BOOTSTRAP)
        self.chart_combo.setCurrentIndex(max(self.chart_combo.findData(chosen), 0))
        self.chart_combo.blockSignals(False)
        self._show(message if self.tide is None else None)
        self._show_chart()

    def _show_chart(self) -> None:
        """The page the chart combo chose, with its data."""
        name = self.chart_combo.currentData()
        res = self._results()
        set_name = res.name if res else ""
        if name == CURVES:
            a = self.analysis
            why = self.message or ""
            if a is not None and a.curves is None:
                why = (
                    f"{set_name}: no analyze() curves for this family (no similar-class groups, "
                    "no nested curves)"
                )
            self.curves.set_curves(a.curves if a is not None else None, set_name, why)
            self.stack.setCurrentWidget(self.curves)
            return
        if name == BOOTSTRAP:
            self.stack.setCurrentWidget(self.compare)
            return
        page_name = next((n for n in self.page_types if page_key(n) == name), None)
        if page_name is not None:
            page: AnalysisPage = self.built(page_name)  # type: ignore[assignment]
            page.redraw()
            self.stack.setCurrentWidget(page)
            return
        if not name:
            self.stack.setCurrentWidget(self.splitter)
            return
        self.chars.set_characteristic(self.characteristics.get(name), set_name)
        self.stack.setCurrentWidget(self.chars)

    def _on_beyond_ready(self) -> None:
        """The worker's analyses beyond AP came: redraw the page showing one."""
        page = self.stack.currentWidget()
        if isinstance(page, AnalysisPage):
            page.redraw()

    def choose_chart(self, name: str) -> None:
        """Show page ``name`` (``""``: TIDE's breakdown, ``CURVES``, ``BOOTSTRAP``, an analysis
        page's ``pages.page_key(analysis)`` or a characteristic), as the chart combo does."""
        self.chart_combo.setCurrentIndex(max(self.chart_combo.findData(name), 0))

    # --- the chart ---------------------------------------------------------------------------
    def _class(self) -> int:
        return self.state.selected_class

    def _show(self, message: str | None = None) -> None:
        """Draw the bars of the current class (or the message instead) and list the chosen bar."""
        tide, st = self.tide, self.state
        if tide is None or st.dataset is None:
            self.values = {}
            self.bars.setOpts(x=[], height=[])
            for item in self.labels.values():
                item.setText("")
            self.header.setText(message or "")
            self._list(None)
            return
        k = self._class()
        self.values = bar_values(tide, k)
        res = self._results()
        name = escape(res.name if res is not None else "")
        if k < 0:
            what, base = "mean over classes", tide.ap
        else:
            what, base = escape(st.dataset.classes[k]), float(tide.class_ap[k])
        counted = k < 0 or bool(tide.class_counted["AP"][k])
        note = "" if counted else " — no objects and no detections of this class: nothing to fix"
        reasons = self._not_official()
        flag = f" <font color='#c5221f'>{mark(reasons)}</font>" if reasons else ""
        self.header.setText(
            f"<b>{name}</b> · {what} · TIDE: AP points gained by fixing each error type alone "
            f"(IoU 0.5; TIDE AP50 {base:.2f}){flag}{note}"
        )
        self.header.setToolTip(explain(reasons))
        heights = [self.values[n] for n in BARS]
        brushes = [pg.mkBrush(self._fill if i < 6 else self._muted) for i in range(len(BARS))]
        pens = [pg.mkPen(self._ink, width=2.5) if n == self.bar else pg.mkPen(None) for n in BARS]
        self.bars.setOpts(
            x=[X_OF[n] for n in BARS], height=heights, brushes=brushes, pens=pens, width=2 * HALF
        )
        for n, h in zip(BARS, heights, strict=True):
            self.labels[n].setText(f"{h:.2f}", color=self._ink)
            self.labels[n].setPos(X_OF[n], max(h, 0.0))
        lo, hi = min(0.0, *heights), max(1.0, *heights)
        self.plot.setXRange(-0.6, X_OF[BARS[-1]] + 0.6, padding=0)
        self.plot.setYRange(lo, hi * 1.15, padding=0)
        self._list(self.bar)

    def _on_scene_click(self, event: object) -> None:
        pos = event.scenePos()  # type: ignore[attr-defined]
        vb = self.plot.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(pos):
            return
        name = self.bar_at(vb.mapSceneToView(pos))
        if name is not None:
            self.choose_bar(name)

    def bar_at(self, point: QPointF) -> str | None:
        """The bar under a point in data coordinates (its column, whatever its height)."""
        for n in BARS:
            if abs(point.x() - X_OF[n]) <= HALF:
                return n
        return None

    def bar_scene_pos(self, name: str) -> QPointF:
        """Where bar ``name``'s middle lies in scene coordinates (for clicks in tests)."""
        vb = self.plot.getPlotItem().getViewBox()
        return vb.mapViewToScene(QPointF(X_OF[name], self.values.get(name, 0.0) / 2))

    def choose_bar(self, name: str) -> None:
        """List bar ``name``'s detections or objects, as a click on it does."""
        self.bar = name
        self._show()

    # --- the chosen bar's members ------------------------------------------------------------
    def _list(self, name: str | None) -> None:
        tide, ds = self.tide, self.state.dataset
        if tide is None or ds is None or name is None:
            self.list.clear(None if tide is not None else "")
            return
        k = self._class()
        m = bar_members(tide, name, k)
        what = "object" if m.objects else "detection"
        cls = "" if k < 0 else f" of {ds.classes[k]}"
        n = len(m.rows)
        self.list.show_members(
            m,
            f"{name}: {n} {what}{'s' if n != 1 else ''}{cls}, dAP {self.values.get(name, 0.0):.2f}",
            f"{name}: {BAR_WORDS[name]}",
            lambda r: self._detail(tide, r),
            WALK_OF.get(name),
        )

    def _detail(self, tide: TideResult, row: int) -> str:
        assert self.state.dataset is not None
        ev = tide.evidence
        kind = KIND_NAMES[int(ev.kind[row])]
        parts = [kind]
        if int(ev.gt[row]) >= 0:
            parts.append(f"→ {object_name(self.state.dataset, int(ev.gt[row]))}")
        if ev.fixable[row]:
            parts.append("(fixed by the oracle)")
        if ev.ignored[row]:
            parts.append("(ignored region)")
        return " ".join(parts)

    def member_rows(self) -> Members:
        """The rows the list shows (detection or object rows), in its order."""
        return self.list.member_rows()

    def walk_these(self) -> None:
        """Set the detection walk to the chosen bar's mode (``WALK_OF``)."""
        self.list.walk_these()

    # --- theme -------------------------------------------------------------------------------
    def apply_palette(self) -> None:
        """Background, axes and bars in the widget palette's colours (the window's theme)."""
        pal = self.palette()
        _, ink, muted = theme_plot(self.plot, pal)
        self._ink, self._muted = ink.name(), muted.name()
        self._fill = pal.color(QPalette.ColorRole.Highlight)
        if self.tide is not None:
            self._show()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "tide"):
            self.apply_palette()
