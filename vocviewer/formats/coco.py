"""COCO annotation JSON (instances, person_keypoints, captions) → ``Dataset``.

Classes are the category names in ascending category-id order; boxes are stored xyxy in the
``"continuous"`` convention (``x, y, x + w, y + h``); the exact COCO columns (ids, ``x, y, w, h``,
``area``, ``iscrowd``, RLE masks, keypoints, captions) go to ``Dataset.extras["coco"]``
(``core.coco.CocoAnnotations``). Result files are read by ``formats.coco_results``.
"""

from __future__ import annotations

import gc
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core import masks as mk
from vocviewer.core.coco import CocoAnnotations, RleTable
from vocviewer.core.dataset import Dataset, ImageTable, ObjectTable, PartTable
from vocviewer.core.errors import FormatError

__all__ = ["load_json", "polygon_parts", "polygon_sets_to_rle", "read_coco", "segmentation_to_rle"]


def load_json(path: Path) -> Any:
    """Parse a JSON file; a syntax error becomes ``FormatError`` with its line.

    The cyclic garbage collector is paused meanwhile: millions of fresh containers would set it
    off again and again (about 40% of the parse), and parsed JSON holds no cycles."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        with open(path, "rb") as f:
            return json.load(f)
    except json.JSONDecodeError as e:
        raise FormatError(path, f"not valid JSON: {e.msg}", line=e.lineno) from None
    except UnicodeDecodeError as e:
        raise FormatError(path, f"not UTF-8 text: {e.reason}") from None
    finally:
        if was_enabled:
            gc.enable()


def _guess_image_dir(path: Path) -> Path:
    """``annotations/instances_val2017.json`` → ``../val2017`` (pycocotools' layout)."""
    split = path.stem.rsplit("_", 1)[-1]
    return path.parent.parent / split


def segmentation_to_rle(segm: Any, h: int, w: int) -> mk.Counts:
    """One annotation's ``segmentation`` (polygons, uncompressed or compressed RLE) as RLE
    counts, as ``COCO.annToRLE`` converts it (polygons use the image's ``h x w``)."""
    if isinstance(segm, list):
        if not segm:
            return np.array([h * w], dtype=np.int64)
        return mk.polygons_to_rle(segm, h, w)
    if isinstance(segm, dict) and "counts" in segm:
        counts = segm["counts"]
        if isinstance(counts, list):
            return np.asarray(counts, dtype=np.int64)
        return mk.from_string(counts)
    raise ValueError("expected polygons or an RLE with 'counts'")


def polygon_parts(segm: list[Any]) -> list[npt.NDArray[np.float64]]:
    """The flat ``x0, y0, x1, y1, ...`` polygons of a list ``segmentation``, as ``polygons_to_rle``
    reads them: a first entry of exactly 4 numbers makes every entry an ``x, y, w, h`` box, taken
    as its corner polygon (as ``bbox_to_rle`` builds it). ``ValueError`` / ``TypeError`` when
    malformed or not finite."""
    parts: list[npt.NDArray[np.float64]] = []
    if segm and len(segm[0]) == 4:
        for b in segm:
            bx, by, bw, bh = (float(v) for v in np.asarray(b, dtype=np.float64).reshape(4))
            xe, ye = bx + bw, by + bh
            parts.append(np.array([bx, by, bx, ye, xe, ye, xe, by], dtype=np.float64))
    else:
        parts = [np.asarray(p, dtype=np.float64).reshape(-1) for p in segm]
    if not all(np.isfinite(p).all() for p in parts):
        raise ValueError("polygon coordinates must be finite")
    return parts


def polygon_sets_to_rle(
    sets: list[list[npt.NDArray[np.float64]]], h: npt.ArrayLike, w: npt.ArrayLike
) -> list[mk.Counts]:
    """``segmentation_to_rle`` of many list segmentations given as ``polygon_parts`` (each with its
    image's ``h``, ``w``): every polygon rasterised in one batch, an object's polygons merged."""
    hh = np.asarray(h, dtype=np.int64).reshape(-1)
    ww = np.asarray(w, dtype=np.int64).reshape(-1)
    nparts = np.array([len(s) for s in sets], dtype=np.int64)
    flat = [p for s in sets for p in s]
    counts = mk.polygons_to_rle_batch(flat, np.repeat(hh, nparts), np.repeat(ww, nparts))
    out: list[mk.Counts] = []
    i = 0
    for k, hi, wi in zip(nparts.tolist(), hh.tolist(), ww.tolist(), strict=True):
        if k == 0:
            out.append(np.array([hi * wi], dtype=np.int64))
        else:  # one polygon: merge would return it unchanged
            out.append(counts[i] if k == 1 else mk.merge(counts[i : i + k], hi, wi))
        i += k
    return out


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


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
        Not a COCO annotation file, or an entry without the fields evaluation needs.
    """
    path = Path(path)
    data = load_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("images"), list):
        raise FormatError(path, "not a COCO annotation file: expected an object with 'images'")
    img_dir = Path(images) if images is not None else _guess_image_dir(path)

    cats = data.get("categories") or []
    try:
        cats = sorted(cats, key=lambda c: int(c["id"]))
        names = tuple(str(c["name"]) for c in cats)
    except (KeyError, TypeError, ValueError):
        raise FormatError(path, "each category needs an integer 'id' and a 'name'",
                          element="categories") from None  # fmt: skip
    cat_ids = np.array([int(c["id"]) for c in cats], dtype=np.int64)
    cat_index = {int(c): i for i, c in enumerate(cat_ids.tolist())}

    ids: list[int] = []
    files: list[Path] = []
    widths: list[int] = []
    heights: list[int] = []
    for i, im in enumerate(data["images"]):
        if not isinstance(im, dict) or not _number(im.get("id")):
            raise FormatError(path, "image entry needs a numeric 'id'", element=f"images[{i}]")
        ids.append(int(im["id"]))
        files.append(img_dir / str(im.get("file_name", f"{im['id']}.jpg")))
        widths.append(int(im.get("width", 0)))
        heights.append(int(im.get("height", 0)))
    row_of = {v: i for i, v in enumerate(ids)}
    if len(row_of) != len(ids):
        raise FormatError(path, "duplicate image ids", element="images")

    captions: list[list[str]] = [[] for _ in ids]
    rows: list[tuple[Any, ...]] = []
    problems: list[FormatError] = []
    anns = data.get("annotations") or []
    for i, a in enumerate(anns):
        where = f"annotations[{i}]"
        if not isinstance(a, dict):
            raise FormatError(path, "annotation is not an object", element=where)
        row = row_of.get(a.get("image_id"))  # type: ignore[arg-type]
        if row is None:
            problems.append(FormatError(path, f"unknown image_id {a.get('image_id')!r}",
                                        element=where))  # fmt: skip
            continue
        if "caption" in a:
            captions[row].append(str(a["caption"]))
            continue
        k = cat_index.get(a.get("category_id"))  # type: ignore[arg-type]
        bb = a.get("bbox")
        if k is None:
            problems.append(FormatError(path, f"unknown category_id {a.get('category_id')!r}",
                                        element=where))  # fmt: skip
            continue
        if not (isinstance(bb, list) and len(bb) == 4 and all(_number(v) for v in bb)):
            raise FormatError(path, "'bbox' must be 4 numbers [x, y, w, h]", element=where)
        ar = a.get("area", bb[2] * bb[3])
        if not _number(ar) or not _number(a.get("id")):
            raise FormatError(path, "'id' and 'area' must be numbers", element=where)
        rows.append((row, k, int(a["id"]), bb, float(ar), bool(a.get("iscrowd", 0)), i, a))

    rows.sort(key=lambda r: r[0])  # stable: file order within an image
    n = len(rows)
    npts = max((len(r[7].get("keypoints") or []) // 3 for r in rows), default=0)
    kps = np.zeros((n, npts, 3))
    nkp = np.zeros(n, dtype=np.int64)
    has_kp = np.zeros(n, dtype=bool)
    rles: list[mk.Counts] = []
    poly_rows: list[int] = []  # list segmentations, rasterised together after the loop
    poly_sets: list[list[npt.NDArray[np.float64]]] = []
    for j, r in enumerate(rows):
        a = r[7]
        if "keypoints" in a:
            kp = np.asarray(a["keypoints"], dtype=np.float64).reshape(-1, 3)
            kps[j, : len(kp)] = kp
            has_kp[j] = True
            nkp[j] = int(a.get("num_keypoints", np.count_nonzero(kp[:, 2] > 0)))
        if masks:
            h, w = heights[r[0]], widths[r[0]]
            segm = a.get("segmentation", [])
            try:
                if isinstance(segm, list):
                    poly_sets.append(polygon_parts(segm))
                    poly_rows.append(j)
                    rles.append(np.zeros(0, dtype=np.int64))  # placeholder
                else:
                    rles.append(segmentation_to_rle(segm, h, w))
            except (ValueError, TypeError):
                raise FormatError(
                    path, "bad 'segmentation'", element=f"annotations[{r[6]}]"
                ) from None
    if poly_rows:
        ph = [heights[rows[j][0]] for j in poly_rows]
        pw = [widths[rows[j][0]] for j in poly_rows]
        for j, c in zip(poly_rows, polygon_sets_to_rle(poly_sets, ph, pw), strict=True):
            rles[j] = c

    image_index = np.array([r[0] for r in rows], dtype=np.int64)
    xywh = np.array([r[3] for r in rows], dtype=np.float64).reshape(n, 4)
    box = np.column_stack((xywh[:, :2], xywh[:, :2] + xywh[:, 2:]))
    order_in_image = np.arange(n) - np.searchsorted(image_index, image_index, side="left")
    zeros = np.zeros(n, dtype=bool)
    objects = ObjectTable(
        image_index, np.array([r[1] for r in rows], dtype=np.int64), box, zeros, zeros, zeros,
        np.zeros(n, dtype=np.int8), order_in_image, np.zeros((n, 0), dtype=bool),
    )  # fmt: skip
    mask_table = None
    if masks:
        hh = np.array([heights[r[0]] for r in rows], dtype=np.int64)
        ww = np.array([widths[r[0]] for r in rows], dtype=np.int64)
        for j, r in enumerate(rows):  # RLE dicts carry their own size
            segm = r[7].get("segmentation")
            if isinstance(segm, dict) and isinstance(segm.get("size"), list):
                hh[j], ww[j] = int(segm["size"][0]), int(segm["size"][1])
        mask_table = RleTable.from_list(rles, hh, ww)
    extras = CocoAnnotations(
        image_id=np.array(ids, dtype=np.int64),
        captions=tuple(tuple(c) for c in captions),
        category_id=cat_ids,
        supercategory=tuple(str(c.get("supercategory", "")) for c in cats),
        keypoint_names=tuple(tuple(str(s) for s in c.get("keypoints", [])) for c in cats),
        skeleton=tuple(np.asarray(c.get("skeleton", []), np.int64).reshape(-1, 2) for c in cats),
        ann_id=np.array([r[2] for r in rows], dtype=np.int64),
        category_id_of=cat_ids[objects.label] if n else np.zeros(0, np.int64),
        bbox=xywh,
        area=np.array([r[4] for r in rows], dtype=np.float64),
        iscrowd=np.array([r[5] for r in rows], dtype=bool),
        keypoints=kps,
        num_keypoints=nkp,
        has_keypoints=has_kp,
        masks=mask_table,
    )
    images_table = ImageTable(
        np.array([str(i) for i in ids], dtype=np.str_), tuple(files),
        np.array(widths), np.array(heights), np.zeros(len(ids), dtype=bool),
    )  # fmt: skip
    z = np.zeros(0, dtype=np.int64)
    return Dataset(
        name=path.stem, root=path, year=None, classes=names, box_convention="continuous",
        images=images_table, objects=objects, parts=PartTable(z, z.astype(np.int8), np.zeros((0, 4))),
        problems=tuple(problems), extras={"coco": extras}, roots=(path.parent, img_dir),
    )  # fmt: skip


def finite(v: Any) -> bool:
    """A JSON number that is neither NaN nor infinite."""
    return _number(v) and math.isfinite(v)
