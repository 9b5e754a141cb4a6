"""An Open Images annotation folder → ``core.Dataset``.

The folder holds the released files under their released names: ``*-annotations-bbox.csv``
(``ImageID, LabelName, XMin, XMax, YMin, YMax, IsGroupOf`` and, drawn only, ``IsOccluded``,
``IsTruncated``, ``IsDepiction``, ``IsInside``), ``*-annotations-human-imagelabels-boxable.csv``
(``ImageID, LabelName, Confidence`` 1 / 0), ``*class-descriptions-boxable.csv`` (``MID, name``,
no header) and ``*hierarchy*.json``; images optionally in ``images/`` (``<ImageID>.jpg``).
Boxes are normalised to [0, 1]: ``objects.box`` holds ``XMin, YMin, XMax, YMax`` as written (the
window scales them to pixels where it knows an image's size).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vocviewer.core.dataset import Dataset, ImageTable, ObjectTable
from vocviewer.core.errors import FormatError
from vocviewer.families.openimages.columns import OpenImagesGroundTruth
from vocviewer.families.openimages.csv_rows import (
    csv_records,
    field,
    finite,
    flag,
    header_columns,
)
from vocviewer.families.openimages.hierarchy import Hierarchy, parse_hierarchy
from vocviewer.formats.json_input import load_json

#: the released files, by role: glob pattern
PATTERNS = {
    "boxes": "*-annotations-bbox.csv",
    "labels": "*-annotations-human-imagelabels-boxable.csv",
    "classes": "*class-descriptions-boxable.csv",
    "hierarchy": "*hierarchy*.json",
}
BOX_COLUMNS = ("ImageID", "LabelName", "XMin", "XMax", "YMin", "YMax", "IsGroupOf")
LABEL_COLUMNS = ("ImageID", "LabelName", "Confidence")
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


def _matches(root: Path, pattern: str) -> list[Path]:
    try:
        return sorted(p for p in root.glob(pattern) if p.is_file())
    except OSError:
        return []


def looks_like_openimages(root: Path) -> bool:
    """Whether ``root`` is a folder holding a boxes CSV and the class descriptions (cheap)."""
    return root.is_dir() and all(_matches(root, PATTERNS[k]) for k in ("boxes", "classes"))


def find_files(root: Path) -> dict[str, Path]:
    """The four files of ``root`` by role (``FormatError`` naming what is missing or doubled)."""
    found: dict[str, Path] = {}
    for role, pattern in PATTERNS.items():
        hits = _matches(root, pattern)
        if not hits:
            raise FormatError(root, f"no {pattern} here (an Open Images folder holds {role} there)")
        if len(hits) > 1:
            names = ", ".join(p.name for p in hits)
            raise FormatError(root, f"several {pattern} ({names}): keep one split per folder")
        found[role] = hits[0]
    return found


def read_classes(path: Path) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """MIDs and display names of ``class-descriptions-boxable.csv``, in file order."""
    mids: list[str] = []
    names: list[str] = []
    seen: dict[str, int] = {}
    for line, fields in csv_records(path, header=False):
        mid = fields[0]
        if len(fields) < 2 or not mid:
            raise FormatError(path, "expected MID,display name", line=line)
        if mid in seen:
            raise FormatError(path, f"{mid} is listed twice (first at line {seen[mid]})", line=line)
        seen[mid] = line
        mids.append(mid)
        names.append(",".join(fields[1:]))
    if not mids:
        raise FormatError(path, "lists no class (expected MID,display name lines)")
    return tuple(mids), tuple(names)


def _class_of(path: Path, line: int, mid: str, index: dict[str, int], hierarchy: Hierarchy) -> int:
    """The class index of ``mid`` (it must be described and in the hierarchy: the challenge's
    expansion and label map refuse any other)."""
    if mid not in index:
        raise FormatError(path, f"LabelName {mid!r} is not in the class descriptions", line=line)
    if mid not in hierarchy:
        raise FormatError(path, f"LabelName {mid!r} is not in the hierarchy", line=line)
    return index[mid]


def read_boxes(
    path: Path, index: dict[str, int], hierarchy: Hierarchy
) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Image ids, class indices, ``YMin, XMin, YMax, XMax`` rows and flags
    (group-of, occluded, truncated, depiction, inside; -1 where not written) in file order."""
    cols = header_columns(path, BOX_COLUMNS)
    optional = ("IsOccluded", "IsTruncated", "IsDepiction", "IsInside")
    ids: list[str] = []
    labels: list[int] = []
    boxes: list[tuple[float, float, float, float]] = []
    flags: list[tuple[int, ...]] = []
    for line, f in csv_records(path):
        image = field(path, line, f, cols["ImageID"], "ImageID")
        if not image:
            raise FormatError(path, "ImageID is empty", line=line)
        mid = field(path, line, f, cols["LabelName"], "LabelName")
        labels.append(_class_of(path, line, mid, index, hierarchy))
        xmin, xmax, ymin, ymax = (
            finite(path, line, field(path, line, f, cols[c], c), c)
            for c in ("XMin", "XMax", "YMin", "YMax")
        )
        boxes.append((ymin, xmin, ymax, xmax))
        group = flag(path, line, field(path, line, f, cols["IsGroupOf"], "IsGroupOf"), "IsGroupOf")
        rest = tuple(
            flag(path, line, field(path, line, f, cols[c], c), c, (0, 1, -1)) if c in cols else -1
            for c in optional
        )
        flags.append((group, *rest))
        ids.append(image)
    return (
        ids,
        np.array(labels, dtype=np.int64),
        np.array(boxes, dtype=np.float64).reshape(-1, 4),
        np.array(flags, dtype=np.int64).reshape(-1, 5),
    )


def read_labels(
    path: Path, index: dict[str, int], hierarchy: Hierarchy
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Image ids, class indices and confidences (1 verified present, 0 verified absent)."""
    cols = header_columns(path, LABEL_COLUMNS)
    ids: list[str] = []
    labels: list[int] = []
    conf: list[int] = []
    for line, f in csv_records(path):
        image = field(path, line, f, cols["ImageID"], "ImageID")
        if not image:
            raise FormatError(path, "ImageID is empty", line=line)
        mid = field(path, line, f, cols["LabelName"], "LabelName")
        labels.append(_class_of(path, line, mid, index, hierarchy))
        text = field(path, line, f, cols["Confidence"], "Confidence")
        conf.append(flag(path, line, text, "Confidence"))
        ids.append(image)
    return ids, np.array(labels, dtype=np.int64), np.array(conf, dtype=np.int64)


def _image_path(root: Path, image_id: str) -> Path:
    folder = root / "images"
    for suffix in IMAGE_SUFFIXES:
        p = folder / f"{image_id}{suffix}"
        if p.is_file():
            return p
    return folder / f"{image_id}.jpg"


def _pairs(
    rows: np.ndarray, labels: np.ndarray, up: list[frozenset[int]]
) -> tuple[np.ndarray, np.ndarray]:
    """Each ``(rows[i], c)`` for ``c`` in ``{labels[i]} | up[labels[i]]``, sorted by class, then
    row (a row counts once per class: the expansion's ancestors are a set)."""
    out_r: list[int] = []
    out_c: list[int] = []
    for r, k in zip(rows.tolist(), labels.tolist(), strict=True):
        for c in (k, *up[k]):
            out_r.append(r)
            out_c.append(c)
    r_arr, c_arr = np.array(out_r, dtype=np.int64), np.array(out_c, dtype=np.int64)
    order = np.lexsort((r_arr, c_arr))
    return r_arr[order], c_arr[order]


def read_openimages(root: str | Path) -> Dataset:
    """Read the Open Images folder ``root`` (``FormatError`` naming the file and line of the
    first problem: the challenge's own tools fail on each of them)."""
    root = Path(root)
    files = find_files(root)
    mids, names = read_classes(files["classes"])
    index = {m: i for i, m in enumerate(mids)}
    doc = load_json(files["hierarchy"])
    hierarchy = parse_hierarchy(doc, files["hierarchy"])
    for mid in hierarchy.ancestors:
        if mid not in index:
            raise FormatError(
                files["hierarchy"], f"{mid} is not in {files['classes'].name}", element=mid
            )
    box_ids, box_label, box_yx, box_flags = read_boxes(files["boxes"], index, hierarchy)
    lab_ids, lab_label, lab_conf = read_labels(files["labels"], index, hierarchy)
    image_ids = sorted(set(box_ids) | set(lab_ids))  # the challenge's groupby order
    row_of = {s: i for i, s in enumerate(image_ids)}
    box_image = np.array([row_of[s] for s in box_ids], dtype=np.int64)
    order = np.argsort(box_image, kind="stable")  # by image, file order within
    box_image, box_label = box_image[order], box_label[order]
    box_yx, box_flags = box_yx[order], box_flags[order]
    n = len(order)
    starts = np.searchsorted(box_image, box_image, side="left")
    up = [frozenset(index[a] for a in hierarchy.ancestors[m]) for m in mids]
    down = [frozenset(index[d] for d in hierarchy.descendants[m]) for m in mids]
    counts_row, counts_label = _pairs(np.arange(n), box_label, up)
    lab_image = np.array([row_of[s] for s in lab_ids], dtype=np.int64)
    verified = set(zip(box_image[counts_row].tolist(), counts_label.tolist(), strict=True))
    for i, k, c in zip(lab_image.tolist(), lab_label.tolist(), lab_conf.tolist(), strict=True):
        verified.update((i, x) for x in (k, *(up[k] if c == 1 else down[k])))
    pairs = np.array(sorted(verified), dtype=np.int64).reshape(-1, 2)
    extras = OpenImagesGroundTruth(
        box=box_yx,
        group_of=box_flags[:, 0] == 1,
        depiction=box_flags[:, 3] == 1,
        inside=box_flags[:, 4] == 1,
        counts_row=counts_row,
        counts_label=counts_label,
        verified_image=pairs[:, 0],
        verified_label=pairs[:, 1],
        label_image=lab_image,
        label_class=lab_label,
        label_confidence=lab_conf,
        mids=mids,
        hierarchy=hierarchy,
        files=tuple(files[k].name for k in PATTERNS),
    )
    objects = ObjectTable.from_boxes(
        box_image,
        box_label,
        box_yx[:, [1, 0, 3, 2]],
        np.arange(n, dtype=np.int64) - starts,
        truncated=box_flags[:, 2] == 1,
        occluded=box_flags[:, 1] == 1,
    )
    k = len(image_ids)
    images = ImageTable(
        id=np.array(image_ids, dtype=np.str_),
        path=tuple(_image_path(root, s) for s in image_ids),
        width=np.zeros(k, dtype=np.int32),
        height=np.zeros(k, dtype=np.int32),
        segmented=np.zeros(k, dtype=bool),
    )
    return Dataset(
        name=f"Open Images ({files['boxes'].name.split('-annotations')[0]})",
        root=root,
        classes=names,
        box_convention="continuous",
        images=images,
        objects=objects,
        family_data=(extras,),
        roots=(root,),
    )
