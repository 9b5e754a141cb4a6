"""COCO results JSON → columns through the compiled scanner (``vocviewer.kernel._json``).

The kernel scans a results file's bytes into columns (ids, scores, boxes, decoded compressed
RLEs, keypoints); this module applies the bulk paths' rules (``results_bulk``) to them and
gives the same columns they give, without a Python object per entry. It takes only files the
bulk paths would take: anything else gives ``None`` and the existing readers run, so every
outcome and message stays theirs. ``tests/kernel/test_json_kernel.py`` checks both agree.
"""

from __future__ import annotations

import mmap
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from vocviewer import kernel
from vocviewer.core.arrays import sealed
from vocviewer.core.errors import FormatError
from vocviewer.families.coco import results_bulk as bulk
from vocviewer.families.coco.rle_strings import RleStrings
from vocviewer.formats.input import MAX_FILE_BYTES, MAX_IMAGE_PIXELS, check_regular

IntArray = npt.NDArray[np.int64]
T = TypeVar("T")
#: What the scanner reads: a file's bytes, or the file mapped into memory.
Buffer = bytes | mmap.mmap

__all__ = [
    "box_columns",
    "file_box_columns",
    "file_bytes",
    "file_located_masks",
    "file_mapped",
    "file_result_columns",
    "plain_columns",
    "result_columns",
]


def result_columns(data: Buffer, *, masks: int = 1) -> dict[str, Any] | None:
    """The kernel's columns of a results file's bytes (``_json.c``, ``RESULT_COLUMNS``), or
    ``None``: no kernel on this machine, or not a plain non-empty results array. ``masks`` 1:
    the RLE strings decoded (``rle``, ``rle_len``); 2: kept as strings (``rle_chars``,
    ``rle_nchars``; ``rle_len`` their values); 0: not decoded (``rle_len`` 0), and a large file
    scanned in parts across the cores (the same columns as one thread's scan)."""
    module = kernel.load("_json")
    return None if module is None else module.results(data, masks, kernel.cores())


def box_columns(data: Buffer) -> bulk.Columns | None:
    """``(image_id, category_id, score, xywh)`` of a box results file whose every entry has a
    ``bbox`` (as ``results_fast.box_columns``), or ``None``."""
    r = result_columns(data, masks=0)
    if r is None or not r["has_bbox"].all():
        return None
    return r["image_id"], r["category_id"], r["score"], r["bbox"].reshape(-1, 4)


def file_box_columns(path: Path) -> bulk.Columns | None:
    """``box_columns`` of the regular file ``path``, scanned where the system maps it into
    memory (no copy of its bytes), or ``None``: no kernel, not a plain box file, or a file
    that is empty, too large or cannot be mapped (the readers then read it and name what they
    find)."""
    return _scan_mapped(path, box_columns)


def file_result_columns(path: Path) -> dict[str, Any] | None:
    """``result_columns`` of the regular file ``path`` mapped into memory without its masks (as
    ``file_box_columns``; ``plain_columns`` takes them as ``scanned`` for keypoints), or
    ``None`` (the readers then read the file and name what they find). Runs without the GIL:
    the CLI scans a keypoint results file while the annotation file is read."""
    return _scan_mapped(path, lambda view: result_columns(view, masks=0))  # (scanned in parts)


def file_located_masks(path: Path) -> dict[str, Any] | None:
    """``result_columns`` of the regular file ``path`` mapped into memory read-only
    (``file_mapped``), its masks' strings located where the text holds them (``masks=3``:
    nothing copied), the mapping under ``"data"`` (``plain_columns`` takes them as ``scanned``
    for segm: the masks read there), or ``None`` (the readers then read the file and name what
    they find). Runs without the GIL: the CLI scans a segm results file while the annotation
    file is read."""
    if kernel.load("_json") is None or (view := file_mapped(path)) is None:
        return None
    try:
        r = result_columns(view, masks=3)
    except (OSError, ValueError):
        r = None
    if r is None:
        view.close()
        return None
    r["data"] = view
    return r


def _scan_mapped(path: Path, scan: Callable[[mmap.mmap], T | None]) -> T | None:
    """``scan`` of the regular file ``path`` mapped into memory; ``None`` without the kernel,
    for an empty, too large or unmappable file, or where ``scan`` declines."""
    if kernel.load("_json") is None:
        return None
    try:
        size = check_regular(path)
        if size == 0 or size > MAX_FILE_BYTES:
            return None
        with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as view:
            return scan(view)
    except (FormatError, OSError, ValueError):
        return None


def _kind(r: dict[str, Any]) -> str:
    """``loadRes``' branch, chosen by the first entry (``results_reader._kind``)."""
    if r["has_bbox"][0]:
        return "bbox"
    if r["has_segm"][0]:
        return "segm"
    return "keypoints" if r["has_keypoints"][0] else "?"


def file_bytes(path: Path) -> mmap.mmap | None:
    """The bytes of the regular file ``path`` mapped into memory privately (copy-on-write) so
    that ``plain_columns`` may write them (a segm file's strings are kept in place there: no
    second copy of them; only the pages written get memory of their own, the rest is read
    from the system's file cache without a copy), or ``None`` (the caller then reads it with
    ``read_json_bytes``, which names any problem)."""
    return _mapped(path, mmap.ACCESS_COPY)


def file_mapped(path: Path) -> mmap.mmap | None:
    """The regular file ``path`` mapped into memory read-only (its pages are the system's file
    cache: nothing copied, no memory of the process's own), for a short-lived reader (the CLI)
    that may keep a segm file's strings where they are (``plain_columns``: the mapping lives
    as long as the masks; a file cut short meanwhile makes their reading decline or raise
    ``OSError``, SIGBUS guarded), or ``None`` (then ``file_bytes``)."""
    return _mapped(path, mmap.ACCESS_READ)


def _mapped(path: Path, access: int) -> mmap.mmap | None:
    """The regular file ``path`` mapped whole with ``access``; ``None`` for an empty, too large
    or unmappable file, or one whose size changed meanwhile."""
    try:
        size = check_regular(path)
        if size == 0 or size > MAX_FILE_BYTES:
            return None
        with open(path, "rb") as fh:
            buf = mmap.mmap(fh.fileno(), 0, access=access)
        if len(buf) != size:  # (changed meanwhile)
            buf.close()
            return None
    except (FormatError, OSError, ValueError):
        return None
    return buf


def _kept_in_place(data: mmap.mmap, n: int) -> npt.NDArray[np.uint8]:
    """The first ``n`` bytes of ``data`` as an array (a view); the pages after them given back
    to the system where it can be told (``madvise``)."""
    page = mmap.PAGESIZE
    first = -(-n // page) * page
    if hasattr(mmap, "MADV_DONTNEED") and first < len(data):
        data.madvise(mmap.MADV_DONTNEED, first, len(data) - first)
    return np.frombuffer(data, np.uint8, n)


def plain_columns(
    data: Buffer | None,
    task: str,
    image_ids: IntArray,
    category_ids: IntArray,
    height: IntArray,
    width: IntArray,
    *,
    scanned: dict[str, Any] | None = None,
) -> tuple[str, bulk.SegmColumns | bulk.KeypointColumns] | None:
    """The kind of file and its columns for ``task`` ``"segm"`` (``bulk.segm_columns``) or
    ``"keypoints"`` (``bulk.keypoint_columns``), or ``None`` when the bulk path would not take
    the file (the readers then decide). ``data``: the file's bytes, or ``None`` with
    ``scanned``: its ``result_columns`` already. ``image_ids``, ``category_ids``: the
    annotation file's, int64 (I,), (K,); ``height``, ``width``: per image row, int64 (I,).
    ``data`` from ``file_bytes`` (writable): the masks' strings are kept at its front (``data``
    is not read again); ``scanned`` from ``file_located_masks``: its strings are read in its
    ``"data"``."""
    r = scanned
    if r is not None and "data" in r:
        data = r["data"]
    if r is None and data is not None and task == "segm" and memoryview(data).readonly:
        r = result_columns(data, masks=3)  # (strings located where they are: nothing copied)
    if r is None and data is not None and task in ("segm", "keypoints"):
        r = result_columns(data, masks=2)
    if r is None:
        return None
    kind = _kind(r)
    box_kind = kind == "bbox"
    if box_kind and not r["has_bbox"].all():
        return None
    if task == "segm" and kind in ("bbox", "segm"):
        if "rle_start" in r and len(r["rle_start"]):  # left in the text (masks=3)
            r["rle_chars"] = np.frombuffer(data, np.uint8)  # type: ignore[arg-type]
        elif len(r["rle_chars"]) == 0 and isinstance(data, mmap.mmap):  # kept in place
            r["rle_chars"] = _kept_in_place(data, int(r["rle_nchars"].sum()))
        s = _segm(r, image_ids, category_ids, height, width, box_kind)
        return None if s is None else (kind, s)
    if task == "keypoints" and kind in ("bbox", "keypoints"):
        k = _keypoints(r, image_ids, category_ids, box_kind)
        return None if k is None else (kind, k)
    return None


def _segm(
    r: dict[str, Any],
    image_ids: IntArray,
    category_ids: IntArray,
    height: IntArray,
    width: IntArray,
    box_kind: bool,
) -> bulk.SegmColumns | None:
    """``bulk.segm_columns`` of the kernel's columns (every mask a compressed RLE string, kept
    as one: ``RleStrings``)."""
    if not r["has_segm"].all():
        return None
    img, label = bulk.lookup(image_ids, r["image_id"]), bulk.lookup(category_ids, r["category_id"])
    if img is None or label is None:
        return None
    h, w = sealed(r["segm_h"]), sealed(r["segm_w"])  # handed over: the masks keep them
    if not (np.array_equal(h, height[img]) and np.array_equal(w, width[img])):
        return None
    if (h <= 0).any() or (w <= 0).any() or (h > MAX_IMAGE_PIXELS).any():
        return None
    if (w > MAX_IMAGE_PIXELS).any() or (h * w > MAX_IMAGE_PIXELS).any():
        return None
    at = r["rle_start"] if len(r.get("rle_start", ())) else None
    masks = RleStrings.checked(r["rle_chars"], r["rle_nchars"], r["rle_len"], h, w, at)
    if masks is None:
        return None
    boxed = np.flatnonzero(r["has_bbox"])
    boxes = r["bbox"].reshape(-1, 4)
    given = boxes if len(boxed) == len(boxes) else boxes[boxed]  # (every one boxed: no copy)
    return bulk.segm_result(img, label, r["score"], masks, boxed, given, box_kind)


def _keypoints(
    r: dict[str, Any], image_ids: IntArray, category_ids: IntArray, box_kind: bool
) -> bulk.KeypointColumns | None:
    """``bulk.keypoint_columns`` of the kernel's columns (every entry the same positive
    multiple of 3 numbers)."""
    lens = r["kp_len"]
    n = len(lens)
    if not r["has_keypoints"].all() or lens[0] == 0 or lens[0] % 3 or (lens != lens[0]).any():
        return None
    kp = sealed(r["keypoints"]).reshape(n, -1, 3)  # handed over: the model keeps it, no copy
    given = r["bbox"].reshape(n, 4) if box_kind else np.zeros((n, 4))
    ids = (r["image_id"], r["category_id"], r["score"])
    # (every number the scanner takes is finite: it declines NaN, Infinity and overflows)
    return bulk.keypoint_result(ids, kp, given, image_ids, category_ids, box_kind, finite=True)
