"""A small, bounds-checked reader of MATLAB v5 ``.mat`` files (the ILSVRC devkit's ``meta_*.mat``).

scipy's reader crashes the process (segmentation fault) on some corrupted files, so the devkit's
synset tables are read here in plain Python: every length is checked against the bytes present,
compressed elements may inflate to at most ``MAX_INFLATED`` bytes, nesting is bounded, and any
defect is a ``FormatError`` naming the file and the element (``synsets(3).WNID``).

Values: a struct array is a list of ``dict`` (MATLAB's linear order), a cell array a list, a char
array a ``str`` (rows joined with a newline), a numeric or logical array a list of ``float``
(complex parts dropped). Sparse and object arrays are refused.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

from vocviewer.core.errors import FormatError

#: The most bytes one compressed variable may inflate to.
MAX_INFLATED = 256 << 20
_MAX_DEPTH = 16
_MI_MATRIX, _MI_COMPRESSED = 14, 15
#: miTYPE -> struct format letter (item size follows from it).
_NUMERIC = {1: "b", 2: "B", 3: "h", 4: "H", 5: "i", 6: "I", 7: "f", 9: "d", 12: "q", 13: "Q"}
_TEXT = {16: "utf-8", 17: "utf-16", 18: "utf-32"}
_CELL, _STRUCT, _OBJECT, _CHAR, _SPARSE = 1, 2, 3, 4, 5
_NUMERIC_CLASSES = range(6, 16)

Value = str | list[float] | list["Value"] | list[dict[str, "Value"]]


class _Buffer:
    """Bytes with an order (``<`` / ``>``) and a cursor; every read is bounds-checked."""

    def __init__(self, data: bytes, order: str, path: Path, where: str) -> None:
        self.data, self.order, self.path, self.where, self.pos = data, order, path, where, 0

    def fail(self, message: str) -> FormatError:
        return FormatError(self.path, message, element=self.where or None)

    def element(self) -> tuple[int, bytes]:
        """The next data element: (miTYPE, payload); the cursor moves past its padding."""
        if self.pos + 8 > len(self.data):
            raise self.fail("truncated: a data element tag runs past the end")
        kind, size = struct.unpack_from(self.order + "II", self.data, self.pos)
        if kind >> 16:  # small data element: size and type share the first 4 bytes
            kind, size = kind & 0xFFFF, kind >> 16
            if size > 4:
                raise self.fail(f"small data element of {size} bytes (at most 4)")
            payload = self.data[self.pos + 4 : self.pos + 4 + size]
            self.pos += 8
            return kind, payload
        start = self.pos + 8
        if size > len(self.data) - start:
            raise self.fail(f"data element of {size:,} bytes runs past the end")
        self.pos = start + size + (-size % 8 if kind != _MI_COMPRESSED else 0)
        return kind, self.data[start : start + size]


def load_variable(path: Path, data: bytes, name: str) -> Value | None:
    """The variable ``name`` of the MAT v5 file ``path`` (content ``data``), or ``None``."""
    if len(data) < 128 or data[126:128] not in (b"IM", b"MI"):
        raise FormatError(path, "not a MATLAB v5 .mat file (no 128-byte header ending in 'IM')")
    top = _Buffer(data[128:], "<" if data[126:128] == b"IM" else ">", path, "")
    while top.pos + 8 <= len(top.data):
        kind, payload = top.element()
        if kind == _MI_COMPRESSED:
            payload = _inflate(path, payload)
            inner = _Buffer(payload, top.order, path, "")
            kind, payload = inner.element()
        if kind != _MI_MATRIX:
            continue
        matrix = _Buffer(payload, top.order, path, "")
        flags, dims, var = _header(matrix)
        if var == name:
            matrix.where = name
            return _value(matrix, flags, dims, depth=0)
    return None


def _inflate(path: Path, payload: bytes) -> bytes:
    d = zlib.decompressobj()
    try:
        out = d.decompress(payload, MAX_INFLATED + 1)
    except zlib.error as exc:
        raise FormatError(path, f"corrupt compressed element ({exc})") from None
    if len(out) > MAX_INFLATED:
        raise FormatError(path, f"a compressed element inflates past {MAX_INFLATED:,} bytes")
    return out


def _header(m: _Buffer) -> tuple[int, list[int], str]:
    """Array flags, dimensions and name of a miMATRIX payload."""
    kind, flags = m.element()
    if kind != 6 or len(flags) != 8:
        raise m.fail("array flags missing")
    kind, raw = m.element()
    if kind != 5 or not raw or len(raw) % 4:
        raise m.fail("dimensions missing")
    dims = list(struct.unpack(f"{m.order}{len(raw) // 4}i", raw))
    if any(d < 0 for d in dims):
        raise m.fail(f"negative dimension in {dims}")
    _, name = m.element()
    return struct.unpack_from(m.order + "I", flags)[0], dims, name.decode("latin-1")


def _count(dims: list[int]) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


def _value(m: _Buffer, flags: int, dims: list[int], depth: int) -> Value:
    cls, n = flags & 0xFF, _count(dims)
    if depth > _MAX_DEPTH:
        raise m.fail(f"nested more than {_MAX_DEPTH} levels")
    if cls in (_STRUCT, _OBJECT):
        if cls == _OBJECT:
            raise m.fail("MATLAB objects are not read")
        return _struct(m, n, depth)
    if cls == _CELL:
        if n * 8 > len(m.data) - m.pos:
            raise m.fail(f"{n:,} cells cannot fit in the bytes present")
        return [_child(m, depth, f"{{{k + 1}}}") for k in range(n)]
    if cls == _CHAR:
        return _chars(m, dims) if n else ""
    if cls in _NUMERIC_CLASSES:
        return _numbers(m, n) if n else []
    raise m.fail(f"array class {cls} ({'sparse' if cls == _SPARSE else 'unknown'}) is not read")


def _struct(m: _Buffer, n: int, depth: int) -> list[dict[str, Value]]:
    kind, raw = m.element()
    if kind != 5 or len(raw) != 4:
        raise m.fail("field name length missing")
    width = struct.unpack(m.order + "i", raw)[0]
    _, names_raw = m.element()
    if width <= 0 or len(names_raw) % width:
        raise m.fail(f"field names of {len(names_raw)} bytes are not a multiple of {width}")
    names = [
        names_raw[k : k + width].split(b"\0")[0].decode("latin-1")
        for k in range(0, len(names_raw), width)
    ]
    if n * len(names) * 8 > len(m.data) - m.pos:
        raise m.fail(f"{n:,} struct elements cannot fit in the bytes present")
    out: list[dict[str, Value]] = []
    for k in range(n):
        out.append({f: _child(m, depth, f"({k + 1}).{f}") for f in names})
    return out


def _child(m: _Buffer, depth: int, suffix: str) -> Value:
    kind, payload = m.element()
    where = m.where + suffix
    if kind != _MI_MATRIX:
        raise FormatError(m.path, f"expected an array element, found type {kind}", element=where)
    if not payload:  # an empty miMATRIX is []
        return []
    sub = _Buffer(payload, m.order, m.path, where)
    flags, dims, _ = _header(sub)
    return _value(sub, flags, dims, depth + 1)


def _numbers(m: _Buffer, n: int) -> list[float]:
    kind, raw = m.element()
    fmt = _NUMERIC.get(kind)
    if fmt is None:
        raise m.fail(f"numeric data of element type {kind}")
    size = struct.calcsize(fmt)
    if len(raw) != n * size:
        raise m.fail(f"{len(raw)} bytes of data for {n} values of {size} bytes")
    return [float(v) for v in struct.unpack(f"{m.order}{n}{fmt}", raw)]


def _chars(m: _Buffer, dims: list[int]) -> str:
    kind, raw = m.element()
    if kind in _TEXT:
        codec = _TEXT[kind] + ("" if kind == 16 else ("-le" if m.order == "<" else "-be"))
        chars = raw.decode(codec, errors="replace")
    elif kind in (1, 2, 3, 4, 5, 6):
        size = struct.calcsize(_NUMERIC[kind])
        if len(raw) % size:
            raise m.fail(f"{len(raw)} bytes of characters of {size} bytes")
        codes = struct.unpack(f"{m.order}{len(raw) // size}{_NUMERIC[kind]}", raw)
        chars = "".join(chr(c) if 0 <= c < 0x110000 else "\ufffd" for c in codes)
    else:
        raise m.fail(f"character data of element type {kind}")
    rows = dims[0] if dims else 1
    if rows <= 1 or len(chars) % rows:
        return chars
    cols = len(chars) // rows  # column-major: row r is chars[r], chars[r + rows], ...
    return "\n".join("".join(chars[r + rows * c] for c in range(cols)) for r in range(rows))
