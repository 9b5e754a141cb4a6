"""File ▸ Open session… and Save session…: the window's side of ``formats.session``.

``SessionController`` owns the two actions (``window.sessions``). Saving captures what is open
(the dataset with its sources and image set, as ``OpenController.opened`` recorded them; the result
sets that loaded, as ``AppState.result_paths`` holds them: a set that failed is not saved) and
how it is shown (class, the view's filter and the saved views, current image, score threshold,
view mode, toggles, IoU, area, the page in the image's place and the patches' choice) and writes it through the guarded writer: a session is never written into
the dataset's folders or over one of its inputs; the refusal is said in the message area.
Opening applies the view at once, opens the dataset and its result sets in order
(``recent.SetOpener``), then selects the class, filter and image; a value the dataset or the
window does not know is reported with the file and JSON path, and left at its default.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QWidget

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError, OutputError
from vocviewer.core.tags import Tags
from vocviewer.core.view_filter import ViewFilter, filter_payload, read_filter
from vocviewer.evaluation.patches import KINDS, SORTS
from vocviewer.families.views import AREA_CHOICES, IOU_CHOICES, IOU_KINDS
from vocviewer.formats.session import (
    ALL_IMAGES,
    PatchesChoice,
    Session,
    read_session,
    write_session,
)
from vocviewer.gui.models.display_settings import DISPLAY_TOGGLES, VIEW_MODES
from vocviewer.gui.models.image_filter import ERROR_FILTERS
from vocviewer.gui.models.saved_views import SavedViews
from vocviewer.gui.models.state import AppState, Message
from vocviewer.gui.models.tags import TagsModel
from vocviewer.gui.panes.browse.image_area import ImageArea
from vocviewer.gui.panes.browse.image_browser import ImageBrowser
from vocviewer.gui.window.actions import make_action
from vocviewer.gui.window.recent import SetOpener
from vocviewer.gui.window.settings_store import LastFolders
from vocviewer.gui.window.status_line import StatusLine

if TYPE_CHECKING:
    from vocviewer.gui.window.open_actions import OpenController

SESSION_FILTER = "vocviewer sessions (*.json);;All files (*)"


def _problem(path: Path, where: str, text: str) -> Message:
    return Message("warning", str(FormatError(path, text, element=where)))


def _renumbered(flt: ViewFilter, order: dict[int, int]) -> ViewFilter:
    """``flt`` with its judged result set renumbered by ``order`` (one index to another; a set
    not in it: the shown one)."""
    if flt.result_set is None:
        return flt
    return replace(flt, result_set=order.get(flt.result_set))


class SessionController(QObject):
    """The session actions over ``state``; ``opener`` opens what a session names and knows what
    was opened; ``browser``'s filter widgets show a session's filter; ``host`` parents the
    dialogs, which start in ``folders``; ``status`` says where a session was saved."""

    def __init__(
        self,
        host: QWidget,
        state: AppState,
        opener: OpenController,
        browser: ImageBrowser,
        folders: LastFolders,
        status: StatusLine,
    ) -> None:
        super().__init__(host)
        self.host, self.state, self.files = host, state, opener
        self.browser, self.folders, self.status = browser, folders, status
        self.opener: SetOpener | None = None
        self.tags: TagsModel | None = None  # the window's tags, saved with the session
        self.views: SavedViews | None = None  # the window's saved views (``keep_views``)
        self.area: ImageArea | None = None  # the image's place: image, grid or patches
        self._recalling = False
        self.act_open_session = make_action(
            self,
            "Open &session…",
            (),
            self.open_session,
            "Open a saved session: dataset, results, view",
        )
        self.act_save_session = make_action(
            self,
            "&Save session…",
            ("Ctrl+S",),
            self.save_session,
            "Save the dataset, its result sets and the view to a session file",
        )
        self.state.image_set_changed.connect(self._on_image_set)

    def window_actions(self) -> list[QAction]:
        return [self.act_open_session, self.act_save_session]

    def keep_views(self, views: SavedViews) -> None:
        """Save ``views`` with sessions, and with the dataset's recent entry: a dataset opens
        with the views last saved on it (a session then brings its own)."""
        self.views = views
        views.changed.connect(self._remember_views)
        self.state.dataset_loaded.connect(self._recall_views)

    def _recall_views(self, _dataset: object) -> None:
        opened, views = self.files.opened, self.views
        if views is None:
            return
        stored = self.files.recent.views_of(opened.dataset) if opened is not None else ()
        kept = []
        for name, payload in stored:
            flt, dropped = read_filter(payload, f"views.{name}")
            if not dropped:  # a damaged view is forgotten, not half applied
                kept.append((name, flt))
        self._recalling = True
        try:
            views.replace(kept)
        finally:
            self._recalling = False

    def _remember_views(self) -> None:
        opened, views = self.files.opened, self.views
        if opened is None or views is None or self._recalling:
            return
        payload = tuple((n, filter_payload(f)) for n, f in views.views.items())
        self.files.opened = replace(opened, views=payload)
        self.files.recent.set_views(opened.dataset, payload)

    def _on_image_set(self, name: str | None) -> None:
        """Another image set is browsed: the recent entry reopens on it (``""``: all images)."""
        w = self.files
        if w.opened is not None and w.opened.image_set != (name or ""):
            w.opened = replace(w.opened, image_set=name or "")
            w.recent.set_image_set(w.opened.dataset, name or "")

    # --- saving ----------------------------------------------------------------------------
    def capture(self) -> Session | None:
        """The session of what the window shows (``None`` with no dataset open)."""
        st, opened = self.state, self.files.opened
        if st.dataset is None or opened is None:
            return None
        from_files = [i for i, paths in enumerate(st.result_paths) if paths]  # what loaded
        current = from_files.index(st.current_results) if st.current_results in from_files else -1
        order = dict(zip(from_files, range(len(from_files)), strict=True))
        k, image = st.selected_class, st.current_image
        return Session(
            dataset=Path(opened.dataset),
            sources={key: Path(v) for key, v in opened.sources.items()},
            result_sets=tuple(st.result_paths[i] for i in from_files),
            current_result_set=current if current >= 0 else None,
            image_set=st.image_set or ALL_IMAGES,
            class_name=st.dataset.classes[k] if k >= 0 else None,
            image_filter=_renumbered(st.image_filter, order),
            image=str(st.dataset.images.id[image]) if image >= 0 else None,
            score_threshold=st.score_threshold,
            class_thresholds=st.class_thresholds,
            view_mode=st.view_mode,
            toggles={name: bool(getattr(st, name)) for name in DISPLAY_TOGGLES},
            iou=st.evaluation.iou,
            area=st.evaluation.area,
            iou_kind=st.evaluation.iou_kind or None,
            dilation_ratio=st.evaluation.dilation_ratio if st.evaluation.iou_kind else None,
            not_official=tuple(
                dict.fromkeys(
                    r.text for i in range(len(st.results)) for r in st.evaluation.not_official(i)
                )
            ),
            tags=self._tags_in(order),
            views=tuple(
                (name, _renumbered(f, order))
                for name, f in (self.views.views.items() if self.views is not None else ())
            ),
            **self._page(),
        )

    def _page(self) -> dict[str, str | PatchesChoice | None]:
        """``page`` and ``patches`` of the session: what is in the image's place, and the
        patches view's choice."""
        area, ds = self.area, self.state.dataset
        if area is None or ds is None:
            return {}
        page = area.currentWidget()
        sel = area.patches.selection()
        k = sel.class_index
        choice = PatchesChoice(
            sel.kind, ds.classes[k] if k >= 0 else None, sel.sort, sel.descending
        )
        named = {area.grid: "grid", area.patches: "patches"}
        return {"page": named.get(page), "patches": choice}

    def _tags_in(self, order: dict[int, int]) -> Tags:
        """The window's tags with each detection's result set renumbered by ``order`` (window
        index -> session position; a detection of a set not in it is left out)."""
        return Tags() if self.tags is None else self.tags.tags.renumbered(order.get)

    def save_session(self, path: str | Path | None = None) -> Path | None:
        """Write the session to ``path`` (asked for if not given); the written path, or
        ``None`` (nothing open, cancelled, or refused: said in the message area)."""
        session, st = self.capture(), self.state
        if session is None:
            st.post([Message("info", "Open a dataset before saving a session.")])
            return None
        folders = self.folders
        if path is None:
            start = Path(folders.start("session", writable=True))
            name = f"{st.dataset.name}-session.json"
            path, _ = QFileDialog.getSaveFileName(
                self.host, "Save session", str(start / name), SESSION_FILTER
            )
            if not path:
                return None
            folders.chosen("session", path)
        inputs = [p for s in session.result_sets for p in s]
        protected = (*st.dataset.protected_roots, session.dataset, *session.sources.values())
        try:
            written = write_session(path, session, (*protected, *inputs))
        except OutputError as e:
            st.post([Message("error", f"Session not saved: {e}")])
            return None
        self.status.show_note(f"Session saved to {written}", 8000)
        return written

    # --- opening ---------------------------------------------------------------------------
    def open_session(self, path: str | Path | None = None) -> SetOpener | None:
        """Read the session in ``path`` (asked for if not given) and open it; a file that is no
        session is reported in the message area and changes nothing."""
        if path is None:
            path, _ = QFileDialog.getOpenFileName(
                self.host, "Open session", self.folders.start("session"), SESSION_FILTER
            )
            if not path:
                return None
            self.folders.chosen("session", path)
        try:
            session, problems = read_session(path)
        except FormatError as e:
            self.state.post([Message("error", f"Cannot open the session: {e}")])
            return None
        self.state.post([Message("warning", str(p)) for p in problems])
        return self.apply(session, Path(path))

    def apply(self, session: Session, path: Path) -> SetOpener | None:
        """Show ``session`` (read from ``path``): the view now, then the dataset and its result
        sets, then the class, image filter and image once the dataset is open."""
        st = self.state
        if not session.dataset.exists():
            st.post([Message("error", f"{path} (dataset): {session.dataset} no longer exists")])
            return None
        gone = [p for s in session.result_sets for p in s if not p.exists()]
        st.post([_problem(path, "result_sets", f"{p} no longer exists; left out") for p in gone])
        self._apply_view(session, path)
        sets = [[p for p in s if p.exists()] for s in session.result_sets]
        kept = [s for s in sets if s]
        opener = SetOpener(
            self.files, session.dataset, kept, session.image_set, session.sources, self
        )
        self.opener = opener
        positions = {p: i for i, p in enumerate(j for j, s in enumerate(sets) if s)}
        opener.loaded.connect(
            lambda: QTimer.singleShot(0, lambda: self._apply_browse(session, path, positions))
        )
        wanted = session.current_result_set
        if wanted is not None and sets[wanted]:
            position = sum(1 for s in sets[:wanted] if s)  # among the sets that are opened

            def choose() -> None:
                if position in opener.index_of:
                    st.set_current_results(opener.index_of[position])

            opener.finished.connect(choose)
        if len(session.tags):
            opener.finished.connect(lambda: self._apply_tags(session, opener, positions))
        if self.views is not None:
            views = self.views
            opener.loaded.connect(  # after the dataset's own reset of the views
                lambda: views.replace((n, _renumbered(f, positions)) for n, f in session.views)
            )
        return opener

    def _apply_tags(self, session: Session, opener: SetOpener, positions: dict[int, int]) -> None:
        """The session's tags, each detection's result set renumbered to the window's."""
        if self.tags is not None:
            self.tags.replace(
                session.tags.renumbered(lambda i: opener.index_of.get(positions.get(i, -1)))
            )

    def _apply_view(self, session: Session, path: Path) -> None:
        st, bad = self.state, []
        if session.score_threshold is not None:
            st.set_threshold(session.score_threshold)
        st.set_class_thresholds(session.class_thresholds)  # None: one threshold for all
        if session.view_mode is not None:
            if session.view_mode in VIEW_MODES:
                st.set_view_mode(session.view_mode)
            else:
                bad.append(("view.mode", f"unknown mode {session.view_mode!r}", VIEW_MODES))
        for name, on in session.toggles.items():
            if name in DISPLAY_TOGGLES:
                st.set_display(name, on)
            else:
                bad.append((f"view.toggles.{name}", "unknown toggle", DISPLAY_TOGGLES))
        iou, area = session.iou, session.area  # the session's dataset opens at its choice
        if iou is not None and round(iou, 2) not in IOU_CHOICES:
            bad.append(("evaluation.iou", f"no such IoU {iou:g}", IOU_CHOICES))
            iou = None
        if area is not None and area not in AREA_CHOICES:
            bad.append(("evaluation.area", f"unknown area {area!r}", AREA_CHOICES))
            area = None
        kind = session.iou_kind
        if kind is not None and kind not in IOU_KINDS:
            bad.append(("evaluation.iou_kind", f"unknown IoU kind {kind!r}", IOU_KINDS))
            kind = None
        st.evaluation.choose_next(iou, area, kind, session.dilation_ratio)
        st.post(
            [
                _problem(path, where, f"{what} (known: {', '.join(map(str, known))}); ignored")
                for where, what, known in bad
            ]
        )

    def _apply_browse(self, session: Session, path: Path, positions: dict[int, int]) -> None:
        """Class, filter and current image, once the dataset is open (the filter's judged set
        renumbered by ``positions``: its index in the session -> its place among the sets
        opened)."""
        st, b = self.state, self.browser
        ds = st.dataset
        if ds is None:
            return
        problems = []
        if session.class_name is not None:
            if session.class_name in ds.classes:
                st.select_class(ds.classes.index(session.class_name))
            else:
                problems.append(("class", f"no class {session.class_name!r} in {ds.name}"))
        flt = session.image_filter
        if flt is not None:
            unknown = [f for f in flt.flags if f not in b.flag_actions]
            if unknown:
                problems.append(("image_filter.flags", f"unknown flags {unknown}"))
            errors = flt.errors if flt.errors in ERROR_FILTERS else ""
            if errors != flt.errors:
                problems.append(("image_filter.errors", f"unknown error filter {flt.errors!r}"))
            strangers = [c for c in flt.classes if c not in ds.classes]
            if strangers:
                problems.append(("image_filter.classes", f"no classes {strangers} in {ds.name}"))
            wanted = replace(
                flt,
                flags=tuple(f for f in flt.flags if f not in unknown),
                errors=errors,
                by_score=flt.by_score and not flt.by_errors,  # one order at a time
                classes=tuple(c for c in flt.classes if c in ds.classes),
            )
            st.set_image_filter(_renumbered(wanted, positions))  # the widgets follow
        if session.image is not None:
            rows = np.flatnonzero(ds.images.id == session.image)
            if len(rows):
                st.set_current_image(int(rows[0]))
            else:
                problems.append(("image", f"no image {session.image!r} in {ds.name}"))
        problems += self._apply_page(session, ds)
        st.post([_problem(path, where, f"{what}; ignored") for where, what in problems])

    def _apply_page(self, session: Session, ds: Dataset) -> list[tuple[str, str]]:
        """The patches view's choice and what takes the image's place; the problems found."""
        area, problems = self.area, []
        if area is None:
            return []
        pc = session.patches
        if pc is not None:
            k = ds.classes.index(pc.class_name) if pc.class_name in ds.classes else -1
            if pc.class_name is not None and k < 0:
                problems.append(("view.patches.class", f"no class {pc.class_name!r} in {ds.name}"))
            kind = pc.kind if pc.kind in KINDS else KINDS[0]
            if kind != pc.kind:
                problems.append(("view.patches.kind", f"unknown kind {pc.kind!r}"))
            sort = pc.sort if pc.sort in SORTS else SORTS[0]
            if sort != pc.sort:
                problems.append(("view.patches.sort", f"unknown order {pc.sort!r}"))
            area.patches.set_selection(kind, k, sort)
            area.patches.order.setChecked(pc.descending)
        if session.page == "grid":
            area.show_grid(True)
        elif session.page == "patches":
            area.show_patches(True)
        elif session.page is not None:
            problems.append(("view.page", f"unknown page {session.page!r}"))
        return problems
