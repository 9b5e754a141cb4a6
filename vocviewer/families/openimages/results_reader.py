"""Open Images predictions → ``core.ResultSet``.

Two layouts, told apart by the header: rows ``ImageID, LabelName, Score, XMin, XMax, YMin,
YMax`` (any column order, other columns ignored), or the challenge's submission
``ImageID, PredictionString`` where the string repeats ``LabelName Score XMin YMin XMax YMax``
(note the other order) and may be empty. Coordinates are normalised, kept as written.
A row naming an image the annotations do not hold is left out and counted (the challenge
ignores it); an unknown class, a score or coordinate that is not a finite number is a problem
(``ResultSet.problems``: the evaluation refuses it unless ``--keep-going``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import Detections, ResultSet
from vocviewer.families.openimages.columns import OpenImagesGroundTruth, OpenImagesPredictions
from vocviewer.families.openimages.csv_rows import csv_records, header_columns
from vocviewer.families.openimages.csv_rows import field as get
from vocviewer.formats.input import check_regular
from vocviewer.formats.text_fields import to_float

ROW_COLUMNS = ("ImageID", "LabelName", "Score", "XMin", "XMax", "YMin", "YMax")
STRING_COLUMNS = ("ImageID", "PredictionString")
#: shown ids of unknown images, at most
SAMPLE = 5


@dataclass
class _Sink:
    image: list[int] = field(default_factory=list)
    label: list[int] = field(default_factory=list)
    score: list[float] = field(default_factory=list)
    box: list[tuple[float, float, float, float]] = field(default_factory=list)
    file_index: list[int] = field(default_factory=list)
    line: list[int] = field(default_factory=list)
    problems: list[FormatError] = field(default_factory=list)
    unknown: int = 0
    unknown_ids: set[str] = field(default_factory=set)


def _add(
    sink: _Sink,
    dataset: Dataset,
    classes: dict[str, int],
    where: tuple[Path, int, int],
    values: Sequence[str],
) -> None:
    """One detection ``image, mid, score, xmin, xmax, ymin, ymax`` (texts) read at ``where``
    (path, file index, line)."""
    path, fi, line = where
    image, mid, *numbers = values
    row = dataset.find_image(image)
    if row is None:
        sink.unknown += 1
        sink.unknown_ids.add(image)
        return
    if mid not in classes:
        sink.problems.append(FormatError(path, f"LabelName {mid!r} is not a class", line=line))
        return
    names = ("Score", "XMin", "XMax", "YMin", "YMax")
    parsed = [to_float(t) for t in numbers]
    for name, text, v in zip(names, numbers, parsed, strict=True):
        if v is None or not math.isfinite(v):
            msg = f"{name} {text!r} is not a finite number"
            sink.problems.append(FormatError(path, msg, line=line))
            return
    score, xmin, xmax, ymin, ymax = (float(v) for v in parsed)  # type: ignore[arg-type]
    sink.image.append(row)
    sink.label.append(classes[mid])
    sink.score.append(score)
    sink.box.append((ymin, xmin, ymax, xmax))
    sink.file_index.append(fi)
    sink.line.append(line)


def _read_file(path: Path, fi: int, dataset: Dataset, classes: dict[str, int], sink: _Sink) -> None:
    try:
        cols = header_columns(path, ROW_COLUMNS)
    except FormatError:
        try:
            cols = header_columns(path, STRING_COLUMNS)
        except FormatError as e:
            found = e.message.rpartition("found ")[2].rstrip(")")
            raise FormatError(
                path,
                f"the header names neither layout: expected {','.join(ROW_COLUMNS)} or "
                f"{','.join(STRING_COLUMNS)} (found {found})",
                line=1,
            ) from None
        records: list[tuple[int, list[str]]] = []
        for line, f in csv_records(path):
            image = get(path, line, f, cols["ImageID"], "ImageID")
            tokens = get(path, line, f, cols["PredictionString"], "PredictionString").split()
            if len(tokens) % 6:
                msg = (
                    f"PredictionString has {len(tokens)} values, not a multiple of 6 "
                    "(LabelName Score XMin YMin XMax YMax, repeated)"
                )
                sink.problems.append(FormatError(path, msg, line=line))
                continue
            for j in range(0, len(tokens), 6):
                mid, score, xmin, ymin, xmax, ymax = tokens[j : j + 6]
                records.append((line, [image, mid, score, xmin, xmax, ymin, ymax]))
        _add_all(sink, dataset, classes, (path, fi), records)
        return
    records = []
    at = [cols[c] for c in ROW_COLUMNS]
    last = max(at)
    for line, f in csv_records(path):
        if len(f) > last:
            records.append((line, [f[i] for i in at]))
            continue
        try:
            records.append((line, [get(path, line, f, cols[c], c) for c in ROW_COLUMNS]))
        except FormatError as e:
            sink.problems.append(e)
    _add_all(sink, dataset, classes, (path, fi), records)


def _add_all(
    sink: _Sink,
    dataset: Dataset,
    classes: dict[str, int],
    where: tuple[Path, int],
    records: list[tuple[int, list[str]]],
) -> None:
    """``records`` (line, the 7 texts) of one file: column by column where every value is
    clean, else row by row (``_add``: each problem located)."""
    path, fi = where
    if not records:
        return
    lines = [r[0] for r in records]
    cols = list(zip(*(r[1] for r in records), strict=True))
    images = [dataset.find_image(t) for t in cols[0]]
    labels = [classes.get(t) for t in cols[1]]
    numbers = "".join("".join(c) for c in cols[2:])
    clean = None not in labels and numbers.isascii() and "_" not in numbers
    if clean:
        try:
            values = np.array(cols[2:], dtype=np.float64).T
        except ValueError:
            clean = False
    if not clean or not np.all(np.isfinite(values)):
        for line, texts in records:
            _add(sink, dataset, classes, (path, fi, line), texts)
        return
    known = [i is not None for i in images]
    for image, ok in zip(cols[0], known, strict=True):
        if not ok:
            sink.unknown += 1
            sink.unknown_ids.add(image)
    keep = np.flatnonzero(known)
    sink.image += [images[i] for i in keep.tolist()]  # type: ignore[misc]
    sink.label += [labels[i] for i in keep.tolist()]  # type: ignore[misc]
    v = values[keep]
    sink.score += v[:, 0].tolist()
    sink.box += list(
        zip(v[:, 3].tolist(), v[:, 1].tolist(), v[:, 4].tolist(), v[:, 2].tolist(), strict=True)
    )
    sink.file_index += [fi] * len(keep)
    sink.line += [lines[i] for i in keep.tolist()]


def read_openimages_results(
    dataset: Dataset, paths: Sequence[str | Path], *, name: str | None = None
) -> ResultSet:
    """Read prediction CSV ``paths`` (one set; rows in file order) for the Open Images
    ``dataset``."""
    gt: OpenImagesGroundTruth = dataset.data(OpenImagesGroundTruth)
    classes = {m: i for i, m in enumerate(gt.mids)}
    files = [Path(p) for p in paths]
    sink = _Sink()
    for fi, path in enumerate(files):
        check_regular(path)
        _read_file(path, fi, dataset, classes, sink)
    n = len(sink.image)
    yx = np.array(sink.box, dtype=np.float64).reshape(n, 4)
    dets = Detections(
        image_index=np.array(sink.image, dtype=np.int64),
        label=np.array(sink.label, dtype=np.int64),
        score=np.array(sink.score, dtype=np.float64),
        box=yx[:, [1, 0, 3, 2]],
        file_index=np.array(sink.file_index, dtype=np.int64),
        line=np.array(sink.line, dtype=np.int64),
    )
    extras = OpenImagesPredictions(yx, sink.unknown, tuple(sorted(sink.unknown_ids)[:SAMPLE]))
    return ResultSet(
        name=name or (files[0].stem if files else "results"),
        files=tuple(files),
        detections=dets,
        problems=tuple(sink.problems),
        family_data=(extras,),
    )
