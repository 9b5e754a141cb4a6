"""``vocviewer.show``: the window from a script or a notebook, and a handle on what it shows.

In a plain script ``show`` runs the window until the user closes it, then returns the handle (its
``selected`` and ``view`` then say where the user left off). Where an event loop already runs Qt
(IPython / Jupyter after ``%gui qt``) it returns at once and the window stays live beside the
kernel; ``block`` forces either. The handle reads the window's state; it never changes the
dataset on disk.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEventLoop, QTimer

from vocviewer.core.dataset import Dataset
from vocviewer.core.view_filter import ViewFilter, filter_from
from vocviewer.families.registry import result_sets_of
from vocviewer.formats.session import Session
from vocviewer.formats.tag_export import tag_rows
from vocviewer.gui.window.app import make_app, shows_everything
from vocviewer.gui.window.main_window import MainWindow
from vocviewer.gui.window.recent import default_settings

PathLike = str | Path
#: how often ``wait_until_ready`` looks (ms)
_POLL_MS = 50


def _qt_loop_running() -> bool:
    """Whether IPython (already running: it is never imported here) integrates a Qt event loop
    (``%gui qt``): the window then lives without ``exec``."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    loop = getattr(shell, "active_eventloop", None) if shell is not None else None
    return str(loop or "").startswith("qt")


def _result_sets(
    dataset: Path, results: Any, sources: dict[str, Path | None]
) -> tuple[tuple[Path, ...], ...]:
    """``results`` as result sets: paths (one, or a sequence of them) grouped as ``vocviewer
    open --results`` groups them (``registry.result_sets_of``: a VOC competition's per-class
    files are one set); a sequence of sequences, one set per inner sequence, as given."""
    if results is None:
        return ()
    if isinstance(results, str | Path):
        results = [results]
    if all(isinstance(r, str | Path) for r in results):
        return tuple(tuple(s) for s in result_sets_of(dataset, results, sources))
    return tuple(tuple(Path(p) for p in r) for r in results)


def _plain(value: Any) -> Any:
    """``value`` with paths as strings and tuples as lists (JSON-ready)."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(v) for v in value]
    return value


class WindowHandle:
    """The window ``show`` opened. ``selected``, ``tags`` and ``view`` read its state now (or as
    it was when it closed)."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window

    @property
    def selected(self) -> dict[str, Any]:
        """What the user is on: ``image`` (its id), ``class`` (name), ``object`` (row in the
        dataset's objects) and ``detection`` (row in the current result set's detections), each
        ``None`` when nothing is."""
        st = self.window.state
        ds = st.dataset
        if ds is None:
            return {"image": None, "class": None, "object": None, "detection": None}
        row = st.selected_detection_row()
        return {
            "image": str(ds.images.id[st.current_image]) if st.current_image >= 0 else None,
            "class": ds.classes[st.selected_class] if st.selected_class >= 0 else None,
            "object": st.selected_object if st.selected_object >= 0 else None,
            "detection": row if row >= 0 else None,
        }

    @property
    def tags(self) -> list[dict[str, Any]]:
        """Every tag and note set in the window, one row per tag (as Tags ▸ Export tags writes
        them: image, target kind, box, class, score, tag, note, fix)."""
        st = self.window.state
        if st.dataset is None:
            return []
        sets = [r.results for r in st.results]
        return _plain(tag_rows(self.window.curation.tags.tags, st.dataset, sets))

    @property
    def view(self) -> dict[str, Any]:
        """The window's view as a session file would store it (dataset, result sets, image set,
        filter, threshold, IoU, area, ...; paths absolute); empty before a dataset is open."""
        session = self.window.sessions.capture()
        return {} if session is None else _plain(asdict(session))

    @property
    def filter(self) -> ViewFilter:
        """The view's filter now (``core.view_filter.ViewFilter``; ``view["image_filter"]`` is
        its fields)."""
        return self.window.state.image_filter

    @property
    def kept_images(self) -> list[str]:
        """The ids of the images the filter keeps, in list order."""
        st = self.window.state
        return [] if st.dataset is None else [str(i) for i in st.dataset.images.id[st.kept_images]]

    def wait_until_ready(self, timeout: float = 120.0) -> bool:
        """Run the event loop until the dataset and results are loaded, evaluated and drawn
        (``True``) or ``timeout`` seconds pass (``False``)."""
        loop = QEventLoop()
        poll, give_up = QTimer(), QTimer()
        give_up.setSingleShot(True)
        ready = [False]

        def check() -> None:
            if shows_everything(self.window):
                ready[0] = True
                loop.quit()

        poll.timeout.connect(check)
        give_up.timeout.connect(loop.quit)
        poll.start(_POLL_MS)
        give_up.start(int(timeout * 1000))
        check()
        if not ready[0]:
            loop.exec()
        poll.stop()
        give_up.stop()
        return ready[0]

    def wait(self) -> None:
        """Run the event loop until the window is closed (a plain script's ``show`` does)."""
        if self.window.isVisible():
            make_app().exec()

    def close(self) -> None:
        """Close the window."""
        self.window.close()


def show(
    dataset: PathLike | Dataset,
    results: PathLike | Sequence[PathLike] | Sequence[Sequence[PathLike]] | None = None,
    *,
    filter: ViewFilter | Mapping[str, Any] | None = None,
    image: str | None = None,
    image_set: str | None = None,
    block: bool | None = None,
    **sources: PathLike,
) -> WindowHandle:
    """Open the window on ``dataset`` (a path the CLI's ``open`` takes, or a ``Dataset`` read
    from one) with ``results`` (a path, one path per result set, or one sequence of paths per
    set), the view filtered by ``filter`` (a ``core.view_filter.ViewFilter`` or a mapping of its
    fields: ``text``, ``flags``, ``errors``, ``by_errors``, ``by_score``, ``score``,
    ``classes``, ``verdicts``, ``fp_kinds``, ``area``, ``aspect``, ``tags``, ``result_set``)
    and ``image`` (an id) shown.

    ``block``: run the window until it is closed before returning; by default only where no Qt
    event loop runs already (a plain script), not in a Jupyter kernel after ``%gui qt``.
    ``sources`` as for ``vocviewer open`` (``images``: a COCO image folder; ``devkit``: ILSVRC's).
    Bad input is said in the window's message area, as when it is opened from the menu.
    """
    if isinstance(dataset, Dataset):
        if dataset.root is None:
            raise ValueError("show() needs a dataset read from disk (its root is None)")
        dataset = dataset.root
    path = Path(dataset).resolve()
    image_filter = filter_from(filter)  # refused before a window opens
    given = {k: Path(v) for k, v in sources.items()}
    app = make_app()
    window = MainWindow(settings=default_settings())
    window.show()
    session = Session(
        dataset=path,
        sources=given,
        result_sets=_result_sets(path, results, dict(given)),
        image_set=image_set,
        image_filter=image_filter,
        image=image,
    )
    window.sessions.apply(session, path)
    handle = WindowHandle(window)
    if block if block is not None else not _qt_loop_running():
        app.exec()
    return handle
