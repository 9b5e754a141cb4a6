"""``vocviewer convert X --to voc``: a COCO-model annotation dict (and COCO results) as a VOC
year folder.

Written: ``OUT/Annotations/<stem>.xml`` per image (``<filename>``, ``<size>``, one ``<object>``
per annotation with ``<name>``, ``<truncated>``, ``<occluded>``, ``<difficult>`` and
``<bndbox>``), ``OUT/ImageSets/Main/<set>.txt`` (every image's stem) and each results file as
``OUT/results/<results stem>/Main/comp4_det_<set>_<class>.txt`` (``stem score x1 y1 x2 y2``).
Coordinates: COCO's ``[x, y, w, h]`` (0-based, continuous) becomes VOC's 1-based inclusive
pixels ``xmin = x + 1``, ``xmax = x + w`` (same for y), so VOC's ``+1`` width is ``w`` and its
IoU equals COCO's; numbers keep 17 significant digits. ``<difficult>`` = an annotation's
``difficult`` key or ``iscrowd`` (VOC's only "neither hit nor miss"); ``<truncated>`` /
``<occluded>`` = the ``truncated`` / ``occluded`` keys a source knows (0 otherwise).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from lxml import etree

from vocviewer.core.dataset import VOC_CLASSES
from vocviewer.core.errors import FormatError
from vocviewer.formats import output
from vocviewer.formats.json_input import load_json


def _n(v: float) -> str:
    return f"{float(v):.17g}"


def _voc_box(bbox: Sequence[float]) -> list[str]:
    """COCO ``[x, y, w, h]`` → VOC ``xmin ymin xmax ymax`` (1-based inclusive), as text."""
    x, y, w, h = (float(v) for v in bbox)
    return [_n(x + 1), _n(y + 1), _n(x + w), _n(y + h)]


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def check_document(doc: Any, path: Path) -> dict[str, Any]:
    """``doc`` if it is a COCO annotation document a converter can write: images with ``id``,
    ``file_name``, ``width``, ``height``; categories with ``id`` and ``name``; annotations of
    those with a ``bbox`` of four finite numbers. Else a ``FormatError`` naming the element."""
    if not isinstance(doc, dict) or not isinstance(doc.get("images"), list):
        raise FormatError(path, "not a COCO annotation file: expected an object with 'images'")
    ids, cats = set(), set()
    for k, im in enumerate(doc["images"]):
        ok = isinstance(im, dict) and isinstance(im.get("file_name"), str) and "id" in im
        if not ok or not all(_number(im.get(key)) for key in ("width", "height")):
            raise FormatError(
                path, "expected id, file_name, width and height", element=f"images[{k}]"
            )
        ids.add(im["id"])
    for k, c in enumerate(doc.get("categories") or []):
        if not isinstance(c, dict) or "id" not in c or "name" not in c:
            raise FormatError(path, "expected id and name", element=f"categories[{k}]")
        cats.add(c["id"])
    for k, a in enumerate(doc.get("annotations") or []):
        ok = isinstance(a, dict) and a.get("image_id") in ids and a.get("category_id") in cats
        box = a.get("bbox") if isinstance(a, dict) else None
        if not ok or not isinstance(box, list) or len(box) != 4 or not all(map(_number, box)):
            raise FormatError(
                path,
                "expected the image_id of an image, the category_id of a category and a bbox "
                "of 4 numbers",
                element=f"annotations[{k}]",
            )
    return doc


def _stems(doc: dict[str, Any], path: Path) -> dict[Any, str]:
    """Image id → file stem (VOC's image id); ``FormatError`` if two images share one."""
    stems: dict[Any, str] = {}
    seen: dict[str, Any] = {}
    for im in doc["images"]:
        stem = PurePosixPath(str(im["file_name"])).stem
        if stem in seen:
            raise FormatError(path, f"images {seen[stem]} and {im['id']} share the VOC id {stem!r}")
        seen[stem] = im["id"]
        stems[im["id"]] = stem
    return stems


def _annotation_xml(im: dict[str, Any], anns: list[dict[str, Any]], names: dict[Any, str]) -> bytes:
    root = etree.Element("annotation")
    etree.SubElement(root, "filename").text = PurePosixPath(str(im["file_name"])).name
    size = etree.SubElement(root, "size")
    for tag, key in (("width", "width"), ("height", "height")):
        etree.SubElement(size, tag).text = str(int(im.get(key) or 0))
    etree.SubElement(size, "depth").text = "3"
    etree.SubElement(root, "segmented").text = "0"
    for a in anns:
        obj = etree.SubElement(root, "object")
        etree.SubElement(obj, "name").text = names[a["category_id"]]
        etree.SubElement(obj, "pose").text = "Unspecified"
        etree.SubElement(obj, "truncated").text = str(int(bool(a.get("truncated"))))
        etree.SubElement(obj, "occluded").text = str(int(bool(a.get("occluded"))))
        difficult = bool(a.get("difficult")) or bool(a.get("iscrowd"))
        etree.SubElement(obj, "difficult").text = str(int(difficult))
        box = etree.SubElement(obj, "bndbox")
        for tag, v in zip(("xmin", "ymin", "xmax", "ymax"), _voc_box(a["bbox"]), strict=True):
            etree.SubElement(box, tag).text = v
    data: bytes = etree.tostring(root, pretty_print=True, encoding="utf-8")
    return data


def write_voc(
    doc: dict[str, Any],
    path: Path,
    out: Path,
    image_set: str,
    protected: list[Path],
    results: Sequence[tuple[Path, list[dict[str, Any]]]] = (),
) -> list[str]:
    """Write ``doc`` (read from ``path``) and ``results`` (COCO results lists, each with the
    file it came from) as a VOC folder in ``out``; the messages say what was written and what VOC
    cannot hold (one line each)."""
    root = output.guard_folder(out, protected)
    names = {c["id"]: str(c["name"]) for c in doc.get("categories") or []}
    stems = _stems(doc, path)
    by_image: dict[Any, list[dict[str, Any]]] = {}
    check_document(doc, path)
    for a in doc.get("annotations") or []:
        by_image.setdefault(a["image_id"], []).append(a)
    for im in doc["images"]:
        target = output.child_path(root / "Annotations", stems[im["id"]], ".xml")
        xml = _annotation_xml(im, by_image.get(im["id"], []), names)
        output.write_bytes(target, xml, protected)
    listing = "".join(f"{stems[im['id']]}\n" for im in doc["images"])
    set_file = output.child_path(root / "ImageSets" / "Main", image_set, ".txt")
    output.write_text(set_file, listing, protected)
    anns = doc.get("annotations") or []
    msgs = [f"wrote {root}: {len(doc['images'])} images, {len(anns)} objects, set {image_set}"]
    msgs += _lost(anns, names)
    for r, entries in results:
        msgs.append(_write_results(r, entries, root, image_set, names, stems, protected))
    return msgs


def _lost(anns: list[dict[str, Any]], names: dict[Any, str]) -> list[str]:
    """One line per thing VOC cannot hold."""
    msgs = []
    crowd = sum(bool(a.get("iscrowd")) for a in anns)
    polygons = sum(
        isinstance(a.get("segmentation"), list) and bool(a["segmentation"]) for a in anns
    )
    rle = sum(isinstance(a.get("segmentation"), dict) for a in anns)
    keypoints = sum(bool(a.get("num_keypoints") or a.get("keypoints")) for a in anns)
    if crowd:
        msgs.append(f"{crowd} crowd region(s) written as difficult: VOC has no crowd flag")
    if polygons or rle:
        msgs.append(f"{polygons + rle} object mask(s) not kept: VOC annotations hold boxes only")
    if keypoints:
        msgs.append(f"{keypoints} object(s) with keypoints: VOC holds no keypoints (not kept)")
    foreign = sorted(n for n in names.values() if n not in VOC_CLASSES)
    if foreign:
        msgs.append(
            f"{len(foreign)} class(es) not among VOC's 20 ({', '.join(foreign[:5])}"
            f"{', ...' if len(foreign) > 5 else ''}): written, but VOC's evaluation skips their objects and result files"
        )
    msgs.append(
        "COCO's 'area' is not kept: VOC has none (read back, an object's area is its box's)"
    )
    return msgs


def _write_results(
    path: Path,
    entries: list[dict[str, Any]],
    root: Path,
    image_set: str,
    names: dict[Any, str],
    stems: dict[Any, str],
    protected: list[Path],
) -> str:
    """One results list as ``comp4_det_<set>_<class>.txt`` files; the message line."""
    per: dict[str, list[str]] = {n: [] for n in names.values()}
    for k, e in enumerate(entries):
        if not isinstance(e, dict) or e.get("image_id") not in stems or "score" not in e:
            raise FormatError(path, "expected a result of an image of the file", element=f"[{k}]")
        box = e.get("bbox")
        good = isinstance(box, list) and len(box) == 4 and all(map(_number, box))
        if e.get("category_id") not in names or not good or not _number(e["score"]):
            raise FormatError(
                path,
                "expected a known category_id, a bbox of 4 numbers and a numeric score",
                element=f"[{k}]",
            )
        line = " ".join([stems[e["image_id"]], _n(e["score"]), *_voc_box(e["bbox"])])
        per[names[e["category_id"]]].append(line)
    folder = root / "results" / path.stem / "Main"
    for name, lines in per.items():
        target = output.child_path(folder, f"comp4_det_{image_set}_{name}", ".txt")
        output.write_text(target, "".join(f"{x}\n" for x in lines), protected)
    return f"wrote {folder}: {len(entries)} detections in {len(per)} comp4_det files"


def coco_json_to_voc(
    ann: Path, out: Path, results: list[Path], image_set: str | None, images: Path | None
) -> list[str]:
    """``vocviewer convert ann.json --to voc OUT``: the COCO annotation file ``ann`` (and COCO
    results JSONs) by ``write_voc``, never inside ``ann``'s or the images' folders."""
    doc = check_document(load_json(ann), ann)
    protected = [ann.parent, *([images] if images is not None else [])]
    loaded = []
    for r in results:
        entries = load_json(r)
        if not isinstance(entries, list):
            raise FormatError(r, "results must be a JSON array of objects")
        loaded.append((r, entries))
    name = image_set or ann.stem.rsplit("_", 1)[-1]
    return write_voc(doc, ann, out, name, protected, loaded)
