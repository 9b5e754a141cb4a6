"""``WindowSettings``: what the window remembers between runs, kept in the user's ``QSettings``.

Restored when the window is built and saved when it closes: the window's geometry and toolbar
state, the four splitters' sizes, the score threshold, the drawing toggles and view mode, the
segmentation overlay, and the last folder of each kind of file dialog (``LastFolders``). Protocol
deviations (the IoU threshold, COCO's area range) are not remembered: every dataset opens at its
protocol's official choice (a saved session may keep them). Everything is stored under
``window/``, ``view/`` and ``folders/`` in the same file as the recent list (``recent.default_settings``: an INI file
in the user's configuration folder, e.g. ``~/.config/vocviewer/vocviewer.ini``).

A damaged or foreign value (a word where a number belongs, an unknown mode, splitter sizes of
the wrong count) is ignored, its default kept, and one message in the message area names the
file and the keys; never an exception. Like the recent list, nothing is stored while the
settings file would lie inside the open dataset's folders.

Other parts of the window add their own remembered value with ``remember(key, read, apply)``
(``read()`` returns a JSON-able value; ``apply(value)`` returns ``False`` for a value it does not
accept): View ▸ Theme's palette choice belongs there, as ``"view/theme"``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, QObject, QSettings, QStandardPaths
from PySide6.QtWidgets import QMainWindow, QSplitter

from vocviewer.core.errors import OutputError
from vocviewer.formats import output
from vocviewer.gui.models.display_settings import DISPLAY_TOGGLES, VIEW_MODES
from vocviewer.gui.models.state import AppState, Message

if TYPE_CHECKING:
    from vocviewer.gui.window.protocol_controls import ProtocolControls

#: Bumped when the toolbar's layout changes so that an old ``saveState`` is not applied
#: (2: two toolbars, the second wrapping under the first in a narrow window).
STATE_VERSION = 2
#: The window's splitters (by name) and the settings key of their sizes.
SPLITTERS = {
    "splitter": "window/splitter_main",
    "centre": "window/splitter_centre",
    "right": "window/splitter_right",
    "outer": "window/splitter_messages",
}


def _number(value: object) -> float | None:
    """A finite float from a stored value (INI files give strings), else ``None``."""
    if isinstance(value, bool):
        return None
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _flag(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return None


def _json(value: object) -> Any:
    if not isinstance(value, str):
        return None
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        return None


class LastFolders:
    """The folder each kind of file dialog (``"dataset"``, ``"results"``, ``"session"``,
    ``"export"``) last used; without one, the folder beside the open dataset, else the home
    folder. Kept in ``settings`` if given, else for the window's life only."""

    def __init__(self, state: AppState, settings: QSettings | None) -> None:
        self.state = state
        self.settings = settings
        self._memory: dict[str, str] = {}

    def beside_dataset(self, writable: bool = False) -> Path | None:
        """The folder holding the open dataset (for ``writable``: the nearest one outside all
        of its folders, where files may be written), or ``None``."""
        ds = self.state.dataset
        if ds is None or ds.root is None:
            return None
        folder = Path(ds.root).parent
        while writable and folder != folder.parent:
            try:
                output.guard_folder(folder, ds.protected_roots)
                break
            except OutputError:
                folder = folder.parent
        return folder

    def start(self, kind: str, writable: bool = False) -> str:
        """Where a ``kind`` dialog opens: the last folder used (if it still exists, and for
        ``writable`` dialogs lies outside the dataset), else beside the dataset, else home."""
        raw = self._memory.get(kind)
        if raw is None and self.settings is not None:
            raw = self.settings.value(f"folders/{kind}")
        ds = self.state.dataset
        protected = ds.protected_roots if ds is not None else ()
        for folder in (
            Path(raw) if isinstance(raw, str) and raw and "\0" not in raw else None,
            self.beside_dataset(writable),
        ):
            if folder is None or not folder.is_dir():
                continue
            try:
                if writable:
                    output.guard_folder(folder, protected)
            except OutputError:
                continue
            return str(folder)
        return QStandardPaths.writableLocation(QStandardPaths.StandardLocation.HomeLocation)

    def chosen(self, kind: str, path: str | Path) -> None:
        """A ``kind`` dialog returned ``path`` (a file or a folder): remember its folder."""
        p = Path(path)
        folder = str(p if p.is_dir() else p.parent)
        self._memory[kind] = folder
        if self.settings is not None:
            self.settings.setValue(f"folders/{kind}", folder)


class WindowSettings(QObject):
    """Restores ``window``'s layout and choices from ``settings`` now and saves them on
    ``save()`` (the window calls it when it closes). Without ``settings`` nothing is restored or
    saved (tests, benchmarks, screenshots), and ``folders`` last for the window's life."""

    def __init__(
        self,
        window: QMainWindow,
        state: AppState,
        settings: QSettings | None,
        *,
        folders: LastFolders,
        splitters: Mapping[str, QSplitter],
        protocol: ProtocolControls,
    ) -> None:
        """``splitters``: the window's splitters by their ``SPLITTERS`` name; ``protocol``: the
        segmentation overlay's controls."""
        super().__init__(window)
        self.window = window
        self.state = state
        self.settings = settings
        self.folders = folders
        self.splitters = dict(splitters)
        self.protocol = protocol
        self._extra: dict[str, tuple[Callable[[], Any], Callable[[Any], bool]]] = {}
        self.ignored: list[str] = []  # the keys of the last restore that held unusable values
        if settings is not None:
            self.restore()

    def remember(self, key: str, read: Callable[[], Any], apply: Callable[[Any], bool]) -> None:
        """Keep one more value under ``key``: ``read()`` gives it (JSON-able) when saving;
        ``apply(value)`` sets it (``False``: not a value it accepts); applied now if stored."""
        self._extra[key] = (read, apply)
        s = self.settings
        if s is not None and s.contains(key) and not apply(_json(s.value(key))):
            self._report([key])

    # --- restore -------------------------------------------------------------------------------
    def restore(self) -> None:
        """Apply every stored value; post one message naming the keys that were unusable."""
        s, w = self.settings, self.window
        assert s is not None
        bad: list[str] = []

        def check(key: str, ok: bool) -> None:
            if s.contains(key) and not ok:
                bad.append(key)

        geometry = s.value("window/geometry")
        check("window/geometry", isinstance(geometry, QByteArray) and w.restoreGeometry(geometry))
        layout = s.value("window/state")
        check(
            "window/state",
            isinstance(layout, QByteArray) and w.restoreState(layout, STATE_VERSION),
        )
        for name, key in SPLITTERS.items():
            check(key, self._restore_splitter(self.splitters[name], s.value(key)))
        st = self.state
        threshold = _number(s.value("view/score_threshold"))
        ok = threshold is not None and 0.0 <= threshold <= 1.0
        if ok:
            st.set_threshold(threshold)  # type: ignore[arg-type]
        check("view/score_threshold", ok)
        mode = s.value("view/mode")
        if mode in VIEW_MODES:
            st.set_view_mode(str(mode))
        check("view/mode", mode in VIEW_MODES)
        toggles = _json(s.value("view/toggles"))
        ok = isinstance(toggles, dict) and all(
            k in DISPLAY_TOGGLES and isinstance(v, bool) for k, v in toggles.items()
        )
        for name, on in toggles.items() if ok else ():
            st.set_display(name, on)
        check("view/toggles", ok)
        check("view/segmentation", self._restore_segmentation(_json(s.value("view/segmentation"))))
        for key in ("evaluation/iou", "evaluation/area"):  # stored by earlier versions
            s.remove(key)
        self._report(bad)

    def _restore_splitter(self, splitter: QSplitter, value: object) -> bool:
        sizes = _json(value)
        ok = (
            isinstance(sizes, list)
            and len(sizes) == splitter.count()
            and all(type(x) is int and 0 < x < 100_000 for x in sizes)
        )
        if ok:
            splitter.setSizes(sizes)
        return ok

    def _restore_segmentation(self, value: object) -> bool:
        w = self.protocol
        if not isinstance(value, dict):
            return False
        on, kind, opacity = value.get("on"), value.get("kind"), _number(value.get("opacity"))
        combo = w.seg_combo
        if not isinstance(on, bool) or combo.findData(kind) < 0 or opacity is None:
            return False
        combo.setCurrentIndex(combo.findData(kind))
        w.seg_opacity.setValue(opacity)  # clamped to its range
        w.act_seg.setChecked(on)
        return True

    def _report(self, bad: list[str]) -> None:
        s = self.settings
        if s is not None and s.status() != QSettings.Status.NoError:
            bad = ["(the file could not be read whole)", *bad]
        if bad:
            self.ignored += bad
            where = s.fileName() if s is not None else "settings"
            self.state.post(
                [
                    Message(
                        "info",
                        f"{where}: ignored unusable settings ({', '.join(bad)}); "
                        "their defaults are used",
                    )
                ]
            )

    # --- save ----------------------------------------------------------------------------------
    def save(self) -> None:
        """Store the layout and choices (not while the settings file lies in the dataset)."""
        s, w, st = self.settings, self.window, self.state
        if s is None:
            return
        protected = st.dataset.protected_roots if st.dataset is not None else ()
        try:
            output.guard_target(s.fileName(), protected)
        except OutputError as e:
            st.post([Message("warning", f"Settings not saved: {e}")])
            return
        s.setValue("window/geometry", w.saveGeometry())
        s.setValue("window/state", w.saveState(STATE_VERSION))
        for name, key in SPLITTERS.items():
            sizes = self.splitters[name].sizes()
            if all(x > 0 for x in sizes):  # a hidden pane (the messages) keeps its last size
                s.setValue(key, json.dumps(sizes))
        s.setValue("view/score_threshold", str(st.score_threshold))
        s.setValue("view/mode", st.view_mode)
        s.setValue("view/toggles", json.dumps({k: getattr(st, k) for k in DISPLAY_TOGGLES}))
        seg = {
            "on": self.protocol.act_seg.isChecked(),
            "kind": self.protocol.seg_combo.currentData(),
            "opacity": self.protocol.seg_opacity.value(),
        }
        s.setValue("view/segmentation", json.dumps(seg))
        for key, (read, _apply) in self._extra.items():
            s.setValue(key, json.dumps(read()))
        s.sync()
