"""YOLO predictions → the COCO results list they stand for → ``ResultSet`` (COCO's reader).

Two forms, as Ultralytics writes them:

- a folder of ``--save-txt --save-conf`` label files, ``<image stem>.txt`` with lines
  ``cls cx cy w h conf`` (a polygon ``cls x1 y1 ... conf`` for segmentation, the keypoints
  before ``conf`` for pose), normalised; an image without a file has no detections;
- ``predictions.json`` (``val --save-json``): COCO results whose ``image_id`` is the file stem
  (a number if the stem is one) and whose ``category_id`` is the class index (a file using id
  0) or the dataset's category id (``index + 1``, or COCO's 91-id numbering for COCO's 80
  classes), with pixel ``bbox`` ``x, y, w, h``.

Entries become COCO results in file order (a folder: files in name order), so the detection ids
and the tie order are those of the COCO results JSON ``vocviewer convert --to coco`` writes.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from vocviewer.core import masks as mk
from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.families.coco.results_reader import read_coco_result_list
from vocviewer.families.yolo.coco_names import category_ids
from vocviewer.families.yolo.labels import (
    LabelRow,
    class_check,
    coordinate_warnings,
    read_label_file,
)
from vocviewer.families.yolo.reader import YoloInfo, annotation
from vocviewer.formats.json_input import load_json


def txt_entries(
    dataset: Dataset, folder: Path, task: str, skipped: list[FormatError] | None = None
) -> tuple[list[dict[str, Any]], list[str]]:
    """The COCO results of a folder of prediction label files, and the warnings (``skipped``:
    bad lines are listed there and left out, else they raise)."""
    info: YoloInfo = dataset.data(YoloInfo)
    row_of = {s: i for i, s in enumerate(info.stems)}
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() == ".txt" and p.is_file())
    if not files and any(folder.iterdir()):
        raise FormatError(folder, "no .txt prediction files (predict with --save-txt --save-conf)")
    kpt = info.layout.kpt_shape
    cat_ids = category_ids(dataset.classes)
    kind = {"bbox": "detect", "segm": "segment", "keypoints": "pose"}[task]
    out: list[dict[str, Any]] = []
    rows: list[LabelRow] = []
    unknown: list[Path] = []
    ims = dataset.images
    for f in files:
        row = row_of.get(f.stem)
        if row is None:
            unknown.append(f)
            continue
        lines = read_label_file(f, kpt, scored=True, skipped=skipped)
        class_check(lines, dataset.classes, info.layout.source)
        rows += lines
        w, h = int(ims.width[row]), int(ims.height[row])
        for r in lines:
            a = annotation(r, w, h, cat_ids, kind)
            e: dict[str, Any] = {"image_id": info.image_ids[row], "score": r.score}
            if task == "segm":  # loadRes' segm branch (RLE only): area and bbox from the mask
                rle = mk.polygons_to_rle(a["segmentation"], h, w)
                e["category_id"] = a["category_id"]
                e["segmentation"] = {"size": [h, w], "counts": mk.to_string(rle)}
            else:
                e |= {"category_id": a["category_id"], "bbox": a["bbox"]}
                if "keypoints" in a:
                    e["keypoints"] = a["keypoints"]
            out.append(e)
    warnings = coordinate_warnings(rows, "prediction lines")
    if unknown:
        warnings.append(
            f"{len(unknown)} prediction file(s) match no image of the split, e.g. {unknown[0]}: "
            f"left out (a file is named after its image's stem; is this the {info.layout.split} "
            "split's predictions?)"
        )
    return out, warnings


def json_entries(dataset: Dataset, path: Path) -> tuple[list[Any], list[str]]:
    """The COCO results of an Ultralytics ``predictions.json``, and the warnings."""
    info: YoloInfo = dataset.data(YoloInfo)
    anns = load_json(path)
    if not isinstance(anns, list):
        raise FormatError(path, "predictions.json must be a JSON array of objects")
    by_key: dict[Any, int] = {}
    for s, i in zip(info.stems, info.image_ids, strict=True):
        by_key[s] = i
        if s.isdigit():
            by_key[int(s)] = i
    cats = category_ids(dataset.classes)
    ids = [a.get("category_id") for a in anns if isinstance(a, dict)]
    as_index = 0 in ids
    out, unknown, warnings = [], [], []
    for n, a in enumerate(anns):
        if not isinstance(a, dict):
            raise FormatError(path, "expected an object", element=f"[{n}]")
        key = a.get("image_id")
        if isinstance(key, bool) or key not in by_key:
            unknown.append(n)
            continue
        e = dict(a, image_id=by_key[key])
        c = a.get("category_id")
        if as_index and isinstance(c, int) and not isinstance(c, bool):
            if not 0 <= c < len(cats):
                raise FormatError(
                    path,
                    f"class index {c} is past the {len(cats)} names (this file numbers classes "
                    "from 0)",
                    element=f"[{n}].category_id",
                )
            e["category_id"] = cats[c]
        out.append(e)
    if unknown:
        n = unknown[0]
        warnings.append(
            f"{path}: {len(unknown)} of {len(anns)} predictions name an image_id that matches no "
            f"image of the split, e.g. [{n}].image_id = {anns[n].get('image_id')!r}: left out "
            "(image_id is the file stem, as Ultralytics writes it)"
        )
    warnings += _box_warnings(dataset, path, out)
    if as_index:
        warnings.append(f"{path}: category_id read as class indices (the file uses id 0)")
    return out, warnings


def _box_warnings(dataset: Dataset, path: Path, entries: list[Any]) -> list[str]:
    """Pixel boxes read as normalised, and corners ``x1 y1 x2 y2`` where COCO's ``x y w h``
    belong (most boxes then reach past the image and every ``w h`` is at least its ``x y``)."""
    info: YoloInfo = dataset.data(YoloInfo)
    row_of = {i: r for r, i in enumerate(info.image_ids)}
    rows, boxes = [], []
    for n, a in enumerate(entries):
        b = a.get("bbox")
        if isinstance(b, list) and len(b) == 4 and all(type(v) in (int, float) for v in b):
            rows.append((n, row_of[a["image_id"]]))
            boxes.append(b)
    if len(boxes) < 2:
        return []
    arr = np.array(boxes, dtype=np.float64)
    first = f"[{rows[0][0]}].bbox = {boxes[0]}"
    if float(np.max(arr)) <= 1.0:
        return [
            f"{path}: every bbox is within [0, 1], e.g. {first}: these look normalised, but a "
            "COCO-style bbox is in pixels (x, y, w, h); multiply by the image width / height"
        ]
    img = np.array([r for _, r in rows])
    w, h = dataset.images.width[img], dataset.images.height[img]
    past = (arr[:, 0] + arr[:, 2] > 1.01 * w) | (arr[:, 1] + arr[:, 3] > 1.01 * h)
    if np.mean(past) >= 0.5 and np.all((arr[:, 2] >= arr[:, 0]) & (arr[:, 3] >= arr[:, 1])):
        return [
            f"{path}: {int(np.sum(past))} of {len(arr)} boxes reach past their image and every "
            f"'w h' is at least its 'x y', e.g. {first}: these look like corners x1 y1 x2 y2; "
            "a COCO-style bbox is x, y, w, h: write w = x2 - x1, h = y2 - y1"
        ]
    return []


def read_yolo_results(
    dataset: Dataset,
    paths: list[Path],
    *,
    task: str | None = None,
    keep_going: bool = False,
    **_: Any,
) -> ResultSet:
    """One prediction-label folder or ``predictions.json`` for the YOLO ``dataset``, for
    ``task`` (default: the labels' own)."""
    if len(paths) != 1:
        raise FormatError(paths[-1], "YOLO results are one folder of label files or one JSON")
    path = Path(paths[0])
    info: YoloInfo = dataset.data(YoloInfo)
    task = task or info.task
    skipped: list[FormatError] = []
    if path.is_dir():
        entries, warnings = txt_entries(dataset, path, task, skipped if keep_going else None)
    elif path.suffix.lower() == ".json":
        entries, warnings = json_entries(dataset, path)
    else:
        raise FormatError(path, "expected a folder of prediction .txt files or predictions.json")
    # no predictions at all: no detections anywhere (COCO's loader refuses an empty list;
    # Ultralytics evaluates it as every AP 0), so read it past that refusal
    rs = read_coco_result_list(
        dataset, path, entries, task=task, keep_going=keep_going or not entries
    )
    if not entries:
        rs = dataclasses.replace(rs, problems=())
    rs = dataclasses.replace(rs, problems=(*skipped, *rs.problems))
    name = path.name if path.is_dir() else path.stem
    kept = tuple(FormatError(None, w) for w in warnings)
    return dataclasses.replace(rs, name=name, warnings=(*rs.warnings, *kept))
