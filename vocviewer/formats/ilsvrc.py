"""ILSVRC DET ground truth, devkit lists and submissions → ``core.Dataset`` / ``core.ResultSet``.

Inputs
------
GT folder
    ``<basename>.xml`` per image, VOC-style: ``<object><name>WNID</name><bndbox>...``.
``DEVKIT/data/`` (``--devkit`` is the devkit root holding ``data/``, or ``data/`` itself)
    * synset mapping: ``meta_det.mat`` (read with scipy if installed), else a text file
      ``meta_det.txt`` or ``map_det.txt``: one synset per line, either
      ``<DET_ID> <WNID> <name ...>`` or ``<WNID> <DET_ID> <name ...>`` (the ILSVRC2015
      ``map_det.txt``); names may contain spaces; ``#`` lines and blank lines are skipped;
    * ``det_lists/val.txt``: ``<basename> <image id>`` per line;
    * blacklist (optional): ``*det_validation_blacklist.txt``, ``<image id> <WNID>`` per line.
Submission
    ``<image id> <DET_ID> <confidence> <xmin> <ymin> <xmax> <ymax>`` per line.

Every bad line is a ``FormatError`` with file and line (unreadable rows are skipped; the rest
loads). An empty submission is valid and means no detections.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from lxml import etree

from vocviewer.core.dataset import Dataset, ImageTable, ObjectTable, PartTable
from vocviewer.core.errors import FormatError
from vocviewer.core.ilsvrc import IlsvrcDetInfo
from vocviewer.core.results import Detections, ResultSet
from vocviewer.formats.voc_annotations import make_parser
from vocviewer.formats.voc_common import clean, to_float, to_int

_MAPPING_NAMES = ("meta_det.txt", "map_det.txt")


def data_dir(devkit: Path) -> Path:
    """``devkit/data`` if it exists, else ``devkit``."""
    return devkit / "data" if (devkit / "data").is_dir() else devkit


def read_synsets(data: Path) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(WNIDs, names) in DET_ID order from a text mapping or ``meta_det.mat``."""
    for name in _MAPPING_NAMES:
        if (data / name).is_file():
            return _read_text_mapping(data / name)
    mat = data / "meta_det.mat"
    if mat.is_file():
        try:
            from scipy.io import loadmat  # type: ignore[import-not-found, import-untyped, unused-ignore]
        except ImportError:
            raise FormatError(
                mat,
                "reading meta_det.mat needs scipy (pip install scipy); or put a text mapping "
                f"{data / 'meta_det.txt'} with lines '<DET_ID> <WNID> <name>'",
            ) from None
        syn = loadmat(str(mat), squeeze_me=True, struct_as_record=False)["synsets"]
        entries = sorted((int(s.ILSVRC2014_DET_ID), str(s.WNID), str(s.name)) for s in syn)
        return tuple(e[1] for e in entries), tuple(e[2] for e in entries)
    raise FormatError(data, "no synset mapping (meta_det.mat, meta_det.txt or map_det.txt)")


def _read_text_mapping(path: Path) -> tuple[tuple[str, ...], tuple[str, ...]]:
    found: dict[int, tuple[str, str]] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        a, b = ([*parts, "", ""])[:2]
        if to_int(a) is not None:
            det_id, wnid = to_int(a), b
        elif to_int(b) is not None:
            det_id, wnid = to_int(b), a
        else:
            raise FormatError(path, "expected '<DET_ID> <WNID> <name>'", line=n)
        if det_id is None or det_id < 1 or det_id in found:
            raise FormatError(path, f"DET_ID {a!r} is not a new positive integer", line=n)
        found[det_id] = (wnid, " ".join(parts[2:]) or wnid)
    ids = sorted(found)
    if ids != list(range(1, len(ids) + 1)):
        raise FormatError(path, "DET_IDs must be 1..N without gaps")
    return tuple(found[i][0] for i in ids), tuple(found[i][1] for i in ids)


def _pairs(
    path: Path, problems: list[FormatError], *, int_first: bool
) -> list[tuple[str, int, int]]:
    """Lines of two tokens: (text, integer, line); ``int_first`` for ``<int> <text>`` files."""
    out: list[tuple[str, int, int]] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        num, text = (parts[0], parts[-1]) if int_first else (parts[-1], parts[0])
        value = to_int(num)
        if len(parts) != 2 or value is None:
            problems.append(FormatError(path, "expected two fields and an integer id", line=n))
            continue
        out.append((text, value, n))
    return out


def read_ilsvrc_det(gt_dir: str | Path, devkit: str | Path) -> Dataset:
    """Read the DET ground truth of the images in ``data/det_lists/val.txt``."""
    gt_dir, data = Path(gt_dir), data_dir(Path(devkit))
    wnids, names = read_synsets(data)
    index = {w: k for k, w in enumerate(wnids)}
    problems: list[FormatError] = []
    eval_list = data / "det_lists" / "val.txt"
    if not eval_list.is_file():
        raise FormatError(eval_list, "missing: the eval list '<basename> <image id>' per line")
    listed = _pairs(eval_list, problems, int_first=False)
    parser = make_parser()
    objs: list[tuple[int, int, float, float, float, float, int]] = []
    for i, (base, _, _) in enumerate(listed):
        read_objects_xml(gt_dir / f"{base}.xml", i, index, parser, objs, problems)
    bl_ids: list[int] = []
    bl_labels: list[int] = []
    for bl in sorted(data.glob("*det_validation_blacklist.txt"))[-1:]:
        for wnid, image_id, n in _pairs(bl, problems, int_first=True):
            if wnid not in index:
                problems.append(FormatError(bl, f"unknown WNID {wnid!r}; pair ignored", line=n))
                continue
            bl_ids.append(image_id)
            bl_labels.append(index[wnid])
    arr = np.array([o[2:6] for o in objs], dtype=np.float64).reshape(-1, 4)
    n_obj = len(objs)
    objects = ObjectTable(
        image_index=np.array([o[0] for o in objs], dtype=np.int64),
        label=np.array([o[1] for o in objs], dtype=np.int64),
        box=arr, difficult=np.zeros(n_obj, bool), truncated=np.zeros(n_obj, bool),
        occluded=np.zeros(n_obj, bool), pose=np.zeros(n_obj, np.int8),
        order_in_image=np.array([o[6] for o in objs], dtype=np.int64),
        actions=np.zeros((n_obj, 0), bool),
    )  # fmt: skip
    n_img = len(listed)
    images = ImageTable(
        id=np.array([b for b, _, _ in listed], dtype=np.str_),
        path=tuple(gt_dir / f"{b}.JPEG" for b, _, _ in listed),
        width=np.zeros(n_img, np.int32), height=np.zeros(n_img, np.int32),
        segmented=np.zeros(n_img, bool),
    )  # fmt: skip
    info = IlsvrcDetInfo(
        wnids=wnids, image_id=np.array([v for _, v, _ in listed], dtype=np.int64),
        blacklist_image_id=np.array(bl_ids, dtype=np.int64),
        blacklist_label=np.array(bl_labels, dtype=np.int64),
    )  # fmt: skip
    empty = PartTable.empty()
    return Dataset(
        name=gt_dir.name, root=gt_dir, year=None, classes=names, box_convention="voc",
        images=images, objects=objects, parts=empty, problems=tuple(problems),
        extras={"ilsvrc": info}, roots=(gt_dir, Path(devkit)),
    )  # fmt: skip


def read_objects_xml(
    path: Path,
    image: int,
    index: dict[str, int],
    parser: etree.XMLParser,
    objs: list[tuple[int, int, float, float, float, float, int]],
    problems: list[FormatError],
) -> None:
    """Append ``(image, label, x1, y1, x2, y2, order)`` for each ``<object>`` of an ILSVRC XML
    (``index`` maps WNID → label); unknown WNIDs and bad boxes become problems and are skipped."""
    try:
        root = etree.fromstring(path.read_bytes(), parser)
    except (OSError, etree.XMLSyntaxError) as exc:
        problems.append(FormatError(path, f"cannot read the annotation ({exc}); no objects"))
        return
    order = 0
    for k, obj in enumerate(root.iterfind("object"), start=1):
        where = f"annotation/object[{k}]"
        wnid = clean(obj.findtext("name"))
        vals = [
            to_float(clean(obj.findtext(f"bndbox/{c}"))) for c in ("xmin", "ymin", "xmax", "ymax")
        ]
        if wnid not in index:
            message = f"unknown WNID {wnid!r}; object skipped"
        elif any(v is None or not math.isfinite(v) for v in vals):
            message = "bndbox needs four finite numbers; object skipped"
        else:
            x1, y1, x2, y2 = (float(v) for v in vals if v is not None)
            objs.append((image, index[wnid], x1, y1, x2, y2, order))
            order += 1
            continue
        problems.append(FormatError(path, message, element=where, line=obj.sourceline))


def read_ilsvrc_det_results(dataset: Dataset, path: str | Path) -> ResultSet:
    """Read a DET submission. Rows for image ids outside the eval list are kept out of
    ``detections`` and reported in ``problems`` (the official code crashes on them)."""
    path = Path(path)
    info: IlsvrcDetInfo = dataset.extras["ilsvrc"]
    row_of = {int(v): i for i, v in enumerate(info.image_id.tolist())}
    problems: list[FormatError] = []
    rows: list[tuple[int, int, float, float, float, float, float, int]] = []
    unlisted: dict[int, int] = {}
    text = path.read_text(encoding="utf-8")
    for n, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 7:
            problems.append(FormatError(path, f"expected 7 fields, found {len(parts)}", line=n))
            continue
        img, lab = to_int(parts[0]), to_int(parts[1])
        nums = [to_float(p) for p in parts[2:]]
        if img is None or lab is None or lab < 1 or any(v is None or math.isnan(v) for v in nums):
            problems.append(
                FormatError(
                    path,
                    "expected '<image id> <DET_ID> <confidence> <xmin> <ymin> "
                    "<xmax> <ymax>' (integers, then numbers; no NaN)",
                    line=n,
                )
            )
            continue
        if img not in row_of:
            unlisted[img] = unlisted.get(img, 0) + 1
            if unlisted[img] == 1:
                problems.append(
                    FormatError(
                        path, f"image id {img} is not in the eval list; rows dropped", line=n
                    )
                )
            continue
        s, x1, y1, x2, y2 = (float(v) for v in nums if v is not None)
        rows.append((row_of[img], lab - 1, s, x1, y1, x2, y2, n))
    a = np.array(rows, dtype=np.float64).reshape(-1, 8)
    dets = Detections(
        image_index=a[:, 0].astype(np.int64), label=a[:, 1].astype(np.int64), score=a[:, 2],
        box=a[:, 3:7], file_index=np.zeros(len(a), np.int64), line=a[:, 7].astype(np.int64),
    )  # fmt: skip
    return ResultSet(name=path.stem, files=(path,), detections=dets, problems=tuple(problems),
                     extras={"ilsvrc_unlisted": dict(unlisted)})  # fmt: skip
