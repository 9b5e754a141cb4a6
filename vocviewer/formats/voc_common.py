"""Helpers shared by the VOCdevkit readers: element text, numbers, text files, problem lists.

Text follows the official reader (``VOCxml2struct.m``): tab, CR and LF are deleted outright and
surrounding spaces are trimmed. Problems are collected, not raised; a file that produces many of
them lists the first ``LIMIT`` and then one summary, so a results file for the wrong dataset gives
a readable report instead of 200,000 lines.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from vocviewer.core.errors import FormatError

#: Problems listed one by one per file before the rest are summarised.
LIMIT = 20

_DELETE = str.maketrans("", "", "\t\r\n")
_YEAR = re.compile(r"VOC(\d{4})", re.IGNORECASE)


def clean(text: str | None) -> str:
    """Element text the devkit way: delete tab/CR/LF, trim spaces (``None`` → ``""``)."""
    if text is None:
        return ""
    if "\t" in text or "\n" in text or "\r" in text:
        text = text.translate(_DELETE)
    return text.strip(" ")


def to_float(text: str) -> float | None:
    """Parse a decimal number (``1``, ``-2.5``, ``1e3``, ``Inf``); ``None`` if not one.

    NaN text parses to NaN (callers decide whether to accept it). Python-only forms such as
    ``1_000`` or non-ASCII digits are rejected.
    """
    if "_" in text or not text.isascii():
        return None
    try:
        return float(text)
    except ValueError:
        return None


def to_int(text: str) -> int | None:
    """Parse an integer, also written as an integral float (``500.0``); ``None`` otherwise."""
    value = to_float(text)
    if value is None or not math.isfinite(value) or value != int(value):
        return None
    return int(value)


def parse_year(name: str) -> int | None:
    """Challenge year from a folder name such as ``VOC2012`` (``None`` if absent)."""
    found = _YEAR.search(name)
    return int(found.group(1)) if found else None


def read_text(path: Path) -> str:
    """A text file as ``str`` (UTF-8, BOM dropped, undecodable bytes replaced)."""
    return path.read_bytes().decode("utf-8-sig", errors="replace")


def split_lines(text: str) -> list[list[str]]:
    """Whitespace-split tokens of every line; entry ``k`` is line ``k + 1`` (blank → ``[]``).

    Lines end at LF only (a trailing CR is whitespace), so numbers agree with text editors.
    """
    rows = [line.split() for line in text.split("\n")]
    if rows and not rows[-1]:
        rows.pop()
    return rows


class FileProblems:
    """Problems of one file, appended to ``sink``: the first ``limit`` one by one, then a summary.

    Call ``close()`` when the file is done to add the summary of the suppressed ones.
    """

    def __init__(self, sink: list[FormatError], path: Path, limit: int = LIMIT) -> None:
        self.sink = sink
        self.path = path
        self.limit = limit
        self.count = 0
        self._first_hidden: int | None = None

    def add(self, message: str, *, line: int | None = None, element: str | None = None) -> None:
        """Record one problem at ``line`` (1-based) or ``element`` of this file."""
        self.count += 1
        if self.count <= self.limit:
            self.sink.append(FormatError(self.path, message, line=line, element=element))
        elif self._first_hidden is None:
            self._first_hidden = line

    def close(self) -> None:
        """Append one summary problem for those beyond ``limit`` (if any)."""
        hidden = self.count - self.limit
        if hidden > 0:
            self.sink.append(
                FormatError(
                    self.path,
                    f"{hidden} more problems in this file are not listed "
                    f"(the first {self.limit} are)",
                    line=self._first_hidden,
                )
            )
            self.count = self.limit


def describe(tokens: list[str], limit: int = 60) -> str:
    """A line's tokens, quoted and shortened for a message."""
    text = " ".join(tokens)
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")
