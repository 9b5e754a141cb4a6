"""Box results JSON parsed straight into columns by ``msgspec``, chunk by chunk.

The usual results file — an array of flat ``{"image_id", "category_id", "bbox", "score"}``
objects — is decoded by ``msgspec`` into small typed structs (strict JSON types: ``true`` is no
integer, ``3.0`` no id; a ``bbox`` of exactly 4 numbers; other fields skipped), about 3x faster
than ``json.loads`` into dicts, and turned into numpy columns. Big files are decoded in chunks of
about ``CHUNK_BYTES``, cut at ``}, {`` between two entries, so that only one chunk's structs live
at a time. A cut that is not between two top-level entries (inside a string, or inside a nested
value) leaves a chunk that is not valid JSON, so a decoded set of chunks always equals the
whole file's entries.

Anything this parser refuses — ``NaN`` / ``Infinity`` literals (``json.load`` takes them),
numbers out of float or int64 range, non-ASCII bytes, a missing or differently typed field, a
first entry with a ``caption``, broken JSON — gives ``None``: the caller then reads the file with
the standard library as before, so messages and outcomes never depend on this parser.
"""

from __future__ import annotations

import functools
import gc
import re
from itertools import chain
from operator import attrgetter
from pathlib import Path
from typing import Any

import numpy as np

from vocviewer.core.arrays import sealed
from vocviewer.core.results import Derived, Detections, ResultSet
from vocviewer.families.coco import results_kernel
from vocviewer.families.coco.columns import CocoAnnotations, CocoResults, ids_at
from vocviewer.families.coco.results_bulk import (
    Columns,
    lookup,
    nonfinite_warnings,
    sealed_box_area,
    sealed_corners,
)

__all__ = ["CHUNK_BYTES", "available", "box_columns", "box_result"]

#: Bytes decoded at a time (the chunk's structs take about 3x this; the columns 0.6x).
CHUNK_BYTES = 32 << 20

#: A place between two entries: ``}``, a comma and ``{`` with JSON whitespace only.
_CUT = re.compile(rb"\}[ \t\n\r]*,[ \t\n\r]*\{")


def available() -> bool:
    """Whether ``msgspec`` is installed (``box_columns`` returns ``None`` without it)."""
    return _msgspec() is not None


@functools.cache
def _msgspec() -> tuple[Any, Any, tuple[type[Exception], ...]] | None:
    """``msgspec``'s decoder of box entries, ``UNSET`` and its errors, or ``None`` without it
    (imported when first needed: the compiled scanner reads most files, and the import costs
    the command line's start ~10 ms)."""
    try:
        import msgspec
    except ImportError:  # pragma: no cover - a dependency; the standard library reads it all
        return None

    class _Box(msgspec.Struct, gc=False):
        image_id: int
        category_id: int
        bbox: tuple[float, float, float, float]
        score: float
        caption: Any = msgspec.UNSET  # only the first entry's is looked at (the kind of file)

    errors = (msgspec.DecodeError, msgspec.ValidationError)
    return msgspec.json.Decoder(list[_Box]), msgspec.UNSET, errors


def _pieces(data: bytes, chunk: int) -> list[tuple[int, int]]:
    """``(start, stop)`` of each chunk: cut at the first ``}, {`` after every ``chunk`` bytes."""
    out, start = [], 0
    while len(data) - start > chunk:
        m = _CUT.search(data, start + chunk)
        if m is None:
            break
        out.append((start, m.start() + 1))
        start = m.end() - 1
    out.append((start, len(data)))
    return out


def box_columns(data: bytes, *, chunk: int = CHUNK_BYTES, compiled: bool = True) -> Columns | None:
    """``(image_id, category_id, score, xywh)`` — int64 (N,), int64 (N,), float64 (N,),
    float64 (N, 4), in file order — of a box results file's bytes, or ``None`` when the file is
    not plain (see the module docstring; the caller then reads it with ``json``). The compiled
    scanner (``results_kernel``) reads it first where it is built (``compiled``: the caller has
    not tried it already)."""
    quick = results_kernel.box_columns(data) if compiled else None
    if quick is not None:
        return quick
    decoding = _msgspec()
    if decoding is None or not data.isascii():
        return None
    decoder, unset, errors = decoding
    pieces = _pieces(data, chunk)
    parts: list[Columns] = []
    for i, (start, stop) in enumerate(pieces):
        if len(pieces) == 1:
            text = data
        else:  # the chunk as a JSON array of its own
            head = b"" if i == 0 else b"["
            tail = b"" if i == len(pieces) - 1 else b"]"
            text = b"".join((head, memoryview(data)[start:stop], tail))
        was_enabled = gc.isenabled()
        gc.disable()  # the bbox tuples would set off the cyclic collector again and again
        try:
            rows = decoder.decode(text)
        except errors:
            return None
        finally:
            if was_enabled:
                gc.enable()
        del text
        if i == 0 and (not rows or rows[0].caption is not unset):
            return None
        try:
            parts.append(_columns(rows))
        except OverflowError:  # an id beyond int64
            return None
        del rows
    if len(parts) == 1:
        return parts[0]
    return (
        np.concatenate([p[0] for p in parts]),
        np.concatenate([p[1] for p in parts]),
        np.concatenate([p[2] for p in parts]),
        np.concatenate([p[3] for p in parts]),
    )


def _columns(rows: list[Any]) -> Columns:
    n = len(rows)
    img = np.fromiter(map(attrgetter("image_id"), rows), np.int64, n)
    cat = np.fromiter(map(attrgetter("category_id"), rows), np.int64, n)
    score = np.fromiter(map(attrgetter("score"), rows), np.float64, n)
    boxes = chain.from_iterable(map(attrgetter("bbox"), rows))
    xywh = np.fromiter(boxes, np.float64, 4 * n).reshape(n, 4)
    return img, cat, score, xywh


def box_result(path: Path, parsed: Columns | None, gt: CocoAnnotations) -> ResultSet | None:
    """The box ``ResultSet`` of the results file ``path`` (``parsed``: its ``box_columns``), as
    ``coco_results`` builds it, or ``None``: not a plain box file (``parsed`` is ``None``), or
    an id not in ``gt`` (the standard-library path then reads the file and names what it finds).

    Built lean: each column is let go as soon as the result set holds its copy (a 1 GB file's
    columns alone are 0.6 GB). Rows with NaN / infinite values are kept, with one warning."""
    if parsed is None:
        return None
    img_ids, cat_ids, score, xywh = parsed
    del parsed
    img, label = lookup(gt.image_id, img_ids), lookup(gt.category_id, cat_ids)
    if img is None or label is None:
        return None
    warnings = tuple(nonfinite_warnings(path, score, xywh))
    n = len(score)
    ids = np.arange(1, n + 1, dtype=np.int64)
    area: Any = Derived(sealed_box_area, *sealed(xywh)[:, 2:].T, rowwise=True)  # (made when read)
    del img_ids, cat_ids  # (the file's ids: gt's at img / label, ``lookup``; gathered if read)
    extras = CocoResults(
        kind="bbox",
        det_id=ids,
        image_id=ids_at(gt.image_id, img),
        category_id=ids_at(gt.category_id, label),
        bbox=xywh,
        area=area,
        keypoints=np.zeros((n, 0, 3)),
        masks=None,
        warnings=warnings,
    )
    del area, xywh
    xywh = extras.bbox
    xyxy: Any = Derived(sealed_corners, xywh, rowwise=True)  # (made when read)
    dets = Detections(img, label, score, xyxy, np.zeros(n, dtype=np.int64), ids)
    return ResultSet(
        path.stem,
        (path,),
        detections=dets,
        warnings=warnings,
        family_data=(extras,),
        task=extras.kind,
    )
