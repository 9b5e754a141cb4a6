"""The window's detection walk (``models.walk.DetectionWalk``): a "Walk" menu with the keys for
the next / previous detection and the next / previous one of the same verdict, the walk's mode
(viewdet's ``onlytp`` among them), whether the image draws what the walk visits ("Show follows
the walk", on by default, remembered with the drawing toggles) and whether each step zooms to the
detection. The end of a walk is said in the status bar (and unsaid when the selection moves
elsewhere); the Ranks tab follows every step."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu, QWidget

from vocviewer.gui.models.state import AppState
from vocviewer.gui.models.walk import WALK_MODES, DetectionWalk
from vocviewer.gui.panes.image.view import ImageView
from vocviewer.gui.window.actions import make_action
from vocviewer.gui.window.status_line import StatusLine

#: how long the status bar shows where a step landed or that the walk ended (ms)
NOTE_MS = 4000


class WalkController(QObject):
    """The Walk menu (``menu``, parented to ``host``) over ``walk``: steps, modes, Show follows
    the walk, zoom to each step (in ``view``); where a step landed is said in ``status``."""

    def __init__(
        self,
        host: QWidget,
        state: AppState,
        walk: DetectionWalk,
        view: ImageView,
        status: StatusLine,
    ) -> None:
        super().__init__(host)
        self.state, self.walk, self.view, self.status = state, walk, view, status
        self.detour: Callable[[int], str | None] | None = None  # another list the keys walk

        def a(text: str, keys: tuple[str, ...], slot: object, tip: str) -> QAction:
            return make_action(self, text, keys, slot, tip)  # type: ignore[arg-type]

        self.act_next = a(
            "&Next detection",
            (".",),
            lambda: self.step(1),
            "Select the next detection of the walk (rank order; all classes: by score)",
        )
        self.act_previous = a(
            "&Previous detection",
            (",",),
            lambda: self.step(-1),
            "Select the previous detection of the walk",
        )
        self.act_next_same = a(
            "Next of the &same verdict",
            (">",),
            lambda: self.step(1, same_verdict=True),
            "Select the next detection whose verdict is the selected one's",
        )
        self.act_previous_same = a(
            "Previous of the same verdict",
            ("<",),
            lambda: self.step(-1, same_verdict=True),
            "Select the previous detection whose verdict is the selected one's",
        )
        self.act_cycle = a(
            "&Cycle walk mode",
            ("W",),
            self.cycle_mode,
            "Walk every detection, only TPs, only FPs, one FP kind, or the missed objects",
        )
        self.act_zoom = a("&Zoom to each step", (), None, "Zoom the image to each detection")
        self.act_zoom.setCheckable(True)
        self.act_follow = a(
            "Show &follows the walk",
            (),
            None,
            "Draw what the walk visits (only TPs, one FP kind, missed objects); walking every "
            "detection draws what View ▸ Show says",
        )
        self.act_follow.setCheckable(True)
        self.act_follow.setChecked(state.follow_walk)
        self.act_follow.toggled.connect(lambda on: state.set_display("follow_walk", on))
        state.display_changed.connect(self._sync_follow)
        self.menu = self._menu(host)
        self._said = ""  # the last note the walk put in the status line
        self.walk.ended.connect(self._say)
        self.walk.stepped.connect(self._say)
        self.walk.mode_changed.connect(self._sync_mode)
        # a step moves the selection, then says where it landed
        for moved in (state.selection_changed, state.object_selected, state.image_changed):
            moved.connect(self._let_go)

    def window_actions(self) -> list[QAction]:
        return [
            self.act_next,
            self.act_previous,
            self.act_next_same,
            self.act_previous_same,
            self.act_cycle,
            self.act_zoom,
            self.act_follow,
        ]

    def _menu(self, host: QWidget) -> QMenu:
        menu = QMenu("&Walk", host)
        for act in (self.act_next, self.act_previous, self.act_next_same, self.act_previous_same):
            menu.addAction(act)
        menu.addSeparator()
        self.mode_group = QActionGroup(self)
        self.mode_actions: dict[str, QAction] = {}
        for mode in WALK_MODES:
            act = menu.addAction(mode.label)
            act.setCheckable(True)
            act.setChecked(mode == self.walk.mode)
            act.setStatusTip(f"Walk: {mode.label.lower()}")
            act.triggered.connect(lambda _=False, key=mode.key: self.walk.set_mode(key))
            self.mode_group.addAction(act)
            self.mode_actions[mode.key] = act
        menu.addAction(self.act_cycle)
        menu.addSeparator()
        menu.addAction(self.act_follow)
        menu.addAction(self.act_zoom)
        return menu

    def step(self, step: int, *, same_verdict: bool = False) -> bool:
        """One step of the walk (or of ``detour``: the label-error queue while it is in front,
        which says what to tell); zooms to the detection if asked."""
        said = self.detour(step) if self.detour is not None else None
        if said is not None:
            self._say(said)
            if self.act_zoom.isChecked():
                self.view.zoom_to_highlight()
            return True
        moved = self.walk.step(step, same_verdict=same_verdict)
        if moved and self.act_zoom.isChecked():
            self.view.zoom_to_highlight()
        return moved

    def cycle_mode(self) -> None:
        keys = [m.key for m in WALK_MODES]
        self.walk.set_mode(keys[(keys.index(self.walk.mode.key) + 1) % len(keys)])
        self._say(f"Walk: {self.walk.mode.label.lower()}")

    def _sync_follow(self) -> None:
        self.act_follow.setChecked(self.state.follow_walk)

    def _sync_mode(self, key: str) -> None:
        self.mode_actions[key].setChecked(True)

    def _say(self, text: str) -> None:
        self._said = text
        self.status.show_note(text, NOTE_MS)

    def _let_go(self, *_args: object) -> None:
        """The selection or the image changed: a note of where the walk stood no longer says
        where the user is (``]``, a click, another image), so the status line returns."""
        line = self.status
        if self._said and line.note_timer.isActive() and line.label.text() == self._said:
            self._said = ""
            line.end_note()
