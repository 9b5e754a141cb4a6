"""Located CSV reading for the Open Images files: columns found by header name, every value
error a ``FormatError`` naming the file and its 1-based line."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator, Sequence
from pathlib import Path

from vocviewer.core.errors import FormatError
from vocviewer.formats.text_fields import read_text, to_float


def csv_records(path: Path, *, header: bool = True) -> Iterator[tuple[int, list[str]]]:
    """``(line, fields)`` of each non-empty record of ``path`` (after the header line if
    ``header``); a quoted field spanning lines is one record, numbered by its first line."""
    reader = csv.reader(io.StringIO(read_text(path), newline=""))
    try:
        for fields in reader:
            if header and reader.line_num == 1:
                continue
            fields = [f.strip() for f in fields]
            if len(fields) > 1 or (fields and fields[0]):
                yield reader.line_num, fields
    except csv.Error as e:
        raise FormatError(path, f"not a CSV file ({e})", line=reader.line_num) from None


def header_columns(path: Path, required: Sequence[str]) -> dict[str, int]:
    """Column index of each name of the header line of ``path`` (``FormatError`` naming the
    missing ones)."""
    first = next(csv.reader(io.StringIO(read_text(path).partition("\n")[0])), [])
    names = {name.strip().lstrip("\ufeff"): i for i, name in enumerate(first)}
    missing = [r for r in required if r not in names]
    if missing:
        raise FormatError(
            path,
            f"the header has no {', '.join(missing)} column (expected {','.join(required)}; "
            f"found {','.join(names) or 'nothing'})",
            line=1,
        )
    return names


def field(path: Path, line: int, fields: list[str], index: int, name: str) -> str:
    """Field ``index`` (column ``name``) of a record (``FormatError`` if the record is short)."""
    if index >= len(fields):
        raise FormatError(
            path, f"{len(fields)} field(s); column {name} (field {index + 1}) is missing", line=line
        )
    return fields[index]


def finite(path: Path, line: int, text: str, name: str) -> float:
    """``text`` as a finite number (``FormatError`` naming column ``name`` if not one)."""
    value = to_float(text)
    if value is None or not math.isfinite(value):
        raise FormatError(path, f"{name} {text!r} is not a finite number", line=line)
    return value


def flag(path: Path, line: int, text: str, name: str, allowed: tuple[int, ...] = (0, 1)) -> int:
    """``text`` as one of the integers ``allowed`` (the released files also write ``-1``: not
    known)."""
    value = to_float(text)
    if value is None or value not in allowed:
        shown = " or ".join(str(a) for a in allowed)
        raise FormatError(path, f"{name} {text!r} is not {shown}", line=line)
    return int(value)
