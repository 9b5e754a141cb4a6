"""VisDrone-DET split folders and result folders → ``core.Dataset`` / ``core.ResultSet``.

Layout: ``SPLIT/annotations/<name>.txt`` and ``SPLIT/images/<name>.jpg``; results are a folder
of ``<name>.txt`` files with the same names. Every row (annotation and result) is
``left,top,width,height,score,category,truncation,occlusion``; a trailing comma and surrounding
whitespace are accepted, blank lines are skipped.

Accepted values: numbers for the box with width and height >= 0; integral category 0..11;
integral truncation and occlusion. Annotations need finite boxes and a score of exactly 0 or 1.
Results follow the program-wide non-finite rule: a NaN/inf coordinate or a NaN score is kept and
evaluated as the toolkit does (it overlaps nothing; a NaN score ranks last) and the first such
line of each file is reported in ``ResultSet.warnings``. Any other bad row is a
``FormatError`` with file and line and left out; the rest loads (the numbers are then not
official). Images are sorted by name (the toolkit's directory listing order). The image size is
read (image header only, Pillow) just for images holding ignored regions (category 0).

Files are opened through ``formats.input``: a FIFO, device, folder or link loop in a listing is a
problem naming that file, and the rest loads.

Result folders: an **empty file** means "no detections" (the official code crashes on it); a
**missing file** is listed in ``VisDroneGroundTruth.missing`` and treated as empty.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vocviewer.core.dataset import Dataset, ImageTable, ObjectTable
from vocviewer.core.errors import FormatError
from vocviewer.core.results import Detections, ResultSet
from vocviewer.families.visdrone.columns import (
    VISDRONE_CATEGORIES,
    VisDroneDetections,
    VisDroneGroundTruth,
)
from vocviewer.formats.input import check_image_size, check_regular, read_text
from vocviewer.formats.text_fields import FileProblems, to_float, to_int

Row = tuple[float, float, float, float, float, int, int, int]
_FIELDS = "left,top,width,height,score,category,truncation,occlusion"


_INT_LIMIT = 2**31  # truncation / occlusion are small flags; bounded so columns stay int64


def parse_row(line: str, *, ground_truth: bool) -> Row | str:
    """One row, or the reason it is rejected (a message without the location)."""
    text = line.strip()
    if text.endswith(","):
        text = text[:-1]
    fields = [f.strip() for f in text.split(",")]
    if len(fields) != 8:
        return f"expected 8 comma-separated fields ({_FIELDS}), found {len(fields)}"
    nums: list[float] = []
    for name, f in zip(_FIELDS.split(","), fields[:5], strict=False):
        v = to_float(f)
        if v is None:
            return f"{name} is not a number: {_short(f)}"
        if ground_truth and not math.isfinite(v):
            return f"{name} is not a finite number: {_short(f)}"
        if name in ("width", "height") and v < 0:
            return f"{name} is negative: {_short(f)}"
        nums.append(v)
    if ground_truth and not (math.isfinite(nums[0] + nums[2]) and math.isfinite(nums[1] + nums[3])):
        return "left + width or top + height is not a finite number"
    ints: list[int] = []
    for name, f in zip(("category", "truncation", "occlusion"), fields[5:], strict=True):
        i = to_int(f)
        if i is None or not -_INT_LIMIT < i < _INT_LIMIT:
            return f"{name} is not an integer: {_short(f)}"
        ints.append(i)
    if not 0 <= ints[0] < len(VISDRONE_CATEGORIES):
        return f"unknown category {ints[0]} (expected 0..{len(VISDRONE_CATEGORIES) - 1})"
    if ground_truth and nums[4] not in (0.0, 1.0):
        return f"annotation score must be 1 (evaluate) or 0 (ignore), found {_short(fields[4])}"
    return (nums[0], nums[1], nums[2], nums[3], nums[4], ints[0], ints[1], ints[2])


def _short(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def read_rows(
    path: Path, problems: list[FormatError], *, ground_truth: bool
) -> tuple[list[Row], list[int]]:
    """Rows of one file and their 1-based line numbers; bad rows go to ``problems``.

    An unreadable file (FIFO, device, folder, link loop, ...) adds one problem and no rows.
    """
    try:
        text = read_text(path)
    except FormatError as exc:
        problems.append(FormatError(path, exc.message + "; file skipped"))
        return [], []
    fast = _fast_rows(text, ground_truth=ground_truth)
    if fast is not None:
        return fast
    rows: list[Row] = []
    lines: list[int] = []
    sink = FileProblems(problems, path)
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        row = parse_row(line, ground_truth=ground_truth)
        if isinstance(row, str):
            sink.add(row + "; row skipped", line=n)
        else:
            rows.append(row)
            lines.append(n)
    sink.close()
    return rows, lines


def _fast_rows(text: str, *, ground_truth: bool) -> tuple[list[Row], list[int]] | None:
    """Vectorised parse of a clean file; ``None`` if anything needs the per-line path."""
    if "_" in text or not text.isascii():
        return None
    numbered = [(n, ln.strip()) for n, ln in enumerate(text.splitlines(), start=1)]
    numbered = [(n, ln[:-1] if ln.endswith(",") else ln) for n, ln in numbered if ln]
    if not numbered or any(ln.count(",") != 7 for _, ln in numbered):
        return None if numbered else ([], [])
    try:
        a = np.array(",".join(ln for _, ln in numbered).split(","), dtype=np.float64)
    except ValueError:
        return None
    a = a.reshape(-1, 8)
    ints = a[:, 5:]
    with np.errstate(all="ignore"):
        ends = a[:, :2] + a[:, 2:4]
        ok = (
            not (a[:, 2:4] < 0).any()
            and np.isfinite(ints).all()
            and (np.abs(ints) < _INT_LIMIT).all()
            and (ints == np.trunc(ints)).all()
            and ((a[:, 5] >= 0) & (a[:, 5] < len(VISDRONE_CATEGORIES))).all()
            and (
                not ground_truth
                or (
                    np.isfinite(a[:, :4]).all()
                    and np.isfinite(ends).all()
                    and np.isin(a[:, 4], (0.0, 1.0)).all()
                )
            )
        )
    if not ok:
        return None
    cols = a[:, :5].tolist()
    cats = ints.astype(np.int64).tolist()
    rows: list[Row] = [(*f, *c) for f, c in zip(cols, cats, strict=True)]
    return rows, [n for n, _ in numbered]


def _image_size(path: Path, problems: list[FormatError]) -> tuple[int, int]:
    """(height, width) from the image header; (0, 0) with a problem if unreadable or too big."""
    from PIL import Image

    try:
        check_regular(path)
        with warnings.catch_warnings():  # only the header is read: no bomb to warn about
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path) as im:
                w, h = (int(v) for v in im.size)
        check_image_size(path, w, h)
    except FormatError as exc:
        reason = exc.message
    except (OSError, ValueError, SyntaxError, EOFError, Image.DecompressionBombError) as exc:
        reason = str(exc) or type(exc).__name__
    else:
        return h, w
    problems.append(
        FormatError(
            path,
            f"cannot read the image size ({reason}); it is needed for the ignored regions of "
            "this image, which are then not applied (numbers not official)",
        )
    )
    return 0, 0


def read_visdrone(root: str | Path) -> Dataset:
    """Read a VisDrone-DET split folder (``annotations/``, ``images/``).

    Objects keep every annotation row in file order (label = category number, index into
    ``VISDRONE_CATEGORIES``); boxes are ``"continuous"`` ``left, top, left+w, top+h``;
    ``difficult`` marks score-0 (ignore-flagged) rows, ``truncated``/``occluded`` nonzero values.
    """
    root = Path(root)
    ann_dir = root / "annotations"
    if not ann_dir.is_dir():
        raise FormatError(root, "expected a VisDrone split folder with annotations/ and images/")
    problems: list[FormatError] = []
    names = _listing(ann_dir, problems)
    all_rows: list[Row] = []
    image_of: list[int] = []
    order: list[int] = []
    heights = np.zeros(len(names), dtype=np.int64)
    widths = np.zeros(len(names), dtype=np.int64)
    paths: list[Path] = []
    for i, name in enumerate(names):
        rows, _ = read_rows(ann_dir / name, problems, ground_truth=True)
        stem = name[:-4] if name.endswith(".txt") else name
        img = root / "images" / f"{stem}.jpg"
        paths.append(img)
        if any(r[5] == 0 for r in rows):
            heights[i], widths[i] = _image_size(img, problems)
        all_rows += rows
        image_of += [i] * len(rows)
        order += list(range(len(rows)))
    arr = np.array(all_rows, dtype=np.float64).reshape(-1, 8)
    ltwh = arr[:, :4]
    box = np.column_stack(
        (ltwh[:, 0], ltwh[:, 1], ltwh[:, 0] + ltwh[:, 2], ltwh[:, 1] + ltwh[:, 3])
    )
    cat = arr[:, 5].astype(np.int64)
    objects = ObjectTable.from_boxes(
        image_of,
        cat,
        box,
        order,
        difficult=arr[:, 4] == 0,
        truncated=arr[:, 6] > 0,
        occluded=arr[:, 7] > 0,
    )
    stems = [p.stem for p in paths]
    images = ImageTable(
        id=np.array(stems, dtype=np.str_),
        path=tuple(paths),
        width=widths.astype(np.int32),
        height=heights.astype(np.int32),
        segmented=np.zeros(len(names), dtype=bool),
    )
    extras = VisDroneGroundTruth(
        ltwh=ltwh,
        score=arr[:, 4],
        category=cat,
        truncation=arr[:, 6].astype(np.int64),
        occlusion=arr[:, 7].astype(np.int64),
        image_height=heights,
        image_width=widths,
    )
    return Dataset(
        name=root.name,
        root=root,
        classes=VISDRONE_CATEGORIES,
        box_convention="continuous",
        images=images,
        objects=objects,
        problems=tuple(problems),
        family_data=(extras,),
        roots=(root,),
    )


def _listing(ann_dir: Path, problems: list[FormatError]) -> list[str]:
    """Names of the regular files in ``annotations/``; a ``*.txt`` entry that is not one (FIFO,
    device, folder, link loop) is a problem and left out (it then has no image row)."""
    try:
        entries = sorted(ann_dir.iterdir())
    except OSError as exc:
        raise FormatError(ann_dir, f"cannot list: {exc.strerror or exc}") from None
    names: list[str] = []
    for p in entries:
        try:
            check_regular(p)
        except FormatError as exc:
            if p.suffix == ".txt":
                problems.append(FormatError(p, exc.message + "; annotation file skipped"))
            continue
        names.append(p.name)
    return names


def _nonfinite(files: Sequence[Path], dets: Detections) -> tuple[FormatError, ...]:
    """One warning per file for its first row with a NaN/inf coordinate or a NaN score."""
    bad = ~np.isfinite(dets.box).all(axis=1) | np.isnan(dets.score)
    out: list[FormatError] = []
    for fi in np.unique(dets.file_index[bad]).tolist():
        rows = bad & (dets.file_index == fi)
        first = int(dets.line[rows].min())
        out.append(
            FormatError(
                files[fi],
                f"{int(rows.sum())} row(s) with a NaN/inf coordinate or a NaN score (first here); "
                "kept and evaluated as the toolkit does (they match nothing; a NaN score ranks "
                "last), never drawn",
                line=first,
            )
        )
    return tuple(out)


def read_visdrone_results(
    dataset: Dataset, paths: Sequence[str | Path], *, name: str | None = None
) -> ResultSet:
    """Read a VisDrone result folder (``<name>.txt`` per annotation file) for ``dataset``.

    ``paths`` holds one folder (or the ``.txt`` files themselves). Rows keep file order;
    ``VisDroneDetections.row_in_file`` numbers the rows read per file (the toolkit's cap counts
    file rows).
    """
    given = [Path(p) for p in paths]
    by_name: dict[str, Path] = {}
    for p in given:
        if p.is_dir():
            by_name.update({f.name: f for f in sorted(p.glob("*.txt"))})
        else:
            check_regular(p)  # FormatError for a FIFO, device, link loop or missing file
            by_name[p.name] = p
    problems: list[FormatError] = []
    files: list[Path] = []
    cols: list[list[float]] = [[] for _ in range(9)]
    lines: list[int] = []
    within: list[int] = []
    missing: list[str] = []
    for img_path in dataset.images.path:
        fname = f"{img_path.stem}.txt"
        f = by_name.pop(fname, None)
        if f is None:
            missing.append(fname)
            continue
        rows, nums = read_rows(f, problems, ground_truth=False)
        fi = len(files)
        files.append(f)
        for k, r in enumerate(rows):
            for c in range(8):
                cols[c].append(r[c])
            cols[8].append(fi)
            within.append(k)
        lines += nums
    image_rows = _image_rows(dataset, files)
    fidx = np.array(cols[8], dtype=np.int64)
    # column by column: one conversion of every value would hold the interpreter lock for long
    arr = np.empty((len(fidx), 8))
    for c in range(8):
        arr[:, c] = cols[c]
    ltwh = arr[:, :4]
    with np.errstate(all="ignore"):  # inf + -inf is NaN: kept, as the toolkit's sums give
        box = np.column_stack(
            (ltwh[:, 0], ltwh[:, 1], ltwh[:, 0] + ltwh[:, 2], ltwh[:, 1] + ltwh[:, 3])
        )
    cat = arr[:, 5].astype(np.int64)
    dets = Detections(
        image_index=image_rows[fidx] if len(fidx) else np.zeros(0, np.int64),
        label=cat,
        score=arr[:, 4],
        box=box,
        file_index=fidx,
        line=np.array(lines, dtype=np.int64),
    )
    extras = VisDroneDetections(
        ltwh=ltwh,
        category=cat,
        row_in_file=np.array(within, dtype=np.int64),
        missing=tuple(missing),
        extra=tuple(sorted(by_name)),
    )
    label = name or (given[0].name if given else "results")
    return ResultSet(
        name=label,
        files=tuple(files),
        detections=dets,
        problems=tuple(problems),
        warnings=_nonfinite(files, dets),
        family_data=(extras,),
    )


def _image_rows(dataset: Dataset, files: Sequence[Path]) -> np.ndarray:
    """Image row of each result file (matched by stem)."""
    index = {p.stem: i for i, p in enumerate(dataset.images.path)}
    return np.array([index[f.stem] for f in files], dtype=np.int64)
