"""JSON files in: bounded reading, parsing with located errors, values shown in messages.

Used by every JSON reader (COCO and LVIS annotations and results, sessions). Syntax errors name
the line and column (a file cut short says so); nothing is read from a FIFO or a device.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

from vocviewer.core.errors import FormatError
from vocviewer.formats.input import check_regular, read_bytes


def load_json(path: Path) -> Any:
    """Parse a JSON file read through ``formats.input.read_bytes`` (regular files only, bounded)."""
    return parse_json(path, read_json_bytes(path))


def read_json_bytes(path: Path) -> bytes:
    """The bytes of a regular file (``check_regular`` first: ``read_bytes`` alone lets a
    folder's ``IsADirectoryError`` through)."""
    check_regular(path)
    return read_bytes(path)


def json_text(path: Path, data: bytes) -> str:
    """The text of JSON bytes, decoded as ``json.loads`` decodes them (UTF-8, or UTF-16 / 32 by
    their byte pattern); ``FormatError`` for bytes that are not such text. The caller can then
    drop ``data`` before parsing (a whole copy of the file less at the peak)."""
    try:
        return data.decode(json.detect_encoding(data), "surrogatepass")
    except UnicodeDecodeError as e:
        raise FormatError(path, f"not UTF-8 text: {e.reason}") from None


def parse_json(path: Path, data: bytes | str) -> Any:
    """Parse the JSON text ``data`` of ``path`` (bytes, or text from ``json_text``).

    Syntax errors, non-UTF-8 text and nesting too deep for Python's parser become
    ``FormatError``. The cyclic garbage collector is paused meanwhile: millions of fresh
    containers would set it off again and again (about 40% of the parse), and parsed JSON holds
    no cycles."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return json.loads(data)
    except json.JSONDecodeError as e:
        raise json_error(path, e) from None
    except UnicodeDecodeError as e:
        raise FormatError(path, f"not UTF-8 text: {e.reason}") from None
    except RecursionError:
        raise FormatError(path, "not readable JSON: nested too deeply") from None
    finally:
        if was_enabled:
            gc.enable()


def json_error(path: Path, e: json.JSONDecodeError) -> FormatError:
    """``FormatError`` for a syntax error, at its line and column; one the end of the text
    explains (nothing but whitespace after it, or a string never closed) says the file ends
    early, where it ends: it looks truncated."""
    where = f"line {e.lineno}, column {e.colno}"
    doc = e.doc
    if not doc.strip():
        return FormatError(path, "not valid JSON: the file is empty")
    rest = doc[e.pos :].rstrip()  # ``tru`` at the very end: a literal cut short
    cut_literal = any(w.startswith(rest) for w in ("true", "false", "null"))
    if not rest or cut_literal or e.msg.startswith("Unterminated string"):
        end = len(doc.rstrip())
        line = doc.count("\n", 0, end) + 1
        column = end - (doc.rfind("\n", 0, end) + 1) + 1
        msg = f"not valid JSON: it ends early at line {line}, column {column} ({e.msg} at {where}):"
        return FormatError(path, f"{msg} the file looks truncated", line=line)
    return FormatError(path, f"not valid JSON at {where}: {e.msg}", line=e.lineno)


def show(v: Any) -> str:
    """A short JSON rendering of a found value for messages."""
    try:
        s = json.dumps(v, allow_nan=True)
    except (TypeError, ValueError, RecursionError):
        s = repr(v)
    return s if len(s) <= 40 else s[:37] + "..."
