"""A COCO results list read entry by entry: each field checked (``FormatError`` names the JSON
path, e.g. ``[3].score``; with ``keep_going`` bad entries are skipped and listed), polygons
rasterised in one batch, and the ``ResultSet`` built from the columns (``result_set``, also what
``results_reader``'s bulk paths build)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core import masks as mk
from vocviewer.core.arrays import sealed
from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import Derived, Detections, ResultSet
from vocviewer.families.coco import schema
from vocviewer.families.coco.columns import CocoAnnotations, CocoResults, RleTable, ids_at
from vocviewer.families.coco.reader import polygon_sets_to_rle
from vocviewer.families.coco.results_bulk import sealed_corners
from vocviewer.formats.json_input import show


def read_entries(
    path: Path, anns: list[Any], kind: str, task: str, keep_going: bool, dataset: Dataset
) -> ResultSet:
    """The per-entry path: every entry checked by ``_entry``."""
    gt: CocoAnnotations = dataset.data(CocoAnnotations)
    row_of = {int(v): i for i, v in enumerate(gt.image_id.tolist())}
    cat_of = {int(v): i for i, v in enumerate(gt.category_id.tolist())}
    problems: list[FormatError] = []
    keep: list[int] = []
    flags = schema.KeptRows()
    cols: dict[str, list[Any]] = {
        k: [] for k in ("img", "cat", "score", "bbox", "area", "kp", "rle")
    }
    for i, a in enumerate(anns):
        try:
            vals = _entry(path, a, i, kind, task, row_of, cat_of, dataset, flags)
        except FormatError as err:
            if not keep_going:
                raise
            problems.append(err)
            continue
        if vals is None:  # a category the annotation file does not have
            flags.other_category.append(f"[{i}].category_id")
            continue
        keep.append(i)
        for k, v in zip(cols, vals, strict=True):
            cols[k].append(v)
    n = len(keep)
    _rasterise(cols, kind)
    rles = None
    if task == "segm":
        hh = np.array([r[1] for r in cols["rle"]], dtype=np.int64)
        ww = np.array([r[2] for r in cols["rle"]], dtype=np.int64)
        rles = RleTable.from_list([r[0] for r in cols["rle"]], hh, ww)
    warnings = flags.warnings(path)
    return result_set(
        path,
        kind,
        gt,
        np.array(keep, dtype=np.int64) + 1,
        np.array(cols["img"], dtype=np.int64),
        np.array(cols["cat"], dtype=np.int64),
        np.array(cols["score"], dtype=np.float64),
        np.array(cols["bbox"], dtype=np.float64).reshape(n, 4),
        np.array(cols["area"], dtype=np.float64),
        cols["kp"],
        rles,
        [*problems, *warnings],
        warnings,
    )


def result_set(
    path: Path,
    kind: str,
    gt: CocoAnnotations,
    ids: npt.NDArray[np.int64],
    img: npt.NDArray[np.int64],
    label: npt.NDArray[np.int64],
    score: npt.NDArray[np.float64],
    xywh: npt.NDArray[np.float64],
    area: npt.NDArray[np.float64] | Derived,
    kp_lists: list[npt.NDArray[np.float64]] | npt.NDArray[np.float64],
    rles: RleTable | None,
    problems: list[FormatError],
    warnings: list[FormatError],
) -> ResultSet:
    """The ``ResultSet`` of result columns (``img``, ``label``: rows of the ground truth's images
    and categories; the ids the file gave are the ground truth's there: ``CocoResults``' id
    columns are gathered from them when first read, not held beside ``img`` and ``label``)."""
    n = len(ids)
    # handed over to the model, which then keeps them instead of copying (CocoResults and
    # Detections share ``ids``)
    img, label, score, ids, xywh = map(sealed, (img, label, score, ids, xywh))
    area_column: Any = area if isinstance(area, Derived) else sealed(area)
    if isinstance(kp_lists, np.ndarray):  # (N, P, 3) from the bulk path
        kps = kp_lists
    else:
        kps = np.zeros((n, max((len(k) for k in kp_lists), default=0), 3))
        for j, kp in enumerate(kp_lists):
            if len(kp):
                kps[j, : len(kp)] = kp
    extras = CocoResults(
        kind=kind,
        det_id=ids,
        image_id=ids_at(gt.image_id, img),
        category_id=ids_at(gt.category_id, label),
        bbox=xywh,
        area=area_column,
        keypoints=kps,
        masks=rles,
        warnings=tuple(warnings),
    )
    # the corners made when first read (``x + w`` as ``corners`` adds it), not held twice; kept
    # rows may hold inf, NaN
    xyxy: Any = Derived(sealed_corners, extras.bbox, rowwise=True)
    dets = Detections(
        img,
        label,
        score,
        xyxy,
        sealed(np.zeros(n, dtype=np.int64)),  # (pages of zeros the system maps when read)
        ids,
    )
    kept = tuple(warnings)  # rows kept with a warning: in ResultSet.warnings, not problems
    return ResultSet(
        path.stem,
        (path,),
        detections=dets,
        problems=tuple(p for p in problems if all(p is not w for w in kept)),
        warnings=kept,
        family_data=(extras,),
        task=extras.kind,
    )


class _Polygons:
    """A result's list ``segmentation`` (as ``polygon_parts``), rasterised later in one batch."""

    def __init__(self, parts: list[npt.NDArray[np.float64]], h: int, w: int) -> None:
        self.parts, self.h, self.w = parts, h, w


def _rasterise(cols: dict[str, list[Any]], kind: str) -> None:
    """Replace the ``_Polygons`` of ``cols["rle"]`` by ``(counts, h, w)``, all polygons in one
    batch; for segm results also fill the area and the missing bboxes they left ``None``."""
    rows = [j for j, r in enumerate(cols["rle"]) if isinstance(r, _Polygons)]
    if not rows:
        return
    pend: list[_Polygons] = [cols["rle"][j] for j in rows]
    counts = polygon_sets_to_rle([p.parts for p in pend], [p.h for p in pend], [p.w for p in pend])
    for j, p, c in zip(rows, pend, counts, strict=True):
        cols["rle"][j] = (c, p.h, p.w)
        if kind == "segm":
            cols["area"][j] = mk.area(c)
            if cols["bbox"][j] is None:
                cols["bbox"][j] = mk.to_bbox(c, p.h, p.w)


def _known(
    path: Path, a: dict[str, Any], where: str, field: str, rows: dict[int, int], what: str
) -> int | None:
    """The row of the id ``a[field]``; ``None`` for an id not in ``rows``, or ``FormatError``
    naming ``what`` it should be when ``what`` is given."""
    if field not in a:
        raise FormatError(path, f"missing '{field}'", element=where)
    v = schema.json_int(path, a[field], f"{where}.{field}", f"an integer {field}")
    row = rows.get(v)
    if row is None and what:
        raise FormatError(path, f"{field} {v} is not {what}", element=f"{where}.{field}")
    return row


def _entry(
    path: Path,
    a: Any,
    i: int,
    kind: str,
    task: str,
    row_of: dict[int, int],
    cat_of: dict[int, int],
    ds: Dataset,
    flags: schema.KeptRows,
) -> tuple[Any, ...] | None:
    """Validated columns of entry ``i``; ``FormatError`` names the field. ``None`` for an entry
    (otherwise valid) of a category the annotation file does not have: ``loadRes`` takes it and
    ``COCOeval`` never looks at it, as ``--task`` evaluation here (``use_cats``)."""
    where = f"[{i}]"
    if not isinstance(a, dict):
        raise FormatError(path, f"expected an object, got {show(a)}", element=where)
    img = _known(path, a, where, "image_id", row_of, "an image of the annotation file")
    assert img is not None
    cat = _known(path, a, where, "category_id", cat_of, "")
    if cat is None:
        flags = schema.KeptRows()  # its non-finite values are not reported: it is left out
    if "score" not in a:
        raise FormatError(path, "missing 'score'", element=where)
    score = schema.json_number(path, a["score"], f"{where}.score")
    flags.check(np.array([score]), f"{where}.score")
    h, w = int(ds.images.height[img]), int(ds.images.width[img])
    kp = np.zeros((0, 3))
    rle: tuple[mk.Counts, int, int] | _Polygons | None = None
    if kind == "bbox":
        bb = schema.bbox(path, a.get("bbox"), f"{where}.bbox")
        flags.check(bb, f"{where}.bbox")
        with np.errstate(invalid="ignore", over="ignore"):
            area = float(bb[2] * bb[3])
        if task == "segm":
            rle = _rle(path, a, where, h, w, flags, box=bb)
    elif kind == "segm":
        rle = _rle(path, a, where, h, w, flags)
        bb = None
        if "bbox" in a:
            bb = schema.bbox(path, a["bbox"], f"{where}.bbox")
            flags.check(bb, f"{where}.bbox")
        area = None  # polygons: filled in by _rasterise
        if not isinstance(rle, _Polygons):
            area = mk.area(rle[0])
            if bb is None:
                bb = mk.to_bbox(*rle)
    else:
        kp = _keypoints(path, a, where, flags)
        x, y = kp[:, 0], kp[:, 1]
        with np.errstate(invalid="ignore", over="ignore"):
            x0, x1, y0, y1 = x.min(), x.max(), y.min(), y.max()
            area = (x1 - x0) * (y1 - y0)
            bb = np.array([x0, y0, x1 - x0, y1 - y0])
    if task == "keypoints" and kind != "keypoints":  # loadRes' other branches keep them
        kp = _keypoints(path, a, where, flags)
    return None if cat is None else (img, cat, score, bb, area, kp, rle)


def _keypoints(
    path: Path, a: dict[str, Any], where: str, flags: schema.KeptRows
) -> npt.NDArray[np.float64]:
    """A result's ``keypoints``: a non-empty list of ``x, y, v`` triples, as (P, 3)."""
    if "keypoints" not in a:
        raise FormatError(path, "missing 'keypoints'", element=where)
    kp = schema.json_numbers(path, a["keypoints"], f"{where}.keypoints", step=3)
    if not len(kp):
        raise FormatError(path, "expected x, y, v triples, got []", element=f"{where}.keypoints")
    flags.check(kp, f"{where}.keypoints")
    return kp.reshape(-1, 3)


def _rle(
    path: Path,
    a: dict[str, Any],
    where: str,
    h: int,
    w: int,
    flags: schema.KeptRows,
    box: npt.NDArray[np.float64] | None = None,
) -> tuple[mk.Counts, int, int] | _Polygons:
    """RLE counts and size of a result's ``segmentation`` (for box results without one, the
    box's corner polygon, as ``loadRes`` builds it; an empty mask for a non-finite box);
    polygons are checked and left to ``_rasterise``."""
    sw = f"{where}.segmentation"
    if "segmentation" not in a:
        if box is None:
            raise FormatError(path, "missing 'segmentation'", element=where)
        if not np.isfinite(box).all() or not (h and w):  # empty mask
            return np.array([h * w], dtype=np.int64), h, w
        with np.errstate(over="ignore"):
            x1, y1, x2, y2 = box[0], box[1], box[0] + box[2], box[1] + box[3]
        corners = np.array([x1, y1, x1, y2, x2, y2, x2, y1])
        if (np.abs(corners) > schema.MAX_COORDINATE).any() or (
            schema.polygon_work([corners])[0] > schema.MAX_POLYGON_WORK
        ):
            raise FormatError(
                path,
                "box too large to rasterise as a mask for segm evaluation",
                element=f"{where}.bbox",
            )
        return _Polygons([corners], h, w)
    segm = a["segmentation"]
    if isinstance(segm, list):
        parts = schema.polygon_parts(path, segm, sw)
        if len(parts) and schema.polygon_work(parts).max() > schema.MAX_POLYGON_WORK:
            raise FormatError(
                path,
                f"a polygon crossing over {schema.MAX_POLYGON_WORK:,} pixel "
                "columns (too costly to rasterise)",
                element=sw,
            )
        return _Polygons(parts, h, w) if h and w else (np.array([0], dtype=np.int64), h, w)
    counts, rh, rw = schema.rle_counts(path, segm, sw)
    if (rh, rw) != (h, w):
        flags.resized.append(f"{sw}.size")
    return counts, rh, rw
