"""Session files: what the window had open and how it showed it, as a small JSON file.

A session names the dataset (and the folders its format needs: ``sources``), the result sets
added to it (each a list of files or folders, added together as one set), the image set, the
selected class, the view's filter, the saved views (named filters), the current image, and the
view: score threshold, view mode, drawing toggles, per-class drawing thresholds (optional
``view.class_thresholds``: ``{"thresholds": {class: t | null}, "offset", "source"}``), what
takes the image's place (optional ``view.page``: ``grid`` or ``patches``) and the patches
view's choice (optional ``view.patches``: ``{"kind", "class", "sort", "descending"}``), IoU
threshold and area range. Paths are stored relative to the session file's folder
(``/``-separated; absolute when no relative path exists, e.g. another drive), so a dataset and
its session can move together.

``read_session`` is lenient where it can be: a value of the wrong kind is dropped with a
``FormatError`` naming the file and the JSON path (``view.score_threshold``), and the rest is
used. Only a file that is not a session at all (not JSON, not an object, another ``format``,
a newer ``version``, no ``dataset``) raises; an older version is migrated (version 1 had no
tags, version 2 no saved views). The filter and each saved view are a
``core.view_filter.ViewFilter`` in its JSON form. ``write_session`` goes through the guarded
writer (``formats.output``): never into a dataset's folders. Which toggle, mode or area names
exist is the window's business; this module keeps them as found.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vocviewer.core.errors import FormatError
from vocviewer.core.tags import Tags
from vocviewer.core.view_filter import ViewFilter, filter_payload, read_filter
from vocviewer.formats import output
from vocviewer.formats.input import check_regular, read_bytes
from vocviewer.formats.json_input import parse_json, show
from vocviewer.formats.session_tags import entry_payload, read_tags, text_or_none
from vocviewer.formats.thresholds import ClassThresholds, check_thresholds

#: The value of the ``format`` key that marks a session file.
FORMAT = "vocviewer-session"
#: The session layout this version writes (and the newest it reads).
VERSION = 3
#: The older layouts it reads, migrated: version 1 had no ``tags``, version 2 no ``views`` and
#: only the image list's fields in ``image_filter``.
OLD_VERSIONS = (1, 2)
#: Largest session file read (bytes); sessions are a few hundred bytes.
MAX_SESSION_BYTES = 1 << 20
#: ``Session.image_set`` of a session that browsed every image (``null`` in the file).
ALL_IMAGES = ""
_MARK = re.compile(rb'"format"\s*:\s*"vocviewer-session"')


#: The image list's filter is the view's one record (``core.view_filter``).
ImageListFilter = ViewFilter


@dataclass(frozen=True)
class PatchesChoice:
    """The patches view's toolbar: what it shows (``kind``, ``evaluation.patches.KINDS``), of
    which class (``None``: every class), sorted by ``sort`` (``SORTS``), highest first or not."""

    kind: str = "fp"
    class_name: str | None = None
    sort: str = "score"
    descending: bool = True


@dataclass(frozen=True)
class Session:
    """One saved session; paths are absolute once read (``None``: not recorded).

    ``current_result_set`` indexes ``result_sets``; ``image_set`` is the image set browsed
    (``ALL_IMAGES``: every image; JSON ``null``); ``image`` is an image id; ``class_name`` a class
    name of the dataset (``None``: all classes); ``score_threshold`` in [0, 1]; ``toggles`` maps
    drawing-toggle names to on/off; ``tags`` the tags and notes on images, objects and
    detections (``core.tags``; detections name their set by its index in ``result_sets``);
    ``views`` the saved views, each a name and its filter (whose ``result_set``, like a tag's,
    indexes ``result_sets``); ``page`` what takes the image's place (``"grid"``, ``"patches"``;
    ``None``: the image) and ``patches`` the patches view's choice.
    """

    dataset: Path
    sources: dict[str, Path] = field(default_factory=dict)
    result_sets: tuple[tuple[Path, ...], ...] = ()
    current_result_set: int | None = None
    image_set: str | None = None
    class_name: str | None = None
    image_filter: ViewFilter | None = None
    image: str | None = None
    score_threshold: float | None = None
    class_thresholds: ClassThresholds | None = None
    view_mode: str | None = None
    toggles: dict[str, bool] = field(default_factory=dict)
    iou: float | None = None
    area: str | None = None
    iou_kind: str | None = None  # "boundary": Boundary IoU for mask results (None: mask IoU)
    dilation_ratio: float | None = None  # Boundary IoU's, of the image diagonal
    not_official: tuple[str, ...] = ()  # why the numbers shown were not official (written only)
    tags: Tags = field(default_factory=Tags)
    views: tuple[tuple[str, ViewFilter], ...] = ()
    page: str | None = None
    patches: PatchesChoice | None = None


def looks_like_session(path: str | Path) -> bool:
    """Whether ``path`` is a regular ``.json`` file whose first kilobytes carry the session mark
    (``"format": "vocviewer-session"``; written first by ``write_session``)."""
    p = Path(path)
    if p.suffix.lower() != ".json" or not p.is_file():
        return False
    try:
        with p.open("rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    return _MARK.search(head) is not None


# --- writing -----------------------------------------------------------------------------------
def _relative(path: Path, base: Path) -> str:
    """``path`` relative to ``base`` (``/``-separated), or absolute if there is no such path."""
    absolute = Path(os.path.abspath(path))
    try:
        return Path(os.path.relpath(absolute, base)).as_posix()
    except ValueError:  # another drive (Windows)
        return absolute.as_posix()


def session_payload(session: Session, base: Path) -> dict[str, Any]:
    """The JSON object of ``session``, paths relative to the folder ``base``."""

    def rel(p: Path) -> str:
        return _relative(p, base)

    flt = session.image_filter
    view: dict[str, Any] = {"toggles": dict(session.toggles)}
    if session.score_threshold is not None:
        view["score_threshold"] = session.score_threshold
    if session.view_mode is not None:
        view["mode"] = session.view_mode
    if session.page is not None:
        view["page"] = session.page
    if (pc := session.patches) is not None:
        view["patches"] = {
            "kind": pc.kind,
            "class": pc.class_name,
            "sort": pc.sort,
            "descending": pc.descending,
        }
    ct = session.class_thresholds
    if ct is not None:
        view["class_thresholds"] = {
            "thresholds": dict(ct.thresholds),
            "offset": ct.offset,
            "source": ct.source,
        }
    evaluation: dict[str, Any] = {}
    if session.iou is not None:
        evaluation["iou"] = session.iou
    if session.area is not None:
        evaluation["area"] = session.area
    if session.iou_kind:
        evaluation["iou_kind"] = session.iou_kind
        if session.dilation_ratio is not None:
            evaluation["dilation_ratio"] = session.dilation_ratio
    if session.not_official:  # the mark the window showed; derived again when opened
        evaluation["not_official"] = list(session.not_official)
    return {
        "format": FORMAT,
        "version": VERSION,
        "dataset": rel(session.dataset),
        "sources": {k: rel(v) for k, v in session.sources.items()},
        **({} if session.image_set is None else {"image_set": session.image_set or None}),
        "result_sets": [[rel(p) for p in paths] for paths in session.result_sets],
        "current_result_set": session.current_result_set,
        "class": session.class_name,
        "image_filter": None if flt is None else filter_payload(flt),
        "image": session.image,
        "view": view,
        "evaluation": evaluation,
        "tags": [entry_payload(e) for e in session.tags.sorted()],
        "views": [{"name": name, "filter": filter_payload(f)} for name, f in session.views],
    }


def write_session(
    target: str | Path, session: Session, protected: Iterable[str | Path] = ()
) -> Path:
    """Write ``session`` to ``target`` through ``formats.output`` (``OutputError`` inside one of
    ``protected``, e.g. the dataset's folders); paths relative to the target's folder."""
    base = Path(os.path.abspath(target)).parent
    text = json.dumps(session_payload(session, base), indent=2, ensure_ascii=False) + "\n"
    return output.write_text(target, text, protected)


# --- reading -----------------------------------------------------------------------------------
def _absolute(base: Path, stored: str) -> Path:
    """A stored path made absolute against the session's folder (``..`` folded, as
    ``os.path.relpath`` made it; symbolic links are left alone)."""
    return Path(os.path.abspath(base / Path(stored)))


class _Reader:
    """Checks values of one session file, collecting the dropped ones as ``FormatError``."""

    def __init__(self, path: Path, data: dict[str, Any]) -> None:
        self.path, self.data = path, data
        self.base = Path(os.path.abspath(path)).parent
        self.problems: list[FormatError] = []

    def drop(self, where: str, expected: str, found: Any) -> None:
        self.problems.append(
            FormatError(
                self.path, f"expected {expected}, found {show(found)}; ignored", element=where
            )
        )

    def path_of(self, value: Any, where: str) -> Path | None:
        if isinstance(value, str) and value and "\0" not in value:
            return _absolute(self.base, value)
        self.drop(where, "a path (a non-empty string)", value)
        return None

    def text(self, obj: dict[str, Any], key: str, where: str) -> str | None:
        return text_or_none(obj, key, where, self.drop)

    def section(self, key: str) -> dict[str, Any]:
        value = self.data.get(key)
        if value is None:
            return {}
        if isinstance(value, dict):
            return value
        self.drop(key, "an object", value)
        return {}

    def number(
        self, obj: dict[str, Any], key: str, where: str, lo: float, hi: float
    ) -> float | None:
        value = obj.get(key)
        if value is None:
            return None
        ok = type(value) in (int, float) and math.isfinite(value) and lo <= value <= hi
        if not ok:
            self.drop(where, f"a number from {lo:g} to {hi:g}", value)
            return None
        return float(value)

    def result_sets(self) -> tuple[tuple[Path, ...], ...]:
        value = self.data.get("result_sets", [])
        if not isinstance(value, list):
            self.drop("result_sets", "a list of lists of paths", value)
            return ()
        sets = []
        for i, paths in enumerate(value):
            if not isinstance(paths, list) or not paths:
                self.drop(f"result_sets[{i}]", "a non-empty list of paths", paths)
                continue
            found = [self.path_of(p, f"result_sets[{i}][{j}]") for j, p in enumerate(paths)]
            kept = tuple(p for p in found if p is not None)
            if kept:
                sets.append(kept)
        return tuple(sets)

    def sources(self) -> dict[str, Path]:
        found = {k: self.path_of(v, f"sources.{k}") for k, v in self.section("sources").items()}
        return {k: v for k, v in found.items() if v is not None}

    def image_filter(self) -> ViewFilter | None:
        value = self.data.get("image_filter")
        if value is None:
            return None
        if not isinstance(value, dict):
            self.drop("image_filter", "an object", value)
            return None
        return self.view_filter(value, "image_filter")

    def view_filter(self, value: dict[str, Any], where: str) -> ViewFilter:
        flt, dropped = read_filter(value, where)
        for at, expected, found in dropped:
            self.drop(at, expected, found)
        return flt

    def views(self) -> tuple[tuple[str, ViewFilter], ...]:
        value = self.data.get("views", [])
        if not isinstance(value, list):
            self.drop("views", "a list of saved views", value)
            return ()
        views: dict[str, ViewFilter] = {}
        for i, item in enumerate(value):
            name = item.get("name") if isinstance(item, dict) else None
            flt = item.get("filter") if isinstance(item, dict) else None
            if not isinstance(name, str) or not name.strip() or not isinstance(flt, dict):
                self.drop(f"views[{i}]", 'an object {"name": a name, "filter": an object}', item)
                continue
            views[name.strip()] = self.view_filter(flt, f"views[{i}].filter")
        return tuple(views.items())

    def tags(self) -> Tags:
        return read_tags(self.data.get("tags", []), self.drop)

    def toggles(self, view: dict[str, Any]) -> dict[str, bool]:
        value = view.get("toggles", {})
        if not isinstance(value, dict):
            self.drop("view.toggles", "an object of true / false", value)
            return {}
        kept = {}
        for name, on in value.items():
            if isinstance(on, bool):
                kept[name] = on
            else:
                self.drop(f"view.toggles.{name}", "true or false", on)
        return kept

    def patches(self, view: dict[str, Any]) -> PatchesChoice | None:
        value, where = view.get("patches"), "view.patches"
        if value is None:
            return None
        if not isinstance(value, dict):
            self.drop(where, "an object", value)
            return None
        d = PatchesChoice()
        descending = value.get("descending", d.descending)
        if not isinstance(descending, bool):
            self.drop(f"{where}.descending", "true or false", descending)
            descending = d.descending
        return PatchesChoice(
            kind=self.text(value, "kind", f"{where}.kind") or d.kind,
            class_name=self.text(value, "class", f"{where}.class"),
            sort=self.text(value, "sort", f"{where}.sort") or d.sort,
            descending=descending,
        )

    def class_thresholds(self, view: dict[str, Any]) -> ClassThresholds | None:
        value, where = view.get("class_thresholds"), "view.class_thresholds"
        if value is None:
            return None
        if not isinstance(value, dict):
            self.drop(where, "an object with thresholds, offset and source", value)
            return None
        try:
            found = check_thresholds(value.get("thresholds"), self.path, f"{where}.thresholds")
        except FormatError as e:
            self.problems.append(FormatError(self.path, f"{e.message}; ignored", element=e.element))
            return None
        offset = self.number(value, "offset", f"{where}.offset", -1.0, 1.0) or 0.0
        return ClassThresholds(found, offset, self.text(value, "source", f"{where}.source") or "")

    def image_set(self) -> str | None:
        if "image_set" not in self.data:
            return None
        value = self.data["image_set"]
        if value is None or isinstance(value, str):
            return value or ALL_IMAGES
        self.drop("image_set", "an image set's name, or null for every image", value)
        return None

    def current_result_set(self, n_sets: int) -> int | None:
        value = self.data.get("current_result_set")
        if value is None:
            return None
        if type(value) is not int or not 0 <= value < max(n_sets, 1):
            self.drop("current_result_set", f"an index from 0 to {max(n_sets - 1, 0)}", value)
            return None
        return value


def read_session(path: str | Path) -> tuple[Session, list[FormatError]]:
    """The session in ``path`` and the problems of values that were dropped (each a
    ``FormatError`` with the JSON path as ``element``).

    Raises ``FormatError`` naming the file (and the JSON path) when it is not a session this
    version can open: unreadable, not JSON, not an object, another ``format``, another
    ``version``, or no usable ``dataset``.
    """
    path = Path(path)
    check_regular(path)
    data = parse_json(path, read_bytes(path, limit=MAX_SESSION_BYTES))
    if not isinstance(data, dict):
        raise FormatError(path, f"expected a session object, found {show(data)}")
    if data.get("format") != FORMAT:
        raise FormatError(
            path,
            f"not a vocviewer session: expected {FORMAT!r}, found {show(data.get('format'))}",
            element="format",
        )
    version = data.get("version")
    if type(version) is not int or version not in (VERSION, *OLD_VERSIONS):
        newer = type(version) is int and version > VERSION
        why = "written by a newer vocviewer; " if newer else ""
        raise FormatError(
            path,
            f"{why}this vocviewer reads session version {VERSION}, found {show(version)}",
            element="version",
        )
    r = _Reader(path, data)
    value = data.get("dataset")
    if not isinstance(value, str) or not value or "\0" in value:
        raise FormatError(
            path, f"expected the dataset's path, found {show(value)}", element="dataset"
        )
    dataset = _absolute(r.base, value)
    sets = r.result_sets()
    view, evaluation = r.section("view"), r.section("evaluation")
    session = Session(
        dataset=dataset,
        sources=r.sources(),
        result_sets=sets,
        current_result_set=r.current_result_set(len(sets)),
        image_set=r.image_set(),
        class_name=r.text(data, "class", "class"),
        image_filter=r.image_filter(),
        image=r.text(data, "image", "image"),
        score_threshold=r.number(view, "score_threshold", "view.score_threshold", 0.0, 1.0),
        class_thresholds=r.class_thresholds(view),
        view_mode=r.text(view, "mode", "view.mode"),
        toggles=r.toggles(view),
        iou=r.number(evaluation, "iou", "evaluation.iou", 0.0, 1.0),
        area=r.text(evaluation, "area", "evaluation.area"),
        iou_kind=r.text(evaluation, "iou_kind", "evaluation.iou_kind"),
        dilation_ratio=r.number(
            evaluation, "dilation_ratio", "evaluation.dilation_ratio", 0.0, 1.0
        ),
        tags=r.tags() if version >= 2 else Tags(),  # version 1: no tags (migrated as none)
        views=r.views() if version >= 3 else (),  # versions 1 and 2: no saved views
        page=r.text(view, "page", "view.page"),
        patches=r.patches(view),
    )
    return session, r.problems
