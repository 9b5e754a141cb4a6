"""``MainWindow``: the image browser, the image, the PR curve and AP table, around one ``AppState``.

Layout: image browser (left) | image view (centre) | PR curve over the AP table (right); a toolbar
with the result set, the score threshold and the drawing toggles; a status bar with the dataset,
the image, counts and evaluation progress; problems go to a non-modal, collapsible
"Messages" panel at the bottom. The actions, toolbar, menus and status bar are built by
``window.actions``; the protocols' captions, summary tab and IoU controls by
``window.protocol_controls``.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QSettings, Qt, QThreadPool
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QSplitter,
    QWidget,
)

from vocviewer.gui.models.debounce import Debounced
from vocviewer.gui.models.state import AppState, Message
from vocviewer.gui.panes.analysis_pane import AnalysisPane
from vocviewer.gui.panes.compare import ComparePane
from vocviewer.gui.panes.confusion_pane import ConfusionPane
from vocviewer.gui.panes.image_browser import ImageBrowser
from vocviewer.gui.panes.image_view import ImageView
from vocviewer.gui.panes.pane_sizes import KeepRoom
from vocviewer.gui.panes.pr_pane import PRPane
from vocviewer.gui.panes.side_panel import SidePanel
from vocviewer.gui.panes.tables import ApTable, MessagesPanel
from vocviewer.gui.panes.thumbnail_grid import ImageArea
from vocviewer.gui.window.actions import WindowActions
from vocviewer.gui.window.palette_actions import install_palette_menu
from vocviewer.gui.window.protocol_controls import ProtocolControls
from vocviewer.gui.window.session_actions import SessionActions
from vocviewer.gui.window.settings_store import WindowSettings
from vocviewer.gui.window.theme import ThemeControl
from vocviewer.gui.window.walk_actions import WalkActions


class MainWindow(WindowActions, ProtocolControls):
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
        self.browser = ImageBrowser(st)
        self.view = ImageView(st)
        self.pr_pane = PRPane(st)
        self.ap_table = ApTable(st)
        self.messages = MessagesPanel(st)
        self.side = SidePanel(st)
        self.compare = ComparePane(st)
        self.side.tabs.addTab(self.compare, "Compare")
        self._message_count = self._problem_count = 0
        self._build_layout()
        self.install_open_actions(settings)  # drops, recent list (``settings``: the user's)
        self.build_actions()  # actions, toolbar, menus, status bar
        self.build_protocol_controls()  # captions, summary tab, IoU and segmentation controls
        self.image_area = ImageArea(st, self.view)  # the thumbnail grid swaps with the image
        self.addAction(self.image_area.act_grid)
        self.view_menu.insertAction(self.act_fit, self.image_area.act_grid)
        self.theme = ThemeControl(self, self.view, settings)  # View ▸ Theme (remembered if given)
        self.view_menu.addMenu(self.theme.menu)
        self.confusion = ConfusionPane(st)
        self.right_tabs.addTab(self.confusion, "Confusion")
        self.confusion.zoom_requested.connect(self.view.zoom_to_highlight)
        install_palette_menu(self, settings)  # View ▸ Palette (stored in ``settings``)
        for pane, acts in (
            (self.view, (self.act_export_image, self.act_fit, self.act_one, self.act_zoom_sel)),
            (self.ap_table, (self.act_export_table, self.act_export_pr)),
            (self.confusion.table, (self.act_export_confusion,)),
        ):  # right-click menus
            pane.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
            pane.addActions(list(acts))
        self._update_status()

        st.dataset_loaded.connect(self._on_dataset_loaded)
        st.results_added.connect(self._on_results_added)
        st.current_results_changed.connect(self._sync_results_combo)
        # QProgressBar repaints the window at once on each new value: a few times a second only
        self._progress_later = Debounced(self._show_progress, 250, self)
        st.evaluation.progress.connect(self._on_evaluation_progress)
        st.evaluation.finished.connect(self._on_evaluation_finished)
        st.messages_posted.connect(self._on_messages)
        st.load_failed.connect(self._update_status)  # not "Opening …" any more
        st.threshold_changed.connect(self._sync_threshold)
        st.display_changed.connect(self._sync_toggles)
        st.image_changed.connect(self._update_status)
        st.visible_images_changed.connect(self._update_status)
        self.view.overlays_drawn.connect(self._update_status)
        self.results_combo.activated.connect(self._on_results_chosen)
        self.threshold_slider.valueChanged.connect(self._on_slider)
        self.threshold_spin.valueChanged.connect(st.set_threshold)
        self.problems_button.clicked.connect(self.act_messages.toggle)
        self.messages.hide_requested.connect(lambda: self.act_messages.setChecked(False))
        self.messages.cleared.connect(self._on_messages_cleared)
        self.side.zoom_requested.connect(self.view.zoom_to_highlight)
        self.compare.pair_chosen.connect(self._on_compare_pair)
        self.side.tabs.currentChanged.connect(self._on_side_tab)
        self.pr_pane.export_requested.connect(self.export_pr)
        self.mode_combo.activated.connect(self._on_mode_chosen)
        self.sessions = SessionActions(self)  # File ▸ Open / Save session
        self.walk = WalkActions(self)  # the Walk menu: viewdet's walk, by verdict, missed objects
        self.analysis = AnalysisPane(st, self.walk.walk)  # TIDE, its members, the bootstrap
        self.right_tabs.addTab(self.analysis, "Analysis")
        self.right_room = KeepRoom(self.right, self._analysis_room, self.analysis.content)
        self.analysis.zoom_requested.connect(self.view.zoom_to_highlight)
        self.pr_pane.band.follow(self.analysis.jobs)  # the bootstrap's band on the PR plot
        self.window_settings = WindowSettings(self, settings)  # restores layout and choices
        self.folders = self.window_settings.folders  # where the file dialogs start

    # --- construction --------------------------------------------------------------------------
    def _build_layout(self) -> None:
        self.right = QSplitter(Qt.Orientation.Vertical)
        self.right.addWidget(self.pr_pane)
        self.right.addWidget(self.ap_table)
        self.right.setSizes([390, 420])
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.centre = QSplitter(Qt.Orientation.Vertical)
        self.centre.addWidget(self.view)
        self.centre.addWidget(self.side)
        self.centre.setStretchFactor(0, 1)
        self.centre.setCollapsible(0, False)
        self.centre.setSizes([560, 230])
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

    def _analysis_room(self) -> int:
        """The right-hand tabs' height that shows the Analysis charts and lists unscrolled
        (while the Analysis tab is in front; else 0: the PR plot keeps its room)."""
        if self.right_tabs.currentWidget() is not self.analysis:
            return 0
        return self.analysis.room() + self.right_tabs.tabBar().sizeHint().height()

    # --- commands ------------------------------------------------------------------------------
    def show_compare(self) -> None:
        """Bring the comparison list to the front."""
        self.side.tabs.setCurrentWidget(self.compare)

    def _on_compare_pair(self, a: int, b: int) -> None:
        self.state.set_current_results(a)
        self.view.set_compare(b)

    def _on_side_tab(self, _index: int) -> None:
        if self.side.tabs.currentWidget() is not self.compare:
            self.view.set_compare(-1)  # B is drawn only while the comparison is in front

    # --- state → widgets -----------------------------------------------------------------------
    def _on_dataset_loaded(self, dataset: object) -> None:
        self.results_combo.clear()
        self.setWindowTitle(f"{self.state.dataset.name} — vocviewer")  # type: ignore[union-attr]

    def _on_results_added(self, index: int) -> None:
        self.results_combo.addItem(self.state.results[index].results.name, index)

    def _sync_results_combo(self, index: int) -> None:
        self.results_combo.setCurrentIndex(self.results_combo.findData(index))

    def _on_results_chosen(self, i: int) -> None:
        self.state.set_current_results(int(self.results_combo.itemData(i)))

    def _on_evaluation_progress(self, done: int, total: int) -> None:
        self._progress_value = (done, total)  # repainting per class would stall: coalesce
        self._progress_later.request()

    def _show_progress(self) -> None:
        done, total = self._progress_value
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        self.progress.show()
        self.cancel_button.show()

    def _on_evaluation_finished(self) -> None:
        self._progress_later.flush()
        self.progress.hide()
        self.cancel_button.hide()

    def _on_messages(self, messages: list[Message]) -> None:
        self._message_count += len(messages)
        self._problem_count += sum(m.level != "info" for m in messages)
        n = self._message_count
        sign = "⚠" if self._problem_count else "ℹ"
        self.problems_button.setText(f"{sign} {n} message{'s' if n != 1 else ''}")
        self.problems_button.show()
        if any(m.level == "error" for m in messages):
            self.act_messages.setChecked(True)

    def _on_messages_cleared(self) -> None:
        self._message_count = self._problem_count = 0
        self.problems_button.hide()

    def _update_status(self, *_args: object) -> None:
        if self.note_timer.isActive():  # a note holds the line for a few seconds
            return
        st = self.state
        ds = st.dataset
        if ds is None:
            self.status_label.setText("No dataset open")
            return
        parts = [ds.name]
        image = st.current_image
        if image >= 0:
            pos = np.flatnonzero(st.visible_images == image)
            where = f" ({pos[0] + 1} / {len(st.visible_images)})" if len(pos) else ""
            parts.append(f"{ds.images.id[image]}{where}")
            sl = ds.objects_of(image)
            parts.append(f"{sl.stop - sl.start} objects")
            if st.current_results >= 0:
                n = len(self.view.overlay_items("det"))
                shown = f"{n} detection{'s' if n != 1 else ''} shown"
                if st.drawn_mode != st.view_mode:  # Walk ▸ Show follows the walk
                    shown += f" ({self.walk.walk.mode.label.lower()}, as the walk)"
                parts.append(shown)
            if self.view.missing_file is not None and self.view.shown_image == image:
                parts.append("image file missing")
        if st.eval_set:
            parts.append(f"evaluated on {st.eval_set}")
        self.status_label.setText("  ·  ".join(parts))

    def closeEvent(self, event: QCloseEvent) -> None:
        self.window_settings.save()
        for dialog in self._dialogs.values():  # Help's dialogs go with the window
            dialog.close()
        self.view.shutdown()
        self.state.shutdown()
        QThreadPool.globalInstance().waitForDone(5000)
        super().closeEvent(event)
