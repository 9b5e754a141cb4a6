"""COCO annotation JSON → ``Dataset`` through the compiled scanner (``vocviewer.kernel._json``).

The kernel scans the file's bytes into columns; this module checks, column-wise, everything
``families.coco.reader`` checks entry by entry, and builds the very ``Dataset`` it builds. It
takes only files the Python reader would read without a single problem: anything else (a bad
or missing field, an unknown id, a defaulted value, a caption, a box-form polygon, an RLE of
another size than its image, ...) gives ``None`` and the Python reader runs, so every message
stays its own. ``tests/kernel/test_json_kernel.py`` checks both paths give identical datasets.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer import kernel
from vocviewer.core.arrays import sealed
from vocviewer.core.dataset import Dataset, ImageTable, ObjectTable
from vocviewer.core.paths import PathColumn
from vocviewer.families.coco import schema
from vocviewer.families.coco.columns import CocoAnnotations, RleTable
from vocviewer.families.coco.lazy_masks import LazyRleTable, Shapes
from vocviewer.formats.input import MAX_IMAGE_PIXELS

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

__all__ = [
    "GroundTruthColumns",
    "guess_image_dir",
    "kernel_columns",
    "kernel_dataset",
    "read_plain",
]


@dataclass(frozen=True, eq=False)
class GroundTruthColumns:
    """The kernel's columns of a ground-truth file (see ``_json.c``, ``GT_COLUMNS``): per image,
    per category and per annotation arrays, ``blob`` the kept strings (ASCII)."""

    cols: dict[str, Any]

    def __getitem__(self, name: str) -> Any:
        return self.cols[name]

    def strings(self, off: str, length: str) -> list[str | None]:
        """The kept strings of the columns ``off``, ``length`` (``None`` where absent)."""
        blob: bytes = self.cols["blob"]
        offs, lens = self.cols[off].tolist(), self.cols[length].tolist()
        return [
            None if o < 0 else blob[o : o + n].decode("ascii")
            for o, n in zip(offs, lens, strict=True)
        ]

    def lists(self, name: str, lengths: str, step: int = 1) -> list[npt.NDArray[Any]]:
        """The per-row lists of the flat column ``name`` (``lengths`` items of ``step`` values
        per row)."""
        flat = self.cols[name]
        ends = np.cumsum(self.cols[lengths] * step).tolist()  # (np.split: 7x slower)
        return [flat[a:b] for a, b in zip([0, *ends], ends, strict=False)]


def guess_image_dir(path: Path) -> Path:
    """``annotations/instances_val2017.json`` → ``../val2017`` (pycocotools' layout)."""
    split = path.stem.rsplit("_", 1)[-1]
    return path.parent.parent / split


def kernel_columns(data: bytes) -> GroundTruthColumns | None:
    """The kernel's columns of a ground-truth file's bytes, or ``None`` (no kernel on this
    machine, or the file is not plain)."""
    module = kernel.load("_json")
    cols = None if module is None else module.annotations(data)
    return None if cols is None else GroundTruthColumns(cols)


def _rows(keys: IntArray, values: IntArray) -> IntArray | None:
    """Row of each value in ``keys`` (unique), or ``None`` if one is missing."""
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64)
    if len(keys) == 0:
        return None
    order = np.argsort(keys, kind="stable")
    pos = np.minimum(np.searchsorted(keys[order], values), len(keys) - 1)
    rows = order[pos]
    return rows.astype(np.int64) if np.array_equal(keys[rows], values) else None


def _unique(ids: IntArray) -> bool:
    """Whether no two ids are equal (by sorting: ``np.unique`` imports ``numpy.ma``, ~20 ms)."""
    s = np.sort(ids)
    return not (s[1:] == s[:-1]).any()


def read_plain(
    path: Path,
    data: bytes,
    img_dir: Path,
    *,
    masks: bool,
    reads_iscrowd: bool = True,
    url_names: bool = False,
) -> Dataset | None:
    """The ``Dataset`` of the ground-truth file ``path`` (its bytes ``data``, images in
    ``img_dir``) read by the kernel, or ``None``: no kernel, or not a plain file (the Python
    reader then reads it). ``masks``, ``reads_iscrowd`` as for ``reader.coco_dataset``."""
    c = kernel_columns(data)
    if c is None:
        return None
    return kernel_dataset(
        path, c, img_dir, masks=masks, reads_iscrowd=reads_iscrowd, url_names=url_names
    )


def kernel_dataset(
    path: Path,
    c: GroundTruthColumns,
    img_dir: Path,
    *,
    masks: bool,
    reads_iscrowd: bool,
    url_names: bool = False,
) -> Dataset | None:
    """``reader.coco_dataset`` of the file ``path`` scanned into ``c``, or ``None`` when the
    Python reader would find a problem (it then reads the file). ``url_names``: an image
    without ``file_name`` takes its ``coco_url``'s last part (LVIS)."""
    ids = c["image_id"]
    width, height = c["width"], c["height"]
    sized = (width > 0) & (height > 0)
    if not _unique(ids) or (width[sized] * height[sized] > MAX_IMAGE_PIXELS).any():
        return None
    cat_order = np.argsort(c["category_id"], kind="stable")  # classes: ascending id
    cat_ids = c["category_id"][cat_order]
    if not _unique(cat_ids):
        return None
    rows = _rows(ids, c["ann_image_id"])
    label = _rows(cat_ids, c["ann_category_id"])
    if rows is None or label is None:
        return None
    if reads_iscrowd and not c["has_iscrowd"].all():
        return None
    if (c["kp_len"] % 3).any():
        return None
    rles = _masks(c, rows, width, height) if masks else None
    if masks and rles is None:
        return None
    files = _files(c, ids, img_dir, url_names)
    return _dataset(path, c, cat_order, rows, label, files, rles, img_dir)


def _files(c: GroundTruthColumns, ids: IntArray, img_dir: Path, url_names: bool) -> PathColumn:
    """Each image's file: ``file_name``, else (LVIS) the last part of ``coco_url``, else
    ``<id>.jpg``, in the image folder (each ``Path`` made when first read)."""
    names = c.strings("file_off", "file_len")
    urls = c.strings("url_off", "url_len") if url_names else [None] * len(names)
    out = []
    for name, url, iid in zip(names, urls, ids.tolist(), strict=True):
        if name is None and url is not None:
            name = url.rstrip("/").rsplit("/", 1)[-1]
        out.append(name if name is not None else f"{iid}.jpg")
    return PathColumn(out, img_dir)


def _masks(
    c: GroundTruthColumns, rows: IntArray, width: IntArray, height: IntArray
) -> Shapes | None:
    """Every annotation's segmentation (file order) as ``LazyRleTable`` keeps it; ``None`` on
    any problem."""
    kind = c["segm_kind"]
    if (kind == 0).any():  # a missing segmentation: defaulted with a problem
        return None
    part_len = c["part_len"]
    if (part_len % 2).any() or (np.abs(c["xy"]) > schema.MAX_COORDINATE).any():
        return None
    nparts = c["nparts"]
    first_part = np.cumsum(nparts) - nparts
    poly = kind == 1
    if (part_len[first_part[poly & (nparts > 0)]] == 4).any():
        return None  # box-form polygons: the Python reader converts them
    work = schema.polygon_work_flat(c["xy"], part_len)
    if len(work) and work.max() > schema.MAX_POLYGON_WORK:
        return None
    rle_h, rle_w, runs = c["rle_h"], c["rle_w"], c["rle"]
    rle = kind == 2
    h, w = rle_h[rle], rle_w[rle]
    if (h <= 0).any() or (w <= 0).any() or (h * w > MAX_IMAGE_PIXELS).any():
        return None
    ih, iw = height[rows[rle]], width[rows[rle]]
    if ((ih > 0) & (iw > 0) & ((h != ih) | (w != iw))).any():
        return None  # kept with a problem by the Python reader
    rle_len = c["rle_len"][rle]
    if (rle_len == 0).any():
        return None
    hw = np.repeat(h * w, rle_len)
    if ((runs < 0) | (runs > hw)).any():
        return None
    if len(rle_len) and not np.array_equal(
        np.add.reduceat(runs, np.cumsum(rle_len) - rle_len), h * w
    ):
        return None  # (runs within 0 .. h * w: their sums cannot overflow)
    return Shapes(kind.astype(np.int8), c["xy"], part_len, nparts, runs, c["rle_len"])


def _dataset(
    path: Path,
    c: GroundTruthColumns,
    cat_order: IntArray,
    rows: IntArray,
    label: IntArray,
    files: PathColumn,
    segm: Shapes | None,
    img_dir: Path,
) -> Dataset:
    """The ``Dataset`` ``reader._dataset`` builds: objects sorted by image row (file order
    within an image), categories by id."""
    order = np.argsort(rows, kind="stable")
    n = len(order)
    image_index = rows[order]
    label = label[order]
    xywh = c["bbox"].reshape(-1, 4)[order]
    with np.errstate(over="ignore"):  # (x + w past the largest double: inf, as the Python's)
        box = np.column_stack((xywh[:, :2], xywh[:, :2] + xywh[:, 2:]))
    order_in_image = np.arange(n) - np.searchsorted(image_index, image_index, side="left")
    zeros = np.zeros(n, dtype=bool)
    objects = ObjectTable(
        image_index,
        label,
        box,
        zeros,
        zeros,
        zeros,
        np.zeros(n, dtype=np.int8),
        order_in_image,
        np.zeros((n, 0), dtype=bool),
    )
    has_kp = c["has_keypoints"].astype(bool)
    cat_ids = c["category_id"][cat_order]
    all_names, all_sups = c.strings("name_off", "name_len"), c.strings("sup_off", "sup_len")
    names = [all_names[k] for k in cat_order.tolist()]
    sups = [all_sups[k] for k in cat_order.tolist()]
    kp_names = _split(c.strings("kpn_off", "kpn_len"), c["kpn_count"])
    skeleton = c.lists("skeleton", "skeleton_len", 2)
    ids = c["image_id"]
    extras = CocoAnnotations(
        image_id=ids.copy(),
        captions=tuple(() for _ in range(len(ids))),
        category_id=cat_ids,
        supercategory=tuple(s if s is not None else "" for s in sups),
        keypoint_names=tuple(tuple(kp_names[k]) for k in cat_order.tolist()),
        skeleton=tuple(skeleton[k].reshape(-1, 2) for k in cat_order.tolist()),
        ann_id=c["ann_id"][order],
        category_id_of=cat_ids[label] if n else np.zeros(0, np.int64),
        bbox=xywh,
        area=c["area"][order],
        iscrowd=c["iscrowd"][order].astype(bool),
        keypoints=_keypoints(c, order, has_kp),
        num_keypoints=np.where(has_kp, c["num_keypoints"], 0)[order],
        has_keypoints=has_kp[order],
        masks=None if segm is None else _mask_table(segm, order, image_index, c),
        federated=bool(c["has_neg"].any() or c["has_nex"].any() or (c["freq_off"] >= 0).any()),
        ignore=c["ignore"][order].astype(bool),
    )
    images_table = ImageTable(
        np.array([str(i) for i in ids.tolist()], dtype=np.str_),
        files,
        c["width"].copy(),
        c["height"].copy(),
        np.zeros(len(ids), dtype=bool),
    )
    return Dataset(
        name=path.stem,
        root=path,
        classes=tuple(n for n in names if n is not None),
        box_convention="continuous",
        images=images_table,
        objects=objects,
        problems=(),
        family_data=(extras,),
        roots=(path.parent, img_dir),
    )


def _split(values: list[Any], counts: IntArray) -> list[list[Any]]:
    """``values`` cut into consecutive lists of ``counts`` items."""
    out, i = [], 0
    for k in counts.tolist():
        out.append(values[i : i + k])
        i += k
    return out


def _keypoints(c: GroundTruthColumns, order: IntArray, has_kp: npt.NDArray[np.bool_]) -> FloatArray:
    """float64 (N, P, 3) in row order, P the most keypoints of any annotation (zeros after an
    annotation's own, and for annotations without keypoints)."""
    n = len(order)
    triples = c["kp_len"] // 3
    npts = int(triples[has_kp].max()) if has_kp.any() else 0
    kps = np.zeros((n, npts, 3))
    if npts:
        pos = np.empty(n, dtype=np.int64)
        pos[order] = np.arange(n)
        owner = np.repeat(np.arange(n), triples)
        within = np.arange(len(owner)) - np.repeat(np.cumsum(triples) - triples, triples)
        kps[pos[owner], within] = c["keypoints"].reshape(-1, 3)
    return sealed(kps)  # handed over: the model keeps it, no copy


def _mask_table(
    segm: Shapes, order: IntArray, image_index: IntArray, c: GroundTruthColumns
) -> RleTable:
    """``reader._mask_table``: polygons at their image's size, RLEs as given; a polygon of an
    image without a size is an empty 0 x 0 mask. Rasterised when first read (``LazyRleTable``:
    a box evaluation never reads them, the window one image at a time)."""
    hh = c["height"][image_index].copy()
    ww = c["width"][image_index].copy()
    rle = segm.kind[order] == 2
    hh[rle], ww[rle] = c["rle_h"][order][rle], c["rle_w"][order][rle]
    return LazyRleTable.of_shapes(segm, hh, ww, order)
