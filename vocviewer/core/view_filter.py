"""``ViewFilter``: what the window lists and counts, as one frozen record of plain values.

The image list's own fields (``text``, ``flags``, ``errors``, ``by_errors``, ``by_score``: the
browser's search and Filter menu) and the filter panel's (score range, classes, verdicts and
false-positive kinds, box area and aspect ranges, tags, the judged result set) live in the same
record, so a saved view holds all of them. ``filter_payload`` / ``read_filter`` are its JSON
form (open range ends are ``null``); what the fields select is ``evaluation.view_filter``'s
business. No Qt, no file: ``formats.session`` stores it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

#: Object flags an image can be required to have an object with (``flags``).
FLAG_KEYS = ("difficult", "truncated", "occluded", "crowd")
#: Error filters of the image list: drawn false positives, missed objects, either.
ERROR_KEYS = ("fp", "missed", "any")
#: Verdicts: of detections (``tp``, ``fp`` — duplicates included —, ``ignored``) and of objects
#: (``missed``: no drawn true positive found it).
VERDICT_KEYS = ("tp", "fp", "ignored", "missed")
#: False-positive kinds (``evaluation.analysis.FPKind`` names, lower case).
FP_KIND_KEYS = ("duplicate", "localization", "similar", "other", "background")
#: A closed range ``(lo, hi)``; ``-inf`` / ``inf`` leave an end open.
Range = tuple[float, float]
OPEN: Range = (-math.inf, math.inf)

_SETS = ("flags", "classes", "verdicts", "fp_kinds", "tags")
_RANGES = ("score", "area", "aspect")


def _range(value: Any) -> Range | None:
    if value is None:
        return None
    lo, hi = (
        -math.inf if value[0] is None else float(value[0]),
        math.inf if value[1] is None else float(value[1]),
    )
    if math.isnan(lo) or math.isnan(hi):
        raise ValueError(f"a range has no NaN end: {value!r}")
    return None if (lo, hi) == OPEN else (lo, hi)


@dataclass(frozen=True)
class ViewFilter:
    """The view's filter; every field's default keeps everything.

    Image list: ``text`` (case-insensitive substring of the image id), ``flags`` (``FLAG_KEYS``
    the image must have an object with, each), ``errors`` (``""`` or an ``ERROR_KEYS`` key: at
    the window's score threshold), ``by_errors`` / ``by_score`` (orders).

    Boxes (``evaluation.view_filter.filter_masks``): ``score`` (detections' score range),
    ``classes`` (class names; objects and detections), ``verdicts`` (``VERDICT_KEYS``),
    ``fp_kinds`` (``FP_KIND_KEYS``: which false positives ``fp`` means; alone, only those),
    ``area`` (box area, square pixels in the dataset's convention: VOC's inclusive pixel count)
    and ``aspect`` (box width / height) ranges, ``tags`` (boxes tagged with one of them, or on
    an image tagged with one), ``result_set`` (the index of the set whose detections are judged;
    ``None``: the one shown). Sets are kept sorted; ranges are ``(lo, hi)`` floats (``None``:
    any; an infinite end is open).
    """

    text: str = ""
    flags: tuple[str, ...] = ()
    errors: str = ""
    by_errors: bool = False
    by_score: bool = False
    score: Range | None = None
    classes: tuple[str, ...] = ()
    verdicts: tuple[str, ...] = ()
    fp_kinds: tuple[str, ...] = ()
    area: Range | None = None
    aspect: Range | None = None
    tags: tuple[str, ...] = ()
    result_set: int | None = None

    def __post_init__(self) -> None:
        for name in _SETS:
            values: Iterable[str] = getattr(self, name)
            object.__setattr__(self, name, tuple(sorted(set(values))))
        for name in _RANGES:
            object.__setattr__(self, name, _range(getattr(self, name)))
        for name, known in (("verdicts", VERDICT_KEYS), ("fp_kinds", FP_KIND_KEYS)):
            unknown = set(getattr(self, name)) - set(known)
            if unknown:
                raise ValueError(f"unknown {name} {sorted(unknown)}; expected some of {known}")

    @property
    def needs_errors(self) -> bool:
        """Whether the image list's error filter or order depends on the evaluation."""
        return bool(self.errors) or self.by_errors

    @property
    def judges_boxes(self) -> bool:
        """Whether any box field (score, classes, verdicts, kinds, area, aspect, tags) is set."""
        return any(getattr(self, n) for n in ("classes", "verdicts", "fp_kinds", "tags")) or any(
            getattr(self, n) is not None for n in _RANGES
        )

    @property
    def needs_evidence(self) -> bool:
        """Whether what it keeps depends on the evaluation (verdicts, kinds, errors)."""
        return self.needs_errors or bool(self.verdicts or self.fp_kinds)

    @property
    def narrows(self) -> bool:
        """Whether it keeps fewer images than there are (orders aside)."""
        return bool(self.text or self.flags or self.errors) or self.judges_boxes

    def describe(self) -> str:
        """A short line of what it keeps (``"score 0.8–1 · background FP · area ≤ 1024"``)."""
        parts = []
        if self.score is not None:
            parts.append(f"score {_show_range(self.score)}")
        if self.classes:
            parts.append(", ".join(self.classes))
        kinds = " / ".join(self.fp_kinds)
        verdicts = [v if v != "fp" or not kinds else f"FP ({kinds})" for v in self.verdicts]
        if kinds and "fp" not in self.verdicts:
            verdicts.append(f"FP ({kinds})")
        if verdicts:
            parts.append(", ".join(v.upper() if len(v) == 2 else v for v in verdicts))
        if self.area is not None:
            parts.append(f"area {_show_range(self.area)}")
        if self.aspect is not None:
            parts.append(f"aspect {_show_range(self.aspect)}")
        parts += [f"with {f}" for f in self.flags]
        if self.tags:
            parts.append("tagged " + " / ".join(self.tags))
        if self.text:
            parts.append(f"id ~ {self.text!r}")
        if self.errors:
            parts.append({"fp": "drawn FP", "missed": "missed", "any": "any error"}[self.errors])
        return " · ".join(parts) or "everything"


def _show_range(r: Range) -> str:
    lo, hi = r
    if math.isinf(lo):
        return f"≤ {hi:g}"
    if math.isinf(hi):
        return f"≥ {lo:g}"
    return f"{lo:g}–{hi:g}"


def filter_payload(flt: ViewFilter) -> dict[str, Any]:
    """The JSON object of ``flt``: the image list's five fields always, the others when set
    (ranges as ``[lo, hi]``, an open end ``null``)."""
    out: dict[str, Any] = {
        "text": flt.text,
        "flags": list(flt.flags),
        "errors": flt.errors,
        "by_errors": flt.by_errors,
        "by_score": flt.by_score,
    }
    for name in ("classes", "verdicts", "fp_kinds", "tags"):
        if getattr(flt, name):
            out[name] = list(getattr(flt, name))
    for name in _RANGES:
        r = getattr(flt, name)
        if r is not None:
            out[name] = [None if math.isinf(v) else v for v in r]
    if flt.result_set is not None:
        out["result_set"] = flt.result_set
    return out


#: A value ``read_filter`` dropped: (JSON path, what was expected, what was found).
Dropped = tuple[str, str, Any]


def read_filter(value: Mapping[str, Any], where: str) -> tuple[ViewFilter, list[Dropped]]:
    """The ``ViewFilter`` in the JSON object ``value`` (at JSON path ``where``), and the values
    dropped for being of the wrong kind (the rest is kept; names are the window's to judge,
    except verdicts and kinds, which are checked here)."""
    dropped: list[Dropped] = []
    values: dict[str, Any] = {}

    def drop(key: str, expected: str) -> None:
        dropped.append((f"{where}.{key}", expected, value.get(key)))

    for key in ("text", "errors"):
        v = value.get(key)
        if v is not None and not isinstance(v, str):
            drop(key, "a string or null")
        elif v:
            values[key] = v
    for key in ("by_errors", "by_score"):
        v = value.get(key, False)
        if isinstance(v, bool):
            values[key] = v
        else:
            drop(key, "true or false")
    checks = {"verdicts": VERDICT_KEYS, "fp_kinds": FP_KIND_KEYS}
    for key in _SETS:
        v = value.get(key, [])
        known = checks.get(key)
        if not isinstance(v, list) or not all(isinstance(s, str) for s in v):
            drop(key, "a list of strings")
        elif known is not None and not set(v) <= set(known):
            drop(key, f"a list of some of {', '.join(known)}")
        else:
            values[key] = v
    for key in _RANGES:
        v = value.get(key)
        if v is None:
            continue
        ok = isinstance(v, list) and len(v) == 2
        ok = ok and all(e is None or (type(e) in (int, float) and math.isfinite(e)) for e in v)
        if ok and None not in v and v[0] > v[1]:
            ok = False
        if ok:
            values[key] = v
        else:
            drop(key, "[low, high]: two finite numbers (or null for an open end), low ≤ high")
    v = value.get("result_set")
    if v is not None:
        if type(v) is int and v >= 0:
            values["result_set"] = v
        else:
            drop("result_set", "a result set's index (a whole number from 0)")
    return ViewFilter(**values), dropped


def filter_from(given: ViewFilter | Mapping[str, Any] | None) -> ViewFilter | None:
    """A ``ViewFilter`` from itself or a mapping of its fields (Python values: ranges as pairs,
    sets as any iterable of strings); ``ValueError`` names an unknown field or value."""
    if given is None or isinstance(given, ViewFilter):
        return given
    known = {f.name for f in fields(ViewFilter)}
    unknown = sorted(set(given) - known)
    if unknown:
        raise ValueError(f"unknown filter field(s) {unknown}; expected some of {sorted(known)}")
    values = dict(given)
    for name in _SETS:
        if isinstance(values.get(name), str):
            values[name] = (values[name],)  # one name, not its letters
    return ViewFilter(**values)
