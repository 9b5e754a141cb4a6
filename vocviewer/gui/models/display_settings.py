"""What the image view draws: the score threshold, the view mode, the drawing toggles and the
detection walk's mode, which the drawing follows (``drawn_mode``: viewdet's ``onlytp`` walk draws
only true positives) unless the user turns ``follow_walk`` off.

``DisplaySettings`` is a part of ``AppState`` (its ``threshold_changed`` and ``display_changed``
signals announce changes); it holds no Qt object of its own.
"""

from __future__ import annotations

from typing import Any

#: Drawing modes: everything, only true positives (``onlytp``), only false positives, only missed
#: ground truth.
VIEW_MODES = ("all", "tp", "fp", "missed")
#: Drawing toggles (``AppState`` attributes): ground truth, detections, labels, scores in the
#: detection labels, COCO masks, keypoints, VOC person parts; whether what is drawn follows the
#: walk's mode ("Show follows the walk").
DISPLAY_TOGGLES = (
    "show_gt",
    "show_detections",
    "show_labels",
    "show_scores",
    "show_masks",
    "show_keypoints",
    "show_parts",
    "follow_walk",
)


def mode_kinds(mode: str) -> tuple[int, ...]:
    """The ``FPKind`` values of a walk mode key ``kind:N[,M...]`` (empty for any other mode)."""
    if not mode.startswith("kind:"):
        return ()
    return tuple(int(k) for k in mode.partition(":")[2].split(","))


class DisplaySettings:
    """Score threshold (detections scoring at least this are drawn), view mode and toggles."""

    score_threshold: float
    view_mode: str
    show_gt: bool
    show_detections: bool
    show_labels: bool
    show_scores: bool
    show_masks: bool
    show_keypoints: bool
    show_parts: bool
    follow_walk: bool
    walk_mode: str
    threshold_changed: Any  # AppState's signals
    display_changed: Any

    def init_display(self) -> None:
        """Everything drawn, detections scoring at least 0.5."""
        self.score_threshold, self.view_mode, self.walk_mode = 0.5, "all", "all"
        for name in DISPLAY_TOGGLES:
            setattr(self, name, True)

    @property
    def drawn_mode(self) -> str:
        """What the overlays draw: the walk's mode (``models.walk.WALK_MODES`` key: ``tp``,
        ``fp``, ``kind:N[,M]``, ``missed``) while ``follow_walk`` is on and the walk is not over
        every detection; else ``view_mode`` (View ▸ Show)."""
        if self.follow_walk and self.walk_mode != "all":
            return self.walk_mode
        return self.view_mode

    def set_walk_mode(self, key: str) -> None:
        """The detection walk's mode key (``DetectionWalk.set_mode`` validates it)."""
        if key != self.walk_mode:
            self.walk_mode = key
            self.display_changed.emit()

    def set_threshold(self, value: float) -> None:
        value = float(value)
        if value != self.score_threshold:
            self.score_threshold = value
            self.threshold_changed.emit(value)

    @property
    def only_tp(self) -> bool:
        """The devkit's ``onlytp``: only true positives are drawn (``view_mode == "tp"``)."""
        return self.view_mode == "tp"

    def set_view_mode(self, mode: str) -> None:
        """``"all"``, ``"tp"``, ``"fp"`` (false positives) or ``"missed"`` (missed objects)."""
        if mode not in VIEW_MODES:
            raise ValueError(f"unknown view mode {mode!r}; expected one of {VIEW_MODES}")
        if mode != self.view_mode:
            self.view_mode = mode
            self.display_changed.emit()

    def set_display(self, name: str, on: bool) -> None:
        """Set a drawing toggle: one of ``DISPLAY_TOGGLES`` or ``only_tp``."""
        if name not in (*DISPLAY_TOGGLES, "only_tp"):
            raise ValueError(f"unknown display toggle {name!r}")
        if name == "only_tp":
            if bool(on) != self.only_tp:
                self.set_view_mode("tp" if on else "all")
            return
        if getattr(self, name) != bool(on):
            setattr(self, name, bool(on))
            self.display_changed.emit()
