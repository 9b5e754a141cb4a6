"""LVIS annotation files look like COCO's but are federated: evaluated as COCO their numbers
would be wrong, so the COCO benchmark refuses them (until an LVIS benchmark evaluates them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vocviewer.core.errors import FormatError
from vocviewer.formats.input import check_regular, read_bytes

LVIS_MESSAGE = (
    "an LVIS annotation file: vocviewer does not evaluate LVIS yet; "
    "evaluated as COCO its numbers would be wrong"
)
#: LVIS v1 keys COCO files never carry: images' federated lists, categories' frequency group
_IMAGE_KEYS = ("neg_category_ids", "not_exhaustive_category_ids")
_CATEGORY_KEYS = ("frequency",)


def is_lvis(doc: Any) -> bool:
    """Whether the parsed annotation JSON ``doc`` is LVIS-shaped: an image with
    ``neg_category_ids`` / ``not_exhaustive_category_ids`` or a category with ``frequency``."""
    if not isinstance(doc, dict):
        return False
    for section, keys in (("images", _IMAGE_KEYS), ("categories", _CATEGORY_KEYS)):
        entries = doc.get(section)
        if isinstance(entries, list) and any(
            isinstance(e, dict) and any(k in e for k in keys) for e in entries
        ):
            return True
    return False


def refuse_lvis(path: str | Path) -> None:
    """``FormatError`` if the annotation JSON at ``path`` is LVIS-shaped. Unreadable or malformed
    files pass (the COCO reader says what is wrong); a file without the LVIS key names in its
    bytes is not parsed here."""
    p = Path(path)
    try:
        check_regular(p)
        data = read_bytes(p)
    except (FormatError, OSError):
        return
    if not any(f'"{k}"'.encode() in data for k in (*_IMAGE_KEYS, *_CATEGORY_KEYS)):
        return
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return
    if is_lvis(doc):
        raise FormatError(p, LVIS_MESSAGE)
