"""``MainWindow``: the image browser, the image, the PR curve and AP table, around one ``AppState``.

Layout: image browser (left) | image view over the side panel (centre) | PR curve over the AP,
Summary, Confusion and Analysis tabs (right); the filter panel docks on the left (View ▸ Filter
panel); two toolbars (result set, score threshold, drawing
toggles, view mode | fit, 1:1, IoU, area, segmentation); a status bar (``StatusLine``); problems
go to a non-modal, collapsible "Messages" panel at the bottom.

The window is composed, not mixed in: it builds the panes and the controllers — ``opening``
(File ▸ Open, drops, Open Recent), ``exporting`` (File ▸ Export), ``subset`` (File ▸ Export the
listed images as a dataset), ``sessions``, ``display``
(View: what is drawn, where the user is), ``protocol`` (IoU, area, segmentation), ``walk``,
``palette_menu``, ``theme``, ``help`` and ``status`` — each a ``QObject`` that owns its actions
and the slots behind them and is handed the state and the panes it acts on; the window lays them
out in menus and toolbars and wires the panes to each other. The commands tests, sessions and the
CLI call (``open_dataset``, ``open_each``, ``add_results``, ``export_pr``, ...) are delegations.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, QSize, Qt, QThreadPool
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QLabel,
    QMainWindow,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from vocviewer.gui.models.saved_views import SavedViews
from vocviewer.gui.models.state import AppState
from vocviewer.gui.models.walk import DetectionWalk
from vocviewer.gui.panes.browse.filter_panel import FilterPanel
from vocviewer.gui.panes.browse.image_area import ImageArea
from vocviewer.gui.panes.browse.image_browser import ImageBrowser
from vocviewer.gui.panes.browse.side_panel import SidePanel
from vocviewer.gui.panes.image.view import ImageView
from vocviewer.gui.panes.pane_sizes import KeepRoom
from vocviewer.gui.panes.pr.pane import PRPane
from vocviewer.gui.panes.tables.ap_table import ApTable
from vocviewer.gui.panes.tables.compare import ComparePane
from vocviewer.gui.panes.tables.confusion import ConfusionPane
from vocviewer.gui.panes.tables.messages import MessagesPanel
from vocviewer.gui.panes.tables.protocol_views import CaptionBar, SummaryPane
from vocviewer.gui.window.actions import TOGGLES, DisplayControls
from vocviewer.gui.window.curation import CurationController
from vocviewer.gui.window.export_actions import ExportController
from vocviewer.gui.window.help_dialogs import HelpController
from vocviewer.gui.window.open_actions import OpenController
from vocviewer.gui.window.palette_actions import PaletteMenu
from vocviewer.gui.window.protocol_controls import ProtocolControls
from vocviewer.gui.window.recent import RecentEntry, SetOpener
from vocviewer.gui.window.session_actions import SessionController
from vocviewer.gui.window.settings_store import LastFolders, WindowSettings
from vocviewer.gui.window.status_line import StatusLine
from vocviewer.gui.window.subset_actions import SubsetExportController
from vocviewer.gui.window.theme import ThemeControl
from vocviewer.gui.window.threshold_actions import ThresholdController
from vocviewer.gui.window.toolbar_rows import ToolbarRows
from vocviewer.gui.window.walk_actions import WalkController

if TYPE_CHECKING:
    from vocviewer.gui.panes.analysis.pane import AnalysisPane


class MainWindow(QMainWindow):
    """The application window; every view is built on ``state`` (created if not given).

    ``settings``: the user's settings (``recent.default_settings``), from which the layout and
    choices are restored and to which they are saved on close (``settings_store``); without it
    the window remembers nothing of its own and keeps the recent list in the user's file.
    """

    def __init__(
        self,
        state: AppState | None = None,
        parent: QWidget | None = None,
        settings: QSettings | None = None,
    ) -> None:
        super().__init__(parent)
        self.state = state if state is not None else AppState(self)
        st = self.state
        self.setWindowTitle("vocviewer")
        self.resize(1400, 900)
        self.setAcceptDrops(True)
        self._build_panes()
        self._build_layout()
        self.walk_model = DetectionWalk(st, self)  # the walk's position and mode, on the state
        self.status = StatusLine(self.statusBar(), st, self.view, self.walk_model)
        self.folders = LastFolders(st, settings)  # where the file dialogs start
        self.opening = OpenController(self, st, self.folders, self.status, settings)
        self.exporting = ExportController(
            self,
            st,
            self.folders,
            self.status,
            view=self.view,
            pr_pane=self.pr_pane,
            ap_table=self.ap_table,
            confusion=self.confusion,
        )
        self.subset = SubsetExportController(self, st, self.folders, self.status)
        self.sessions = SessionController(
            self, st, self.opening, self.browser, self.folders, self.status
        )
        self.display = DisplayControls(self, st, self.view, self.browser, self.messages)
        self.thresholds = ThresholdController(self, st, self.folders, self.status)
        self.help = HelpController(self)
        self.walk = WalkController(self, st, self.walk_model, self.view, self.status)
        self.curation = CurationController(  # tags, notes and the label-error queue
            self, st, self.side, self.browser, self.folders, self.status
        )
        self.walk.detour = self.curation.walk
        self.sessions.tags = self.curation.tags
        self.sessions.keep_views(self.saved_views)  # in sessions and Open Recent
        self.act_quit = QAction("&Quit", self)
        self.act_quit.setShortcut(QKeySequence("Ctrl+Q"))
        self.act_quit.setStatusTip("Close the window")
        self.act_quit.triggered.connect(self.close)
        self._build_toolbars()
        self.protocol = ProtocolControls(self.eval_toolbar, st, self.view, self.side)
        self.image_area = ImageArea(st, self.view)  # the grid or the patches swap with the image
        self.sessions.area = self.image_area  # (saved with sessions)
        self.centre_box.insertWidget(0, self.image_area, 1)
        self.image_area.set_tags(self.curation.tags)
        self.curation.follow_patches(self.image_area)
        self.theme = ThemeControl(self, self.view, settings)  # View ▸ Theme (remembered if given)
        self.palette_menu = PaletteMenu(  # View ▸ Palette (stored in ``settings``)
            self,
            settings,
            self.status,
            self.view,
            self.pr_pane,
            (self.side, self.confusion, self.ap_table),
        )
        for controller in (
            self.opening,
            self.sessions,
            self.exporting,
            self.subset,
            self.display,
            self.help,
            self.walk,
            self.protocol,
            self.curation,
            self.thresholds,
        ):
            self.addActions(controller.window_actions())  # their keys work anywhere in the window
        a = self.image_area
        self.addActions([self.act_quit, a.act_grid, a.act_patches, self.act_filters])
        self._build_menus()
        self._wire()
        self.window_settings = WindowSettings(  # restores the layout and choices
            self,
            st,
            settings,
            folders=self.folders,
            splitters={
                "splitter": self.splitter,
                "centre": self.centre,
                "right": self.right,
                "outer": self.outer,
            },
            protocol=self.protocol,
        )
        self.window_settings.remember(
            "view/thumbnail_size", lambda: self.image_area.thumb_w, self.image_area.set_thumb_size
        )

    # --- construction --------------------------------------------------------------------------
    def _build_panes(self) -> None:
        st = self.state
        self.browser = ImageBrowser(st)
        self.view = ImageView(st)
        # the first pane to hear a re-derive: the image's changes are gathered before the PR
        # plot's scene repaints the window (``paint_with_window``), so the window repaints once
        st.evaluation.evidence_replaced.connect(self.view.evidence_replaced)
        self.captions = CaptionBar(st)
        self.pr_pane = PRPane(st)
        self.ap_table = ApTable(st)
        self.summary = SummaryPane(st)
        self.confusion = ConfusionPane(st)
        self.messages = MessagesPanel(st)
        self.side = SidePanel(st)
        self.compare = ComparePane(st)
        self.side.tabs.addTab(self.compare, "Compare")
        self.saved_views = SavedViews(self)  # named filters, kept in sessions and Open Recent
        self.filter_panel = FilterPanel(st, self.saved_views)

    def _build_layout(self) -> None:
        """browser | (image and captions over the side panel) | (PR plot over the tabs), over the
        messages panel."""
        holder = QWidget()  # the image (or the thumbnail grid: ``image_area``) over the captions
        self.centre_box = QVBoxLayout(holder)
        self.centre_box.setContentsMargins(0, 0, 0, 0)
        self.centre_box.setSpacing(0)
        self.centre_box.addWidget(self.captions)
        self.centre = QSplitter(Qt.Orientation.Vertical)
        self.centre.addWidget(holder)
        self.centre.addWidget(self.side)
        self.centre.setStretchFactor(0, 1)
        self.centre.setCollapsible(0, False)
        self.centre.setSizes([600, 200])
        self.right_tabs = QTabWidget()
        self.right_tabs.setDocumentMode(True)
        self.right_tabs.addTab(self.ap_table, "AP per class")
        self.right_tabs.addTab(self.summary, "Summary")
        self.right_tabs.addTab(self.confusion, "Confusion")
        self.right = QSplitter(Qt.Orientation.Vertical)
        self.right.addWidget(self.pr_pane)
        self.right.addWidget(self.right_tabs)
        self.right.setSizes([370, 445])
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        for w in (self.browser, self.centre, self.right):
            self.splitter.addWidget(w)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([230, 740, 430])
        self.splitter.setChildrenCollapsible(False)
        self.outer = QSplitter(Qt.Orientation.Vertical)
        self.outer.addWidget(self.splitter)
        self.outer.addWidget(self.messages)
        self.outer.setStretchFactor(0, 1)
        self.outer.setCollapsible(0, False)
        self.outer.setSizes([720, 140])
        self.messages.hide()
        self.setCentralWidget(self.outer)
        self.filter_dock = QDockWidget("Filters", self)  # View ▸ Filter panel; hidden at first
        self.filter_dock.setObjectName("filter-dock")
        self.filter_dock.setWidget(self.filter_panel)
        self.filter_dock.setAllowedAreas(
            Qt.DockWidgetArea.LeftDockWidgetArea | Qt.DockWidgetArea.RightDockWidgetArea
        )
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.filter_dock)
        self.filter_dock.hide()
        self.act_filters = self.filter_dock.toggleViewAction()
        self.act_filters.setText("&Filter panel")
        self.act_filters.setShortcut(QKeySequence("Ctrl+Shift+F"))
        self.act_filters.setStatusTip(
            "Filter by score, class, verdict, FP kind, box area and aspect, flags and tags; "
            "save the filter as a named view"
        )
        self.browser.filter_menu.addSeparator()
        self.browser.filter_menu.addAction(self.act_filters)
        self.browser.filter_menu.addMenu(self.filter_panel.views_menu)

    def _build_toolbars(self) -> None:
        """Main: open, add, result set, score threshold, drawing toggles, view mode. Zoom and
        evaluation: fit, 1:1 (the protocol controls join it), a second row when narrow."""
        d, bar = self.display, self.addToolBar("Main")
        self.toolbar = bar
        bar.setObjectName("main-toolbar")
        bar.setMovable(False)
        bar.setIconSize(QSize(18, 18))
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        bar.addAction(self.opening.act_open)
        bar.addAction(self.opening.act_add)
        bar.addSeparator()
        bar.addWidget(QLabel(" Results "))
        bar.addWidget(d.results_combo)
        bar.addSeparator()
        bar.addWidget(d.threshold_label)
        bar.addWidget(d.threshold_slider)
        bar.addWidget(d.threshold_spin)
        bar.addSeparator()
        for name, _, short, _ in TOGGLES:
            if short:
                bar.addAction(d.toggle_actions[name])
        bar.addWidget(d.mode_combo)
        bar = self.eval_toolbar = self.addToolBar("Zoom and evaluation")  # IoU, area, overlay
        bar.setObjectName("eval-toolbar")
        bar.setMovable(False)
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        bar.addAction(d.act_fit)
        bar.addAction(d.act_one)
        self.toolbar_rows = ToolbarRows(self, self.toolbar, bar)  # a second row, never hidden

    def _build_menus(self) -> None:
        o, x, s, d = self.opening, self.exporting, self.sessions, self.display
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        self._add(file_menu, o.act_open, o.act_open_file, o.recent_menu, o.act_demo, None)
        self._add(file_menu, o.act_add, o.act_add_dir, None)
        self._add(file_menu, s.act_open_session, s.act_save_session, None)
        self._add(file_menu, *x.window_actions(), *self.subset.window_actions())
        self._add(file_menu, None, self.act_quit)
        view_menu = self.view_menu = bar.addMenu("&View")
        self._add(view_menu, d.act_next, d.act_prev, d.act_next_fp, d.act_prev_fp, d.act_find)
        self._add(view_menu, None, *d.toggle_actions.values(), self.protocol.act_seg)
        self._add(
            view_menu, self.palette_menu, None, d.mode_menu, *self.thresholds.window_actions()
        )
        self._add(view_menu, None)
        a = self.image_area
        self._add(view_menu, a.act_grid, a.act_patches, self.act_filters, a.act_larger)
        self._add(view_menu, a.act_smaller, None, d.act_fit, d.act_one, d.act_zoom_in)
        self._add(view_menu, d.act_zoom_out, d.act_zoom_sel, None, d.act_cancel, d.act_messages)
        self._add(view_menu, self.theme.menu)
        bar.addMenu(self.walk.menu)
        bar.addMenu(self.curation.menu)
        help_menu = bar.addMenu("&Help")
        h = self.help
        self._add(help_menu, h.act_shortcuts, h.act_getting_started, None, h.act_about)

    @staticmethod
    def _add(menu: QWidget, *items: QAction | QWidget | None) -> None:
        """Add actions, submenus and (``None``) separators to ``menu``, in order."""
        for item in items:
            if item is None:
                menu.addSeparator()  # type: ignore[attr-defined]
            elif isinstance(item, QAction):
                menu.addAction(item)
            else:
                menu.addMenu(item)  # type: ignore[attr-defined]

    def _wire(self) -> None:
        """The panes to each other: zoom requests, the comparison, the Analysis tab, the
        right-click menus, the messages button and the window title."""
        st, view, d, x = self.state, self.view, self.display, self.exporting
        self._analysis: AnalysisPane | None = None  # (``analysis``: built when first shown)
        self._analysis_tab = QWidget()  # its tab's page until then
        self.right_tabs.addTab(self._analysis_tab, "Analysis")
        self.right_tabs.currentChanged.connect(self._on_right_tab)
        for zooming in (self.side, self.confusion, self.curation.pane):
            zooming.zoom_requested.connect(view.zoom_to_highlight)
        for pane, acts in (
            (view, (x.act_export_image, d.act_fit, d.act_one, d.act_zoom_sel)),
            (self.ap_table, (x.act_export_table, x.act_export_pr)),
            (self.confusion.table, (x.act_export_confusion,)),
        ):  # right-click menus
            pane.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
            pane.addActions(list(acts))
        self.compare.pair_chosen.connect(self._on_compare_pair)
        self.side.tabs.currentChanged.connect(self._on_side_tab)
        self.status.cancel_button.clicked.connect(d.cancel_evaluation)
        self.status.problems_button.clicked.connect(d.act_messages.toggle)
        self.messages.cleared.connect(self.status.messages_cleared)
        st.dataset_loaded.connect(self._on_dataset_loaded)

    @property
    def analysis(self) -> AnalysisPane:
        """The Analysis tab (TIDE, its members, the bootstrap), built the first time it is shown
        or asked for: a window that never shows it does not pay for it (~35 ms of start-up)."""
        pane = self._analysis
        if pane is None:
            from vocviewer.gui.panes.analysis.pane import AnalysisPane

            pane = self._analysis = AnalysisPane(self.state, self.walk_model)
            tabs, placeholder = self.right_tabs, self._analysis_tab
            index, current = tabs.indexOf(placeholder), tabs.currentWidget() is placeholder
            blocked = tabs.blockSignals(True)  # (the same tab stays in front)
            tabs.insertTab(index, pane, tabs.tabText(index))
            tabs.removeTab(index + 1)
            if current:
                tabs.setCurrentIndex(index)
            tabs.blockSignals(blocked)
            placeholder.deleteLater()
            self.right_room = KeepRoom(self.right, self._analysis_room, pane.content)
            self.pr_pane.band.follow(pane.jobs)  # the bootstrap's band on the PR plot
            pane.zoom_requested.connect(self.view.zoom_to_highlight)
            if current:
                self.right_room.apply()
        return pane

    def _on_right_tab(self, _index: int) -> None:
        if self.right_tabs.currentWidget() is self._analysis_tab:
            _ = self.analysis  # built as it is shown

    def _analysis_room(self) -> int:
        """The right-hand tabs' height that shows the Analysis charts and lists unscrolled
        (while the Analysis tab is in front; else 0: the PR plot keeps its room)."""
        pane = self._analysis
        if pane is None or self.right_tabs.currentWidget() is not pane:
            return 0
        return pane.room() + self.right_tabs.tabBar().sizeHint().height()

    # --- commands (delegations to the controllers) ---------------------------------------------
    def open_dataset(
        self,
        path: str | Path,
        results: Sequence[str | Path] = (),
        image_set: str | None = None,
        **sources: str | Path | None,
    ) -> RecentEntry:
        """``OpenController.open_dataset``."""
        return self.opening.open_dataset(path, results, image_set, **sources)

    def open_each(
        self,
        path: str | Path,
        sets: Sequence[str | Path | Sequence[str | Path]] = (),
        image_set: str | None = None,
        **sources: str | Path | None,
    ) -> SetOpener:
        """``OpenController.open_each``."""
        return self.opening.open_each(path, sets, image_set, **sources)

    def add_results(self, paths: Sequence[str | Path]) -> None:
        """``OpenController.add_results``."""
        self.opening.add_results(paths)

    def open_recent(self, entry: RecentEntry) -> SetOpener | None:
        """``OpenController.open_recent``."""
        return self.opening.open_recent(entry)

    def export_pr(self, path: str | None = None) -> None:
        """``ExportController.export_pr``."""
        self.exporting.export_pr(path)

    def export_image(self, path: str | None = None) -> None:
        """``ExportController.export_image``."""
        self.exporting.export_image(path)

    def export_table(self, path: str | None = None) -> None:
        """``ExportController.export_table``."""
        self.exporting.export_table(path)

    def export_confusion(self, path: str | None = None) -> None:
        """``ExportController.export_confusion``."""
        self.exporting.export_confusion(path)

    def show_note(self, text: str, ms: int = 5000) -> None:
        """``StatusLine.show_note``."""
        self.status.show_note(text, ms)

    def show_compare(self) -> None:
        """Bring the comparison list to the front."""
        self.side.tabs.setCurrentWidget(self.compare)

    # --- panes ↔ panes -------------------------------------------------------------------------
    def _on_compare_pair(self, a: int, b: int) -> None:
        self.state.set_current_results(a)
        self.view.set_compare(b)

    def _on_side_tab(self, _index: int) -> None:
        if self.side.tabs.currentWidget() is not self.compare:
            self.view.set_compare(-1)  # B is drawn only while the comparison is in front

    def _on_dataset_loaded(self, _dataset: object) -> None:
        self.setWindowTitle(f"{self.state.dataset.name} — vocviewer")  # type: ignore[union-attr]

    # --- window events -------------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if any(url.isLocalFile() for url in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = [Path(u.toLocalFile()) for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.opening.open_paths(paths)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.window_settings.save()
        self.help.close_dialogs()
        self.view.shutdown()
        self.state.shutdown()
        QThreadPool.globalInstance().waitForDone(5000)
        super().closeEvent(event)
