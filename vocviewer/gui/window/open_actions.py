"""The File ▸ Open side of the window: dialogs, the demo, drops, and File ▸ Open Recent.

``OpenController`` owns the open actions and the recent list; it opens through ``AppState`` and
records what was opened (``opened``) for the recent list and sessions. Dropped paths that look
like a dataset (``families.registry.looks_like_dataset``) open it, with any other dropped paths as its
results; otherwise they are added as results to the open dataset (the window hands its drops to
``open_paths``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QObject, QSettings
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMenu, QWidget

from vocviewer.gui.models.state import AppState, Message
from vocviewer.gui.models.tasks import error_message
from vocviewer.gui.models.worker import Worker
from vocviewer.gui.window import file_names
from vocviewer.gui.window.actions import make_action, with_tip
from vocviewer.gui.window.recent import RecentEntry, RecentFiles, SetOpener, default_settings
from vocviewer.gui.window.settings_store import LastFolders
from vocviewer.gui.window.status_line import StatusLine


def write_demo_dataset() -> tuple[Path, tuple[Path, ...]]:
    """Write (or refresh) the demo VOCdevkit in the cache; return its year folder and the result
    paths it opens, each one set (``DemoPaths.result_sets``: detections, segmentation)."""
    from vocviewer.demo import default_demo_dir, write_demo

    paths = write_demo(default_demo_dir())
    return Path(paths.year_dir), paths.result_sets


class OpenController(QObject):
    """Open actions and slots shared by the menu, drops, the recent list, sessions and tests.

    ``host``: the parent of the dialogs and the recent menu; ``folders``: where the dialogs
    start; ``status``: says "Opening …"; ``settings``: the recent list's (the user's by
    default).
    """

    def __init__(
        self,
        host: QWidget,
        state: AppState,
        folders: LastFolders,
        status: StatusLine,
        settings: QSettings | None = None,
    ) -> None:
        super().__init__(host)
        self.host, self.state, self.folders, self.status = host, state, folders, status
        self.recent = RecentFiles(settings if settings is not None else default_settings(), self)
        self._opening: RecentEntry | None = None  # requested, recorded once it loads
        self.opened: RecentEntry | None = None  # what was opened: dataset, result sets, sources
        self.recent_menu = QMenu("Open &Recent", host)
        self.recent_menu.menuAction().setStatusTip("Reopen a dataset with its result files")
        self.recent_menu.setProperty("generated", True)  # filled from the user's data
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        state.dataset_loaded.connect(self._remember_dataset)
        state.results_added.connect(self._remember_results)
        self.act_open = with_tip(
            make_action(
                self,
                "&Open dataset folder…",
                ("Ctrl+O",),
                self.choose_dataset,
                f"Open {file_names.dataset_folders()}",
            ),
            "Open",
        )
        self.act_open_file = make_action(
            self,
            "Open annotation &file…",
            ("Ctrl+Shift+O",),
            self.choose_annotation_file,
            f"Open {file_names.annotation_files()}",
        )
        self.act_demo = make_action(
            self,
            "Open &demo dataset",
            (),
            self.open_demo,
            "Open a small generated VOC dataset with results (no download)",
        )
        self.act_add = make_action(
            self,
            "&Add results…",
            ("Ctrl+R",),
            self.choose_results,
            "Add result files to the open dataset and evaluate them",
        )
        self.act_add_dir = make_action(
            self,
            "Add results &folder…",
            ("Ctrl+Shift+R",),
            self.choose_results_folder,
            "Add every result file of a folder (e.g. VOC's results/VOC2007/Main)",
        )

    def window_actions(self) -> list[QAction]:
        return [self.act_open, self.act_open_file, self.act_demo, self.act_add, self.act_add_dir]

    def open_dataset(
        self,
        path: str | Path,
        results: Sequence[str | Path] = (),
        image_set: str | None = None,
        **sources: str | Path | None,
    ) -> RecentEntry:
        """Open the dataset at ``path`` in the background, then add ``results`` (one set);
        returns the entry that becomes ``opened`` once it loads (its result sets are recorded
        as they arrive: ``_remember_results``)."""
        self.status.say(f"Opening {path}…")
        given = {k: str(v) for k, v in sources.items() if v is not None}
        self._opening = entry = RecentEntry(str(Path(path)), (), given, image_set)
        self.state.open_dataset(path, tuple(results), image_set, **sources)
        return entry

    def open_each(
        self,
        path: str | Path,
        sets: Sequence[str | Path | Sequence[str | Path]] = (),
        image_set: str | None = None,
        **sources: str | Path | None,
    ) -> SetOpener:
        """Open the dataset at ``path`` on ``image_set`` with ``sets`` added in order, each a
        path (a file or folder: one result set) or a sequence of paths forming one set (a VOC
        competition's per-class files; ``vocviewer open``, ``vocviewer demo``)."""
        given = {k: str(v) for k, v in sources.items() if v is not None}
        groups = [[s] if isinstance(s, str | Path) else list(s) for s in sets]
        return SetOpener(self, path, groups, image_set, given, self, explicit=True)

    def add_results(self, paths: Sequence[str | Path]) -> None:
        """Add result files or folders to the open dataset (recorded in ``opened`` and the
        recent list once they loaded; a set that fails is said once and not recorded)."""
        if not self._dataset_open():
            return
        self.state.add_results(list(paths))

    def _remember_dataset(self, _dataset: object) -> None:
        self.opened = self._opening
        if self._opening is not None:
            self.recent.add(self._opening)
            self._opening = None

    def _remember_results(self, index: int) -> None:
        """Result set ``index`` loaded: one more set of the recent entry (if read from files)."""
        paths = self.state.result_paths[index]
        if self.opened is not None and paths:
            self.opened = self.opened.with_results(paths)
            self.recent.add_results(self.opened.dataset, paths)

    # --- dialogs ---------------------------------------------------------------------------
    def choose_dataset(self) -> None:
        path = QFileDialog.getExistingDirectory(
            self.host,
            f"Open dataset folder ({file_names.dataset_folders()})",
            self.folders.start("dataset"),
        )
        if path:
            self.folders.chosen("dataset", path)
            self.open_dataset(path)

    def choose_annotation_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self.host,
            f"Open annotation file ({file_names.annotation_files()})",
            self.folders.start("dataset"),
            file_names.annotation_filter(),
        )
        if path:
            self.folders.chosen("dataset", path)
            self.open_dataset(path)

    def _dataset_open(self) -> bool:
        """Whether a dataset is open (else say that results need one)."""
        if self.state.dataset is None:
            self.state.post([Message("info", "Open a dataset before adding results.")])
        return self.state.dataset is not None

    def choose_results(self) -> None:
        if not self._dataset_open():
            return
        files, _ = QFileDialog.getOpenFileNames(
            self.host,
            "Add result files",
            self.folders.start("results"),
            file_names.results_filter(),
        )
        if files:
            self.folders.chosen("results", files[0])
            self.add_results(files)

    def choose_results_folder(self) -> None:
        if not self._dataset_open():
            return
        path = QFileDialog.getExistingDirectory(
            self.host,
            f"Add a results folder ({file_names.results_folders()})",
            self.folders.start("results"),
        )
        if path:
            self.folders.chosen("results", Path(path).parent)
            self.add_results([path])

    def open_demo(self) -> None:
        """Write the demo dataset (in a worker), then open it with its result sets."""
        self.status.say("Writing the demo dataset…")
        self._demo_worker = Worker(write_demo_dataset)
        self._demo_worker.signals.returned.connect(self._on_demo_written)
        self._demo_worker.signals.errored.connect(self._on_demo_failed)
        self._demo_worker.start()

    def _on_demo_written(self, paths: tuple[Path, tuple[Path, ...]]) -> None:
        self.open_each(paths[0], paths[1], "val")

    def _on_demo_failed(self, exc: BaseException) -> None:
        self.state.post([error_message(exc, "Cannot write the demo dataset")])

    # --- drops -------------------------------------------------------------------------------
    def open_paths(self, paths: Sequence[Path]) -> None:
        """What a drop does: open the first dataset-like path with the others as its results, or
        add every path as results to the open dataset."""
        from vocviewer.families.registry import looks_like_dataset  # start-up: every format reader

        datasets = [p for p in paths if looks_like_dataset(p)]
        if datasets:
            others = [p for p in paths if p != datasets[0]]
            if len(datasets) > 1:
                skipped = ", ".join(str(p) for p in datasets[1:])
                self.state.post([Message("info", f"Opened {datasets[0]}; not opened: {skipped}")])
                others = [p for p in others if p not in datasets]
            self.open_dataset(datasets[0], others)
        elif self.state.dataset is not None:
            self.add_results(paths)
        else:
            names = ", ".join(str(p) for p in paths)
            self.state.post(
                [
                    Message(
                        "error",
                        f"{names}: not a dataset. Drop {file_names.any_dataset()} first, then "
                        "result files.",
                    )
                ]
            )

    # --- recent ------------------------------------------------------------------------------
    def _fill_recent_menu(self) -> None:
        menu = self.recent_menu
        menu.clear()
        entries = self.recent.entries()
        for n, entry in enumerate(entries, 1):
            act = menu.addAction(f"&{n % 10}  {entry.label()}")
            act.setToolTip("\n".join((entry.dataset, *entry.results)))
            act.setStatusTip(f"Reopen {entry.label()}")
            act.triggered.connect(lambda _=False, e=entry: self.open_recent(e))
        if not entries:
            empty = menu.addAction("No recent datasets")
            empty.setEnabled(False)
            empty.setStatusTip("The datasets you open are listed here with their result files")
        menu.addSeparator()
        clear = menu.addAction("Clear list", self.recent.clear)
        clear.setEnabled(bool(entries))
        clear.setStatusTip("Forget the recent datasets")

    def open_recent(self, entry: RecentEntry) -> SetOpener | None:
        """Reopen a recent dataset with its result sets, in order, and its image set (missing
        paths are reported and left out)."""
        if not Path(entry.dataset).exists():
            self.state.post([Message("error", f"{entry.dataset}: no longer exists")])
            return None
        gone = [r for r in entry.results if not Path(r).exists()]
        if gone:
            self.state.post([Message("warning", f"{r}: no longer exists") for r in gone])
        sets = [[r for r in paths if Path(r).exists()] for paths in entry.result_sets]
        return SetOpener(self, entry.dataset, sets, entry.image_set, entry.sources, self)
