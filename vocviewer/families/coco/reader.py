"""COCO annotation JSON (instances, person_keypoints, captions) → ``Dataset``.

Classes are the category names in ascending category-id order; boxes are stored xyxy in the
``"continuous"`` convention (``x, y, x + w, y + h``); the exact COCO columns (ids, ``x, y, w, h``,
``area``, ``iscrowd``, RLE masks, keypoints, captions) go to ``Dataset.data(CocoAnnotations)``
(``families.coco.columns.CocoAnnotations``). Result files are read by ``families.coco.results_reader``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from vocviewer.core import masks as mk
from vocviewer.core.dataset import Dataset, ImageTable, ObjectTable
from vocviewer.core.errors import FormatError
from vocviewer.core.paths import PathColumn
from vocviewer.families.coco import reader_kernel, schema
from vocviewer.families.coco.columns import CocoAnnotations, RleTable
from vocviewer.families.coco.lazy_masks import LazyRleTable
from vocviewer.families.coco.polygon_sets import polygon_sets_to_rle
from vocviewer.formats.input import check_image_size
from vocviewer.formats.json_input import load_json, parse_json, read_json_bytes, show
from vocviewer.formats.problem_kinds import NOT_OFFICIAL, OFFICIAL_FAILS, TASK_SCOPE

__all__ = ["coco_dataset", "load_json", "polygon_sets_to_rle", "read_coco"]


def read_coco(path: str | Path, images: str | Path | None = None, *, masks: bool = True) -> Dataset:
    """Read a COCO annotation JSON.

    Parameters
    ----------
    path
        ``instances_*.json``, ``person_keypoints_*.json`` or ``captions_*.json``.
    images
        The image folder; default: ``../<split>`` beside the annotation folder.
    masks
        Build RLE masks for every annotation (needed for ``segm``); off saves time for boxes.

    Raises
    ------
    FormatError
        Not a COCO annotation file, or its ``images`` / ``categories`` tables are broken (named
        by JSON path). An image or annotation entry with a bad field (wrong type, a size over
        the limit, a non-finite number) is left out and listed in ``Dataset.problems``; so is a
        missing field pycocotools reads (``id``, ``image_id``, ``category_id``, ``bbox``), and a
        missing ``area``, ``iscrowd`` (``segmentation`` with ``masks``) is defaulted with a
        problem; these end in ``formats.problem_kinds.NOT_OFFICIAL`` (``lost_ground_truth``).
    """
    path = Path(path)
    data = read_json_bytes(path)
    img_dir = Path(images) if images is not None else reader_kernel.guess_image_dir(path)
    quick = reader_kernel.read_plain(path, data, img_dir, masks=masks)
    return (
        quick
        if quick is not None
        else coco_dataset(path, parse_json(path, data), images, masks=masks)
    )


def coco_dataset(
    path: Path,
    data: Any,
    images: str | Path | None = None,
    *,
    masks: bool = True,
    reads_iscrowd: bool = True,
) -> Dataset:
    """``read_coco`` of the already parsed file ``data`` (``path`` names it in messages);
    ``reads_iscrowd``: whether the official evaluator reads ``iscrowd`` (LVIS's does not)."""
    if not isinstance(data, dict) or not isinstance(data.get("images"), list):
        raise FormatError(path, "not a COCO annotation file: expected an object with 'images'")
    anns = data.get("annotations", [])
    if not isinstance(anns, list):
        raise FormatError(path, f"expected a list, got {show(anns)}", element="annotations")
    img_dir = Path(images) if images is not None else reader_kernel.guess_image_dir(path)
    cats = _categories(path, data, anns)
    cat_index = {c[0]: i for i, c in enumerate(cats)}
    problems: list[FormatError] = []
    ids, files, widths, heights = _images(path, data["images"], img_dir, problems)
    row_of = {v: i for i, v in enumerate(ids)}

    captions: list[list[str]] = [[] for _ in ids]
    rows: list[_Row] = []
    missing = _Missing()
    for i, a in enumerate(anns):
        try:
            r = _annotation(path, a, i, row_of, cat_index, missing)
            if isinstance(r, str):
                captions[row_of[a["image_id"]]].append(r)
                continue
            if masks:
                r.segm = _segmentation(path, a, r, heights, widths, problems, missing)
        except schema.MissingField as e:
            msg = f"{e.message}; left out here, {OFFICIAL_FAILS}"
            if e.message.endswith('"bbox"'):  # pycocotools' segm never reads it
                msg += f" (it counts it{TASK_SCOPE}segm)"
            problems.append(FormatError(path, msg + NOT_OFFICIAL, element=e.element))
            continue
        except FormatError as e:
            msg = f"{e.message}; the annotation is left out"
            problems.append(FormatError(path, msg, element=e.element))
            continue
        rows.append(r)
    problems += missing.problems(path, reads_iscrowd)
    if masks:
        rows = _bounded_polygons(path, rows, problems)
    return _dataset(
        path,
        rows,
        cats,
        ids,
        files,
        widths,
        heights,
        captions,
        problems,
        masks,
        img_dir,
        _federated(data),
    )


_Category = tuple[int, str, str, tuple[str, ...], npt.NDArray[np.int64]]


def _categories(path: Path, data: dict[str, Any], anns: list[Any]) -> list[_Category]:
    """``(id, name, supercategory, keypoint names, skeleton)`` per category, ascending id."""
    if "categories" not in data:
        if any(isinstance(a, dict) and "caption" not in a for a in anns):
            raise FormatError(
                path, "missing: the annotations need a list of {id, name}", element="categories"
            )
        return []
    cats = data["categories"]
    if not isinstance(cats, list):
        raise FormatError(path, f"expected a list, got {show(cats)}", element="categories")
    out: list[_Category] = []
    for i, c in enumerate(cats):
        where = f"categories[{i}]"
        if not isinstance(c, dict):
            raise FormatError(path, f"expected an object, got {show(c)}", element=where)
        cid = schema.json_int(path, c.get("id"), f"{where}.id", "an integer id")
        if "name" not in c or isinstance(c["name"], list | dict):
            raise FormatError(path, "expected a 'name'", element=f"{where}.name")
        kp = c.get("keypoints", [])
        if not (isinstance(kp, list) and all(isinstance(s, str) for s in kp)):
            raise FormatError(
                path, f"expected a list of names, got {show(kp)}", element=f"{where}.keypoints"
            )
        sk = c.get("skeleton", [])
        if not (
            isinstance(sk, list)
            and all(
                isinstance(e, list)
                and len(e) == 2
                and all(type(v) is int and 0 <= v < 2**31 for v in e)
                for e in sk
            )
        ):
            raise FormatError(
                path,
                f"expected a list of [i, j] keypoint pairs, got {show(sk)}",
                element=f"{where}.skeleton",
            )
        sup = str(c.get("supercategory", ""))
        out.append((cid, str(c["name"]), sup, tuple(kp), np.array(sk, np.int64).reshape(-1, 2)))
    out.sort(key=lambda c: c[0])
    dup = [a[0] for a, b in itertools.pairwise(out) if a[0] == b[0]]
    if dup:
        raise FormatError(path, f"duplicate category id {dup[0]}", element="categories")
    return out


def _images(
    path: Path, entries: list[Any], img_dir: Path, problems: list[FormatError]
) -> tuple[list[int], PathColumn, list[int], list[int]]:
    """Ids, files, widths, heights (0 = unknown) of the images. An image whose size is not a
    positive integer or is over the limit is kept with size 0 (its polygons are not
    rasterised), with a problem: pycocotools' box evaluation never reads the size."""
    ids: list[int] = []
    names: list[str] = []
    widths: list[int] = []
    heights: list[int] = []
    seen: set[int] = set()
    for i, im in enumerate(entries):
        where = f"images[{i}]"
        if not isinstance(im, dict):
            raise FormatError(path, f"expected an object, got {show(im)}", element=where)
        iid = schema.json_int(path, im.get("id"), f"{where}.id", "an integer id")
        if iid in seen:
            raise FormatError(path, f"duplicate image id {iid}", element=f"{where}.id")
        seen.add(iid)
        try:
            w = schema.json_size(path, im["width"], f"{where}.width") if "width" in im else 0
            h = schema.json_size(path, im["height"], f"{where}.height") if "height" in im else 0
            if w and h:
                check_image_size(path, w, h, element=where)
        except FormatError as e:
            msg = f"{e.message}; the image is kept without a size (no polygon masks)"
            problems.append(FormatError(path, msg, element=e.element))
            w = h = 0
        ids.append(iid)
        names.append(str(im.get("file_name", f"{iid}.jpg")))
        widths.append(w)
        heights.append(h)
    return ids, PathColumn(names, img_dir), widths, heights


@dataclass
class _Row:
    """One validated annotation (``index`` = its position in the JSON list)."""

    row: int
    label: int
    ann_id: int
    bbox: tuple[float, ...]
    area: float
    crowd: bool
    index: int
    keypoints: npt.NDArray[np.float64] | None
    num_keypoints: int
    segm: list[npt.NDArray[np.float64]] | mk.Counts | None = None
    size: tuple[int, int] | None = None  # an RLE's own [h, w]
    ignore: bool = False  # the ``ignore`` field's truth value


class _Missing:
    """Annotations (JSON list positions) without a field the official evaluator reads, which
    the reader defaults; one problem per field, naming the first (``problems``)."""

    #: field → (what the reader takes instead, the task it matters for; "" for every task)
    DEFAULTS: ClassVar[dict[str, tuple[str, str]]] = {
        "area": ("taken as the box's w x h", ""),
        "iscrowd": ("taken as 0", ""),
        "segmentation": ("an empty mask", "segm"),
        "num_keypoints": ("counted from its keypoints", "keypoints"),
    }

    def __init__(self) -> None:
        self.found: dict[str, list[int]] = {k: [] for k in self.DEFAULTS}

    def check(self, a: dict[str, Any], index: int, *keys: str) -> None:
        for key in keys:
            if key not in a:
                self.found[key].append(index)

    def problems(self, path: Path, reads_iscrowd: bool) -> list[FormatError]:
        out = []
        for key, (instead, task) in self.DEFAULTS.items():
            found = self.found[key]
            if not found or (key == "iscrowd" and not reads_iscrowd):
                continue
            more = f" (and in {len(found) - 1} more annotation(s))" if len(found) > 1 else ""
            scope = f"{TASK_SCOPE}{task}" if task else ""
            msg = f'missing "{key}"{more}; {instead} here, {OFFICIAL_FAILS}'
            msg += NOT_OFFICIAL + scope
            out.append(FormatError(path, msg, element=f"annotations[{found[0]}]"))
        return out


def _annotation(
    path: Path,
    a: Any,
    index: int,
    row_of: dict[int, int],
    cat_index: dict[int, int],
    missing: _Missing,
) -> _Row | str:
    """A validated annotation (``annotations[index]``), or a caption; defaulted fields are
    noted in ``missing``."""
    where = f"annotations[{index}]"
    if not isinstance(a, dict):
        raise FormatError(path, f"expected an object, got {show(a)}", element=where)
    iid = schema.int_field(path, a, "image_id", where, "an integer image id")
    row = row_of.get(iid)
    if row is None:
        raise FormatError(path, f"unknown image_id {iid}", element=f"{where}.image_id")
    if "caption" in a:
        return str(a["caption"])
    cid = schema.int_field(path, a, "category_id", where, "an integer id")
    k = cat_index.get(cid)
    if k is None:
        raise FormatError(path, f"unknown category_id {cid}", element=f"{where}.category_id")
    ann_id = schema.int_field(path, a, "id", where, "an integer id")
    bb = schema.finite_bbox(path, a, where)
    area = bb[2] * bb[3]
    if "area" in a:
        area = schema.json_number(path, a["area"], f"{where}.area")
        if not math.isfinite(area):
            raise FormatError(
                path, f"expected a finite number, got {show(area)}", element=f"{where}.area"
            )
    missing.check(a, index, "area", "iscrowd")
    crowd = a.get("iscrowd", 0)
    if not (type(crowd) in (bool, int, float) and crowd in (0, 1)):
        raise FormatError(path, f"expected 0 or 1, got {show(crowd)}", element=f"{where}.iscrowd")
    kp, nkp = None, 0
    if "keypoints" in a:
        kp = schema.json_numbers(path, a["keypoints"], f"{where}.keypoints", step=3)
        schema.finite_or_raise(path, kp, f"{where}.keypoints")
        kp = kp.reshape(-1, 3)
        nkp = int(np.count_nonzero(kp[:, 2] > 0))
        missing.check(a, index, "num_keypoints")
        if "num_keypoints" in a:
            nkp = schema.json_int(path, a["num_keypoints"], f"{where}.num_keypoints")
    return _Row(row, k, ann_id, bb, area, bool(crowd), index, kp, nkp, ignore=bool(a.get("ignore")))


def _segmentation(
    path: Path,
    a: dict[str, Any],
    r: _Row,
    heights: list[int],
    widths: list[int],
    problems: list[FormatError],
    missing: _Missing,
) -> list[npt.NDArray[np.float64]] | mk.Counts:
    """Polygons (rasterised later, in one batch) or validated RLE counts of ``r``'s mask (none:
    empty, noted in ``missing``); an RLE whose size differs from its image's is kept, with a
    problem (pycocotools then gives it IoU -1 against every detection)."""
    where = f"annotations[{r.index}].segmentation"
    missing.check(a, r.index, "segmentation")
    segm = a.get("segmentation", [])
    if isinstance(segm, list):
        return schema.polygon_parts(path, segm, where)
    counts, h, w = schema.rle_counts(path, segm, where)
    ih, iw = heights[r.row], widths[r.row]
    if (h, w) != (ih, iw) and ih and iw:
        problems.append(
            FormatError(
                path,
                f"RLE size [{h}, {w}] differs from its image's [{ih}, {iw}]; kept (pycocotools "
                "compares it with no detection: IoU -1)",
                element=f"{where}.size",
            )
        )
    r.size = (h, w)
    return counts


def _bounded_polygons(path: Path, rows: list[_Row], problems: list[FormatError]) -> list[_Row]:
    """``rows`` without those holding a polygon too costly to rasterise (listed as problems)."""
    poly = [r for r in rows if isinstance(r.segm, list)]
    parts = [p for r in poly for p in r.segm]  # type: ignore[union-attr]
    work = schema.polygon_work(parts)
    if not len(work) or work.max() <= schema.MAX_POLYGON_WORK:
        return rows
    owner = np.repeat(np.arange(len(poly)), [len(r.segm) for r in poly])  # type: ignore[arg-type]
    bad_rows = {id(poly[i]) for i in np.unique(owner[work > schema.MAX_POLYGON_WORK]).tolist()}
    for r in poly:
        if id(r) in bad_rows:
            problems.append(
                FormatError(
                    path,
                    f"a polygon crossing over {schema.MAX_POLYGON_WORK:,} pixel columns "
                    "(too costly to rasterise); the annotation is left out",
                    element=f"annotations[{r.index}].segmentation",
                )
            )
    return [r for r in rows if id(r) not in bad_rows]


#: LVIS v1 fields COCO files never carry: images' federated lists, categories' frequency group
_FEDERATED_KEYS = {
    "images": ("neg_category_ids", "not_exhaustive_category_ids"),
    "categories": ("frequency",),
}


def _federated(data: dict[str, Any]) -> bool:
    """Whether the parsed file carries LVIS's federated fields (``CocoAnnotations.federated``)."""
    return any(
        isinstance(entries := data.get(section), list)
        and any(isinstance(e, dict) and any(k in e for k in keys) for e in entries)
        for section, keys in _FEDERATED_KEYS.items()
    )


def _dataset(
    path: Path,
    rows: list[_Row],
    cats: list[_Category],
    ids: list[int],
    files: PathColumn,
    widths: list[int],
    heights: list[int],
    captions: list[list[str]],
    problems: list[FormatError],
    masks: bool,
    img_dir: Path,
    federated: bool,
) -> Dataset:
    """The ``Dataset`` of validated rows (sorted by image row, file order within an image);
    ``img_dir`` is the image folder, protected from writes with the annotation file's folder."""
    rows.sort(key=lambda r: r.row)
    n = len(rows)
    npts = max((len(r.keypoints) for r in rows if r.keypoints is not None), default=0)
    kps = np.zeros((n, npts, 3))
    for j, r in enumerate(rows):
        if r.keypoints is not None:
            kps[j, : len(r.keypoints)] = r.keypoints
    image_index = np.array([r.row for r in rows], dtype=np.int64)
    xywh = np.array([r.bbox for r in rows], dtype=np.float64).reshape(n, 4)
    with np.errstate(over="ignore"):  # (x + w past the largest double: inf, as the kernel's reader)
        box = np.column_stack((xywh[:, :2], xywh[:, :2] + xywh[:, 2:]))
    order_in_image = np.arange(n) - np.searchsorted(image_index, image_index, side="left")
    zeros = np.zeros(n, dtype=bool)
    objects = ObjectTable(
        image_index,
        np.array([r.label for r in rows], dtype=np.int64),
        box,
        zeros,
        zeros,
        zeros,
        np.zeros(n, dtype=np.int8),
        order_in_image,
        np.zeros((n, 0), dtype=bool),
    )
    cat_ids = np.array([c[0] for c in cats], dtype=np.int64)
    extras = CocoAnnotations(
        image_id=np.array(ids, dtype=np.int64),
        captions=tuple(tuple(c) for c in captions),
        category_id=cat_ids,
        supercategory=tuple(c[2] for c in cats),
        keypoint_names=tuple(c[3] for c in cats),
        skeleton=tuple(c[4] for c in cats),
        ann_id=np.array([r.ann_id for r in rows], dtype=np.int64),
        category_id_of=cat_ids[objects.label] if n else np.zeros(0, np.int64),
        bbox=xywh,
        area=np.array([r.area for r in rows], dtype=np.float64),
        iscrowd=np.array([r.crowd for r in rows], dtype=bool),
        keypoints=kps,
        num_keypoints=np.array([r.num_keypoints for r in rows], dtype=np.int64),
        has_keypoints=np.array([r.keypoints is not None for r in rows], dtype=bool),
        masks=_mask_table(rows, heights, widths) if masks else None,
        federated=federated,
        ignore=np.array([r.ignore for r in rows], dtype=bool),
    )
    names = tuple(c[1] for c in cats)
    images_table = ImageTable(
        np.array([str(i) for i in ids], dtype=np.str_),
        files,
        np.array(widths),
        np.array(heights),
        np.zeros(len(ids), dtype=bool),
    )
    return Dataset(
        name=path.stem,
        root=path,
        classes=names,
        box_convention="continuous",
        images=images_table,
        objects=objects,
        problems=tuple(problems),
        family_data=(extras,),
        roots=(path.parent, img_dir),
    )


def _mask_table(rows: list[_Row], heights: list[int], widths: list[int]) -> RleTable:
    """Every row's mask: polygons at their image's size, RLEs as given (rasterised when first
    read, ``LazyRleTable``)."""
    hh = np.array([heights[r.row] for r in rows], dtype=np.int64)
    ww = np.array([widths[r.row] for r in rows], dtype=np.int64)
    segm = [
        (r.segm, *r.size)
        if r.size is not None
        else (r.segm, 0, 0)
        if isinstance(r.segm, list)
        else (None, 0, 0)
        for r in rows
    ]
    return LazyRleTable(segm, hh, ww)
