"""The File ▸ Export actions of the window: PR figure, image, AP table, confusion matrix.

``ExportController`` owns the export actions and writes what the panes show through
``gui.window.export`` / ``formats.output`` (atomic, never into the dataset's
``protected_roots``, whatever a file dialog returns). A refusal or failure is posted to the
message area naming the target; a success is said in the status line too.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QWidget

from vocviewer.core.errors import OutputError
from vocviewer.evaluation.shown_table import render_shown_table
from vocviewer.families.official import mark
from vocviewer.formats import output
from vocviewer.gui.models.state import AppState, Message
from vocviewer.gui.panes.image.view import ImageView
from vocviewer.gui.panes.pr.pane import PRPane
from vocviewer.gui.panes.pr.title import plain_title
from vocviewer.gui.panes.tables.ap_table import ApTable
from vocviewer.gui.panes.tables.confusion import ConfusionPane
from vocviewer.gui.window import export
from vocviewer.gui.window.actions import make_action
from vocviewer.gui.window.settings_store import LastFolders
from vocviewer.gui.window.status_line import StatusLine


class ExportController(QObject):
    """Export actions and slots shared by the menu, the panes' context menus and tests, over
    the panes they write (``view``, ``pr_pane``, ``ap_table``, ``confusion``); ``host``
    parents the save dialogs, which start in ``folders``."""

    def __init__(
        self,
        host: QWidget,
        state: AppState,
        folders: LastFolders,
        status: StatusLine,
        *,
        view: ImageView,
        pr_pane: PRPane,
        ap_table: ApTable,
        confusion: ConfusionPane,
    ) -> None:
        super().__init__(host)
        self.host, self.state, self.folders, self.status = host, state, folders, status
        self.view, self.pr_pane, self.ap_table, self.confusion = view, pr_pane, ap_table, confusion
        self.act_export_pr = make_action(
            self,
            "Export PR &figure…",
            ("Ctrl+E",),
            self.export_pr,
            "Save the precision/recall figure as PNG, SVG or PDF",
        )
        self.act_export_image = make_action(
            self, "Export &image…", (), self.export_image, "Save the image with what is drawn on it"
        )
        self.act_export_table = make_action(
            self,
            "Export AP &table…",
            (),
            self.export_table,
            "Save the AP table as CSV, Markdown, LaTeX or JSON",
        )
        self.act_export_confusion = make_action(
            self,
            "Export &confusion matrix…",
            (),
            self.export_confusion,
            "Save the confusion matrix of the current result set",
        )
        pr_pane.export_requested.connect(self.export_pr)

    def window_actions(self) -> list[QAction]:
        return [
            self.act_export_pr,
            self.act_export_image,
            self.act_export_table,
            self.act_export_confusion,
        ]

    def _protected(self) -> tuple[Path, ...]:
        ds = self.state.dataset
        return ds.protected_roots if ds is not None else ()

    def _save_name(self, title: str, name: str, filters: str) -> str:
        """A save dialog proposing ``name`` in the last export folder, else beside the dataset,
        else the home folder (never inside the dataset, where nothing may be written)."""
        start = Path(self.folders.start("export", writable=True))
        path, _ = QFileDialog.getSaveFileName(self.host, title, str(start / name), filters)
        if path:
            self.folders.chosen("export", path)
        return path

    def export_pr(self, path: str | None = None) -> None:
        """Save the PR plot as shown as PNG, SVG or PDF: the selected class's curves (every
        result set), or with all classes every class's curve and the legend."""
        ds, k = self.state.dataset, self.state.selected_class
        if ds is None:
            self._say("Open a dataset and add results to export a PR figure.")
            return
        if k < 0:
            self._export_all_classes(path)
            return
        curves = [
            (r.results.name, ev.det[k])
            for r, ev in zip(self.state.results, self.state.evaluations, strict=True)
            if k in ev.det
        ]
        path = path or self._save_name(
            "Export PR figure", f"pr_{ds.classes[k]}.png", "PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"
        )
        ev = self.state.evaluation  # the title carries the mark the window shows
        reasons = [r for i in range(len(self.state.results)) for r in ev.not_official(i)]
        title = f"{ds.classes[k]} {mark(reasons)}".strip()
        if path:
            self._export(
                path,
                lambda: export.export_pr_figure(path, title, curves, protected=ds.protected_roots),
            )

    def _export_all_classes(self, path: str | None) -> None:
        """The All-classes plot as shown: grey curves, the listed classes coloured and named in
        the legend (lower left, as on screen), the plot's title (its mean AP)."""
        ds = self.state.dataset
        assert ds is not None
        curves, styles = self.pr_pane.classes.figure()
        if not curves:
            self._say("No PR curve to export yet: add results (Ctrl+R) and let them evaluate.")
            return
        title = plain_title(self.pr_pane.title_html()) or "All classes"
        path = path or self._save_name(
            "Export PR figure", "pr_all_classes.png", "PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"
        )
        if path:
            self._export(
                path,
                lambda: export.export_pr_figure(
                    path,
                    title,
                    curves,
                    protected=ds.protected_roots,
                    styles=styles,
                    legend_corner="lower left",
                ),
            )

    def _say(self, text: str) -> None:
        """Tell the user why nothing was exported: in the status bar, and in the messages."""
        self.state.post([Message("info", text)])
        self.status.show_note(text)

    def export_image(self, path: str | None = None) -> None:
        """Save the image view (the visible part, with overlays) as PNG."""
        ds = self.state.dataset
        if ds is None or self.view.shown_image < 0:
            return
        name = f"{ds.images.id[self.view.shown_image]}.png"
        path = path or self._save_name("Export image", name, "PNG (*.png)")
        if path:
            target = path
            self._export(
                path,
                lambda: export.render_widget(
                    self.view.viewport(), target, "png", 96, ds.protected_roots
                ),
            )

    def export_table(self, path: str | None = None) -> None:
        """Save the AP table as shown (every column: AP per result set, npos, ndet, AP_N, cls
        AP; titles with their NOT OFFICIAL mark, the reasons as notes) as CSV, Markdown, LaTeX
        or JSON."""
        ds = self.state.dataset
        if ds is None or not self.state.results:
            return
        path = path or self._save_name(
            "Export AP table",
            "ap.csv",
            "CSV (*.csv);;Markdown (*.md);;LaTeX (*.tex);;JSON (*.json)",
        )
        if not path:
            return
        model = self.ap_table.ap_model
        model.refresh()  # the cells as they are now
        headers, rows = model.shown()
        ev = self.state.evaluation
        notes = [r.text for i in range(len(self.state.results)) for r in ev.not_official(i)]
        fmt, notes = Path(path).suffix.lstrip(".").lower(), list(dict.fromkeys(notes))
        self._export(
            path,
            lambda: export.write_text(
                path,
                render_shown_table(headers, rows, fmt, notes, model.shown_values()),
                ds.protected_roots,
            ),
        )

    def export_confusion(self, path: str | None = None) -> None:
        """Save the confusion tab's matrix as CSV or JSON."""
        ds, matrix = self.state.dataset, self.confusion.matrix
        if ds is None or matrix is None:
            self.state.post([Message("info", "Show the Confusion tab of a result set first.")])
            return
        path = path or self._save_name(
            "Export confusion matrix", "confusion.csv", "CSV (*.csv);;JSON (*.json)"
        )
        if not path:
            return
        text = json.dumps(matrix.to_dict(), indent=1) if path.endswith(".json") else matrix.to_csv()
        self._export(path, lambda: export.write_text(path, text, ds.protected_roots))

    def _export(self, path: str, write: Callable[[], Path]) -> None:
        """Check ``path`` (never inside the dataset), then ``write()``; report either way."""
        try:
            output.guard_target(path, self._protected())
            out = write()
        except OutputError as e:
            self.state.post([Message("error", f"Export failed: {e}")])
            return
        except (OSError, ValueError) as e:  # an unknown table format, say
            self.state.post([Message("error", f"Export failed: {path}: {e}")])
            return
        self.state.post([Message("info", f"Wrote {out}")])
        self.status.show_note(f"Wrote {out}")
