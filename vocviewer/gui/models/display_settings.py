"""What the image view draws: the score threshold, the view mode, the drawing toggles and the
detection walk's mode, which the drawing follows (``drawn_mode``: viewdet's ``onlytp`` walk draws
only true positives) unless the user turns ``follow_walk`` off.

The score threshold is one number for every class (``score_threshold``), or per class
(``class_thresholds``: deployment thresholds from a file or the operating point's best F1) with
the slider as an offset: class ``k`` is drawn at ``clip(threshold[k] + offset, 0, 1)``; a class
the thresholds do not name (or name with ``null``) at ``score_threshold + offset``.
``drawn_thresholds`` (per class) and ``drawn_threshold(labels)`` (per detection) are the one
place every consumer reads the threshold from, for ``evaluation.drawn.is_drawn``.

``DisplaySettings`` is a part of ``AppState`` (its ``threshold_changed`` and ``display_changed``
signals announce changes); it holds no Qt object of its own.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.evaluation.drawn import (
    FloatArray,
    Thresholds,
    class_threshold,
    detection_threshold,
    per_class_thresholds,
)
from vocviewer.formats.thresholds import ClassThresholds

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
    class_thresholds: ClassThresholds | None
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
    dataset: Any  # AppState's Dataset | None

    def init_display(self) -> None:
        """Everything drawn, detections scoring at least 0.5."""
        self.score_threshold, self.view_mode, self.walk_mode = 0.5, "all", "all"
        self.class_thresholds = None
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
        """The one threshold for every class (``score_threshold``, in [0, 1])."""
        value = float(value)
        if value != self.score_threshold:
            self.score_threshold = value
            self.threshold_changed.emit(self.slider_value)

    # --- per-class thresholds ----------------------------------------------------------------
    @property
    def slider_value(self) -> float:
        """What the score slider shows: the offset with per-class thresholds, else the one
        threshold."""
        ct = self.class_thresholds
        return self.score_threshold if ct is None else ct.offset

    def set_slider(self, value: float) -> None:
        """The score slider moved: the offset with per-class thresholds (in [-1, 1]), else the
        one threshold."""
        ct = self.class_thresholds
        if ct is None:
            self.set_threshold(value)
            return
        offset = min(max(float(value), -1.0), 1.0)
        if offset != ct.offset:
            self.class_thresholds = replace(ct, offset=offset)
            self.threshold_changed.emit(offset)

    def set_class_thresholds(self, thresholds: ClassThresholds | None) -> None:
        """Draw at per-class ``thresholds`` (its offset on the slider); ``None``: back to the one
        threshold ``score_threshold``."""
        if thresholds != self.class_thresholds:
            self.class_thresholds = thresholds
            self.threshold_changed.emit(self.slider_value)

    def class_base(self) -> FloatArray:
        """float64 (K,): each class's threshold before the offset (a class not named, or named
        with ``null``: ``score_threshold``); the dataset's classes (none open: empty)."""
        classes = () if self.dataset is None else self.dataset.classes
        given = {} if self.class_thresholds is None else self.class_thresholds.thresholds
        base = [given.get(name) for name in classes]
        return np.array([self.score_threshold if t is None else t for t in base], np.float64)

    @property
    def drawn_thresholds(self) -> Thresholds:
        """The threshold drawn at: ``score_threshold``, or float64 (K,) per class (``clip(base +
        offset, 0, 1)``) — what every ``is_drawn`` of the window is asked with."""
        ct = self.class_thresholds
        if ct is None or self.dataset is None:
            return self.score_threshold
        return per_class_thresholds(self.class_base(), ct.offset)

    def drawn_threshold(self, labels: npt.ArrayLike) -> float | FloatArray:
        """Each detection's threshold from its class ``labels`` (one number without per-class
        thresholds)."""
        return detection_threshold(self.drawn_thresholds, labels)

    def class_drawn_threshold(self, class_index: int) -> float:
        """The threshold class ``class_index`` is drawn at."""
        return class_threshold(self.drawn_thresholds, class_index)

    def threshold_words(self, class_index: int = -1) -> str:
        """The threshold in words: ``score ≥ 0.50``; per class ``score ≥ per-class threshold
        +0.05`` (of class ``class_index``, if one: ``score ≥ 0.42 (per class +0.05)``)."""
        ct = self.class_thresholds
        if ct is None:
            return f"score ≥ {self.score_threshold:.2f}"
        if class_index >= 0 and self.dataset is not None:
            t = self.class_drawn_threshold(class_index)
            return f"score ≥ {t:.2f} (per class {ct.offset:+.2f})"
        return f"score ≥ per-class threshold {ct.offset:+.2f}"

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
