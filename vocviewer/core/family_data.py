"""Typed records a family attaches to a ``Dataset`` or ``ResultSet``, found by their type.

A family keeps what its protocol needs beyond the shared columns (COCO's areas and masks,
VisDrone's raw numbers, ILSVRC's synsets, ...) as one frozen record per kind, aligned with the
shared tables' rows; ``dataset.data(CocoAnnotations)`` returns it, typed, and a dataset holds at
most one record of each type.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")
Self = TypeVar("Self", bound="FamilyData")


class FamilyData:
    """The ``family_data`` records of a frozen dataclass, looked up by type."""

    family_data: tuple[Any, ...]

    def data(self, kind: type[T]) -> T:
        """The record of type ``kind``; ``LookupError`` if there is none (not read by the family
        that writes it)."""
        found = self.data_or_none(kind)
        if found is None:
            raise LookupError(f"no {kind.__name__} here: it was not read by its family's reader")
        return found

    def data_or_none(self, kind: type[T]) -> T | None:
        """The record of type ``kind``, or ``None``."""
        for record in self.family_data:
            if isinstance(record, kind):
                return record
        return None

    def has_data(self, kind: type) -> bool:
        """Whether a record of type ``kind`` is attached."""
        return any(isinstance(record, kind) for record in self.family_data)

    def with_data(self: Self, *records: Any) -> Self:
        """A copy carrying ``records``, each replacing the one of its type (the original is not
        changed)."""
        kept = tuple(r for r in self.family_data if not any(type(r) is type(n) for n in records))
        return dataclasses.replace(self, family_data=(*kept, *records))  # type: ignore[type-var]
