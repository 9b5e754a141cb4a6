"""``PathColumn``: image files kept as strings, each ``Path`` made when first read.

A reader of 5,000 image records pays ~1.5-3 us per ``Path`` (~10-20 ms in all) before anyone
looks at a file; most evaluations never do. ``PathColumn`` holds the names and makes
``Path(folder, name)`` on access (once per index), and otherwise behaves as the tuple of those
paths: indexing (negative too), slicing (a tuple), iteration, ``len``, ``in``, equality and hash
with a tuple of the same paths, ``+`` with a tuple (a tuple), pickling.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, overload


class PathColumn(Sequence[Path]):
    """``tuple(Path(folder, n) for n in names)`` (``folder`` None: ``Path(n)``), made lazily."""

    __slots__ = ("_folder", "_made", "_names")

    def __init__(self, names: Sequence[str], folder: Path | None = None) -> None:
        self._names = tuple(names)
        self._folder = folder
        self._made: list[Path | None] = [None] * len(self._names)

    def _path(self, i: int) -> Path:
        p = self._made[i]
        if p is None:  # (two threads may both make it: equal paths, either kept)
            name = self._names[i]
            p = Path(name) if self._folder is None else Path(self._folder, name)
            self._made[i] = p
        return p

    def __len__(self) -> int:
        return len(self._names)

    @overload
    def __getitem__(self, i: int) -> Path: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[Path, ...]: ...

    def __getitem__(self, i: int | slice) -> Path | tuple[Path, ...]:
        if isinstance(i, slice):
            return tuple(self._path(j) for j in range(*i.indices(len(self._names))))
        n = len(self._names)
        j = operator.index(i)  # (a TypeError for a non-integer, as a tuple's)
        if not -n <= j < n:
            raise IndexError("PathColumn index out of range")
        return self._path(j + n if j < 0 else j)

    def __iter__(self) -> Iterator[Path]:
        return (self._path(j) for j in range(len(self._names)))

    def __contains__(self, value: object) -> bool:
        return any(p == value for p in self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PathColumn):
            if other._folder == self._folder and other._names == self._names:
                return True
            return tuple(self) == tuple(other)
        if isinstance(other, tuple):
            return tuple(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __add__(self, other: Any) -> tuple[Path, ...]:
        if isinstance(other, PathColumn | tuple):
            return tuple(self) + tuple(other)
        return NotImplemented

    def __radd__(self, other: Any) -> tuple[Path, ...]:
        if isinstance(other, tuple):
            return other + tuple(self)
        return NotImplemented

    def __reduce__(self) -> tuple[Any, ...]:
        return (PathColumn, (self._names, self._folder))

    def __repr__(self) -> str:
        return f"PathColumn({len(self._names)} paths, folder={self._folder!r})"
