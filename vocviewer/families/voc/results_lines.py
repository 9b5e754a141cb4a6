"""Lines of one VOC results file → columns: the parser behind ``voc_results``.

Detection lines are ``<id> <score> <xmin> <ymin> <xmax> <ymax>``, classification lines
``<id> <score>``, whitespace separated. The file is read through ``formats.input`` (regular files
only, bounded) and parsed in chunks of about ``CHUNK_BYTES`` by numpy's C text reader (ids mapped
by a sorted search, unknown ids reported from the arrays). A chunk that reader refuses (a blank or
malformed line) is halved until the pieces it refuses are small, and only those are read line by
line to name every offending line: one bad line costs about two reads of one chunk, not a slow
pass over the file, in time and memory. NaN and ±inf are kept (the caller warns). Where the
compiled reader ``vocviewer.kernel._voc`` is built, a plain file (every line well formed, every
id known) is read there, with the same columns; any other file is read as above.
"""

from __future__ import annotations

import codecs
import io
import itertools
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from vocviewer import kernel
from vocviewer.core.errors import FormatError
from vocviewer.formats.input import read_bytes
from vocviewer.formats.text_fields import FileProblems, describe, split_lines, to_float

FIELDS = {"det": ("id", "score", "xmin", "ymin", "xmax", "ymax"), "cls": ("id", "score")}
#: Bytes parsed per call of numpy's reader; a bad line costs re-reading only its chunk slowly.
CHUNK_BYTES = 1 << 20
#: Text refused by numpy's reader is halved down to this size, then read line by line.
CAREFUL_BYTES = 1 << 14
#: A line longer than this is reported without being split into tokens.
MAX_LINE_CHARS = 4096


class ImageIds:
    """Image id → dataset row, for one id at a time (dict) or a whole column (sorted search)."""

    def __init__(self, ids: np.ndarray) -> None:
        self.row_of = {image_id: row for row, image_id in enumerate(ids.tolist())}
        self._order = np.argsort(ids, kind="stable")
        self._sorted = ids[self._order]
        #: Longer ids cannot be dataset ids; a fixed-width column one char wider shows them.
        self.width = max((len(i) for i in self.row_of), default=0) + 1

    def rows(self, ids: np.ndarray) -> np.ndarray:
        """Rows of a ``str`` array of ids, int64, -1 where unknown."""
        if len(self._sorted) == 0:
            return np.full(len(ids), -1, dtype=np.int64)
        pos = np.searchsorted(self._sorted, ids).clip(max=len(self._sorted) - 1)
        return np.where(self._sorted[pos] == ids, self._order[pos], -1).astype(np.int64)


def read_results_file(
    path: Path, task: str, index: ImageIds, fp: FileProblems
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Parse one file: ``(image rows int64 (n,), numbers float64 (n, k), lines int64 (n,))``.

    ``numbers`` holds score then box (det: k = 5; cls: k = 1). Bad lines are reported to ``fp``
    in line order and skipped: wrong field count, a non-numeric field, an unknown image id.
    NaN and ±inf are kept (see the module docstring). The file is read through
    ``formats.input`` (regular files only, bounded) and parsed in chunks of about
    ``CHUNK_BYTES``; only small pieces around doubtful lines are read again line by line.
    """
    data = read_bytes(path)
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    width = len(FIELDS[task])
    if (k := kernel.load("_voc")) is not None and (got := k.results(data, width, index.row_of)):
        image = np.frombuffer(got[0], dtype=np.int64)
        numbers = np.frombuffer(got[1], dtype=np.float64).reshape(len(image), width - 1)
        return image, numbers, np.arange(1, len(image) + 1, dtype=np.int64)
    parts = []
    first_line = 1
    for chunk in _chunks(data, CHUNK_BYTES):
        parts += _parse(chunk.decode("utf-8", errors="replace"), task, index, first_line, fp)
        first_line += chunk.count(b"\n")
    del data  # before the columns are joined: a lower peak
    if not parts:
        return np.zeros(0, np.int64), np.zeros((0, width - 1)), np.zeros(0, np.int64)
    image, numbers, lines = (np.concatenate(c) for c in zip(*parts, strict=True))
    return image, numbers, lines


Columns = tuple[np.ndarray, np.ndarray, np.ndarray]


def _parse(
    text: str, task: str, index: ImageIds, first_line: int, fp: FileProblems
) -> list[Columns]:
    """The columns of ``text`` (lines from ``first_line``): numpy's reader, and where it refuses
    the text, the same on each half, down to ``CAREFUL_BYTES`` read line by line. numpy stops at
    the first bad line, so locating one bad line costs about two reads of its chunk."""
    part = _read_fast(text, len(FIELDS[task]), index, first_line, fp)
    if part is not None:
        return [part]
    mid = text.find("\n", len(text) // 2) + 1
    if len(text) <= CAREFUL_BYTES or not 0 < mid < len(text):
        return [_read_carefully(text, task, index.row_of, fp, first_line)]
    left, right = text[:mid], text[mid:]
    found = _parse(left, task, index, first_line, fp)
    return found + _parse(right, task, index, first_line + left.count("\n"), fp)


def _chunks(data: bytes, size: int) -> Iterator[bytes]:
    """``data`` in pieces of about ``size`` bytes, each ending after a newline (but the last)."""
    start, n = 0, len(data)
    while start < n:
        end = data.find(b"\n", start + size) + 1 if start + size < n else n
        end = end or n
        yield data[start:end]
        start = end


def _read_fast(
    text: str, width: int, index: ImageIds, first_line: int, fp: FileProblems
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """numpy's C parser on a chunk starting at line ``first_line``; ``None`` if any line does
    not parse (wrong field count, not a number, a blank line), so that the careful reader can
    name it. Unknown image ids are reported here and their rows dropped."""
    body = text.rstrip()
    if not body:
        return np.zeros(0, np.int64), np.zeros((0, width - 1)), np.zeros(0, np.int64)
    dtype = np.dtype([("id", f"U{index.width}")] + [(f"v{j}", "f8") for j in range(1, width)])
    try:
        table = np.loadtxt(io.StringIO(body), dtype=dtype, comments=None, ndmin=1)
    except ValueError:
        return None
    n = len(table)
    if n != body.count("\n") + 1:
        return None
    numbers = np.column_stack([table[f"v{j}"] for j in range(1, width)])
    image = index.rows(table["id"])
    lines = np.arange(first_line, first_line + n, dtype=np.int64)
    unknown = np.flatnonzero(image < 0)
    if len(unknown):
        shown = unknown[: max(fp.limit - fp.count, 0)]
        rows = body.split("\n") if len(shown) else []
        for i in shown.tolist():
            fp.add(_unknown_id(rows[i].split()[0]), line=int(lines[i]))
        if len(unknown) > len(shown):
            fp.hide(len(unknown) - len(shown), int(lines[unknown[len(shown)]]))
        ok = image >= 0
        image, numbers, lines = image[ok], numbers[ok], lines[ok]
    return image, numbers, lines


def _unknown_id(image_id: str) -> str:
    return f"unknown image id {describe([image_id])}; line skipped"


def _read_carefully(
    text: str, task: str, row_of: dict[str, int], fp: FileProblems, first_line: int = 1
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Line by line, reporting every bad line (see ``read_results_file``)."""
    fields = FIELDS[task]
    width = len(fields)
    rows = split_lines(text, max_chars=MAX_LINE_CHARS)
    found: list[tuple[int, str]] = []  # (line, message), reported sorted by line at the end
    kept = [k for k, r in enumerate(rows, start=1) if r]
    if len(kept) != len(rows) or any(len(r) != width for r in rows):
        expected = f"expected {width} fields ({' '.join(fields)})"
        found += [
            (k, f"{expected}, found {describe(rows[k - 1])}; line skipped")
            for k in kept
            if len(rows[k - 1]) != width
        ]
        kept = [k for k in kept if len(rows[k - 1]) == width]
        rows = [rows[k - 1] for k in kept]
    lines = np.array(kept, dtype=np.int64) + (first_line - 1)
    if not rows:
        _report(found, fp, first_line)
        return np.zeros(0, np.int64), np.zeros((0, width - 1)), lines
    columns = list(zip(*rows, strict=True))
    try:
        text_of_numbers = "".join(itertools.chain.from_iterable(columns[1:]))
        if "_" in text_of_numbers or not text_of_numbers.isascii():  # forms to_float rejects
            raise ValueError
        numbers = np.ascontiguousarray(np.array(columns[1:], dtype=np.float64).T)
        rejected = np.zeros(len(rows), dtype=bool)
    except ValueError:
        numbers, rejected = _numbers_slowly(columns[1:], lines, fields, found, first_line)
    image = np.array([row_of.get(s, -1) for s in columns[0]], dtype=np.int64)
    for i in np.flatnonzero((image < 0) & ~rejected).tolist():
        found.append((int(lines[i]) - first_line + 1, _unknown_id(columns[0][i])))
    _report(found, fp, first_line)
    ok = (image >= 0) & ~rejected
    if not ok.all():
        image, numbers, lines = image[ok], numbers[ok], lines[ok]
    return image, numbers, lines


def _report(found: list[tuple[int, str]], fp: FileProblems, first_line: int) -> None:
    for line, message in sorted(found, key=lambda item: item[0]):
        fp.add(message, line=line + first_line - 1)


def _numbers_slowly(
    columns: list[tuple[str, ...]],
    lines: np.ndarray,
    fields: Sequence[str],
    found: list[tuple[int, str]],
    first_line: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-field conversion after the bulk one failed; returns numbers and the rejected rows."""
    n, k = len(lines), len(columns)
    out = np.full((n, k), np.nan)
    rejected = np.zeros(n, dtype=bool)
    for i in range(n):
        for j in range(k):
            text = columns[j][i]
            value = to_float(text)
            if value is None:
                message = f"{fields[j + 1]} is not a number: {describe([text])}; line skipped"
                found.append((int(lines[i]) - first_line + 1, message))
                rejected[i] = True
                break
            out[i, j] = value
    return out, rejected


def non_finite_warning(path: Path, numbers: np.ndarray, lines: np.ndarray) -> FormatError | None:
    """One warning for the rows of a file holding NaN or ±inf (kept: see the module docstring)."""
    bad = np.flatnonzero(~np.isfinite(numbers).all(axis=1))
    if not len(bad):
        return None
    return FormatError(
        path,
        f"{len(bad)} line(s) hold NaN or ±inf (first here); kept and evaluated as the official "
        "code does: such a box overlaps nothing (a false positive), a NaN score ranks last; "
        "never drawn",
        line=int(lines[bad[0]]),
    )
