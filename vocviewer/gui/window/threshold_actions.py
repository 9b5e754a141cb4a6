"""View ▸ Per-class thresholds: draw each class at its own score threshold.

``ThresholdController`` owns two actions (``window.thresholds``): "Load per-class thresholds…"
reads a JSON file of class name -> threshold (``formats.thresholds``; what
``vocviewer analyze --deploy-thresholds`` writes) and "One threshold for all classes" goes back.
The Analysis tab's operating-point page adopts its best-F1 thresholds through ``adopt``. With
per-class thresholds the toolbar's score slider is an offset added to each class's threshold
(``DisplaySettings``); its label and tool tip say so. A file that cannot be used is reported in
the message area with its path and what was expected; names the dataset does not have are
reported and left out.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QWidget

from vocviewer.core.errors import FormatError
from vocviewer.formats.thresholds import ClassThresholds, read_thresholds
from vocviewer.gui.models.state import AppState, Message
from vocviewer.gui.window.actions import make_action
from vocviewer.gui.window.settings_store import LastFolders
from vocviewer.gui.window.status_line import StatusLine

THRESHOLDS_FILTER = "Thresholds (*.json);;All files (*)"


class ThresholdController(QObject):
    """The per-class threshold actions over ``state``; dialogs parented by ``host`` start in
    ``folders`` (kind ``"thresholds"``); ``status`` says what was loaded."""

    def __init__(
        self, host: QWidget, state: AppState, folders: LastFolders, status: StatusLine
    ) -> None:
        super().__init__(host)
        self.host, self.state, self.folders, self.status = host, state, folders, status
        self.act_load = make_action(
            self,
            "Load per-class &thresholds…",
            (),
            self.choose_file,
            "Draw each class at its own score threshold, read from a JSON file of class -> "
            "threshold (vocviewer analyze --deploy-thresholds); the slider becomes an offset",
        )
        self.act_one = make_action(
            self,
            "One score threshold for all classes",
            (),
            lambda: self.state.set_class_thresholds(None),
            "Back from per-class thresholds to the one score threshold of the slider",
        )
        state.threshold_changed.connect(lambda _v: self._sync())
        self._sync()

    def window_actions(self) -> list[QAction]:
        return [self.act_load, self.act_one]

    def _sync(self) -> None:
        self.act_one.setEnabled(self.state.class_thresholds is not None)

    def choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self.host,
            "Load per-class thresholds",
            self.folders.start("thresholds"),
            THRESHOLDS_FILTER,
        )
        if path:
            self.folders.chosen("thresholds", path)
            self.load_file(Path(path))

    def load_file(self, path: Path) -> bool:
        """Draw at the thresholds in ``path``; a file that cannot be used is reported in the
        message area (file, entry, what was expected) and changes nothing."""
        try:
            found = read_thresholds(path)
        except FormatError as e:
            self.state.post([Message("error", f"Per-class thresholds not loaded: {e}")])
            return False
        return self.adopt(found, str(path), path)

    def adopt(
        self, thresholds: dict[str, float | None], source: str, path: Path | None = None
    ) -> bool:
        """Draw at ``thresholds`` (class name -> threshold; from ``source``, for words), the
        offset starting at 0. Names the open dataset does not have are reported and left out;
        if it has none of them nothing changes."""
        st, ds = self.state, self.state.dataset
        if ds is not None:
            unknown = [n for n in thresholds if n not in ds.classes]
            known = {n: t for n, t in thresholds.items() if n in ds.classes}
            if not known:
                examples = ", ".join(ds.classes[:3])
                why = FormatError(
                    path,
                    f"no class of {ds.name} is named (expected class names such as {examples}; "
                    f"found {', '.join(unknown[:3])}…)",
                )
                st.post([Message("error", f"Per-class thresholds not loaded: {why}")])
                return False
            if unknown:
                shown = ", ".join(unknown[:5]) + ("…" if len(unknown) > 5 else "")
                note = FormatError(path, f"{len(unknown)} names not in {ds.name}: {shown}; ignored")
                st.post([Message("warning", f"Per-class thresholds: {note}")])
            thresholds = known
        st.set_class_thresholds(ClassThresholds(dict(thresholds), 0.0, source))
        given = sum(t is not None for t in thresholds.values())
        self.status.show_note(f"Drawing at per-class thresholds ({given} classes) from {source}")
        return True
