"""VOC image-set files (``ImageSets/<task>/*.txt``) → image sets, class labels and person sets.

What each file holds (VOC2011 devkit manual §9.1):

``Main/<set>.txt``, ``Segmentation/<set>.txt``, any other folder
    One image id per line (the first whitespace token is used; PROTOCOLS.md §1.2).
``Main/<class>_<set>.txt``
    ``<id> <label>`` with label 1 / -1 / 0 → ``Dataset.class_labels[(set, class)]``.
``Layout/<set>.txt``, ``Action/<set>.txt``
    ``<id> <object index>`` (1-based position of the object in the image's XML) → a person set.
    ``Action/<set>.txt`` may also list bare ids (VOC2012 does): then it is an image set only.
``Action/<action>_<set>.txt``
    ``<id> <object index> <label>`` → a person set with labels.

Blank lines are skipped; line numbers in problems count every line, 1-based. Files are read
through ``formats.input`` (regular files only, bounded); a list file that is a link loop, a dangling
link or a FIFO is skipped with a problem.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vocviewer.core.dataset import VOC_ACTIONS, VOC_CLASSES, ImageLabels, PersonSet
from vocviewer.core.errors import FormatError
from vocviewer.formats.text_fields import (
    FileProblems,
    describe,
    listed_files,
    read_text,
    split_lines,
    to_int,
)

_LABELS = {"1": 1, "-1": -1, "0": 0}


@dataclass
class ListFile:
    """One parsed image-set file, before ids are mapped to image rows.

    ``kind`` is ``"set"`` (ids only), ``"labels"`` (``Main/<class>_<set>``), ``"persons"`` or
    ``"person_labels"``; ``lines`` the 1-based line of each kept entry; ``objects`` 1-based
    object indices and ``labels`` -1/0/1 where the kind has them.
    """

    key: str
    kind: str
    path: Path
    ids: list[str]
    lines: list[int]
    objects: list[int] | None = None
    labels: list[int] | None = None
    set_name: str = ""
    class_name: str = ""


def scan_image_sets(folder: Path, problems: list[FormatError]) -> list[ListFile]:
    """Read every ``<folder>/<task>/*.txt`` (tasks and files in name order)."""
    found: list[ListFile] = []
    for task_dir in sorted(p for p in folder.iterdir() if p.is_dir()):
        task = task_dir.name
        for path in listed_files(task_dir, _is_list_name, problems):
            fp = FileProblems(problems, path)
            try:
                rows = split_lines(read_text(path))
            except FormatError as exc:
                fp.add(f"{exc.message}; file skipped")
                continue
            found.append(_parse(task, path, rows, fp))
            fp.close()
    return found


def _is_list_name(name: str) -> bool:
    return name.endswith(".txt") and not name.startswith(".")


def _split_prefix(stem: str, names: Sequence[str]) -> tuple[str, str] | None:
    """``("car", "train")`` for ``car_train`` when ``car`` is in ``names``."""
    head, sep, tail = stem.partition("_")
    return (head, tail) if sep and tail and head in names else None


def _parse(task: str, path: Path, rows: list[list[str]], fp: FileProblems) -> ListFile:
    key = f"{task}/{path.stem}"
    if task == "Main" and (split := _split_prefix(path.stem, VOC_CLASSES)):
        entry = _parse_columns(key, "labels", path, rows, fp, objects=False, labels=True)
        entry.class_name, entry.set_name = split
        return entry
    if task == "Action" and _split_prefix(path.stem, VOC_ACTIONS):
        return _parse_columns(key, "person_labels", path, rows, fp, objects=True, labels=True)
    if task == "Layout" or (task == "Action" and any(len(r) > 1 for r in rows)):
        return _parse_columns(key, "persons", path, rows, fp, objects=True, labels=False)
    lines = [k for k, r in enumerate(rows, start=1) if r]
    return ListFile(key, "set", path, [rows[k - 1][0] for k in lines], lines)


def _parse_columns(
    key: str,
    kind: str,
    path: Path,
    rows: list[list[str]],
    fp: FileProblems,
    *,
    objects: bool,
    labels: bool,
) -> ListFile:
    """Lines of ``<id> [<object index>] [<label>]``; bad lines are reported and skipped."""
    width = 1 + objects + labels
    kept = [k for k, r in enumerate(rows, start=1) if r]
    if all(len(rows[k - 1]) == width for k in kept):  # fast path: columns checked in bulk
        obj = [to_int(rows[k - 1][1]) for k in kept] if objects else [1] * len(kept)
        lab = [_LABELS.get(rows[k - 1][-1]) for k in kept] if labels else [0] * len(kept)
        good_obj = [o for o in obj if o is not None and 0 < o < 2**31]
        good_lab = [v for v in lab if v is not None]
        if len(good_obj) == len(good_lab) == len(kept):
            return ListFile(
                key,
                kind,
                path,
                [rows[k - 1][0] for k in kept],
                kept,
                good_obj if objects else None,
                good_lab if labels else None,
            )
    expected = "<id>" + (" <object index>" if objects else "") + (" <label>" if labels else "")
    ids: list[str] = []
    lines: list[int] = []
    obj_col: list[int] = []
    lab_col: list[int] = []
    for k in kept:
        r = rows[k - 1]
        if len(r) != width:
            fp.add(f"expected {expected}, found {describe(r)}; line skipped", line=k)
            continue
        o = to_int(r[1]) if objects else 1
        if o is None or not 1 <= o < 2**31:
            fp.add(
                f"object index must be an integer in 1..2^31-1, found {r[1]!r}; line skipped",
                line=k,
            )
            continue
        lab_value = to_int(r[-1]) if labels else 0
        if lab_value is None or lab_value not in (-1, 0, 1):
            fp.add(f"label must be 1, -1 or 0, found {r[-1]!r}; line skipped", line=k)
            continue
        ids.append(r[0])
        lines.append(k)
        obj_col.append(o)
        lab_col.append(lab_value)
    return ListFile(
        key, kind, path, ids, lines, obj_col if objects else None, lab_col if labels else None
    )


@dataclass
class ImageSetTables:
    """What ``assemble`` returns, ready for ``Dataset``."""

    image_sets: dict[str, np.ndarray]
    class_labels: dict[tuple[str, str], ImageLabels]
    person_sets: dict[str, PersonSet]


def assemble(
    files: Sequence[ListFile],
    row_of: Mapping[str, int],
    annotated: set[str],
    object_row: Mapping[tuple[int, int], int],
    objects_loaded: Sequence[int],
    problems: list[FormatError],
) -> ImageSetTables:
    """Map ids to image rows and person entries to object rows.

    ``row_of`` maps every id to its image row; ``annotated`` holds the ids with an annotation
    file; ``object_row[(image row, order_in_image)]`` is a row of the object table and
    ``objects_loaded[image row]`` how many objects that image has.

    Ids without an annotation file give one problem per file (class-label files only mention ids
    no image set mentioned); a person whose object does not exist gets object row -1 and a
    problem naming the line (unless its image has no annotation file at all).
    """
    out = ImageSetTables({}, {}, {})
    reported: set[str] = set()
    ordered = [f for f in files if f.kind in ("set", "persons")]
    ordered += [f for f in files if f.kind not in ("set", "persons")]
    for f in ordered:
        missing = [i for i in dict.fromkeys(f.ids) if i not in annotated]
        if f.kind not in ("set", "persons"):
            missing = [i for i in missing if i not in reported]
        if missing:
            problems.append(
                FormatError(
                    f.path,
                    f"{len(missing)} ids listed in ImageSets/{f.key}.txt have no annotation file "
                    f"(first: {missing[0]}); they are kept as images without objects",
                )
            )
            reported.update(missing)
        rows = np.array([row_of[i] for i in f.ids], dtype=np.int64)
        if f.kind == "labels":
            labels = np.array(f.labels, dtype=np.int8)
            out.class_labels[(f.set_name, f.class_name)] = ImageLabels(rows, labels)
            continue
        out.image_sets[f.key] = rows
        if f.kind == "set":
            continue
        fp = FileProblems(problems, f.path)
        found = []
        for image_id, row, obj, line in zip(
            f.ids, rows.tolist(), f.objects or [], f.lines, strict=True
        ):
            hit = object_row.get((row, obj - 1), -1)
            if hit < 0 and image_id in annotated:
                fp.add(
                    f"object {obj} of image {image_id} is not among its loaded objects "
                    f"({objects_loaded[row]} loaded); kept with object row -1",
                    line=line,
                )
            found.append(hit)
        fp.close()
        labels_or_none = None if f.labels is None else np.array(f.labels, dtype=np.int8)
        numbers = np.array(f.objects or [], dtype=np.int64)
        out.person_sets[f.key] = PersonSet(
            rows, np.array(found, dtype=np.int64), labels_or_none, numbers
        )
    return out
