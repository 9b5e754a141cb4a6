"""``MainWindow``: the image browser, the image, the PR curve and AP table, around one ``AppState``.

Layout: image browser (left) | image view (centre) | PR curve over the AP table (right); a toolbar
with the result set, the score threshold and the drawing toggles; a status bar with the dataset,
the image, counts and evaluation progress; problems go to a non-modal, collapsible
"Messages" panel at the bottom.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QSettings, QSize, Qt, QThreadPool
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QLabel,
    QMenu,
    QMessageBox,
    QProgressBar,
    QSlider,
    QSplitter,
    QToolButton,
    QWidget,
)

import vocviewer
from vocviewer.evaluation.analysis import FPKind
from vocviewer.evaluation.result import Verdict
from vocviewer.gui.models.debounce import Debounced
from vocviewer.gui.models.state import AppState, Message
from vocviewer.gui.models.tasks import error_message
from vocviewer.gui.models.worker import Worker
from vocviewer.gui.panes.compare import ComparePane
from vocviewer.gui.panes.confusion_pane import ConfusionPane
from vocviewer.gui.panes.image_browser import ImageBrowser
from vocviewer.gui.panes.image_view import ImageView
from vocviewer.gui.panes.overlays import (
    FP_KIND_STYLE,
    GT_COLOR,
    MISSED_COLOR,
    VERDICT_STYLE,
    WRONG_CLASS_COLOR,
)
from vocviewer.gui.panes.pr_pane import PRPane
from vocviewer.gui.panes.protocol_views import install_protocol_views
from vocviewer.gui.panes.side_panel import SidePanel
from vocviewer.gui.panes.tables import ApTable, MessagesPanel
from vocviewer.gui.window.export_actions import ExportActions
from vocviewer.gui.window.open_actions import OpenActions

#: AppState.view_mode → chooser text
VIEW_MODE_NAMES = {
    "all": "All boxes",
    "tp": "Only true positives",
    "fp": "Only false positives",
    "missed": "Only missed objects",
}
#: (attribute on AppState, menu text, toolbar text or "" for the menu only, key)
TOGGLES = (
    ("show_gt", "Ground truth", "GT", "G"),
    ("show_detections", "Detections", "Detections", "D"),
    ("show_labels", "Labels", "Labels", "L"),
    ("show_scores", "Scores in labels", "", "C"),
    ("show_masks", "Masks (COCO)", "", "M"),
    ("show_keypoints", "Keypoints (COCO)", "", "K"),
    ("show_parts", "Person parts and actions (VOC)", "", "H"),
    ("only_tp", "Only true positives", "", "T"),
)


def write_demo_dataset() -> tuple[Path, Path]:
    """Write (or refresh) the demo VOCdevkit in the cache; return (year folder, results folder)."""
    from vocviewer.demo import default_demo_dir, write_demo

    paths = write_demo(default_demo_dir())
    return Path(paths.year_dir), Path(paths.results_dir)


def colour_key() -> str:
    """Rich text naming the box colours: ground truth, TP, each kind of false positive."""
    entries = [
        (GT_COLOR, "GT"),
        (MISSED_COLOR, "missed"),
        (VERDICT_STYLE[Verdict.TP][0], "TP"),
        (FP_KIND_STYLE[FPKind.BACKGROUND][0], "FP: background"),
        (FP_KIND_STYLE[FPKind.LOCALIZATION][0], "poor loc."),
        (WRONG_CLASS_COLOR, "wrong class"),
        (VERDICT_STYLE[Verdict.DUPLICATE][0], "duplicate"),
        (VERDICT_STYLE[Verdict.IGNORED][0], "ignored"),
    ]
    return " ".join(
        f"<span style='color:{c.name()}'>■</span>&nbsp;{name}&nbsp;" for c, name in entries
    )


class MainWindow(OpenActions, ExportActions):
    """The application window; every view is built on ``state`` (created if not given)."""

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
        self._message_count = 0
        self._build_layout()
        self.install_open_actions(settings)  # drops, recent list (``settings``: the user's)
        self._build_actions()
        self._build_toolbar()
        self._build_menus()
        self._build_status_bar()
        install_protocol_views(self)  # captions, summary tab, IoU and segmentation controls
        self.confusion = ConfusionPane(st)
        self.right_tabs.addTab(self.confusion, "Confusion")
        self.confusion.zoom_requested.connect(self.view.zoom_to_highlight)
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
        st.evaluation_progress.connect(self._on_evaluation_progress)
        st.evaluation_finished.connect(self._on_evaluation_finished)
        st.messages_posted.connect(self._on_messages)
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
        self.splitter.setSizes([230, 760, 410])
        self.splitter.setChildrenCollapsible(False)
        self.outer = QSplitter(Qt.Orientation.Vertical)
        self.outer.addWidget(self.splitter)
        self.outer.addWidget(self.messages)
        self.outer.setStretchFactor(0, 1)
        self.outer.setCollapsible(0, False)
        self.outer.setSizes([720, 140])
        self.messages.hide()
        self.setCentralWidget(self.outer)

    def _action(self, text: str, keys: tuple[str, ...] = (), slot: object = None) -> QAction:
        action = QAction(text, self)
        action.setShortcuts([QKeySequence(k) for k in keys])
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        if slot is not None:
            action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        st, view = self.state, self.view
        self.act_open = self._action("&Open dataset folder…", ("Ctrl+O",), self.choose_dataset)
        self.act_open_file = self._action(
            "Open annotation &file…", ("Ctrl+Shift+O",), self.choose_annotation_file
        )
        self.act_demo = self._action("Open &demo dataset", (), self.open_demo)
        self.act_add = self._action("&Add results…", ("Ctrl+R",), self.choose_results)
        self.act_add_dir = self._action(
            "Add results &folder…", ("Ctrl+Shift+R",), self.choose_results_folder
        )
        self.act_export_pr = self._action("Export PR &figure…", ("Ctrl+E",), self.export_pr)
        self.act_export_image = self._action("Export &image…", (), self.export_image)
        self.act_export_table = self._action("Export AP &table…", (), self.export_table)
        self.act_export_confusion = self._action(
            "Export &confusion matrix…", (), self.export_confusion
        )
        self.act_quit = self._action("&Quit", ("Ctrl+Q",), self.close)
        self.act_about = self._action("&About vocviewer", (), self.show_about)
        self.act_next = self._action("&Next image", ("Right", "PgDown", "N"), self.next_image)
        self.act_prev = self._action("&Previous image", ("Left", "PgUp", "P"), self.previous_image)
        self.act_fit = self._action("&Fit to window", ("F",), view.fit_to_window)
        self.act_one = self._action("Actual &size", ("1",), view.zoom_one_to_one)
        for act, short in ((self.act_open, "Open"), (self.act_fit, "Fit"), (self.act_one, "1:1")):
            act.setIconText(short)  # the toolbar's text; menus keep the long one
            act.setToolTip(
                f"{act.text().replace('&', '').rstrip('…')} ({act.shortcut().toString()})"
            )
        self.act_zoom_in = self._action("Zoom &in", ("+", "="), lambda: view.zoom_by(1.25))
        self.act_zoom_out = self._action("Zoom &out", ("-",), lambda: view.zoom_by(0.8))
        self.act_next_fp = self._action(
            "Next &false positive", ("]",), lambda: st.step_false_positive(+1)
        )
        self.act_prev_fp = self._action(
            "Previous false positive", ("[",), lambda: st.step_false_positive(-1)
        )
        self.act_zoom_sel = self._action("&Zoom to selection", ("Z",), view.zoom_to_highlight)
        self.act_cancel = self._action("&Cancel evaluation", ("Esc",), self.cancel_evaluation)
        self.act_messages = self._action("&Messages", ("Ctrl+M",), None)
        self.act_messages.setCheckable(True)
        self.act_messages.toggled.connect(self.messages.setVisible)
        self.toggle_actions: dict[str, QAction] = {}
        for name, text, short, key in TOGGLES:
            act = self._action(text, (key,))
            act.setIconText(short or text)
            act.setCheckable(True)
            act.setChecked(getattr(st, name))
            act.setToolTip(f"{text} ({key})")
            act.toggled.connect(lambda on, n=name: self.state.set_display(n, on))
            self.toggle_actions[name] = act

    def _build_toolbar(self) -> None:
        bar = self.toolbar = self.addToolBar("Main")
        bar.setObjectName("main-toolbar")
        bar.setMovable(False)
        bar.setIconSize(QSize(18, 18))
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        bar.addAction(self.act_open)
        bar.addAction(self.act_add)
        bar.addSeparator()
        bar.addWidget(QLabel(" Results "))
        self.results_combo = QComboBox()
        # a fixed width (long names elided; the popup shows them whole): the toolbar fits 1100 px
        self.results_combo.setMinimumContentsLength(10)
        self.results_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.results_combo.setToolTip("The result set drawn on the image and tabulated")
        self.results_combo.setPlaceholderText("none")
        bar.addWidget(self.results_combo)
        bar.addSeparator()
        bar.addWidget(QLabel(" Score ≥ "))
        self.threshold_slider = QSlider(Qt.Orientation.Horizontal)
        self.threshold_slider.setRange(0, 100)
        self.threshold_slider.setFixedWidth(80)
        self.threshold_spin = QDoubleSpinBox()
        self.threshold_spin.setRange(0.0, 1.0)
        self.threshold_spin.setSingleStep(0.05)
        self.threshold_spin.setDecimals(2)
        self.threshold_spin.setToolTip("Draw detections whose score is at least this")
        self._sync_threshold(self.state.score_threshold)
        bar.addWidget(self.threshold_slider)
        bar.addWidget(self.threshold_spin)
        bar.addSeparator()
        for name, _, short, _ in TOGGLES:
            if short:
                bar.addAction(self.toggle_actions[name])
        self.mode_combo = QComboBox()
        for mode, text in VIEW_MODE_NAMES.items():
            self.mode_combo.addItem(text, mode)
        self.mode_combo.setToolTip("Which boxes to draw: all, only TP, only FP, only missed GT")
        self.mode_combo.setFixedWidth(self.fontMetrics().horizontalAdvance("Only FP boxes") + 30)
        bar.addWidget(self.mode_combo)
        self.mode_menu = QMenu("Show", self)
        self.mode_actions: dict[str, QAction] = {}
        group = QActionGroup(self)  # one mode at a time, the current one checked
        for mode, text in VIEW_MODE_NAMES.items():
            act = self.mode_menu.addAction(text)
            act.setCheckable(True)
            act.setChecked(mode == self.state.view_mode)
            group.addAction(act)
            act.triggered.connect(lambda _=False, m=mode: self.state.set_view_mode(m))
            self.mode_actions[mode] = act
        bar.addSeparator()
        bar.addAction(self.act_fit)
        bar.addAction(self.act_one)

    def _build_menus(self) -> None:
        menu = self.menuBar()
        file_menu = menu.addMenu("&File")
        for act in (self.act_open, self.act_open_file):
            file_menu.addAction(act)
        file_menu.addMenu(self.recent_menu)
        file_menu.addAction(self.act_demo)
        file_menu.addSeparator()
        for act in (self.act_add, self.act_add_dir):
            file_menu.addAction(act)
        file_menu.addSeparator()
        for act in (self.act_export_pr, self.act_export_image, self.act_export_table,
                    self.act_export_confusion):  # fmt: skip
            file_menu.addAction(act)
        file_menu.addSeparator()
        file_menu.addAction(self.act_quit)
        view_menu = menu.addMenu("&View")
        for act in (self.act_next, self.act_prev, self.act_next_fp, self.act_prev_fp):
            view_menu.addAction(act)
        view_menu.addSeparator()
        for act in self.toggle_actions.values():
            view_menu.addAction(act)
        view_menu.addSeparator()
        view_menu.addMenu(self.mode_menu)
        view_menu.addSeparator()
        for act in (self.act_fit, self.act_one, self.act_zoom_in, self.act_zoom_out):
            view_menu.addAction(act)
        view_menu.addSeparator()
        view_menu.addAction(self.act_cancel)
        view_menu.addAction(self.act_messages)
        help_menu = menu.addMenu("&Help")
        help_menu.addAction(self.act_about)

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.status_label = QLabel()
        bar.addWidget(self.status_label, 1)
        bar.addPermanentWidget(QLabel(colour_key()))
        self.progress = QProgressBar()
        self.progress.setFixedWidth(220)
        self.progress.setFormat("Evaluating %v / %m classes")
        self.progress.hide()
        bar.addPermanentWidget(self.progress)
        self.cancel_button = QToolButton()
        self.cancel_button.setText("Cancel")
        self.cancel_button.setToolTip("Stop evaluating (Esc); classes already done stay")
        self.cancel_button.setAutoRaise(True)
        self.cancel_button.hide()
        self.cancel_button.clicked.connect(self.cancel_evaluation)
        bar.addPermanentWidget(self.cancel_button)
        self.problems_button = QToolButton()
        self.problems_button.setAutoRaise(True)
        self.problems_button.setToolTip("Show or hide the messages panel (Ctrl+M)")
        self.problems_button.hide()
        bar.addPermanentWidget(self.problems_button)

    # --- commands ------------------------------------------------------------------------------
    def open_demo(self) -> None:
        self.status_label.setText("Writing the demo dataset…")
        self._demo_worker = Worker(write_demo_dataset)
        self._demo_worker.signals.returned.connect(self._on_demo_written)
        self._demo_worker.signals.errored.connect(self._on_demo_failed)
        self._demo_worker.start()

    def _on_demo_written(self, paths: tuple[Path, Path]) -> None:
        self.open_dataset(paths[0], (paths[1],), "val")

    def _on_demo_failed(self, exc: BaseException) -> None:
        self.state.post([error_message(exc, "Cannot write the demo dataset")])

    def show_compare(self) -> None:
        """Bring the comparison list to the front."""
        self.side.tabs.setCurrentWidget(self.compare)

    def _on_compare_pair(self, a: int, b: int) -> None:
        self.state.set_current_results(a)
        self.view.set_compare(b)

    def _on_side_tab(self, _index: int) -> None:
        if self.side.tabs.currentWidget() is not self.compare:
            self.view.set_compare(-1)  # B is drawn only while the comparison is in front

    def cancel_evaluation(self) -> None:
        """Stop the running evaluations; the classes that arrived stay."""
        if any(k.startswith("eval/") for k in self.state.jobs.running_keys()):
            self.state.jobs.cancel_matching("eval/")
            self.state.post([Message("info", "Evaluation cancelled; finished classes are kept.")])

    def next_image(self) -> None:
        self.state.step_image(+1)

    def previous_image(self) -> None:
        self.state.step_image(-1)

    def show_about(self) -> None:
        QMessageBox.about(
            self,
            "About vocviewer",
            f"<b>vocviewer {vocviewer.__version__}</b><p>Browse object-recognition benchmarks and "
            "evaluate results exactly as the official devkits do; click a point of a "
            "precision/recall curve to see the detection behind it.</p>",
        )

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

    def _on_slider(self, value: int) -> None:
        if round(self.threshold_spin.value() * 100) != value:
            self.state.set_threshold(value / 100.0)

    def _sync_threshold(self, value: float) -> None:
        self.threshold_slider.setValue(round(value * 100))
        self.threshold_spin.setValue(value)

    def _sync_toggles(self) -> None:
        for name, act in self.toggle_actions.items():
            act.setChecked(getattr(self.state, name))
        self.mode_combo.setCurrentIndex(self.mode_combo.findData(self.state.view_mode))
        self.mode_actions[self.state.view_mode].setChecked(True)

    def _on_mode_chosen(self, i: int) -> None:
        self.state.set_view_mode(str(self.mode_combo.itemData(i)))

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
        n = self._message_count
        self.problems_button.setText(f"⚠ {n} message{'s' if n != 1 else ''}")
        self.problems_button.show()
        if any(m.level == "error" for m in messages):
            self.act_messages.setChecked(True)

    def _on_messages_cleared(self) -> None:
        self._message_count = 0
        self.problems_button.hide()

    def _update_status(self, *_args: object) -> None:
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
                parts.append(f"{n} detection{'s' if n != 1 else ''} shown")
            if self.view.missing_file is not None and self.view.shown_image == image:
                parts.append("image file missing")
        if st.eval_set:
            parts.append(f"evaluated on {st.eval_set}")
        self.status_label.setText("  ·  ".join(parts))

    def closeEvent(self, event: QCloseEvent) -> None:
        self.view.shutdown()
        self.state.shutdown()
        QThreadPool.globalInstance().waitForDone(5000)
        super().closeEvent(event)
