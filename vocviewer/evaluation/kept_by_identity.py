"""Columns worked out from given arrays, kept for the last few and found again by those very
arrays (their identity, not their values): the same ranked detections re-derived at another IoU
threshold take the columns laid out before instead of new copies."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class KeptByIdentity(Generic[T]):
    """The answers for the last ``size`` keys, newest first. A key is a sequence of arrays; it
    is held (so the ids stay theirs) and matches only the very same arrays in the same order."""

    def __init__(self, size: int = 2) -> None:
        self._kept: list[tuple[tuple[Any, ...], T]] = []
        self._size = size

    def get(self, key: Sequence[Any]) -> T | None:
        """The answer kept for exactly ``key``'s arrays, else ``None``."""
        for kept, value in list(self._kept):  # (a copy: another thread may put meanwhile)
            if len(kept) == len(key) and all(a is b for a, b in zip(kept, key, strict=True)):
                return value
        return None

    def put(self, key: Sequence[Any], value: T) -> T:
        """Keep ``value`` as ``key``'s answer (forgetting the oldest beyond ``size``)."""
        self._kept[:] = [(tuple(key), value), *self._kept][: self._size]
        return value

    def keys(self) -> list[tuple[Any, ...]]:
        """The keys kept, newest first."""
        return [key for key, _ in self._kept]
