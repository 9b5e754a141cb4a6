"""The Open Images class hierarchy (``bbox_labels_600_hierarchy.json``).

The JSON nests ``{"LabelName": MID, "Subcategory": [...], "Part": [...]}`` under a root node.
As the challenge's expansion tool (``oid_hierarchical_labels_expansion.py``) reads it: only
``Subcategory`` links count (``Part`` is ignored), the root itself is no class, and a class
listed under several parents has all of them as ancestors (a set: each ancestor once).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vocviewer.core.errors import FormatError

#: deepest nesting read (the released hierarchy is 5 levels deep)
MAX_DEPTH = 64


@dataclass(frozen=True)
class Hierarchy:
    """``ancestors[mid]``: every class above ``mid`` (root excluded); ``descendants[mid]``:
    every class below it. Both hold each class of the hierarchy but the root."""

    ancestors: dict[str, frozenset[str]]
    descendants: dict[str, frozenset[str]]

    def __contains__(self, mid: str) -> bool:
        return mid in self.ancestors


def _walk(
    node: Any, path: Path, above: tuple[str, ...], found: dict[str, set[str]], depth: int
) -> set[str]:
    """Record ``node``'s ancestors (``above``) and return the classes in its subtree, itself
    included (``above`` empty: the root, no class)."""
    where = "/".join(above) or "root"
    if depth > MAX_DEPTH:
        raise FormatError(path, f"nested deeper than {MAX_DEPTH} levels", element=where)
    if not isinstance(node, dict) or not isinstance(node.get("LabelName"), str):
        raise FormatError(
            path, 'expected an object with a "LabelName" string', element=f"under {where}"
        )
    children = node.get("Subcategory", [])
    if not isinstance(children, list):
        raise FormatError(path, '"Subcategory" must be a list', element=node["LabelName"])
    mid = node["LabelName"]
    below: set[str] = set()
    chain = (*above, mid) if depth else ()
    if depth:
        found.setdefault(mid, set()).update(above)
    for child in children:
        below |= _walk(child, path, chain, found, depth + 1)
    return below | ({mid} if depth else set())


def parse_hierarchy(doc: Any, path: Path) -> Hierarchy:
    """The ``Hierarchy`` of the parsed JSON ``doc`` read from ``path`` (``FormatError`` naming
    the node if it is not the released shape)."""
    ancestors: dict[str, set[str]] = {}
    _walk(doc, path, (), ancestors, 0)
    descendants: dict[str, set[str]] = {mid: set() for mid in ancestors}
    for mid, ups in ancestors.items():
        for up in ups:
            descendants[up].add(mid)
    return Hierarchy(
        {k: frozenset(v) for k, v in ancestors.items()},
        {k: frozenset(v) for k, v in descendants.items()},
    )
