"""The window's actions: ``make_action`` (one ``QAction`` with its keys), and ``DisplayControls``,
the commands over what the image shows and where the user is.

``DisplayControls`` owns the View menu's actions and the toolbar's controls: the result set
drawn, the score threshold (slider and box), the drawing toggles, the view mode (a chooser and
the View ▸ Show submenu), next / previous image and false positive, find, fit / 1:1 / zoom,
cancel the evaluation and show the messages; it keeps them in step with ``AppState``. The window
puts them in its toolbars and menus.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QLabel, QMenu, QSlider, QWidget

from vocviewer.gui.models.state import AppState, Message
from vocviewer.gui.panes.browse.image_browser import ImageBrowser
from vocviewer.gui.panes.image.view import ImageView
from vocviewer.gui.panes.tables.messages import MessagesPanel

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


def make_action(
    owner: QObject,
    text: str,
    keys: tuple[str, ...] = (),
    slot: Callable[[], object] | None = None,
    tip: str = "",
) -> QAction:
    """An action of ``owner`` with ``keys`` (window-wide once the window adds it), status tip
    ``tip``, triggering ``slot()``."""
    action = QAction(text, owner)
    action.setShortcuts([QKeySequence(k) for k in keys])
    action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    action.setStatusTip(tip)
    if slot is not None:
        action.triggered.connect(lambda _=False: slot())
    return action


def with_tip(action: QAction, short: str) -> QAction:
    """``action`` named ``short`` on the toolbar (menus keep its long text), its tool tip the
    long text with its key."""
    action.setIconText(short)
    action.setToolTip(
        f"{action.text().replace('&', '').rstrip('…')} ({action.shortcut().toString()})"
    )
    return action


class DisplayControls(QObject):
    """What the image shows and where the user is, over ``state``, ``view``, ``browser`` (its
    search) and the ``messages`` panel (shown or hidden). ``host`` measures the choosers' text
    and parents the Show submenu."""

    def __init__(
        self,
        host: QWidget,
        state: AppState,
        view: ImageView,
        browser: ImageBrowser,
        messages: MessagesPanel,
    ) -> None:
        super().__init__(host)
        self.state = state
        st = state

        def a(text: str, keys: tuple[str, ...], slot: object, tip: str) -> QAction:
            return make_action(self, text, keys, slot, tip)  # type: ignore[arg-type]

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
            "F&ind image…", ("Ctrl+F",), browser.focus_search, "Search the image list by id"
        )
        self.act_fit = with_tip(
            a("&Fit to window", ("F",), view.fit_to_window, "Scale the image to fit the view"),
            "Fit",
        )
        self.act_one = with_tip(
            a("Actual &size", ("1",), view.zoom_one_to_one, "One image pixel per screen pixel"),
            "1:1",
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
        self.act_messages.toggled.connect(messages.setVisible)
        self.toggle_actions: dict[str, QAction] = {}
        for name, text, short, key in TOGGLES:
            act = a(text, (key,), None, f"Draw or hide: {text[0].lower()}{text[1:]}")
            act.setIconText(short or text)
            act.setCheckable(True)
            act.setChecked(getattr(st, name))
            act.setToolTip(f"{text} ({key})")
            act.toggled.connect(lambda on, n=name: self.state.set_display(n, on))
            self.toggle_actions[name] = act
        self._build_choosers(host)

        st.dataset_loaded.connect(self._on_dataset_loaded)
        st.results_added.connect(self._on_results_added)
        st.current_results_changed.connect(self._sync_results_combo)
        st.threshold_changed.connect(self._sync_threshold)
        st.display_changed.connect(self._sync_toggles)
        st.messages_posted.connect(self._on_messages)
        messages.hide_requested.connect(lambda: self.act_messages.setChecked(False))
        self.results_combo.activated.connect(self._on_results_chosen)
        self.threshold_slider.valueChanged.connect(self._on_slider)
        self.threshold_spin.valueChanged.connect(st.set_slider)
        self.mode_combo.activated.connect(self._on_mode_chosen)

    def window_actions(self) -> list[QAction]:
        """Every action with keys (the window adds them, so that the keys work anywhere in it)."""
        return [
            self.act_next,
            self.act_prev,
            self.act_find,
            self.act_fit,
            self.act_one,
            self.act_zoom_in,
            self.act_zoom_out,
            self.act_next_fp,
            self.act_prev_fp,
            self.act_zoom_sel,
            self.act_cancel,
            self.act_messages,
            *self.toggle_actions.values(),
        ]

    def _build_choosers(self, host: QWidget) -> None:
        """The result-set chooser, the threshold's slider and box, the view-mode chooser and the
        View ▸ Show submenu."""
        self.results_combo = QComboBox()
        # a fixed width (long names elided; the popup shows them whole): the toolbar fits 1100 px
        self.results_combo.setMinimumContentsLength(10)
        self.results_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.results_combo.setToolTip("The result set drawn on the image and tabulated")
        self.results_combo.setPlaceholderText("none")
        self.threshold_label = QLabel(" Score ≥ ")
        self.threshold_slider = QSlider(Qt.Orientation.Horizontal)
        self.threshold_slider.setRange(0, 100)
        self.threshold_slider.setFixedWidth(80)
        self.threshold_spin = QDoubleSpinBox()
        self.threshold_spin.setRange(0.0, 1.0)
        self.threshold_spin.setSingleStep(0.05)
        self.threshold_spin.setDecimals(2)
        self._sync_threshold(self.state.slider_value)
        self.mode_combo = QComboBox()
        for mode, text in VIEW_MODE_NAMES.items():
            self.mode_combo.addItem(text, mode)
        self.mode_combo.setToolTip("Which boxes to draw: all, only TP, only FP, only missed GT")
        metrics = host.fontMetrics()
        widest = max(VIEW_MODE_NAMES.values(), key=metrics.horizontalAdvance)
        self.mode_combo.setFixedWidth(metrics.horizontalAdvance(widest) + 40)
        self.mode_menu = QMenu("Show", host)
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

    # --- commands ------------------------------------------------------------------------------
    def next_image(self) -> None:
        self.state.step_image(+1)

    def previous_image(self) -> None:
        self.state.step_image(-1)

    def cancel_evaluation(self) -> None:
        """Stop the running evaluations; the classes that arrived stay."""
        if any(k.startswith("eval/") for k in self.state.jobs.running_keys()):
            self.state.jobs.cancel_matching("eval/")
            self.state.post([Message("info", "Evaluation cancelled; finished classes are kept.")])

    # --- state ↔ controls ----------------------------------------------------------------------
    def _on_dataset_loaded(self, _dataset: object) -> None:
        self.results_combo.clear()

    def _on_results_added(self, index: int) -> None:
        self.results_combo.addItem(self.state.results[index].results.name, index)

    def _sync_results_combo(self, index: int) -> None:
        self.results_combo.setCurrentIndex(self.results_combo.findData(index))

    def _on_results_chosen(self, i: int) -> None:
        self.state.set_current_results(int(self.results_combo.itemData(i)))

    def _on_messages(self, messages: list[Message]) -> None:
        if any(m.level == "error" for m in messages):
            self.act_messages.setChecked(True)

    def _on_slider(self, value: int) -> None:
        if round(self.threshold_spin.value() * 100) != value:
            self.state.set_slider(value / 100.0)

    def _sync_threshold(self, value: float) -> None:
        """The slider and box show ``value``: the one threshold (0 to 1), or with per-class
        thresholds the offset added to each (-1 to 1; the label and tool tip say so)."""
        ct = self.state.class_thresholds
        lo = 0.0 if ct is None else -1.0
        for w in (self.threshold_slider, self.threshold_spin):
            w.blockSignals(True)
        self.threshold_slider.setRange(round(lo * 100), 100)
        self.threshold_spin.setRange(lo, 1.0)
        self.threshold_slider.setValue(round(value * 100))
        self.threshold_spin.setValue(value)
        for w in (self.threshold_slider, self.threshold_spin):
            w.blockSignals(False)
        if ct is None:
            self.threshold_label.setText(" Score ≥ ")
            tip = "Draw detections whose score is at least this"
        else:
            self.threshold_label.setText(" Per-class + ")
            tip = (
                "Per-class thresholds from "
                f"{ct.source}: each class is drawn at its threshold plus this offset (clamped "
                "to 0–1). View ▸ One score threshold for all classes goes back."
            )
        for w in (self.threshold_label, self.threshold_slider, self.threshold_spin):
            w.setToolTip(tip)

    def _sync_toggles(self) -> None:
        for name, act in self.toggle_actions.items():
            act.setChecked(getattr(self.state, name))
        self.mode_combo.setCurrentIndex(self.mode_combo.findData(self.state.view_mode))
        self.mode_actions[self.state.view_mode].setChecked(True)

    def _on_mode_chosen(self, i: int) -> None:
        self.state.set_view_mode(str(self.mode_combo.itemData(i)))
