"""File ▸ Export the listed images as a dataset…: the images the image list shows (the state's
``visible_images``, whatever filter chose them), with their annotations and every loaded result
set's rows on them, written as a new COCO / VOC / YOLO folder (``families.subset_export``) on
a worker; what was written, or why not, goes to the message area.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QInputDialog, QWidget

from vocviewer.core.errors import OutputError
from vocviewer.families.registry import conversion_targets
from vocviewer.families.subset_export import write_subset
from vocviewer.gui.models.state import AppState, Message
from vocviewer.gui.models.tasks import error_message
from vocviewer.gui.models.worker import Worker
from vocviewer.gui.window.actions import make_action
from vocviewer.gui.window.settings_store import LastFolders
from vocviewer.gui.window.status_line import StatusLine


class SubsetExportController(QObject):
    """The action and its run; ``running`` is the worker writing (``None`` when idle)."""

    def __init__(
        self, host: QWidget, state: AppState, folders: LastFolders, status: StatusLine
    ) -> None:
        super().__init__(host)
        self.host, self.state, self.folders, self.status = host, state, folders, status
        self.running: Worker | None = None
        self.act_export_subset = make_action(
            self,
            "Export the listed images as a &dataset…",
            (),
            self.export_listed,
            "Write the images the list shows, their annotations and the results on them, as "
            "a new COCO, VOC or YOLO folder",
        )

    def window_actions(self) -> list[QAction]:
        return [self.act_export_subset]

    def _say(self, text: str) -> None:
        self.state.post([Message("info", text)])
        self.status.show_note(text)

    def _ask(self) -> tuple[str, str] | None:
        """The format and the new folder, from two dialogs (``None``: cancelled)."""
        targets = list(conversion_targets())
        to, ok = QInputDialog.getItem(
            self.host, "Export the listed images", "Format:", targets, 0, False
        )
        if not ok:
            return None
        ds = self.state.dataset
        name = f"{ds.name if ds is not None else 'dataset'}_{to}_subset".replace(" ", "_")
        start = Path(self.folders.start("export", writable=True))
        path, _ = QFileDialog.getSaveFileName(
            self.host, "New folder for the listed images", str(start / name)
        )
        if not path:
            return None
        self.folders.chosen("export", path)
        return to, path

    def export_listed(
        self, out: str | Path | None = None, to: str | None = None, images: str = "copy"
    ) -> None:
        """Write the listed images as ``to`` into the new folder ``out`` (asked when not given)
        on a worker; ``images``: copy, hardlink or symlink."""
        ds, rows = self.state.dataset, self.state.visible_images.copy()
        if ds is None or not len(rows):
            self._say("No image is listed: open a dataset (and let the filter list some).")
            return
        if self.running is not None:
            self._say("A dataset export is running; wait for it to finish.")
            return
        if out is None or to is None:
            asked = self._ask()
            if asked is None:
                return
            to, out = asked
        sets = [(r.results.name, r.results) for r in self.state.results]
        self.status.say(f"Writing {len(rows)} images as {to} to {out}…")
        worker = Worker(write_subset, ds, rows, to, Path(out), sets, images=images)
        worker.signals.returned.connect(self._written)
        worker.signals.errored.connect(self._failed)
        worker.signals.finished.connect(self._finished)
        self.running = worker
        worker.start()

    def _written(self, lines: list[str]) -> None:
        self.state.post([Message("info", f"Dataset export: {line}") for line in lines])
        self.status.show_note(lines[0] if lines else "Dataset export done")

    def _failed(self, exc: BaseException) -> None:
        if isinstance(exc, OutputError):  # refused: inside the dataset, or a non-empty folder
            self.state.post([Message("error", f"Dataset export failed: {exc}")])
        else:
            self.state.post([error_message(exc, "Dataset export failed")])

    def _finished(self) -> None:
        self.running = None
