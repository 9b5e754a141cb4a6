"""Tags written out: every tag as CSV / JSON rows (image, box, class), and the tagged corrections
as annotation patches — PASCAL VOC XMLs, or a COCO patch JSON (``coco_patch``) — always through the guarded writer (``formats.output``),
so never into the dataset's folders.

A row per tag of each entry (an entry with only a note: one row, ``tag`` empty), columns
``TAG_COLUMNS``: the target (``kind``, ``image``, ``index``, ``result_set``), its ``class`` and
box (``xmin ymin xmax ymax`` in the dataset's convention: an object's, or a detection's with its
``score``; empty for an image), the ``tag``, the ``note`` and the ``fix`` (action, class, box).

VOC patches: one ``Annotations/<image id>.xml`` per image with a fix, the image's own annotation
file (``<dataset root>/Annotations/<id>.xml``, every element kept) with the fixes applied —
objects deleted, relabelled (``name``) or re-boxed (``bndbox``), objects added at the end — or,
where the dataset has no such file, one written from its objects. Laid over a copy of the
dataset's ``Annotations``, they make the corrected dataset.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lxml import etree

from vocviewer.core.boxes import to_xywh
from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.core.tags import Fix, TagEntry, Tags
from vocviewer.formats import output

TAG_COLUMNS = (
    "kind",
    "image",
    "index",
    "result_set",
    "class",
    "xmin",
    "ymin",
    "xmax",
    "ymax",
    "score",
    "tag",
    "note",
    "fix",
    "fix_class",
    "fix_box",
)
XYXY = ("xmin", "ymin", "xmax", "ymax")


def _described(
    entry: TagEntry, dataset: Dataset, result_sets: Sequence[ResultSet]
) -> dict[str, Any]:
    t = entry.target
    row: dict[str, Any] = {
        "kind": t.kind,
        "image": t.image,
        "index": None if t.kind == "image" else t.index,
        "result_set": None if t.kind != "detection" else t.result_set,
        "class": None,
        "box": None,
        "score": None,
    }
    if t.kind == "object" and (r := dataset.object_at(t.image, t.index)) >= 0:
        row["class"] = dataset.classes[dataset.objects.label[r]]
        row["box"] = [float(v) for v in dataset.objects.box[r]]
    if t.kind == "detection" and 0 <= t.result_set < len(result_sets):
        d = result_sets[t.result_set].detections
        if 0 <= t.index < len(d):
            row["class"] = dataset.classes[d.label[t.index]]
            row["box"] = [float(v) for v in d.box[t.index]]
            row["score"] = float(d.score[t.index])
    f = entry.fix
    row["note"] = entry.note
    row["fix"] = None if f is None else f.action
    row["fix_class"] = None if f is None else f.class_name
    row["fix_box"] = None if f is None or f.box is None else list(f.box)
    return row


def tag_rows(
    tags: Tags, dataset: Dataset, result_sets: Sequence[ResultSet] = ()
) -> list[dict[str, Any]]:
    """One row per tag of each entry (module docstring), in image-id order."""
    rows = []
    for entry in tags.sorted():
        base = _described(entry, dataset, result_sets)
        for tag in entry.tags or ("",):
            rows.append({**base, "tag": tag})
    return rows


def tags_csv(rows: Sequence[dict[str, Any]]) -> str:
    """``rows`` as CSV with a header (``TAG_COLUMNS``; boxes split into four columns)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(TAG_COLUMNS)
    for row in rows:
        box = row["box"] or [None] * 4
        fix_box = " ".join(f"{v:g}" for v in row["fix_box"]) if row["fix_box"] else ""
        values = [row["kind"], row["image"], row["index"], row["result_set"], row["class"]]
        values += [*box, row["score"], row["tag"], row["note"], row["fix"], row["fix_class"]]
        writer.writerow(["" if v is None else v for v in [*values, fix_box]])
    return out.getvalue()


def write_tag_tables(
    folder: str | Path,
    tags: Tags,
    dataset: Dataset,
    result_sets: Sequence[ResultSet] = (),
    protected: Sequence[str | Path] = (),
) -> list[Path]:
    """``tags.csv`` and ``tags.json`` in ``folder`` (never inside ``protected``)."""
    rows = tag_rows(tags, dataset, result_sets)
    text = json.dumps({"dataset": str(dataset.root), "tags": rows}, indent=2) + "\n"
    return [
        output.write_text(output.child_path(folder, "tags.csv"), tags_csv(rows), protected),
        output.write_text(output.child_path(folder, "tags.json"), text, protected),
    ]


# --- VOC XML patches ----------------------------------------------------------------------------
def _set_box(obj: etree._Element, box: Sequence[float]) -> None:
    bb = obj.find("bndbox")
    if bb is None:
        bb = etree.SubElement(obj, "bndbox")
    for tag, v in zip(XYXY, box, strict=True):
        el = bb.find(tag)
        if el is None:
            el = etree.SubElement(bb, tag)
        el.text = f"{v:g}"


def _new_object(name: str, box: Sequence[float]) -> etree._Element:
    obj = etree.Element("object")
    etree.SubElement(obj, "name").text = name
    for flag in ("truncated", "occluded", "difficult"):
        etree.SubElement(obj, flag).text = "0"
    _set_box(obj, box)
    return obj


def _annotation(dataset: Dataset, image: int) -> etree._ElementTree:
    """The image's own annotation XML, else one written from the dataset's objects."""
    image_id = str(dataset.images.id[image])
    own = Path(dataset.root or ".") / "Annotations" / f"{image_id}.xml"
    if dataset.root is not None and own.is_file():
        try:
            return etree.parse(str(own), etree.XMLParser(resolve_entities=False, no_network=True))
        except etree.XMLSyntaxError as e:
            raise FormatError(own, f"not well-formed XML ({e})") from None
    root = etree.Element("annotation")
    etree.SubElement(root, "filename").text = Path(str(dataset.images.path[image])).name
    size = etree.SubElement(root, "size")
    etree.SubElement(size, "width").text = str(int(dataset.images.width[image]))
    etree.SubElement(size, "height").text = str(int(dataset.images.height[image]))
    start, stop = dataset.object_offsets[image], dataset.object_offsets[image + 1]
    for r in range(start, stop):
        obj = _new_object(dataset.classes[dataset.objects.label[r]], dataset.objects.box[r])
        obj.find("difficult").text = str(int(dataset.objects.difficult[r]))
        root.append(obj)
    return etree.ElementTree(root)


def fixes_by_image(tags: Tags) -> dict[str, list[TagEntry]]:
    """The entries with a fix, by image id."""
    out: dict[str, list[TagEntry]] = {}
    for entry in tags.sorted():
        if entry.fix is not None:
            out.setdefault(entry.target.image, []).append(entry)
    return out


def _check(entry: TagEntry, fix: Fix) -> None:
    needs_object = fix.action in ("relabel", "rebox", "delete")
    if needs_object and entry.target.kind != "object":
        raise FormatError(None, f"a {fix.action} fix is on an object, not on {entry.target}")
    if fix.action in ("add", "relabel") and not fix.class_name:
        raise FormatError(None, f"the {fix.action} fix of {entry.target} names no class")
    if fix.action in ("add", "rebox") and fix.box is None:
        raise FormatError(None, f"the {fix.action} fix of {entry.target} has no box")


def patched_voc_xml(dataset: Dataset, image_id: str, entries: Sequence[TagEntry]) -> bytes:
    """The annotation XML of ``image_id`` with the fixes of ``entries`` applied."""
    image = dataset.find_image(image_id)
    if image is None:
        raise FormatError(None, f"a fix names image {image_id!r}, which {dataset.name} lacks")
    tree = _annotation(dataset, image)
    objects = tree.getroot().findall("object")
    gone = []
    for entry in entries:
        fix = entry.fix
        assert fix is not None
        _check(entry, fix)
        if fix.action == "add":
            tree.getroot().append(_new_object(str(fix.class_name), fix.box))  # type: ignore[arg-type]
            continue
        if not 0 <= entry.target.index < len(objects):
            raise FormatError(None, f"image {image_id} has no object {entry.target.index}")
        obj = objects[entry.target.index]
        if fix.action == "relabel":
            obj.find("name").text = fix.class_name
        elif fix.action == "rebox":
            _set_box(obj, fix.box)  # type: ignore[arg-type]
        else:
            gone.append(obj)
    for obj in gone:
        tree.getroot().remove(obj)
    return etree.tostring(tree, pretty_print=True)  # type: ignore[no-any-return]


def write_voc_patches(
    folder: str | Path, tags: Tags, dataset: Dataset, protected: Sequence[str | Path] = ()
) -> list[Path]:
    """``folder/Annotations/<id>.xml`` for each image with a fix (module docstring); never
    inside ``protected`` (the dataset's folders)."""
    target = output.guard_folder(Path(folder) / "Annotations", protected)
    written = []
    for image_id, entries in fixes_by_image(tags).items():
        data = patched_voc_xml(dataset, image_id, entries)
        path = output.child_path(target, f"{image_id}.xml")
        written.append(output.write_bytes(path, data, protected))
    return written


# --- COCO JSON patches --------------------------------------------------------------------------
#: The ``format`` of a COCO patch file.
COCO_PATCH = "vocviewer-coco-patch"


def _image_id(image: str) -> int | str:
    return int(image) if image.isdigit() else image


def coco_patch(tags: Tags, dataset: Dataset) -> dict[str, Any]:
    """The tagged fixes as a COCO patch: annotations to ``add`` (COCO annotations with a
    ``category`` name), and by (``image_id``, ``index``: position among the image's annotations
    in file order) the ones to ``relabel``, ``rebox`` (new ``bbox``; ``area`` its w * h) or
    ``delete``. ``apply_coco_patch`` applies it to the annotation file it was made from."""
    out: dict[str, Any] = {"format": COCO_PATCH, "version": 1, "dataset": str(dataset.root)}
    for key in ("add", "relabel", "rebox", "delete"):
        out[key] = []
    for entries in fixes_by_image(tags).values():
        for entry in entries:
            fix = entry.fix
            assert fix is not None
            _check(entry, fix)
            item: dict[str, Any] = {"image_id": _image_id(entry.target.image)}
            if fix.action != "add":
                item["index"] = entry.target.index
            if fix.class_name is not None:
                item["category"] = fix.class_name
            if fix.box is not None:
                item["bbox"] = to_xywh(fix.box, dataset.box_convention)[0].tolist()
                item["area"] = item["bbox"][2] * item["bbox"][3]
            if fix.action == "add":
                item["iscrowd"] = 0
            out[fix.action].append(item)
    return out


def write_coco_patch(
    folder: str | Path, tags: Tags, dataset: Dataset, protected: Sequence[str | Path] = ()
) -> Path:
    """``folder/coco_patch.json`` (``coco_patch``), never inside ``protected``."""
    text = json.dumps(coco_patch(tags, dataset), indent=2) + "\n"
    return output.write_text(output.child_path(folder, "coco_patch.json"), text, protected)


def apply_coco_patch(gt: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """A copy of the COCO annotation file ``gt`` (parsed JSON) with ``patch`` applied: objects
    relabelled, re-boxed and deleted by their position among their image's annotations, added
    ones appended with new ids. ``ValueError`` names what does not fit ``gt``."""
    if patch.get("format") != COCO_PATCH:
        raise ValueError(f"not a vocviewer COCO patch (format {patch.get('format')!r})")
    by_name = {c["name"]: c["id"] for c in gt.get("categories", [])}
    anns = [dict(a) for a in gt.get("annotations", [])]
    seen: dict[str, int] = {}
    where: dict[tuple[str, int], int] = {}
    for i, a in enumerate(anns):
        k = str(a["image_id"])
        where[(k, seen.get(k, 0))] = i
        seen[k] = seen.get(k, 0) + 1

    def category(item: dict[str, Any]) -> int:
        if item.get("category") not in by_name:
            raise ValueError(f"no category {item.get('category')!r} in the annotation file")
        return int(by_name[item["category"]])

    def at(item: dict[str, Any]) -> int:
        key = (str(item["image_id"]), int(item["index"]))
        if key not in where:
            raise ValueError(f"image {key[0]} has no annotation {key[1]}")
        return where[key]

    for item in patch.get("relabel", []):
        anns[at(item)]["category_id"] = category(item)
    for item in patch.get("rebox", []):
        anns[at(item)].update(bbox=list(item["bbox"]), area=float(item["area"]))
    gone = {at(item) for item in patch.get("delete", [])}
    kept = [a for i, a in enumerate(anns) if i not in gone]
    next_id = max((int(a["id"]) for a in anns), default=0) + 1
    for n, item in enumerate(patch.get("add", [])):
        kept.append(
            {
                "id": next_id + n,
                "image_id": item["image_id"],
                "category_id": category(item),
                "bbox": list(item["bbox"]),
                "area": float(item["area"]),
                "iscrowd": int(item.get("iscrowd", 0)),
            }
        )
    return {**gt, "annotations": kept}


def write_patches(
    folder: str | Path, tags: Tags, dataset: Dataset, protected: Sequence[str | Path] = ()
) -> list[Path]:
    """The tagged fixes in the dataset's own kind of file: VOC XMLs for a dataset of VOC's
    1-based inclusive boxes, else a COCO patch JSON; nothing if no tag has a fix."""
    if not fixes_by_image(tags):
        return []
    if dataset.box_convention == "voc":
        return write_voc_patches(folder, tags, dataset, protected)
    return [write_coco_patch(folder, tags, dataset, protected)]
