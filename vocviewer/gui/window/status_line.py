"""``StatusLine``: the status bar's contents and what they say.

The line itself (dataset, image and its place in the list, objects, detections shown, evaluated
set), a note that holds the line for a few seconds (``show_note``: where a walk step landed, what
was exported), the colour key of the verdicts, the evaluation's progress with its Cancel button,
and the messages button (how many, and whether any is a problem). It reads ``AppState``, the
image view (what it draws) and the detection walk (its mode, when Show follows it).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QLabel, QProgressBar, QStatusBar, QToolButton

from vocviewer.gui.models.debounce import Debounced
from vocviewer.gui.models.state import AppState, Message
from vocviewer.gui.models.walk import DetectionWalk
from vocviewer.gui.panes.image.view import ImageView
from vocviewer.gui.widgets.verdict_style import colour_key


class StatusLine(QObject):
    """Fills ``bar`` and keeps it in step with ``state``, ``view`` and ``walk``."""

    def __init__(
        self, bar: QStatusBar, state: AppState, view: ImageView, walk: DetectionWalk
    ) -> None:
        super().__init__(bar)
        self.state, self.view, self.walk = state, view, walk
        self.label = QLabel()
        bar.addWidget(self.label, 1)
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
        bar.addPermanentWidget(self.cancel_button)
        self.problems_button = QToolButton()
        self.problems_button.setAutoRaise(True)
        self.problems_button.setToolTip("Show or hide the messages panel (Ctrl+M)")
        self.problems_button.hide()
        bar.addPermanentWidget(self.problems_button)
        self.note_timer = QTimer(self)  # runs while a note holds the line; then the status returns
        self.note_timer.setSingleShot(True)
        self._message_count = self._problem_count = 0
        # QProgressBar repaints the window at once on each new value: a few times a second only
        self._progress_value = (0, 0)
        self._progress_later = Debounced(self._show_progress, 250, self)

        self.note_timer.timeout.connect(self.refresh)
        state.evaluation.progress.connect(self._on_evaluation_progress)
        state.evaluation.finished.connect(self._on_evaluation_finished)
        state.messages_posted.connect(self._on_messages)
        for changed in (
            state.load_failed,  # not "Opening …" any more
            state.image_changed,
            state.visible_images_changed,
            view.overlays_drawn,
        ):
            changed.connect(self.refresh)
        self.refresh()

    def say(self, text: str) -> None:
        """Put ``text`` on the line until the status next changes ("Opening …")."""
        self.label.setText(text)

    def show_note(self, text: str, ms: int = 5000) -> None:
        """Say ``text`` on the line for ``ms`` (instead of its status: a status bar's own
        temporary message would be painted over the status text)."""
        self.label.setText(text)
        self.note_timer.start(ms)

    def end_note(self) -> None:
        """Give the line back to the status at once (a note no longer holds)."""
        self.note_timer.stop()
        self.refresh()

    def messages_cleared(self) -> None:
        """The messages panel was cleared: no count to show."""
        self._message_count = self._problem_count = 0
        self.problems_button.hide()

    def refresh(self, *_args: object) -> None:
        """Write the status: dataset · image (place in the list) · objects · detections shown."""
        if self.note_timer.isActive():  # a note holds the line for a few seconds
            return
        st = self.state
        ds = st.dataset
        if ds is None:
            self.label.setText("No dataset open")
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
                    shown += f" ({self.walk.mode.label.lower()}, as the walk)"
                elif st.image_filter.judges_boxes:  # only those the filter keeps
                    shown += " (filtered)"
                parts.append(shown)
            if self.view.missing_file is not None and self.view.shown_image == image:
                parts.append("image file missing")
        if st.eval_set:
            parts.append(f"evaluated on {st.eval_set}")
        self.label.setText("  ·  ".join(parts))

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
