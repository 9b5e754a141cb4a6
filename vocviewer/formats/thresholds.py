"""Deployment thresholds in: a JSON object of class name -> score threshold, as
``vocviewer analyze --deploy-thresholds FILE`` writes it (``{"cat": 0.42, "dog": null, ...}``;
``null``: the analysis found no best threshold for that class).

``read_thresholds`` reads such a file for the window's per-class drawing thresholds;
``check_thresholds`` validates the object wherever it is found (the file, a session's
``view.class_thresholds``). Bad input is a ``FormatError`` naming the file, the entry and what
was expected.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vocviewer.core.errors import FormatError
from vocviewer.formats.json_input import load_json, show

#: What a thresholds file holds (for messages)
EXPECTED = "a JSON object of class name -> score threshold (a number from 0 to 1, or null)"


@dataclass(frozen=True)
class ClassThresholds:
    """Per-class drawing thresholds: ``thresholds`` class name -> threshold in [0, 1] (``None``:
    none given), the slider's ``offset`` added to each (in [-1, 1]) and where they came from
    (``source``: a file's path or the analysis that chose them, for words)."""

    thresholds: dict[str, float | None]
    offset: float = 0.0
    source: str = ""


def check_thresholds(value: Any, path: Path, element: str | None = None) -> dict[str, float | None]:
    """``value`` as class name -> threshold; ``FormatError`` (``path``, ``element`` and the
    offending entry) if it is not a non-empty object of names to numbers in [0, 1] or null."""
    if not isinstance(value, dict):
        raise FormatError(path, f"expected {EXPECTED}, found {show(value)}", element=element)
    if not value:
        raise FormatError(path, f"expected {EXPECTED}, found an empty object", element=element)
    out: dict[str, float | None] = {}
    for name, t in value.items():
        where = f"{element}.{name}" if element else name
        if t is None:
            out[name] = None
            continue
        if type(t) not in (int, float) or not math.isfinite(t) or not 0 <= t <= 1:
            raise FormatError(
                path,
                f"expected a score threshold from 0 to 1 (or null), found {show(t)}",
                element=where,
            )
        out[name] = float(t)
    return out


def read_thresholds(path: str | Path) -> dict[str, float | None]:
    """The thresholds in the JSON file ``path`` (``FormatError`` for a file that cannot be read,
    is not JSON, or does not hold ``EXPECTED``)."""
    p = Path(path)
    return check_thresholds(load_json(p), p)
