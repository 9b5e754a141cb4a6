"""A selection of images written as a new dataset folder (``vocviewer subset``).

``write_subset(dataset, rows, to, out, results)`` takes the chosen images (``core.subset``) to the
COCO-model document every converter of vocviewer writes from, writes it (and each result set's
COCO results list) to a temporary folder and converts that by ``vocviewer convert``'s writer of
``to`` (``registry.convert``) into ``out``: COCO ``annotations/instances_<name>.json`` and
``results/<set>.json``; VOC ``Annotations/``, ``ImageSets/Main/<name>.txt``, ``results/<set>/
Main/comp4_det_<name>_<class>.txt``; YOLO ``data.yaml``, ``labels/val/``, ``predictions/<set>/``.
The images go where the target family says its folder keeps them (its ``images_folder``).

The document: a dataset read from a COCO-model JSON (COCO, LVIS) is that file's document with
only the chosen images and their annotations, results JSONs filtered by ``image_id``. Other
datasets get one from their columns: image ``id`` = source row + 1, ``file_name`` = the image
file's name (VOC and YOLO name an image by its file's stem; the id + the file's suffix where
names are missing or repeat), category ``id`` = class index + 1 (every class), annotation ``id`` = source
object row + 1, ``bbox`` = COCO's ``x, y, w, h`` (VOC's 1-based inclusive ``x1 y1 x2 y2`` as
``x1 - 1, y1 - 1, x2 - x1 + 1, y2 - y1 + 1``, which VOC's writer turns back into the same
numbers), with ``difficult`` / ``truncated`` / ``occluded`` kept as keys; results likewise.

Images are copied (default), hard-linked or symbolically linked. Nothing is written into the
dataset's folders, the results' folders, or a folder that exists and is not empty.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core.boxes import to_xywh
from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError, OutputError
from vocviewer.core.results import ResultSet
from vocviewer.core.subset import IMAGE_MODES, chosen_rows
from vocviewer.families import registry
from vocviewer.formats import output
from vocviewer.formats.image_file import declared_size
from vocviewer.formats.json_input import load_json


def from_json_file(dataset: Dataset) -> bool:
    """Whether ``dataset`` was read from a COCO-model JSON file (its document is kept)."""
    root = dataset.root
    return root is not None and root.suffix.lower() == ".json" and root.is_file()


def new_folder(out: str | Path, protected: Sequence[Path]) -> Path:
    """``out`` resolved, or ``OutputError``: inside (or one of) ``protected``, a file, or a
    folder that exists and is not empty (a subset is never written over anything)."""
    root = output.guard_folder(out, protected)
    if root.is_dir() and any(root.iterdir()):
        raise OutputError(
            Path(out), "exists and is not empty: a subset is written into a new or empty folder"
        )
    return root


def _column_names(dataset: Dataset, rows: npt.NDArray[np.int64]) -> list[str]:
    """Each chosen image's ``file_name``: its file's name (YOLO's and VOC's image identity is
    the file's stem), or its id + the file's suffix where names are missing or repeated."""
    ims = dataset.images
    names = [ims.path[r].name for r in rows.tolist()]
    if all(names) and len({PurePosixPath(n).stem for n in names}) == len(names):
        return names
    return [f"{ims.id[r]}{ims.path[r].suffix or '.jpg'}" for r in rows.tolist()]


def _columns_document(dataset: Dataset, rows: npt.NDArray[np.int64]) -> dict[str, Any]:
    """The COCO-model document of the chosen images built from the columns."""
    ims = dataset.images
    images = []
    for r, name in zip(rows.tolist(), _column_names(dataset, rows), strict=True):
        w, h, path = int(ims.width[r]), int(ims.height[r]), ims.path[r]
        if (w <= 0 or h <= 0) and path.is_file():
            w, h = declared_size(path)
        images.append({"id": r + 1, "file_name": name, "width": w, "height": h})
    obj = dataset.objects
    keep = np.flatnonzero(np.isin(obj.image_index, rows))
    anns, boxes = [], to_xywh(obj.box[keep], dataset.box_convention).tolist()
    for j, bbox in zip(keep.tolist(), boxes, strict=True):
        anns.append(
            {
                "id": j + 1,
                "image_id": int(obj.image_index[j]) + 1,
                "category_id": int(obj.label[j]) + 1,
                "bbox": bbox,
                "area": bbox[2] * bbox[3],
                "iscrowd": 0,
                "difficult": int(obj.difficult[j]),
                "truncated": int(obj.truncated[j]),
                "occluded": int(obj.occluded[j]),
            }
        )
    cats = [{"id": k + 1, "name": c} for k, c in enumerate(dataset.classes)]
    return {"images": images, "annotations": anns, "categories": cats}


def document(dataset: Dataset, rows: npt.ArrayLike) -> dict[str, Any]:
    """The COCO-model document of the images at ``rows`` (module docstring)."""
    chosen = chosen_rows(dataset, rows)
    if not from_json_file(dataset):
        return _columns_document(dataset, chosen)
    assert dataset.root is not None
    doc = load_json(dataset.root)
    if not isinstance(doc, dict) or not isinstance(doc.get("images"), list):
        raise FormatError(dataset.root, "not a COCO annotation file: expected 'images'")
    wanted = {str(i): r for r, i in zip(chosen.tolist(), dataset.images.id[chosen], strict=True)}
    images = []
    for im in doc["images"]:
        if isinstance(im, dict) and str(im.get("id")) in wanted:
            if not isinstance(im.get("file_name"), str):  # LVIS names images by their URL
                im = {**im, "file_name": dataset.images.path[wanted[str(im["id"])]].name}
            images.append(im)
    anns = [
        a
        for a in doc.get("annotations") or []
        if isinstance(a, dict) and str(a.get("image_id")) in wanted
    ]
    return {**doc, "images": images, "annotations": anns}


def result_entries(
    dataset: Dataset, results: ResultSet, rows: npt.ArrayLike, doc: dict[str, Any]
) -> list[dict[str, Any]]:
    """``results`` on the images at ``rows`` as a COCO results list for ``doc``: its JSON files'
    entries of those images (a dataset read from a JSON), else made from the columns."""
    chosen = chosen_rows(dataset, rows)
    files = results.files
    if from_json_file(dataset) and files and all(f.suffix.lower() == ".json" for f in files):
        wanted = {str(i) for i in dataset.images.id[chosen]}
        out: list[dict[str, Any]] = []
        for f in files:
            entries = load_json(f)
            if not isinstance(entries, list):
                raise FormatError(f, "results must be a JSON array of objects")
            out += [e for e in entries if isinstance(e, dict) and str(e.get("image_id")) in wanted]
        return out
    id_of_row = {r: im["id"] for r, im in doc_images(dataset, chosen, doc).items()}
    cat_ids = sorted(c["id"] for c in doc.get("categories") or [])
    d = results.detections
    keep = np.flatnonzero(np.isin(d.image_index, chosen))
    boxes = to_xywh(d.box[keep], dataset.box_convention).tolist()
    return [
        {
            "image_id": id_of_row[int(d.image_index[j])],
            "category_id": cat_ids[int(d.label[j])],
            "bbox": box,
            "score": float(d.score[j]),
        }
        for j, box in zip(keep.tolist(), boxes, strict=True)
    ]


def doc_images(
    dataset: Dataset, rows: npt.NDArray[np.int64], doc: dict[str, Any]
) -> dict[int, dict[str, Any]]:
    """Source image row → its entry of ``doc`` (``document``'s ids: the file's, or row + 1)."""
    by_id = {str(im["id"]): im for im in doc["images"]}
    own = from_json_file(dataset)
    keys = [str(dataset.images.id[r]) if own else str(r + 1) for r in rows.tolist()]
    return {r: by_id[k] for r, k in zip(rows.tolist(), keys, strict=True) if k in by_id}


def _safe_name(name: str) -> str:
    """A result set's name as a file stem (no separators, no leading dot)."""
    stem = re.sub(r"[^\w.+-]+", "_", name).lstrip(".") or "results"
    return stem


def place_image(source: Path, target: Path, mode: str, protected: Sequence[Path]) -> str:
    """Put the image ``source`` at ``target`` by ``mode`` (``IMAGE_MODES``), never inside
    ``protected`` nor over a file; returns the mode used (a hard link across file systems
    falls back to a copy)."""
    real = output.guard_target(target, protected)
    if os.path.lexists(real):
        raise OutputError(target, "two chosen images have this file name; the first was kept")
    real.parent.mkdir(parents=True, exist_ok=True)
    if mode == "symlink":
        os.symlink(source.resolve(), real)
        return mode
    if mode == "hardlink":
        try:
            os.link(source, real)
            return mode
        except OSError:
            pass
    shutil.copy2(source, real)
    return "copy"


def _image_target(folder: Path, file_name: str, keep_folders: bool) -> Path:
    """Where an image of ``file_name`` goes under ``folder`` (with its sub-folders if
    ``keep_folders``, else by its last part), each part a plain name (``output.child_path``)."""
    parts = PurePosixPath(file_name.replace("\\", "/")).parts
    target = folder
    for p in parts if keep_folders else parts[-1:]:
        target = output.child_path(target, p)
    return target


def _place_images(
    dataset: Dataset,
    chosen: npt.NDArray[np.int64],
    doc: dict[str, Any],
    folder: Path,
    keep_folders: bool,
    mode: str,
    protected: Sequence[Path],
) -> list[str]:
    used: dict[str, int] = {}
    missing: list[str] = []
    entries = doc_images(dataset, chosen, doc)
    msgs = []
    for r in chosen.tolist():
        source = dataset.images.path[r]
        if not source.is_file() or r not in entries:
            missing.append(str(dataset.images.id[r]))
            continue
        target = _image_target(folder, str(entries[r]["file_name"]), keep_folders)
        try:
            how = place_image(source, target, mode, protected)
        except OutputError as e:
            msgs.append(f"image {dataset.images.id[r]} not placed: {e}")
            continue
        used[how] = used.get(how, 0) + 1
    verbs = {"copy": "copied", "hardlink": "hard-linked", "symlink": "linked"}
    done = ", ".join(f"{verbs[k]} {n}" for k, n in used.items()) or "placed 0"
    msgs.insert(0, f"{done} image(s) into {folder}")
    if missing:
        shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
        msgs.append(f"{len(missing)} image file(s) not found, not placed: {shown}")
    return msgs


def _converted(
    doc: dict[str, Any],
    root: Path,
    to: str,
    name: str,
    loaded: Sequence[tuple[str, list[dict[str, Any]]]],
) -> tuple[list[str], str]:
    """``doc`` and ``loaded`` written as ``to`` by ``vocviewer convert``'s writer, from a
    COCO-model file in a temporary folder; the messages and the family that file reads as."""
    with tempfile.TemporaryDirectory(prefix="vocviewer-subset-") as tmp:
        ann = Path(tmp) / "annotations" / f"instances_{name}.json"
        ann.parent.mkdir()
        ann.write_text(json.dumps(doc), encoding="utf-8")
        paths = []
        for set_name, entries in loaded:
            paths.append(Path(tmp) / f"{set_name}.json")
            paths[-1].write_text(json.dumps(entries), encoding="utf-8")
        options = {"image_set": name, "images": Path(tmp) / "no-images"}
        source = registry.choose(ann).name
        msgs = registry.convert(ann, to, root, paths, None, options)
    return [m.replace(tmp, "(subset)") for m in msgs if "pass --images" not in m], source


def write_subset(
    dataset: Dataset,
    rows: npt.ArrayLike,
    to: str,
    out: str | Path,
    results: Sequence[tuple[str, ResultSet]] = (),
    *,
    images: str = "copy",
    name: str = "subset",
) -> list[str]:
    """Write the images at ``rows`` of ``dataset`` with their annotations (and each named result
    set's rows on them) as a ``to`` dataset (``registry.conversion_targets()``) in the new folder ``out``;
    ``images`` one of ``IMAGE_MODES``; ``name`` the split / image set. Returns what was written
    and what the target cannot hold, a line each. ``OutputError`` before anything is written
    if ``out`` lies in the dataset's or the results' folders or is a non-empty folder."""
    if images not in IMAGE_MODES:
        raise ValueError(f"images are placed by {', '.join(IMAGE_MODES)}, not {images!r}")
    chosen = chosen_rows(dataset, rows)
    if not len(chosen):
        raise FormatError(dataset.root, "the selection holds no image: nothing to write")
    protected = [*dataset.protected_roots, *(f.parent for _, r in results for f in r.files)]
    root = new_folder(out, protected)
    name = output.child_path(root, name).name  # a plain name, checked
    doc = document(dataset, chosen)
    names: list[str] = []
    loaded = []
    for set_name, r in results:
        stem, k = _safe_name(set_name), 2
        while stem in names:
            stem, k = f"{_safe_name(set_name)}_{k}", k + 1
        names.append(stem)
        loaded.append((stem, result_entries(dataset, r, chosen, doc)))
    msgs, source = _converted(doc, root, to, name, loaded)
    if not from_json_file(dataset):
        msgs = [m for m in msgs if "'area'" not in m] + _not_carried(dataset, doc)
    msgs += _year(dataset, root, to)
    folder = getattr(registry.get(to), "images_folder", None)
    if folder is None:
        return [*msgs, f"images not placed: the {to} writer names no image folder"]
    keep = to == source  # the document's own format keeps the file names' folders
    placed = _place_images(
        dataset, chosen, doc, root / folder.format(name=name), keep, images, protected
    )
    return msgs + placed


def _not_carried(dataset: Dataset, doc: dict[str, Any]) -> list[str]:
    """What a document made from the columns does not hold, and the difficult objects."""
    msgs = []
    lost = [
        what
        for what, has in (
            ("poses", bool(np.any(dataset.objects.pose))),
            ("person layouts", len(dataset.parts) > 0),
            ("actions", bool(np.any(dataset.objects.actions))),
            ("segmentation masks", bool(np.any(dataset.images.segmented))),
        )
        if has
    ]
    if lost:
        msgs.append(f"not written: {', '.join(lost)} (boxes, classes and flags only)")
    difficult = sum(bool(a.get("difficult")) for a in doc["annotations"])
    if difficult:
        msgs.append(
            f"{difficult} difficult object(s): kept as difficult where the format has the flag "
            "(elsewhere, as the key 'difficult' or not at all, they count as any object)"
        )
    return msgs


def _year(dataset: Dataset, root: Path, to: str) -> list[str]:
    """A line if the folder, written in the dataset's own format, reads as another year (which
    may choose another AP rule): the year is taken from the folder's name."""
    own = registry.benchmark_of(dataset).name == to and dataset.year is not None
    if not own or dataset.root is None:
        return []
    try:
        year = registry.open_dataset(root).year
    except FormatError:
        return []
    if year == dataset.year:
        return []
    return [
        f"the source is year {dataset.year}, this folder reads as year {year or 'unknown'} "
        f"(the year comes from the folder's name and may choose the AP rule): name it "
        f"{dataset.root.name} to keep the source's"
    ]
