"""YOLO label and prediction lines → rows, and the classic-mistake checks on them.

A ground-truth line is ``cls cx cy w h`` (detection), ``cls x1 y1 x2 y2 x3 y3 ...``
(segmentation: a polygon of at least 3 points) or ``cls cx cy w h px1 py1 [v1] ...`` (pose,
``kpt_shape`` ``[K, D]``); every coordinate is normalised to [0, 1] by the image's width (x) or
height (y). A prediction line (``--save-txt --save-conf``) is the same with the confidence last.
Rows keep the file and 1-based line they came from, so every message can name them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from vocviewer.core.errors import FormatError

FloatArray = npt.NDArray[np.float64]

#: a line with a coordinate above this is not normalised (boxes of detectors reach a little past
#: the image); when at least half the lines have one, the file holds pixels
PIXELS_ABOVE = 1.5


@dataclass(frozen=True)
class LabelRow:
    """One line: class index ``cls``, ``kind`` (``box``, ``polygon``, ``pose``), ``box``
    (cx, cy, w, h, normalised; a polygon's extent), ``points`` (a polygon's (P, 2) or the
    keypoints' (K, 3), normalised; visibility 2 where a ``[K, 2]`` keypoint is not (0, 0)),
    ``score`` (predictions; ``nan`` for ground truth), ``file`` and ``line`` (1-based)."""

    cls: int
    kind: str
    box: tuple[float, float, float, float]
    points: FloatArray | None
    score: float
    file: Path
    line: int
    text: str


def _numbers(file: Path, n: int, text: str) -> list[float]:
    out = []
    for token in text.split():
        try:
            v = float(token)
        except ValueError:
            raise FormatError(file, f"'{token}' is not a number: {text!r}", line=n) from None
        if not math.isfinite(v):
            raise FormatError(file, f"'{token}' is not a finite number: {text!r}", line=n)
        out.append(v)
    return out


def _class(file: Path, n: int, v: float, text: str) -> int:
    if v != int(v) or v < 0:
        raise FormatError(
            file, f"the class index must be a whole number >= 0, got {v:g}: {text!r}", line=n
        )
    return int(v)


def _polygon_box(pts: FloatArray) -> tuple[float, float, float, float]:
    x0, y0 = pts.min(axis=0)
    x1, y1 = pts.max(axis=0)
    return (float(x0 + x1) / 2, float(y0 + y1) / 2, float(x1 - x0), float(y1 - y0))


def parse_line(
    file: Path, n: int, text: str, kpt_shape: tuple[int, int] | None, scored: bool
) -> LabelRow:
    """One line of a label file (``scored``: a prediction line, confidence last)."""
    vals = _numbers(file, n, text)
    score = math.nan
    need = "cls cx cy w h" + (" conf" if scored else "")
    if scored:
        if len(vals) in (5,) or (len(vals) > 5 and kpt_shape is None and len(vals) % 2 == 1):
            raise FormatError(
                file,
                f"{len(vals)} values, no confidence: predictions need it last "
                f"({need}); predict with --save-txt --save-conf: {text!r}",
                line=n,
            )
        if len(vals) < 6:
            raise FormatError(file, f"expected {need}, got {len(vals)} values: {text!r}", line=n)
        score = vals.pop()
    if len(vals) < 5:
        raise FormatError(file, f"expected {need}, got {len(vals)} values: {text!r}", line=n)
    cls = _class(file, n, vals[0], text)
    if kpt_shape is not None:
        k, d = kpt_shape
        if len(vals) != 5 + k * d:
            raise FormatError(
                file,
                f"expected cls cx cy w h + {k} keypoints of {d} values "
                f"({5 + k * d + scored} values), got {len(vals) + scored}: {text!r}",
                line=n,
            )
        kp = np.array(vals[5:], dtype=np.float64).reshape(k, d)
        if d == 2:  # Ultralytics: a (0, 0) keypoint is not labelled
            vis = np.where((kp[:, 0] != 0) | (kp[:, 1] != 0), 2.0, 0.0)
            kp = np.column_stack((kp, vis))
        box = (vals[1], vals[2], vals[3], vals[4])
        return LabelRow(cls, "pose", box, kp, score, file, n, text)
    if len(vals) == 5:
        return LabelRow(
            cls, "box", (vals[1], vals[2], vals[3], vals[4]), None, score, file, n, text
        )
    if len(vals) % 2 == 0 or len(vals) < 7:
        what = "a confidence after a box? (ground truth has none)" if len(vals) == 6 else ""
        raise FormatError(
            file,
            f"expected cls cx cy w h or cls x1 y1 x2 y2 x3 y3 ... (a polygon), "
            f"got {len(vals)} values{': ' + what if what else ''}: {text!r}",
            line=n,
        )
    pts = np.array(vals[1:], dtype=np.float64).reshape(-1, 2)
    return LabelRow(cls, "polygon", _polygon_box(pts), pts, score, file, n, text)


def read_label_file(
    file: Path,
    kpt_shape: tuple[int, int] | None,
    scored: bool = False,
    skipped: list[FormatError] | None = None,
) -> list[LabelRow]:
    """Every non-blank line of ``file`` (``FormatError`` naming the file and line; with
    ``skipped`` given, a bad line is listed there and left out instead)."""
    try:
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise FormatError(file, f"cannot read: {e.strerror}") from None
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(parse_line(file, n, line, kpt_shape, scored))
        except FormatError as e:
            if skipped is None:
                raise
            skipped.append(e)
    return rows


# --- the classic mistakes -------------------------------------------------------------------------
def _where(row: LabelRow) -> str:
    return f"{row.file}:{row.line}: {row.text.strip()!r}"


def coordinate_warnings(rows: list[LabelRow], what: str) -> list[str]:
    """Pixels where normalised coordinates belong, and corners (``x1 y1 x2 y2``) where YOLO's
    ``cx cy w h`` belong: one warning each, naming a sample line and the fix."""
    if not rows:
        return []
    out = []
    big = [r for r in rows if max(r.box) > PIXELS_ABOVE]
    if len(big) * 2 >= len(rows):
        out.append(
            f"{len(big)} of {len(rows)} {what} have coordinates above {PIXELS_ABOVE:g}, e.g. "
            f"{_where(big[0])}: "
            "these look like pixels, but YOLO coordinates are normalised to [0, 1]; divide x and "
            "w by the image width, y and h by its height"
        )
    boxes = np.array([r.box for r in rows if r.kind != "polygon"], dtype=np.float64).reshape(-1, 4)
    if len(boxes) >= 2:
        cx, cy, w, h = boxes.T
        outside = (cx - w / 2 < -0.01) | (cy - h / 2 < -0.01) | (cx + w / 2 > 1.01)
        outside |= cy + h / 2 > 1.01
        corners = (w >= cx) & (h >= cy)
        if np.mean(outside) >= 0.5 and np.all(corners):
            sample = next(r for r in rows if r.kind != "polygon")
            out.append(
                f"{int(np.sum(outside))} of {len(boxes)} {what} reach outside the image and every "
                f"'w h' is at least its 'cx cy', e.g. {_where(sample)}: these look like corners "
                "x1 y1 x2 y2; YOLO lines are centre and size: write cx=(x1+x2)/2, cy=(y1+y2)/2, "
                "w=x2-x1, h=y2-y1"
            )
    return out


def class_check(rows: list[LabelRow], names: tuple[str, ...], source: Path) -> None:
    """``FormatError`` for a class index past the last name, saying when the indices look
    1-based (none is 0 and the largest is one past the names)."""
    bad = [r for r in rows if r.cls >= len(names)]
    if not bad:
        return
    used = {r.cls for r in rows}
    hint = ""
    if 0 not in used and max(used) == len(names):
        hint = (
            "; no line uses class 0 and the largest index is one past the names: the indices "
            "look 1-based (off by one); subtract 1 from every class index"
        )
    r = bad[0]
    raise FormatError(
        r.file,
        f"class {r.cls} is past the last of the {len(names)} names in {source} "
        f"(indices 0 .. {len(names) - 1}): {r.text.strip()!r}{hint}",
        line=r.line,
    )
