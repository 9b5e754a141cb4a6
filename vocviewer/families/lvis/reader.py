"""LVIS v1 annotation JSON → ``Dataset``, LVIS results JSON → ``ResultSet``.

An LVIS file is a COCO annotation file plus federated fields: per image ``neg_category_ids``
(categories verified absent) and ``not_exhaustive_category_ids`` (categories not every instance of
which is annotated), per category ``frequency`` (``"r"``, ``"c"``, ``"f"``). Its images may give
``coco_url`` instead of ``file_name``: the file name is then the URL's last part, in the image
folder (``images``; default as for COCO). The COCO columns are read by ``families.coco.reader``
(``Dataset.data(CocoAnnotations)``), the federated ones go to ``Dataset.data(LvisAnnotations)``
(``families.lvis.columns.LvisAnnotations``). LVIS has no crowd: ``iscrowd`` is read but ``LVISEval`` never
looks at it; an annotation's ``ignore`` field is kept instead.

Results are COCO results (``families.coco.results_reader``: box or mask entries); entries of a category
the annotation file lacks are left out of the detections but kept in ``ResultSet.data(LvisAnnotations)``
(``families.lvis.columns.LvisResults``), because ``LVISResults`` counts them toward its 300 detections per
image. Bad input raises ``FormatError`` naming the JSON path.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.families.coco import reader_kernel as coco_kernel
from vocviewer.families.coco import schema
from vocviewer.families.coco.columns import CocoAnnotations, CocoResults
from vocviewer.families.coco.reader import coco_dataset
from vocviewer.families.coco.results_reader import BoxColumns, read_coco_results
from vocviewer.families.lvis import reader_kernel as lvis_kernel
from vocviewer.families.lvis.columns import (
    FREQUENCIES,
    MAX_DETS_PER_IMAGE,
    LvisAnnotations,
    LvisResults,
)
from vocviewer.families.lvis.declared import SNIFF_WINDOW, looks_like_lvis
from vocviewer.formats.json_input import load_json, parse_json, read_json_bytes, show

__all__ = ["SNIFF_WINDOW", "looks_like_lvis", "read_lvis", "read_lvis_results"]

_IMAGE_LISTS = ("neg_category_ids", "not_exhaustive_category_ids")


def read_lvis(path: str | Path, images: str | Path | None = None, *, masks: bool = True) -> Dataset:
    """Read an LVIS annotation JSON (v1; v0.5 too).

    ``images``: the image folder (default ``../<split>`` beside the annotation folder, as for
    COCO); ``masks``: build RLE masks (needed for ``segm``).

    Raises
    ------
    FormatError
        Not an LVIS file: a table missing, an image without its two federated lists of integer
        ids, a category whose ``frequency`` is not ``r``, ``c`` or ``f``, two annotations with
        one id (``LVIS`` indexes annotations by id); COCO's checks as in ``read_coco``.
    """
    path = Path(path)
    raw = read_json_bytes(path)
    img_dir = Path(images) if images is not None else coco_kernel.guess_image_dir(path)
    quick = lvis_kernel.read_plain(path, raw, img_dir, masks=masks)
    if quick is not None:
        return quick
    data = parse_json(path, raw)
    del raw
    if not isinstance(data, dict) or not isinstance(data.get("images"), list):
        raise FormatError(path, "not an LVIS annotation file: expected an object with 'images'")
    for key in ("annotations", "categories"):  # LVIS indexes both tables
        if key not in data:
            raise FormatError(path, "missing: LVIS files have this list", element=key)
    named = {**data, "images": [_named(im) for im in data["images"]]}
    dataset = coco_dataset(path, named, images, masks=masks, reads_iscrowd=False)
    gt: CocoAnnotations = dataset.data(CocoAnnotations)
    lvis = _federated(path, data, gt)
    return dataset.with_data(lvis)


def _named(im: Any) -> Any:
    """An image entry with ``file_name`` taken from ``coco_url``'s last part when it has none."""
    if isinstance(im, dict) and "file_name" not in im and isinstance(im.get("coco_url"), str):
        return {**im, "file_name": im["coco_url"].rstrip("/").rsplit("/", 1)[-1]}
    return im


def _id_list(path: Path, im: dict[str, Any], key: str, where: str) -> list[int]:
    """An image's list of category ids (``images[i].neg_category_ids``)."""
    if key not in im:
        raise FormatError(path, f"missing '{key}' (LVIS lists it for every image)", element=where)
    v = im[key]
    if type(v) is not list:
        raise FormatError(
            path, f"expected a list of category ids, got {show(v)}", element=f"{where}.{key}"
        )
    if all(type(x) is int for x in v):
        return v
    return [
        schema.json_int(path, x, f"{where}.{key}[{j}]", "a category id") for j, x in enumerate(v)
    ]


def _csr(lists: list[list[int]], row_of: dict[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Offsets and class rows of per-image id lists (ids without a category left out)."""
    rows = [[row_of[c] for c in ids if c in row_of] for ids in lists]
    offsets = np.concatenate(([0], np.cumsum([len(r) for r in rows], dtype=np.int64)))
    flat = np.array([c for r in rows for c in r], dtype=np.int64)
    return offsets, flat


def _federated(path: Path, data: dict[str, Any], gt: CocoAnnotations) -> LvisAnnotations:
    """The federated columns of the parsed file ``data`` (already read by ``coco_dataset``,
    so its images and categories are objects with valid ids)."""
    row_of = {c: k for k, c in enumerate(gt.category_id.tolist())}
    lists: dict[str, list[list[int]]] = {key: [] for key in _IMAGE_LISTS}
    for i, im in enumerate(data["images"]):
        for key in _IMAGE_LISTS:
            lists[key].append(_id_list(path, im, key, f"images[{i}]"))
    frequency: dict[int, str] = {}
    for i, c in enumerate(data["categories"]):
        f = c.get("frequency")
        if not (isinstance(f, str) and f in FREQUENCIES):
            what = f"got {show(f)}" if "frequency" in c else "it is missing"
            raise FormatError(
                path,
                f"expected the frequency group 'r', 'c' or 'f'; {what}",
                element=f"categories[{i}].frequency",
            )
        frequency[schema.json_int(path, c["id"], f"categories[{i}].id")] = f
    neg = _csr(lists["neg_category_ids"], row_of)
    not_exhaustive = _csr(lists["not_exhaustive_category_ids"], row_of)
    return LvisAnnotations(
        neg_offsets=neg[0],
        neg_label=neg[1],
        not_exhaustive_offsets=not_exhaustive[0],
        not_exhaustive_label=not_exhaustive[1],
        frequency=np.array([frequency[c] for c in gt.category_id.tolist()], dtype=np.str_),
        ignore=_ignored(path, data["annotations"], gt.ann_id),
    )


def _ignored(path: Path, anns: Any, ann_id: np.ndarray) -> np.ndarray:
    """Each object's ``ignore`` truth value (``LVISEval``: ``if g["ignore"]``); ``FormatError``
    for a repeated annotation id (``LVIS`` would evaluate the last one in place of both)."""
    unique, count = np.unique(ann_id, return_counts=True)
    if (count > 1).any():
        dup = int(unique[np.argmax(count > 1)])
        seen = False
        for j, a in enumerate(anns):
            if isinstance(a, dict) and a.get("id") == dup:
                if seen:
                    raise FormatError(
                        path,
                        f"duplicate annotation id {dup} (LVIS indexes annotations by id)",
                        element=f"annotations[{j}].id",
                    )
                seen = True
    flagged = [
        int(a["id"])  # a whole float id is that integer (``schema.json_int``); others left out
        for a in anns
        if isinstance(a, dict)
        and a.get("ignore")
        and schema.is_number(a.get("id"))
        and float(a["id"]).is_integer()
    ]
    return np.isin(ann_id, np.array(flagged, dtype=np.int64))


def read_lvis_results(
    dataset: Dataset,
    path: str | Path,
    *,
    task: str = "bbox",
    keep_going: bool = False,
    boxes: BoxColumns | None = None,
) -> ResultSet:
    """Read an LVIS results file for ``dataset`` (read by ``read_lvis``): COCO's results reader
    (``read_coco_results``: ``task`` ``"bbox"`` or ``"segm"``, ``keep_going``, ``boxes``) plus
    an ``LvisResults``, the entries of other categories that count toward the cap per image.

    Raises
    ------
    FormatError
        As ``read_coco_results``; keypoint results (LVIS evaluates boxes and masks).
    """
    path = Path(path)
    if task not in ("bbox", "segm"):
        raise FormatError(path, f"LVIS evaluates bbox and segm results, not {task}")
    schema.refuse_foreign_results(Path(path), "LVIS")  # before COCO's reader would name COCO
    results = read_coco_results(dataset, path, task=task, keep_going=keep_going, boxes=boxes)
    dt: CocoResults = results.data(CocoResults)
    if dt.kind == "keypoints":
        raise FormatError(
            path,
            "keypoint results (no 'bbox' or 'segmentation'): LVIS evaluates boxes and masks",
            element="[0]",
        )
    other = [w for w in results.warnings if (w.element or "").endswith(".category_id")]
    extra, warnings = LvisResults.empty(), results.warnings
    if other:
        extra = _other_categories(path, dataset, dt.det_id)
        note = FormatError(
            path,
            f"{len(extra.entry)} result(s) of a category not in the annotation file (first "
            "shown); not evaluated, but counted toward the image's "
            f"{MAX_DETS_PER_IMAGE} detections, as LVISResults counts them",
            element=other[0].element,
        )
        warnings = tuple(note if w is other[0] else w for w in warnings)
    return dataclasses.replace(results, warnings=warnings).with_data(extra)


def _other_categories(path: Path, dataset: Dataset, det_id: np.ndarray) -> LvisResults:
    """The entries ``read_coco_results`` left out for a category the file lacks (read again:
    rare, and only then)."""
    gt: CocoAnnotations = dataset.data(CocoAnnotations)
    anns = load_json(path)
    row_of = {v: i for i, v in enumerate(gt.image_id.tolist())}
    known = set(gt.category_id.tolist())
    image, score, entry = [], [], []
    for i in np.setdiff1d(np.arange(len(anns)), det_id - 1).tolist():
        a = anns[i]
        if not isinstance(a, dict) or not schema.is_number(a.get("score")):
            continue
        img, cat = a.get("image_id"), a.get("category_id")
        if schema.is_number(cat) and cat not in known and schema.is_number(img) and img in row_of:
            image.append(row_of[img])
            score.append(float(a["score"]))
            entry.append(i)
    return LvisResults(np.array(image, np.int64), np.array(score, np.float64), np.array(entry))
