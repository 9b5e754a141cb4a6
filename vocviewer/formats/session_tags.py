"""A session's ``tags``: each tagged image, object or detection as a JSON entry, and back.

An entry is ``{"kind", "image", "tags", "index"?, "result_set"?, "note"?, "fix"?}``: ``index``
the object's place in its image or the detection's row (not for images), ``result_set`` the
detection's set (its index in the session's ``result_sets``), ``fix`` a proposed fix
``{"action", "class"?, "box"?: [xmin, ymin, xmax, ymax]}`` (``core.tags``). Reading drops an
entry or value of the wrong kind through ``drop(where, expected, found)`` and keeps the rest.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from vocviewer.core.tags import FIX_ACTIONS, TARGET_KINDS, Fix, TagEntry, Tags, Target

#: how a reader reports a dropped value: its JSON path, what was expected, what was found
Drop = Callable[[str, str, Any], None]


def entry_payload(entry: TagEntry) -> dict[str, Any]:
    """The JSON entry of one tagged target."""
    t = entry.target
    out: dict[str, Any] = {"kind": t.kind, "image": t.image, "tags": list(entry.tags)}
    if t.kind != "image":
        out["index"] = t.index
    if t.kind == "detection":
        out["result_set"] = t.result_set
    if entry.note:
        out["note"] = entry.note
    if entry.fix is not None:
        fix: dict[str, Any] = {"action": entry.fix.action}
        if entry.fix.class_name is not None:
            fix["class"] = entry.fix.class_name
        if entry.fix.box is not None:
            fix["box"] = list(entry.fix.box)
        out["fix"] = fix
    return out


def read_tags(value: Any, drop: Drop) -> Tags:
    """The ``tags`` list of a session (entries that are not entries dropped)."""
    if not isinstance(value, list):
        drop("tags", "a list of tag entries", value)
        return Tags()
    tags = Tags()
    for i, item in enumerate(value):
        entry = _entry(item, f"tags[{i}]", drop)
        if entry is not None:
            tags = tags.put(entry)
    return tags


def text_or_none(obj: dict[str, Any], key: str, where: str, drop: Drop) -> str | None:
    """``obj[key]``: a string, or ``None`` (absent, null, or of another kind: dropped)."""
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    drop(where, "a string or null", value)
    return None


def _entry(item: Any, where: str, drop: Drop) -> TagEntry | None:
    if not isinstance(item, dict):
        drop(where, "an object", item)
        return None
    kind, image = item.get("kind"), item.get("image")
    if kind not in TARGET_KINDS:
        drop(f"{where}.kind", f"one of {', '.join(TARGET_KINDS)}", kind)
        return None
    if not isinstance(image, str):
        drop(f"{where}.image", "an image id (a string)", image)
        return None
    ints = {}
    for key, needed in (("index", kind != "image"), ("result_set", kind == "detection")):
        n = item.get(key, -1)
        if needed and (type(n) is not int or n < 0):
            drop(f"{where}.{key}", "a whole number from 0", n)
            return None
        ints[key] = n if needed else -1
    tags = item.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) and t for t in tags):
        drop(f"{where}.tags", "a list of non-empty strings", tags)
        tags = []
    note = text_or_none(item, "note", f"{where}.note", drop) or ""
    target = Target(kind, image, ints["index"], ints["result_set"])
    return TagEntry(target, tuple(sorted(set(tags))), note, _fix(item, where, drop))


def _fix(item: dict[str, Any], where: str, drop: Drop) -> Fix | None:
    value = item.get("fix")
    if value is None:
        return None
    action = value.get("action") if isinstance(value, dict) else None
    if action not in FIX_ACTIONS:
        drop(f"{where}.fix", f"an object whose action is one of {FIX_ACTIONS}", value)
        return None
    name = text_or_none(value, "class", f"{where}.fix.class", drop)
    box = value.get("box")
    ok = isinstance(box, list) and len(box) == 4
    if box is not None and not (
        ok and all(type(v) in (int, float) and math.isfinite(v) for v in box)
    ):
        drop(f"{where}.fix.box", "four finite numbers xmin ymin xmax ymax", box)
        return None
    return Fix(action, name, None if box is None else tuple(float(v) for v in box))  # type: ignore[arg-type]
