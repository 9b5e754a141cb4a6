"""Helpers shared by the VOCdevkit readers: element text, numbers, text files, problem lists.

Text follows the official reader (``VOCxml2struct.m``): tab, CR and LF are deleted outright and
surrounding spaces are trimmed. Problems are collected, not raised; a file that produces many of
them lists the first ``LIMIT`` and then one summary, so a results file for the wrong dataset gives
a readable report instead of 200,000 lines.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from pathlib import Path

from lxml import etree

from vocviewer.core.errors import FormatError
from vocviewer.formats.input import check_regular
from vocviewer.formats.input import read_text as input_text

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
    """A text file as ``str`` (UTF-8, BOM dropped, undecodable bytes replaced).

    Only regular files are read, and only up to ``formats.input.MAX_FILE_BYTES``: a FIFO, device,
    folder, link loop or missing file raises ``FormatError`` naming it (``formats.input``).
    """
    return input_text(path)


def listed_files(folder: Path, keep: Callable[[str], bool], sink: list[FormatError]) -> list[Path]:
    """The regular files of ``folder`` whose name passes ``keep``, sorted by name.

    A matching entry that is not a regular file (a symbolic-link loop, a dangling link, a FIFO or
    device) is reported to ``sink`` as skipped, so one bad entry never stops the rest.
    """
    return [Path(path) for _, path in listed_names(folder, keep, sink)]


def listed_names(
    folder: Path, keep: Callable[[str], bool], sink: list[FormatError]
) -> list[tuple[str, str]]:
    """``listed_files`` as ``(name, path)`` strings (no ``Path`` per file: thousands cost)."""
    found: list[tuple[str, str, str]] = []  # (name as paths compare it, name, path)
    for entry in os.scandir(folder):
        if not keep(entry.name):
            continue
        if not entry.is_file(follow_symlinks=False):  # a plain file: no stat needed
            try:
                check_regular(entry.path)
            except FormatError as exc:
                if not os.path.isdir(entry.path):  # folders named like files: ignored
                    sink.append(FormatError(Path(entry.path), f"{exc.message}; skipped"))
                continue
        found.append((os.path.normcase(entry.name), entry.name, entry.path))
    found.sort(key=lambda item: item[0])  # one folder: as sorting the paths, without pathlib
    return [(name, path) for _, name, path in found]


def split_lines(text: str, *, max_chars: int | None = None) -> list[list[str]]:
    """Whitespace-split tokens of every line; entry ``k`` is line ``k + 1`` (blank → ``[]``).

    Lines end at LF only (a trailing CR is whitespace), so numbers agree with text editors. A line
    longer than ``max_chars`` is not split: it becomes its first ``max_chars`` characters and
    ``"..."`` (two tokens), so a gigabyte without a newline never becomes millions of tokens.
    """
    if max_chars is not None:
        return _split_bounded(text, max_chars)
    rows = [line.split() for line in text.split("\n")]
    if rows and not rows[-1]:
        rows.pop()
    return rows


def _split_bounded(text: str, max_chars: int) -> list[list[str]]:
    rows = [
        line.split() if len(line) <= max_chars else [line[:max_chars], "..."]
        for line in text.split("\n")
    ]
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

    def hide(self, count: int, first_line: int | None) -> None:
        """Count ``count`` more problems, from ``first_line`` on, without listing them."""
        self.count += count
        if count > 0 and self._first_hidden is None:
            self._first_hidden = first_line

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


def make_parser() -> etree.XMLParser:
    """A safe parser (no entity expansion, no network); one per reading thread."""
    return etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
