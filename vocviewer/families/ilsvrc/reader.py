"""ILSVRC DET ground truth, devkit lists and submissions → ``core.Dataset`` / ``core.ResultSet``.

Inputs
------
GT folder
    ``<basename>.xml`` per image, VOC-style: ``<object><name>WNID</name><bndbox>...``.
``DEVKIT/data/`` (``--devkit`` is the devkit root holding ``data/``, or ``data/`` itself)
    * synset mapping: a text file ``meta_det.txt`` or ``map_det.txt`` if present, else
      ``meta_det.mat`` (MAT v5, read by ``formats.matfile``). Text: one synset per line, either
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

from vocviewer.core.dataset import Dataset, ImageTable, ObjectTable
from vocviewer.core.errors import FormatError
from vocviewer.core.results import Detections, ResultSet
from vocviewer.families.ilsvrc.columns import IlsvrcDetInfo, UnlistedImages
from vocviewer.formats.input import read_bytes, read_text
from vocviewer.formats.matfile import load_variable
from vocviewer.formats.text_fields import (
    FileProblems,
    clean,
    describe,
    make_parser,
    to_float,
    to_int,
)

_MAPPING_NAMES = ("meta_det.txt", "map_det.txt")
#: Most synsets a mapping may list (ILSVRC has 1,860; the limit keeps a garbage ID from sizing
#: anything).
MAX_SYNSETS = 100_000
#: Largest devkit ``.mat`` file read (the real ``meta_*.mat`` are well under 2 MB).
MAX_MAT_BYTES = 64 << 20
#: Image ids and other integers in the lists stay within int64.
MAX_ID = 2**62
_XYXY = ("xmin", "ymin", "xmax", "ymax")
#: An object ``read_objects_xml`` collects: (image row, label, x1, y1, x2, y2, order in image)
XmlObject = tuple[int, int, float, float, float, float, int]
Synsets = tuple[tuple[str, ...], tuple[str, ...]]


def data_dir(devkit: Path) -> Path:
    """``devkit/data`` if it exists, else ``devkit``."""
    return devkit / "data" if (devkit / "data").is_dir() else devkit


def read_synsets(data: Path) -> Synsets:
    """(WNIDs, names) in DET_ID order from a text mapping or ``meta_det.mat``."""
    for name in _MAPPING_NAMES:
        if present(data / name):
            return read_text_mapping(data / name, "DET_ID")
    mat = data / "meta_det.mat"
    if present(mat):
        return read_mat_synsets(mat, ("ILSVRC2014_DET_ID",), "name")
    raise FormatError(data, "no synset mapping (meta_det.mat, meta_det.txt or map_det.txt)")


def present(path: Path) -> bool:
    """``path`` exists or is a symbolic link (a link loop is then read and reported)."""
    return path.is_symlink() or path.exists()


def read_text_mapping(path: Path, id_name: str) -> Synsets:
    """``<ID> <WNID> <name ...>`` (or ``<WNID> <ID> ...``) lines; IDs 1..N, each once."""
    found: dict[int, tuple[str, str]] = {}
    first_line: dict[int, int] = {}
    expected = f"expected '<{id_name}> <WNID> <name>'"
    for n, line in enumerate(read_text(path).split("\n"), start=1):
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        if len(parts) < 2:
            raise FormatError(path, f"{expected}, found {describe(parts)}", line=n)
        a, b = parts[0], parts[1]
        syn_id, wnid, token = (to_int(a), b, a) if to_int(a) is not None else (to_int(b), a, b)
        if syn_id is None:
            raise FormatError(
                path, f"{expected}: no integer {id_name} in {describe(parts)}", line=n
            )
        if not 1 <= syn_id <= MAX_SYNSETS:
            raise FormatError(path, f"{id_name} {token[:30]} is not in 1..{MAX_SYNSETS}", line=n)
        if syn_id in found:
            raise FormatError(
                path,
                f"{id_name} {syn_id} listed twice (first on line {first_line[syn_id]})",
                line=n,
            )
        found[syn_id] = (wnid, " ".join(parts[2:]) or wnid)
        first_line[syn_id] = n
    return _in_id_order(path, found, id_name)


def _in_id_order(path: Path, found: dict[int, tuple[str, str]], id_name: str) -> Synsets:
    ids = sorted(found)
    if not ids:
        raise FormatError(path, f"no synsets: expected one '<{id_name}> <WNID> <name>' per line")
    if ids != list(range(1, len(ids) + 1)):
        gap = next(k for k, v in enumerate(ids, start=1) if k != v)
        raise FormatError(path, f"{id_name}s must be 1..N without gaps; {gap} is missing")
    return tuple(found[i][0] for i in ids), tuple(found[i][1] for i in ids)


def read_mat_synsets(mat: Path, id_fields: tuple[str, ...], name_field: str) -> Synsets:
    """The devkit's ``synsets`` struct array (fields ``id_fields[k]``, ``WNID``, ``name_field``)
    from a MAT v5 file; any other content is a ``FormatError`` naming the file."""
    data = read_bytes(mat, limit=MAX_MAT_BYTES)
    want = f"expected the struct array 'synsets' with fields {id_fields[0]}, WNID, {name_field}"
    if data[:19] == b"MATLAB 7.3 MAT-file" or data[:4] == b"\x89HDF":
        raise FormatError(mat, f"MATLAB v7.3 (HDF5) files are not read; save with -v7 ({want})")
    syn = load_variable(mat, data, "synsets")
    if syn is None:
        raise FormatError(mat, f"no variable 'synsets': {want}")
    if not syn or not all(isinstance(s, dict) for s in syn) or len(syn) > MAX_SYNSETS:
        raise FormatError(mat, want, element="synsets")
    found: dict[int, tuple[str, str]] = {}
    for k, s in enumerate(syn, start=1):
        assert isinstance(s, dict)
        where = f"synsets({k})"
        key = next((f for f in id_fields if f in s), None)
        if key is None or "WNID" not in s:
            raise FormatError(mat, f"not a synset: {want}", element=where)
        value, wnid = s[key], s["WNID"]
        syn_id = to_int(str(value[0])) if isinstance(value, list) and len(value) == 1 else None
        if syn_id is None or not 1 <= syn_id <= MAX_SYNSETS or syn_id in found:
            raise FormatError(
                mat, f"expected a new integer ID in 1..{MAX_SYNSETS}", element=f"{where}.{key}"
            )
        if not isinstance(wnid, str) or not wnid.strip():
            raise FormatError(mat, "expected a WNID string", element=f"{where}.WNID")
        name = s.get(name_field)
        name = " ".join(name.split()) if isinstance(name, str) else ""
        found[syn_id] = (wnid.strip(), name or wnid.strip())
    return _in_id_order(mat, found, id_fields[0])


def _pairs(
    path: Path, problems: list[FormatError], *, int_first: bool
) -> list[tuple[str, int, int]]:
    """Lines of two tokens: (text, integer, line); ``int_first`` for ``<int> <text>`` files."""
    out: list[tuple[str, int, int]] = []
    sink = FileProblems(problems, path)
    for n, line in enumerate(read_text(path).split("\n"), start=1):
        parts = line.split()
        if not parts:
            continue
        num, text = (parts[0], parts[-1]) if int_first else (parts[-1], parts[0])
        value = to_int(num)
        if len(parts) != 2 or value is None or not -MAX_ID < value < MAX_ID or "\0" in text:
            sink.add(f"expected two fields and an integer id, found {describe(parts)}", line=n)
            continue
        out.append((text, value, n))
    sink.close()
    return out


def read_ilsvrc_det(gt_dir: str | Path, devkit: str | Path) -> Dataset:
    """Read the DET ground truth of the images in ``data/det_lists/val.txt``."""
    gt_dir, data = Path(gt_dir), data_dir(Path(devkit))
    wnids, names = read_synsets(data)
    index = {w: k for k, w in enumerate(wnids)}
    problems: list[FormatError] = []
    eval_list = data / "det_lists" / "val.txt"
    if not present(eval_list):
        raise FormatError(eval_list, "missing: the eval list '<basename> <image id>' per line")
    listed = _pairs(eval_list, problems, int_first=False)
    parser = make_parser()
    objs: list[XmlObject] = []
    for i, (base, _, _) in enumerate(listed):
        read_objects_xml(gt_dir / f"{base}.xml", i, index, parser, objs, problems)
    bl_ids: list[int] = []
    bl_labels: list[int] = []
    for bl in sorted(data.glob("*det_validation_blacklist.txt"))[-1:]:
        sink = FileProblems(problems, bl)
        for wnid, image_id, n in _pairs(bl, problems, int_first=True):
            if wnid not in index:
                sink.add(f"unknown WNID {wnid[:40]!r}; pair ignored", line=n)
                continue
            bl_ids.append(image_id)
            bl_labels.append(index[wnid])
        sink.close()
    info = IlsvrcDetInfo(
        wnids=wnids,
        image_id=np.array([v for _, v, _ in listed], dtype=np.int64),
        blacklist_image_id=np.array(bl_ids, dtype=np.int64),
        blacklist_label=np.array(bl_labels, dtype=np.int64),
    )
    bases = [b for b, _, _ in listed]
    return ilsvrc_dataset(gt_dir, devkit, names, bases, objs, problems, info)


def ilsvrc_dataset(
    folder: Path,
    devkit: str | Path,
    names: tuple[str, ...],
    ids: list[str],
    objs: list[XmlObject],
    problems: list[FormatError],
    info: object,
) -> Dataset:
    """ILSVRC's ground truth (DET and CLS-LOC): the images ``ids`` (``<id>.JPEG`` in ``folder``,
    sized when drawn), the objects of their XML files (VOC's inclusive pixels), the classes
    ``names`` and the task's family record ``info``; ``folder`` and ``devkit`` are its roots."""
    objects = ObjectTable.from_boxes(
        [o[0] for o in objs],
        [o[1] for o in objs],
        np.array([o[2:6] for o in objs], dtype=np.float64).reshape(-1, 4),
        [o[6] for o in objs],
    )
    return Dataset(
        name=folder.name,
        root=folder,
        classes=names,
        box_convention="voc",
        images=ImageTable.unsized(ids, [folder / f"{b}.JPEG" for b in ids]),
        objects=objects,
        problems=tuple(problems),
        family_data=(info,),
        roots=(folder, Path(devkit)),
    )


def read_objects_xml(
    path: Path,
    image: int,
    index: dict[str, int],
    parser: etree.XMLParser,
    objs: list[XmlObject],
    problems: list[FormatError],
) -> None:
    """Append ``(image, label, x1, y1, x2, y2, order)`` for each ``<object>`` of an ILSVRC XML
    (``index`` maps WNID → label); unknown WNIDs and bad boxes become problems and are skipped."""
    try:
        root = etree.fromstring(read_bytes(path), parser)
    except FormatError as exc:
        problems.append(FormatError(path, f"{exc.message}; no objects read"))
        return
    except etree.XMLSyntaxError as exc:
        msg = exc.msg or "not well-formed"
        problems.append(
            FormatError(path, f"malformed XML: {msg}; no objects read", line=exc.lineno)
        )
        return
    except ValueError as exc:  # a path with a NUL byte
        problems.append(FormatError(path, f"cannot read: {exc}; no objects read"))
        return
    order = 0
    sink = FileProblems(problems, path)
    for k, obj in enumerate(root.iterfind("object"), start=1):
        where = f"annotation/object[{k}]"
        wnid = clean(obj.findtext("name"))
        texts = [clean(obj.findtext(f"bndbox/{c}")) for c in _XYXY]
        vals = [to_float(t) for t in texts]
        bad = next((k for k, v in enumerate(vals) if v is None or not math.isfinite(v)), None)
        if wnid not in index:
            message, element = f"unknown WNID {wnid[:40]!r}; object skipped", f"{where}/name"
        elif bad is not None:
            message = f"expected a finite number, found {texts[bad][:40]!r}; object skipped"
            element = f"{where}/bndbox/{_XYXY[bad]}"
        else:
            x1, y1, x2, y2 = (float(v) for v in vals if v is not None)
            objs.append((image, index[wnid], x1, y1, x2, y2, order))
            order += 1
            continue
        sink.add(message, element=element, line=obj.sourceline)
    sink.close()


def read_ilsvrc_det_results(dataset: Dataset, path: str | Path) -> ResultSet:
    """Read a DET submission. Rows for image ids outside the eval list are kept out of
    ``detections`` and reported in ``problems`` (the official code crashes on them).

    A NaN/inf coordinate or a NaN confidence is kept (it matches nothing; NaN ranks last) and the
    file's first such line is a warning in ``ResultSet.warnings``.
    """
    path = Path(path)
    info: IlsvrcDetInfo = dataset.data(IlsvrcDetInfo)
    row_of = {int(v): i for i, v in enumerate(info.image_id.tolist())}
    n_cls = len(dataset.classes)
    problems: list[FormatError] = []
    sink = FileProblems(problems, path)
    rows: list[tuple[int, int, float, float, float, float, float, int]] = []
    unlisted: dict[int, int] = {}
    nonfinite: list[int] = []
    expected = "expected '<image id> <DET_ID> <confidence> <xmin> <ymin> <xmax> <ymax>'"
    for n, line in enumerate(read_text(path).split("\n"), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 7:
            sink.add(f"{expected}: found {len(parts)} field(s)", line=n)
            continue
        img, lab = to_int(parts[0]), to_int(parts[1])
        nums = [to_float(p) for p in parts[2:]]
        if img is None or lab is None or any(v is None for v in nums):
            sink.add(f"{expected} (integers, then numbers), found {describe(parts)}", line=n)
            continue
        if not 1 <= lab <= n_cls:
            sink.add(f"DET_ID {parts[1][:30]} is not in 1..{n_cls}; row skipped", line=n)
            continue
        if img not in row_of:
            unlisted[img] = unlisted.get(img, 0) + 1
            if unlisted[img] == 1:
                sink.add(f"image id {img} is not in the eval list; rows dropped", line=n)
            continue
        s, x1, y1, x2, y2 = (float(v) for v in nums if v is not None)
        if math.isnan(s) or not all(math.isfinite(v) for v in (x1, y1, x2, y2)):
            nonfinite.append(n)
        rows.append((row_of[img], lab - 1, s, x1, y1, x2, y2, n))
    sink.close()
    a = np.array(rows, dtype=np.float64).reshape(-1, 8)
    dets = Detections(
        image_index=a[:, 0].astype(np.int64),
        label=a[:, 1].astype(np.int64),
        score=a[:, 2],
        box=a[:, 3:7],
        file_index=np.zeros(len(a), np.int64),
        line=a[:, 7].astype(np.int64),
    )
    return ResultSet(
        name=path.stem,
        files=(path,),
        detections=dets,
        problems=tuple(problems),
        warnings=nonfinite_warning(path, nonfinite),
        family_data=(UnlistedImages(dict(unlisted)),),
    )


def nonfinite_warning(
    path: Path, lines: list[int], what: str = "a NaN/inf coordinate or a NaN confidence"
) -> tuple[FormatError, ...]:
    """The non-finite rule's one warning per results file (empty if ``lines`` is)."""
    if not lines:
        return ()
    return (
        FormatError(
            path,
            f"{len(lines)} row(s) with {what} (first here); kept and evaluated as the official "
            "code does (they match nothing; NaN ranks last), never drawn",
            line=lines[0],
        ),
    )
