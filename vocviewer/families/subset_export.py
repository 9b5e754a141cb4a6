"""A selection of images written as a new COCO, VOC or YOLO dataset folder (``vocviewer subset``).

``write_subset(dataset, rows, to, out, results)`` takes the chosen images (``core.subset``) to the
COCO-model document every converter of vocviewer writes from, then writes it:

- ``coco``: ``OUT/annotations/instances_<name>.json`` (the chosen images and their annotations;
  everything else of the file, its categories whole, kept as it was; ids kept), the images in
  ``OUT/<name>/`` (where the COCO reader looks), each result set as ``OUT/results/<set>.json``;
- ``voc`` / ``yolo``: through ``vocviewer convert``'s writers (``registry.convert`` from that
  document): ``Annotations/``, ``ImageSets/Main/<name>.txt`` and ``results/<set>/Main/
  comp4_det_<name>_<class>.txt``, with the images in ``JPEGImages/``; or ``data.yaml``,
  ``labels/val/`` and ``predictions/<set>/``, with the images in ``images/val/``.

The document: a dataset read from a COCO-model JSON (COCO, LVIS) is that file's document with
only the chosen images and their annotations, results JSONs filtered by ``image_id``. Other
datasets get one from their columns: image ``id`` = source row + 1, ``file_name`` = image id +
the file's suffix, category ``id`` = class index + 1 (every class), annotation ``id`` = source
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

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError, OutputError
from vocviewer.core.results import ResultSet
from vocviewer.core.subset import chosen_rows
from vocviewer.families import registry
from vocviewer.formats import output
from vocviewer.formats.image_file import declared_size
from vocviewer.formats.json_input import load_json

#: The formats a selection is written as.
TARGETS = ("coco", "voc", "yolo")
#: How the images reach the new folder.
IMAGE_MODES = ("copy", "hardlink", "symlink")
#: Where each target keeps its images (``{name}``: the subset's name).
_IMAGE_FOLDER = {"coco": "{name}", "voc": "JPEGImages", "yolo": "images/val"}


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


def _columns_document(dataset: Dataset, rows: npt.NDArray[np.int64]) -> dict[str, Any]:
    """The COCO-model document of the chosen images built from the columns."""
    ims = dataset.images
    images = []
    for r in rows.tolist():
        w, h, path = int(ims.width[r]), int(ims.height[r]), ims.path[r]
        if (w <= 0 or h <= 0) and path.is_file():
            w, h = declared_size(path)
        name = f"{ims.id[r]}{path.suffix or '.jpg'}"
        images.append({"id": r + 1, "file_name": name, "width": w, "height": h})
    obj = dataset.objects
    keep = np.flatnonzero(np.isin(obj.image_index, rows))
    anns = []
    for j, bbox in zip(keep.tolist(), _xywh(dataset, obj.box[keep]), strict=True):
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


def _xywh(dataset: Dataset, boxes: npt.NDArray[np.float64]) -> list[list[float]]:
    """xyxy boxes in the dataset's convention as COCO ``[x, y, w, h]`` lists."""
    b = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    one = 1.0 if dataset.plus_one else 0.0
    xywh = np.column_stack((b[:, :2] - one, b[:, 2:] - b[:, :2] + one))
    return [[float(v) for v in row] for row in xywh]


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
    ids = {str(im["file_name"]): im["id"] for im in doc["images"]}
    id_of_row = {
        r: ids[name]
        for r in chosen.tolist()
        for name in [_file_name(dataset, r, doc)]
        if name in ids
    }
    cat_ids = sorted(c["id"] for c in doc.get("categories") or [])
    d = results.detections
    keep = np.flatnonzero(np.isin(d.image_index, chosen))
    return [
        {
            "image_id": id_of_row[int(d.image_index[j])],
            "category_id": cat_ids[int(d.label[j])],
            "bbox": box,
            "score": float(d.score[j]),
        }
        for j, box in zip(keep.tolist(), _xywh(dataset, d.box[keep]), strict=True)
    ]


def _file_name(dataset: Dataset, row: int, doc: dict[str, Any]) -> str:
    """The ``file_name`` ``doc`` gives the image at ``row``."""
    if from_json_file(dataset):
        by_id = {str(im["id"]): str(im["file_name"]) for im in doc["images"]}
        return by_id.get(str(dataset.images.id[row]), "")
    path = dataset.images.path[row]
    return f"{dataset.images.id[row]}{path.suffix or '.jpg'}"


def _safe_name(name: str) -> str:
    """A result set's name as a file stem (no separators, no leading dot)."""
    stem = re.sub(r"[^\w.+-]+", "_", name).lstrip(".") or "results"
    return stem


def place_image(source: Path, target: Path, mode: str, protected: Sequence[Path]) -> None:
    """Put the image ``source`` at ``target`` by ``mode`` (``IMAGE_MODES``), never inside
    ``protected``; a hard link across file systems falls back to a copy."""
    real = output.guard_target(target, protected)
    real.parent.mkdir(parents=True, exist_ok=True)
    if mode == "symlink":
        os.symlink(source.resolve(), real)
        return
    if mode == "hardlink":
        try:
            os.link(source, real)
            return
        except OSError:
            pass
    shutil.copy2(source, real)


def _image_target(folder: Path, file_name: str, to: str) -> Path:
    """Where an image of ``file_name`` goes under ``folder`` (COCO keeps its subfolders; VOC and
    YOLO take the last part), each part a plain name (``output.child_path``)."""
    parts = PurePosixPath(file_name.replace("\\", "/")).parts
    if to != "coco":
        parts = parts[-1:]
    target = folder
    for p in parts:
        target = output.child_path(target, p)
    return target


def _place_images(
    dataset: Dataset,
    chosen: npt.NDArray[np.int64],
    doc: dict[str, Any],
    folder: Path,
    to: str,
    mode: str,
    protected: Sequence[Path],
) -> list[str]:
    placed, missing = 0, []
    for r in chosen.tolist():
        source = dataset.images.path[r]
        if not source.is_file():
            missing.append(str(dataset.images.id[r]))
            continue
        place_image(source, _image_target(folder, _file_name(dataset, r, doc), to), mode, protected)
        placed += 1
    verb = {"copy": "copied", "hardlink": "hard-linked", "symlink": "linked"}[mode]
    msgs = [f"{verb} {placed} image(s) into {folder}"]
    if missing:
        shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
        msgs.append(f"{len(missing)} image file(s) not found, not placed: {shown}")
    return msgs


def _write_coco(
    doc: dict[str, Any],
    root: Path,
    name: str,
    loaded: Sequence[tuple[str, list[dict[str, Any]]]],
    protected: Sequence[Path],
) -> list[str]:
    target = output.child_path(root / "annotations", f"instances_{name}", ".json")
    output.write_text(target, json.dumps(doc), protected)
    msgs = [f"wrote {target}: {len(doc['images'])} images, {len(doc['annotations'])} objects"]
    difficult = sum(bool(a.get("difficult")) for a in doc["annotations"])
    if difficult:
        msgs.append(
            f"{difficult} difficult object(s) kept as the key 'difficult': COCO has no such "
            "flag (its evaluation counts them as any object)"
        )
    for set_name, entries in loaded:
        written = output.write_text(
            output.child_path(root / "results", set_name, ".json"), json.dumps(entries), protected
        )
        msgs.append(f"wrote {written}: {len(entries)} results")
    return msgs


def _converted(
    doc: dict[str, Any],
    root: Path,
    to: str,
    name: str,
    loaded: Sequence[tuple[str, list[dict[str, Any]]]],
) -> list[str]:
    """``doc`` and ``loaded`` written as ``to`` by ``vocviewer convert``'s writer, from a COCO
    file in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="vocviewer-subset-") as tmp:
        ann = Path(tmp) / "annotations" / f"instances_{name}.json"
        ann.parent.mkdir()
        ann.write_text(json.dumps(doc), encoding="utf-8")
        paths = []
        for set_name, entries in loaded:
            paths.append(Path(tmp) / f"{set_name}.json")
            paths[-1].write_text(json.dumps(entries), encoding="utf-8")
        options = {"image_set": name, "images": Path(tmp) / "no-images"}
        msgs = registry.convert(ann, to, root, paths, None, options)
    return [m.replace(tmp, "(subset)") for m in msgs if "pass --images" not in m]


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
    set's rows on them) as a ``to`` dataset (``TARGETS``) in the new folder ``out``; ``images``
    one of ``IMAGE_MODES``; ``name`` the COCO split / VOC image set. Returns what was written
    and what the target cannot hold, a line each. ``OutputError`` before anything is written
    if ``out`` lies in the dataset's or the results' folders or is a non-empty folder."""
    if to not in TARGETS:
        raise ValueError(f"a subset is written as {', '.join(TARGETS)}, not {to!r}")
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
    if to == "coco":
        msgs = _write_coco(doc, root, name, loaded, protected)
    else:
        msgs = _converted(doc, root, to, name, loaded)
    folder = root / _IMAGE_FOLDER[to].format(name=name)
    msgs = msgs if from_json_file(dataset) else [m for m in msgs if "'area'" not in m]
    msgs += _not_carried(dataset, root, to)
    return msgs + _place_images(dataset, chosen, doc, folder, to, images, protected)


def _not_carried(dataset: Dataset, root: Path, to: str) -> list[str]:
    """What the written folder does not hold of a dataset read from its columns."""
    msgs = []
    if not from_json_file(dataset):
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
    year = dataset.year
    if to == "voc" and year is not None and year <= 2009 and root.name != f"VOC{year}":
        msgs.append(
            f"the source is VOC{year}, evaluated with 11-point AP, which VOC takes from the "
            f"folder's name: this folder gets all-points AP (name it VOC{year} to keep 11-point)"
        )
    return msgs
