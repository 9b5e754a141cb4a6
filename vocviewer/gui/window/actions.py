"""The main window's actions, toolbar, menus and status bar, and the commands they trigger.

``WindowActions`` is a mixin of ``MainWindow`` (beside ``OpenActions`` and ``ExportActions``, whose
slots the File menu calls): ``build_actions`` creates every ``QAction`` (with its keys), the
toolbar (result set, score threshold, drawing toggles, box mode), the menu bar and the status bar,
and keeps the toolbar's controls in step with ``AppState``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QLabel,
    QMenu,
    QProgressBar,
    QSlider,
    QToolButton,
)

from vocviewer.gui.models.state import Message
from vocviewer.gui.models.tasks import error_message
from vocviewer.gui.models.worker import Worker
from vocviewer.gui.widgets.verdict_style import colour_key
from vocviewer.gui.window import file_names
from vocviewer.gui.window.export_actions import ExportActions
from vocviewer.gui.window.help_dialogs import AboutDialog, GettingStartedDialog, ShortcutsDialog
from vocviewer.gui.window.open_actions import OpenActions
from vocviewer.gui.window.toolbar_rows import ToolbarRows

if TYPE_CHECKING:
    from vocviewer.gui.models.state import AppState
    from vocviewer.gui.panes.image_browser import ImageBrowser
    from vocviewer.gui.panes.image_view import ImageView
    from vocviewer.gui.panes.tables import MessagesPanel

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


def write_demo_dataset() -> tuple[Path, tuple[Path, ...]]:
    """Write (or refresh) the demo VOCdevkit in the cache; return its year folder and the result
    paths it opens, each one set (``DemoPaths.result_sets``: detections, segmentation)."""
    from vocviewer.demo import default_demo_dir, write_demo

    paths = write_demo(default_demo_dir())
    return Path(paths.year_dir), paths.result_sets


class WindowActions(OpenActions, ExportActions):
    """Actions, toolbar, menus and status bar of the window, over its ``state`` and ``view``."""

    state: AppState
    view: ImageView
    browser: ImageBrowser
    messages: MessagesPanel

    def build_actions(self) -> None:
        """Create the actions, then the toolbar, the menus and the status bar that show them."""
        self._dialogs: dict[str, QDialog] = {}  # Help's dialogs, made on first use
        self._build_actions()
        self._build_toolbar()
        self._build_menus()
        self._build_status_bar()

    def _action(
        self, text: str, keys: tuple[str, ...] = (), slot: object = None, tip: str = ""
    ) -> QAction:
        action = QAction(text, self)
        action.setShortcuts([QKeySequence(k) for k in keys])
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.setStatusTip(tip)
        if slot is not None:
            action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        st, view, a = self.state, self.view, self._action
        self.act_open = a(
            "&Open dataset folder…",
            ("Ctrl+O",),
            self.choose_dataset,
            f"Open {file_names.dataset_folders()}",
        )
        self.act_open_file = a(
            "Open annotation &file…",
            ("Ctrl+Shift+O",),
            self.choose_annotation_file,
            f"Open {file_names.annotation_files()}",
        )
        self.act_demo = a(
            "Open &demo dataset",
            (),
            self.open_demo,
            "Open a small generated VOC dataset with results (no download)",
        )
        self.act_add = a(
            "&Add results…",
            ("Ctrl+R",),
            self.choose_results,
            "Add result files to the open dataset and evaluate them",
        )
        self.act_add_dir = a(
            "Add results &folder…",
            ("Ctrl+Shift+R",),
            self.choose_results_folder,
            "Add every result file of a folder (e.g. VOC's results/VOC2007/Main)",
        )
        self.act_export_pr = a(
            "Export PR &figure…",
            ("Ctrl+E",),
            self.export_pr,
            "Save the precision/recall figure as PNG, SVG or PDF",
        )
        self.act_export_image = a(
            "Export &image…", (), self.export_image, "Save the image with what is drawn on it"
        )
        self.act_export_table = a(
            "Export AP &table…",
            (),
            self.export_table,
            "Save the AP table as CSV, Markdown, LaTeX or JSON",
        )
        self.act_export_confusion = a(
            "Export &confusion matrix…",
            (),
            self.export_confusion,
            "Save the confusion matrix of the current result set",
        )
        self.act_quit = a("&Quit", ("Ctrl+Q",), self.close, "Close the window")
        self.act_shortcuts = a(
            "&Keyboard shortcuts",
            ("F1", "?"),
            self.show_shortcuts,
            "List every action and key of the window, with a filter",
        )
        self.act_getting_started = a(
            "&Getting started",
            (),
            self.show_getting_started,
            "What each pane is and the first steps",
        )
        self.act_about = a(
            "&About vocviewer",
            (),
            self.show_about,
            "The versions of vocviewer and of the libraries it runs on",
        )
        self.act_next = a(
            "&Next image",
            ("Right", "PgDown", "N"),
            self.next_image,
            "Show the next image of the list",
        )
        self.act_prev = a(
            "&Previous image",
            ("Left", "PgUp", "P"),
            self.previous_image,
            "Show the previous image of the list",
        )
        self.act_find = a(
            "F&ind image…",
            ("Ctrl+F",),
            self.browser.focus_search,
            "Search the image list by id",
        )
        self.act_fit = a(
            "&Fit to window", ("F",), view.fit_to_window, "Scale the image to fit the view"
        )
        self.act_one = a(
            "Actual &size", ("1",), view.zoom_one_to_one, "One image pixel per screen pixel"
        )
        for act, short in ((self.act_open, "Open"), (self.act_fit, "Fit"), (self.act_one, "1:1")):
            act.setIconText(short)  # the toolbar's text; menus keep the long one
            act.setToolTip(
                f"{act.text().replace('&', '').rstrip('…')} ({act.shortcut().toString()})"
            )
        self.act_zoom_in = a(
            "Zoom &in", ("+", "="), lambda: view.zoom_by(1.25), "Enlarge the image"
        )
        self.act_zoom_out = a("Zoom &out", ("-",), lambda: view.zoom_by(0.8), "Shrink the image")
        self.act_next_fp = a(
            "Next &false positive",
            ("]",),
            lambda: st.step_false_positive(+1),
            "Select the next false positive of the class in rank order",
        )
        self.act_prev_fp = a(
            "Previous false positive",
            ("[",),
            lambda: st.step_false_positive(-1),
            "Select the previous false positive of the class in rank order",
        )
        self.act_zoom_sel = a(
            "&Zoom to selection",
            ("Z",),
            view.zoom_to_highlight,
            "Zoom the image to the selected detection or object",
        )
        self.act_cancel = a(
            "&Cancel evaluation",
            ("Esc",),
            self.cancel_evaluation,
            "Stop evaluating; the classes already done stay",
        )
        self.act_messages = a(
            "&Messages", ("Ctrl+M",), None, "Show or hide the warnings and errors about the files"
        )
        self.act_messages.setCheckable(True)
        self.act_messages.toggled.connect(self.messages.setVisible)
        self.toggle_actions: dict[str, QAction] = {}
        for name, text, short, key in TOGGLES:
            act = a(text, (key,), None, f"Draw or hide: {text[0].lower()}{text[1:]}")
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
        widest = max(VIEW_MODE_NAMES.values(), key=self.fontMetrics().horizontalAdvance)
        self.mode_combo.setFixedWidth(self.fontMetrics().horizontalAdvance(widest) + 40)
        bar.addWidget(self.mode_combo)
        self.mode_menu = QMenu("Show", self)
        self.mode_menu.menuAction().setStatusTip("Which boxes to draw")
        self.mode_actions: dict[str, QAction] = {}
        group = QActionGroup(self)  # one mode at a time, the current one checked
        for mode, text in VIEW_MODE_NAMES.items():
            act = self.mode_menu.addAction(text)
            act.setCheckable(True)
            act.setStatusTip(f"Draw {text[0].lower()}{text[1:]}")
            act.setChecked(mode == self.state.view_mode)
            group.addAction(act)
            act.triggered.connect(lambda _=False, m=mode: self.state.set_view_mode(m))
            self.mode_actions[mode] = act
        bar = self.eval_toolbar = self.addToolBar("Zoom and evaluation")  # IoU, area, overlay
        bar.setObjectName("eval-toolbar")
        bar.setMovable(False)
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        bar.addAction(self.act_fit)
        bar.addAction(self.act_one)
        self.toolbar_rows = ToolbarRows(self, self.toolbar, bar)  # a second row, never hidden

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
        for act in (
            self.act_export_pr,
            self.act_export_image,
            self.act_export_table,
            self.act_export_confusion,
        ):
            file_menu.addAction(act)
        file_menu.addSeparator()
        file_menu.addAction(self.act_quit)
        view_menu = self.view_menu = menu.addMenu("&View")
        for act in (self.act_next, self.act_prev, self.act_next_fp, self.act_prev_fp):
            view_menu.addAction(act)
        view_menu.addAction(self.act_find)
        view_menu.addSeparator()
        for act in self.toggle_actions.values():
            view_menu.addAction(act)
        self.after_toggles = view_menu.addSeparator()  # the segmentation overlay goes above
        view_menu.addMenu(self.mode_menu)
        view_menu.addSeparator()
        for act in (
            self.act_fit,
            self.act_one,
            self.act_zoom_in,
            self.act_zoom_out,
            self.act_zoom_sel,
        ):
            view_menu.addAction(act)
        view_menu.addSeparator()
        view_menu.addAction(self.act_cancel)
        view_menu.addAction(self.act_messages)
        help_menu = menu.addMenu("&Help")
        help_menu.addAction(self.act_shortcuts)
        help_menu.addAction(self.act_getting_started)
        help_menu.addSeparator()
        help_menu.addAction(self.act_about)

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.status_label = QLabel()
        bar.addWidget(self.status_label, 1)
        self.colour_key_label = QLabel(colour_key())  # View ▸ Palette refreshes it
        bar.addPermanentWidget(self.colour_key_label)
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

    def show_note(self, text: str, ms: int = 5000) -> None:
        """Say ``text`` in the status line for ``ms`` (instead of its status: a status bar's own
        temporary message would be painted over the status text)."""
        self.status_label.setText(text)
        self.note_timer.start(ms)

    def end_note(self) -> None:
        """Give the status line back to the status at once (a note no longer holds)."""
        self.note_timer.stop()
        self._update_status()

    @property
    def note_timer(self) -> QTimer:
        """Runs while a note holds the status line (``show_note``); then the status returns."""
        if not hasattr(self, "_note_timer"):
            self._note_timer = QTimer(self)
            self._note_timer.setSingleShot(True)
            self._note_timer.timeout.connect(self._update_status)
        return self._note_timer

    # --- commands ------------------------------------------------------------------------------
    def open_demo(self) -> None:
        self.status_label.setText("Writing the demo dataset…")
        self._demo_worker = Worker(write_demo_dataset)
        self._demo_worker.signals.returned.connect(self._on_demo_written)
        self._demo_worker.signals.errored.connect(self._on_demo_failed)
        self._demo_worker.start()

    def _on_demo_written(self, paths: tuple[Path, tuple[Path, ...]]) -> None:
        self.open_each(paths[0], paths[1], "val")

    def _on_demo_failed(self, exc: BaseException) -> None:
        self.state.post([error_message(exc, "Cannot write the demo dataset")])

    def cancel_evaluation(self) -> None:
        """Stop the running evaluations; the classes that arrived stay."""
        if any(k.startswith("eval/") for k in self.state.jobs.running_keys()):
            self.state.jobs.cancel_matching("eval/")
            self.state.post([Message("info", "Evaluation cancelled; finished classes are kept.")])

    def next_image(self) -> None:
        self.state.step_image(+1)

    def previous_image(self) -> None:
        self.state.step_image(-1)

    def _show_dialog(self, name: str, make: Callable[[], QDialog]) -> QDialog:
        """Show the window's one dialog ``name`` (made on first use), non-modal, in front."""
        dialog = self._dialogs.get(name)
        if dialog is None:
            dialog = self._dialogs[name] = make()
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()
        return dialog

    def show_shortcuts(self) -> None:
        self._show_dialog("shortcuts", lambda: ShortcutsDialog(self))

    def show_getting_started(self) -> None:
        self._show_dialog("getting-started", lambda: GettingStartedDialog(self))

    def show_about(self) -> None:
        self._show_dialog("about", lambda: AboutDialog(self))

    # --- toolbar ↔ state -----------------------------------------------------------------------
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
