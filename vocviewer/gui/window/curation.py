"""The Tags menu and the label-error queue: ``CurationController``.

It owns the window's ``TagsModel`` and the *Suspects* tab of the inspector (``SuspectsPane``), and
the actions: a key for each common tag (Alt+1 … Alt+5: ``core.tags.COMMON_TAGS``), a note
(Alt+N), and Export tags… (``tags.csv``, ``tags.json`` and the fixes as VOC XML patches in
``Annotations/`` for a dataset of VOC boxes, else as ``coco_patch.json``; written through the
guarded writer: never into the dataset).

What a tag key tags: with the patches view in front and patches selected, every one of them
(one key tags or untags them all); with the Suspects tab in front, the current suspect on the current image
(its object, or its detection for a missing annotation; the suspect's fix goes with the tag
that confirms it, or with "label error"); else the selected object, else the selected detection
(tagged "missing annotation", its box is the fix: add it), else the image. The tags of what
the keys would tag are said in a line under the inspector; tagged images carry a flag in the
image list. With the Suspects tab in front, the walk keys (``.`` / ``,``) walk the queue.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QInputDialog, QLabel, QMenu, QWidget

from vocviewer.core.errors import FormatError, OutputError
from vocviewer.core.tags import COMMON_TAGS, Fix, Target
from vocviewer.gui.models.state import AppState, Message
from vocviewer.gui.models.tags import TagsModel
from vocviewer.gui.panes.browse.image_area import ImageArea
from vocviewer.gui.panes.browse.image_browser import ImageBrowser
from vocviewer.gui.panes.browse.side_panel import SidePanel
from vocviewer.gui.panes.browse.suspects import KIND_TAGS, SuspectsPane
from vocviewer.gui.window.actions import make_action
from vocviewer.gui.window.settings_store import LastFolders
from vocviewer.gui.window.status_line import StatusLine


class CurationController(QObject):
    """Tags, notes, their export and the label-error queue over ``state``; the queue is a tab
    of ``side``; ``browser``'s list flags tagged images; ``status`` says what was tagged."""

    def __init__(
        self,
        host: QWidget,
        state: AppState,
        side: SidePanel,
        browser: ImageBrowser,
        folders: LastFolders,
        status: StatusLine,
    ) -> None:
        super().__init__(host)
        self.host, self.state, self.side, self.browser = host, state, side, browser
        self.folders, self.status = folders, status
        self.tags = TagsModel(state, self)
        self.pane = SuspectsPane(state, self.tags)
        side.tabs.addTab(self.pane, "Suspects")
        self.tag_line = QLabel()
        self.tag_line.setTextFormat(Qt.TextFormat.PlainText)
        self.tag_line.setMargin(4)
        self.tag_line.setWordWrap(True)
        side.layout().addWidget(self.tag_line)
        self.patches: ImageArea | None = None  # with the patches in front, tags go to them
        self.tag_actions: dict[str, QAction] = {}
        for n, tag in enumerate(COMMON_TAGS, 1):
            self.tag_actions[tag] = make_action(
                self,
                f"Tag “{tag}”",
                (f"Alt+{n}",),
                lambda tag=tag: self.toggle(tag),
                f"Add or remove the tag “{tag}” on the suspect, box or image",
            )
        self.act_note = make_action(
            self, "&Note…", ("Alt+N",), self.edit_note, "Write a note on the box or image"
        )
        self.act_export = make_action(
            self,
            "&Export tags…",
            (),
            self.export_tags,
            "Write every tag as CSV and JSON, and the tagged fixes as VOC XML patches",
        )
        self.menu = QMenu("&Tags", host)
        for act in (*self.tag_actions.values(), self.act_note):
            self.menu.addAction(act)
        self.menu.addSeparator()
        self.menu.addAction(self.act_export)

        self.tags.changed.connect(self._refresh)
        self.tags.changed.connect(self._mark_tagged)
        for moved in (state.image_changed, state.selection_changed, state.object_selected):
            moved.connect(self._refresh)
        side.tabs.currentChanged.connect(self._refresh)
        self.pane.table.row_chosen.connect(self._refresh)

    def window_actions(self) -> list[QAction]:
        return [*self.tag_actions.values(), self.act_note, self.act_export]

    # --- what the keys tag ---------------------------------------------------------------------
    def queue_in_front(self) -> bool:
        return self.side.tabs.currentWidget() is self.pane

    def target(self, tag: str = "") -> tuple[Target, Fix | None] | None:
        """What tagging ``tag`` now tags, with its fix (module docstring); ``None``: nothing
        open."""
        st, ds = self.state, self.state.dataset
        if ds is None or st.current_image < 0:
            return None
        suspect = self.pane.current() if self.queue_in_front() else None
        if suspect is not None and suspect.image == st.current_image:
            target, fix = self.pane.target(suspect)
            return target, fix if tag in (KIND_TAGS[suspect.kind], "label error") else None
        image = str(ds.images.id[st.current_image])
        if st.selected_object >= 0:
            position = int(ds.objects.order_in_image[st.selected_object])
            return Target("object", image, position), None
        row = st.selected_detection_row()
        if row >= 0:
            d = st.results[st.current_results].results.detections
            box = tuple(float(v) for v in d.box[row])
            fix = Fix("add", ds.classes[d.label[row]], box) if tag == "missing annotation" else None
            where = str(ds.images.id[d.image_index[row]])
            return Target("detection", where, row, st.current_results), fix
        return Target("image", image), None

    def toggle(self, tag: str) -> None:
        area = self.patches
        many = area.patches.targets(tag) if area is not None and area.patches_in_front() else []
        if many:  # the patches selected, all at once
            on = self.tags.toggle_many(many, tag)
            what = f"{len(many)} patch{'es' if len(many) > 1 else ''}"
            self.status.show_note(f"{'Tagged' if on else 'Untagged'} “{tag}”: {what}", 4000)
            return
        found = self.target(tag)
        if found is None:
            return
        target, fix = found
        on = self.tags.toggle(target, tag, fix)
        what = f"{target.kind} of {target.image}"
        self.status.show_note(f"{'Tagged' if on else 'Untagged'} “{tag}”: {what}", 4000)

    def edit_note(self, text: str | None = None) -> None:
        """Ask for the note of what the keys tag (``text`` given: set it without asking)."""
        found = self.target()
        if found is None:
            return
        target = found[0]
        if text is None:
            text, ok = QInputDialog.getMultiLineText(
                self.host, "Note", f"Note on the {target.kind}:", self.tags.get(target).note
            )
            if not ok:
                return
        self.tags.set_note(target, text)

    # --- export --------------------------------------------------------------------------------
    def export_tags(self, folder: str | Path | None = None) -> list[Path]:
        """Write ``tags.csv``, ``tags.json`` and ``Annotations/<id>.xml`` patches into
        ``folder`` (asked for if not given); the files written (none if refused: said)."""
        st, ds = self.state, self.state.dataset
        if ds is None or not len(self.tags.tags):
            st.post([Message("info", "Tag something before exporting tags.")])
            return []
        if folder is None:
            folder = QFileDialog.getExistingDirectory(
                self.host, "Export tags to", self.folders.start("export", writable=True)
            )
            if not folder:
                return []
            self.folders.chosen("export", folder)
        results = [loaded.results for loaded in st.results]
        protected = [*ds.protected_roots, *(p for paths in st.result_paths for p in paths)]
        try:
            from vocviewer.formats.tag_export import write_patches, write_tag_tables

            written = write_tag_tables(folder, self.tags.tags, ds, results, protected)
            written += write_patches(folder, self.tags.tags, ds, protected)
        except (OutputError, FormatError) as e:
            st.post([Message("error", f"Tags not exported: {e}")])
            return []
        self.status.show_note(f"{len(written)} files written to {folder}", 8000)
        return written

    # --- showing -------------------------------------------------------------------------------
    def follow_patches(self, area: ImageArea) -> None:
        """Tag keys tag the patches selected in ``area``'s patches view while it is in front."""
        self.patches = area
        area.patches.grid.selectionModel().selectionChanged.connect(self._refresh)
        area.currentChanged.connect(self._refresh)

    def _refresh(self, *_args: object) -> None:
        found = self.target()
        ds = self.state.dataset
        area = self.patches
        picked = area.patches.targets() if area is not None and area.patches_in_front() else []
        if picked:
            tagged = sum(bool(self.tags.get(t).tags) for t, _ in picked)
            self.tag_line.setText(
                f"{len(picked)} patches selected, {tagged} of them tagged: Alt+1 … Alt+5 tag "
                "or untag them all"
            )
        elif found is None or ds is None:
            self.tag_line.setText("")
        else:
            entry = self.tags.get(found[0])
            tags = ", ".join(entry.tags) or "no tags"
            note = f" · note: {entry.note}" if entry.note else ""
            line = f"Tags of this {found[0].kind}: {tags}{note}"
            suspect = self.pane.current() if self.queue_in_front() else None
            if suspect is not None and suspect.image == self.state.current_image:
                line = f"Suspect: {suspect.why}.\n{line}"
            self.tag_line.setText(line)

    def _mark_tagged(self) -> None:
        """Flag the tagged images in the image list (the tags changed)."""
        self.browser.model.set_marked(self.tags.tagged_rows())
        self.browser.list.viewport().update()

    def walk(self, step: int) -> str | None:
        """The walk keys with the Suspects tab in front: a step along the queue and what to say
        (``None``: the tab is not in front; the detection walk goes on)."""
        return self.pane.step(step) if self.queue_in_front() else None
