"""Schema checks for COCO annotation and results JSON: every field a reader uses, named by its path.

Each check returns the value in the form the readers store, or raises ``FormatError`` naming the
file and the JSON path (``images[3].width``, ``[7].segmentation.size``) with what was expected
and what was found. Declared sizes (image ``width`` x ``height``, an RLE's ``size``) go through
``formats.input.check_image_size`` and RLE runs must sum to ``h * w``, so no mask of a declared
size is ever allocated before it is known to be sane; polygons are bounded by ``polygon_work``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core import masks as mk
from vocviewer.core.errors import FormatError
from vocviewer.formats.input import check_image_size
from vocviewer.formats.json_input import show

FloatArray = npt.NDArray[np.float64]

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

#: Largest polygon coordinate (pixels): pycocotools scales by 5 into a C ``int``.
MAX_COORDINATE = 4e8


class MissingField(FormatError):
    """A ground-truth annotation lacks a field the official evaluator reads (``missing "id"``
    at ``annotations[i]``)."""


#: Most pixel columns one polygon may cross (sum over its edges of the larger of |dx|, |dy|):
#: rasterising costs about 140 bytes per column crossed, so this keeps one polygon under 300 MB.
MAX_POLYGON_WORK = 2_000_000


def is_number(v: Any) -> bool:
    """A JSON number (``int`` or ``float``; ``true`` / ``false`` are not numbers)."""
    return type(v) is int or type(v) is float


def json_int(path: Path, v: Any, where: str, what: str = "an integer") -> int:
    """An integer within int64 (ids; a whole float such as ``3.0`` too, as Python's dicts in
    pycocotools take it); ``FormatError`` otherwise."""
    if type(v) is float and math.isfinite(v) and v == int(v):
        v = int(v)
    if type(v) is not int:
        raise FormatError(path, f"expected {what}, got {show(v)}", element=where)
    if not INT64_MIN <= v <= INT64_MAX:
        raise FormatError(path, f"expected {what} within 64 bits, got {show(v)}", element=where)
    return v


def int_field(path: Path, a: dict[str, Any], key: str, where: str, what: str) -> int:
    """``json_int`` of ``a[key]`` (path ``where.key``), with a fast path for plain ints;
    ``missing "key"`` at ``where`` when there is no such key."""
    v = a.get(key)
    if type(v) is int and INT64_MIN <= v <= INT64_MAX:
        return v
    if key not in a:
        raise MissingField(path, f'missing "{key}"', element=where)
    return json_int(path, v, f"{where}.{key}", what)


def finite_bbox(path: Path, a: dict[str, Any], where: str) -> tuple[float, ...]:
    """Ground truth's ``bbox``: 4 finite numbers (fast path for the usual case)."""
    v = a.get("bbox")
    if type(v) is list and len(v) == 4 and all(map(is_number, v)):
        try:
            b = tuple(map(float, v))
        except OverflowError:
            b = ()
        if b and all(map(math.isfinite, b)):
            return b
    if "bbox" not in a:
        raise MissingField(path, 'missing "bbox"', element=where)
    arr = bbox(path, v, f"{where}.bbox")
    finite_or_raise(path, arr, f"{where}.bbox")
    raise FormatError(path, "expected 4 finite numbers", element=f"{where}.bbox")


def json_size(path: Path, v: Any, where: str) -> int:
    """A positive whole number of pixels (``640`` or ``640.0``)."""
    if type(v) is int and 0 < v <= INT64_MAX:
        return v
    if type(v) is float and math.isfinite(v) and v == int(v) and 0 < v <= INT64_MAX:
        return int(v)
    raise FormatError(path, f"expected a positive integer, got {show(v)}", element=where)


def json_number(path: Path, v: Any, where: str) -> float:
    """A JSON number as float; NaN / infinity pass (callers apply the non-finite rule)."""
    if is_number(v):
        try:
            return float(v)
        except OverflowError:
            pass
    raise FormatError(path, f"expected a number, got {show(v)}", element=where)


def json_numbers(path: Path, v: Any, where: str, *, count: int = 0, step: int = 1) -> FloatArray:
    """A list of numbers as float64: exactly ``count`` of them, else a multiple of ``step``."""
    if not isinstance(v, list):
        raise FormatError(path, f"expected a list of numbers, got {show(v)}", element=where)
    try:
        out = np.array(v, dtype=np.float64) if all(map(is_number, v)) else None
    except OverflowError:  # an integer beyond float
        out = None
    if out is None:
        for i, x in enumerate(v):
            json_number(path, x, f"{where}[{i}]")  # raises at the first that is not a number
        raise FormatError(path, "expected numbers", element=where)
    if count and len(v) != count:
        raise FormatError(path, f"expected {count} numbers, got {len(v)}", element=where)
    if step > 1 and len(v) % step:
        raise FormatError(
            path, f"expected a multiple of {step} numbers, got {len(v)}", element=where
        )
    return out.reshape(-1)


def bbox(path: Path, v: Any, where: str) -> FloatArray:
    """``[x, y, w, h]``: 4 numbers (not necessarily finite)."""
    return json_numbers(path, v, where, count=4)


def finite_or_raise(path: Path, a: FloatArray, where: str) -> None:
    """Ground truth's non-finite rule: every value of ``a`` (the list at ``where``) is finite."""
    if not np.isfinite(a).all():
        bad = int(np.flatnonzero(~np.isfinite(a))[0])
        raise FormatError(
            path, f"expected a finite number, got {show(float(a[bad]))}", element=f"{where}[{bad}]"
        )


def rle_size(path: Path, size: Any, where: str) -> tuple[int, int]:
    """An RLE's ``size``: ``[h, w]``, two positive integers within the image-size limit."""
    if not (isinstance(size, list) and len(size) == 2 and all(type(s) is int for s in size)):
        raise FormatError(
            path,
            f"expected [height, width] (two positive integers), got {show(size)}",
            element=where,
        )
    h, w = size
    check_image_size(path, w, h, element=where)
    return h, w


def rle_counts(path: Path, segm: Any, where: str) -> tuple[mk.Counts, int, int]:
    """An RLE ``{"size": [h, w], "counts": ...}`` (uncompressed list or compressed string) as
    validated counts: no negative run, runs summing to ``h * w``."""
    if not isinstance(segm, dict) or "counts" not in segm:
        raise FormatError(path, "expected polygons or an RLE {size, counts}", element=where)
    h, w = rle_size(path, segm.get("size"), f"{where}.size")
    raw = segm["counts"]
    cw = f"{where}.counts"
    if isinstance(raw, list):
        if not all(type(c) is int for c in raw):
            bad = next(c for c in raw if type(c) is not int)
            raise FormatError(path, f"expected run lengths (integers), got {show(bad)}", element=cw)
        if any(c < 0 for c in raw):
            bad = next(c for c in raw if c < 0)
            raise FormatError(path, f"negative run length {bad}", element=cw)
        if sum(raw) != h * w:
            raise FormatError(
                path, f"runs sum to {sum(raw)}, not {h} x {w} = {h * w} pixels", element=cw
            )
        counts = np.array(raw, dtype=np.int64)
    elif isinstance(raw, str):
        try:
            counts = mk.from_string(raw)
        except (ValueError, UnicodeEncodeError):
            raise FormatError(path, "not a compressed RLE string", element=cw) from None
        if ((counts < 0) | (counts > h * w)).any():
            raise FormatError(
                path, "compressed RLE decodes to a run below 0 or above h * w", element=cw
            )
    else:
        raise FormatError(
            path, f"expected a list of runs or a compressed string, got {show(raw)}", element=cw
        )
    total = int(counts.sum())
    if total != h * w:
        raise FormatError(path, f"runs sum to {total}, not {h} x {w} = {h * w} pixels", element=cw)
    return counts, h, w


def polygon_parts(path: Path, segm: list[Any], where: str) -> list[FloatArray]:
    """The flat ``x0, y0, x1, y1, ...`` polygons of a list ``segmentation``, as
    ``masks.polygons_to_rle`` reads them: a first entry of exactly 4 numbers makes every entry an
    ``x, y, w, h`` box, taken as its corner polygon (as ``bbox_to_rle`` builds it). Coordinates
    must be finite numbers, of even count, within ``MAX_COORDINATE``."""
    parts: list[FloatArray] = []
    boxes = bool(segm) and isinstance(segm[0], list) and len(segm[0]) == 4
    for i, p in enumerate(segm):
        pw = f"{where}[{i}]"
        a = json_numbers(path, p, pw, count=4 if boxes else 0, step=2)
        finite_or_raise(path, a, pw)
        if (np.abs(a) > MAX_COORDINATE).any():
            raise FormatError(
                path, f"polygon coordinate beyond ±{MAX_COORDINATE:.0e} pixels", element=pw
            )
        if boxes:
            bx, by, bw, bh = a.tolist()
            a = np.array([bx, by, bx, by + bh, bx + bw, by + bh, bx + bw, by], dtype=np.float64)
        parts.append(a)
    return parts


def polygon_work(parts: list[FloatArray]) -> npt.NDArray[np.float64]:
    """Per polygon, the pixel columns / rows its edges cross (rasterising cost), float64 (P,)."""
    if not parts:
        return np.zeros(0)
    lens = np.array([len(p) for p in parts], dtype=np.int64)
    return polygon_work_flat(np.concatenate(parts), lens)


def polygon_work_flat(xy: FloatArray, part_len: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """``polygon_work`` of polygons given flat: ``xy`` every coordinate, ``part_len`` the
    coordinates of each polygon (even)."""
    lens = part_len // 2
    pts = xy.reshape(-1, 2)
    start = np.cumsum(lens) - lens
    d = np.empty_like(pts)  # each point to the next of its polygon (the last: to the first)
    np.subtract(pts[1:], pts[:-1], out=d[:-1])
    nz = lens > 0
    ends = (start + lens - 1)[nz]
    d[ends] = pts[start[nz]] - pts[ends]
    np.abs(d, out=d)
    step = np.maximum(d[:, 0], d[:, 1])  # (``max(axis=1)`` of two: several times slower)
    owner = np.repeat(np.arange(len(lens)), lens)
    return np.bincount(owner, weights=step, minlength=len(lens)).astype(np.float64)


class KeptRows:
    """Result rows read despite an oddity the official code accepts, by JSON path, reported
    once per file (``warnings``): kept with a non-finite value or an RLE of another size than
    its image; left out for a category the annotation file lacks (``COCOeval`` ignores them)."""

    def __init__(self) -> None:
        self.nonfinite: list[str] = []
        self.resized: list[str] = []
        self.other_category: list[str] = []

    def check(self, a: FloatArray, where: str) -> None:
        """Note ``where`` if ``a`` holds a NaN or infinity."""
        if not np.isfinite(a).all():
            self.nonfinite.append(where)

    def warnings(self, path: Path) -> list[FormatError]:
        """One warning per kind of kept row, naming the first."""
        out = []
        if self.nonfinite:
            out.append(nonfinite_warning(path, len(self.nonfinite), self.nonfinite[0]))
        if self.resized:
            out.append(
                FormatError(
                    path,
                    f"{len(self.resized)} RLE(s) whose size differs from their image's; kept "
                    "(pycocotools gives them IoU -1)",
                    element=self.resized[0],
                )
            )
        if self.other_category:
            out.append(
                FormatError(
                    path,
                    f"{len(self.other_category)} result(s) of a category not in the annotation "
                    "file (first shown); left out, as COCOeval leaves them out",
                    element=self.other_category[0],
                )
            )
        return out


def nonfinite_warning(path: Path, n: int, first: str) -> FormatError:
    """The once-per-file warning for rows with a NaN / infinite score or coordinate."""
    return FormatError(
        path,
        f"{n} result(s) with a NaN or infinite value (first shown); kept and evaluated as "
        "pycocotools does, never drawn",
        element=first,
    )


def refuse_foreign_results(path: Path, title: str) -> None:
    """``FormatError`` when ``path`` is not JSON but another family's results (a VOC
    ``comp*_det_*.txt``: ``image score x1 y1 x2 y2`` lines; a VOC classification file; a
    VisDrone file: comma-separated numbers), saying what it is and that the open ``title``
    dataset (COCO, LVIS) expects a COCO results JSON. Anything else passes (the reader reports
    it; a FIFO or folder is never opened here)."""
    if not path.is_file():
        return
    try:
        with path.open("rb") as f:
            head = f.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    except OSError:
        return
    if not head or head[:1] in b"[{":
        return
    line = head.decode("latin-1").splitlines()[0]
    what = ""  # anything else: the JSON parser says where it fails
    for kind, fields, sep in (
        ("a VOC detection results file (image, score, box per line)", (6,), None),
        ("a VOC classification results file (image, score per line)", (2,), None),
        ("a VisDrone results file (comma-separated boxes)", (8, 10), ","),
    ):
        tokens = line.split(sep)
        if len(tokens) in fields and all(_number(t) for t in tokens[1 if not sep else 0 :]):
            what = kind
            break
    if not what:
        return
    raise FormatError(
        path,
        f"{what}, not COCO results: the open {title} dataset expects a COCO results JSON "
        "(a list of {image_id, category_id, bbox or segmentation, score})",
        line=1,
    )


def _number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True
