"""ILSVRC CLS-LOC ground truth, blacklist and submissions → ``core.Dataset`` / ``core.ResultSet``.

What is accepted (ILSVRC2014 devkit readme §3; ``eval_clsloc.m`` of the devkit, as in
``zhoubolei/CAM evaluation/``):

GT path (``vocviewer eval PATH``)
    * a folder of per-image XML files (``ILSVRC2012_val_00000001.xml`` ...), VOC-style, objects
      named by WNID. As the official code does (``dir('*.xml')``), the i-th file in sorted name
      order is image row i. Boxes enable the localisation error.
    * or a ground-truth labels file (one ILSVRC2014_ID per line): classification error only.
``DEVKIT/data/`` (``--devkit`` is the devkit root holding ``data/``, or ``data/`` itself)
    * synset mapping: a text file ``meta_clsloc.txt`` or ``map_clsloc.txt``, one synset per
      line, ``<ID> <WNID> <name ...>`` or ``<WNID> <ID> <name ...>`` (the ILSVRC2015
      ``map_clsloc.txt``); ``#`` and blank lines skipped. Else ``meta_clsloc.mat`` (MAT v5;
      field ``ILSVRC2014_ID`` or ``ILSVRC2012_ID``). Only needed to read XML.
    * ``*clsloc_validation_ground_truth.txt`` (last in name order, e.g. ILSVRC2014 over 2012):
      one ID per line, line i = image row i. Without it each image's label is the WNID of its
      XML objects (not the official input: the numbers carry a note).
    * ``*clsloc_validation_blacklist.txt`` (optional): one 1-based image row per line.
Submission
    One line per image row, in the same order: up to 5 guesses, each
    ``<label> <xmin> <ymin> <xmax> <ymax>`` (whitespace or commas, as ``dlmread`` reads).
    Fields after the 25th are ignored (readme §3.3). Label 0 is the official padding of short
    lines and never matches. A NaN/inf box is kept (it overlaps nothing); the file's first such
    line is a warning in ``ResultSet.warnings``. A blank line is an image without guesses; blank lines beyond
    the last image are ignored.

Fatal problems (wrong line count, unreadable labels file) raise ``FormatError`` with file and
line. A bad submission line or XML object is recorded in ``problems`` with file and line and
read as "no guesses" / skipped; the CLI then fails unless ``--keep-going``.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.families.ilsvrc.columns import ClslocGuesses, IlsvrcClslocInfo
from vocviewer.families.ilsvrc.reader import (
    MAX_ID,
    MAX_SYNSETS,
    XmlObject,
    data_dir,
    ilsvrc_dataset,
    nonfinite_warning,
    present,
    read_mat_synsets,
    read_objects_xml,
    read_text_mapping,
)
from vocviewer.formats.input import check_regular, read_text
from vocviewer.formats.text_fields import FileProblems, make_parser, split_lines, to_float, to_int

#: Guesses per image the official evaluation looks at (``max_num_pred_per_image``).
MAX_GUESSES = 5
_MAPPING_NAMES = ("meta_clsloc.txt", "map_clsloc.txt")


def read_clsloc_synsets(data: Path) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(WNIDs, names) in ILSVRC2014_ID order from a text mapping or ``meta_clsloc.mat``."""
    for name in _MAPPING_NAMES:
        if present(data / name):
            return read_text_mapping(data / name, "ILSVRC2014_ID")
    mat = data / "meta_clsloc.mat"
    if not present(mat):
        raise FormatError(
            data, "no synset mapping (meta_clsloc.mat, meta_clsloc.txt, map_clsloc.txt)"
        )
    ids = ("ILSVRC2014_ID", "ILSVRC2012_ID")
    return read_mat_synsets(mat, ids, "words")


def _last(data: Path, pattern: str) -> Path | None:
    found = sorted(data.glob(pattern))
    return found[-1] if found else None


def read_labels_file(path: Path) -> list[int]:
    """One ILSVRC2014_ID per line (the devkit's validation ground truth); else ``FormatError``.

    Several labels on a line are rejected: the readme promises one label per image, and the
    official code's multi-label path has no consistent outcome (``for k=1:n`` with a vector).
    """
    out: list[int] = []
    for n, parts in enumerate(split_lines(read_text(path)), start=1):
        value = to_int(parts[0]) if len(parts) == 1 else None
        if value is None or not 1 <= value <= MAX_SYNSETS:
            raise FormatError(
                path, f"expected one ILSVRC2014_ID (integer 1..{MAX_SYNSETS}) per line", line=n
            )
        out.append(value)
    return out


def _read_blacklist(path: Path, problems: list[FormatError]) -> list[int]:
    out: list[int] = []
    sink = FileProblems(problems, path)
    for n, parts in enumerate(split_lines(read_text(path)), start=1):
        value = to_int(parts[0]) if len(parts) == 1 else None
        if not parts:
            continue
        if value is None or not 1 <= value < MAX_ID:
            sink.add("expected one 1-based image row per line; line ignored", line=n)
            continue
        out.append(value)
    sink.close()
    return out


def read_ilsvrc_clsloc(path: str | Path, devkit: str | Path) -> Dataset:
    """Read CLS-LOC ground truth: XML folder or labels file ``path``, with ``devkit``'s data/."""
    path, data = Path(path), data_dir(Path(devkit))
    if not path.is_dir():
        check_regular(path)  # a FIFO, device, link loop or missing file: FormatError
    problems: list[FormatError] = []
    gt_file = path if path.is_file() else _last(data, "*clsloc_validation_ground_truth.txt")
    labels = read_labels_file(gt_file) if gt_file is not None else None
    objs: list[XmlObject] = []
    if path.is_dir():
        wnids, names = read_clsloc_synsets(data)
        index = {w: k for k, w in enumerate(wnids)}
        xmls = sorted(p for p in path.iterdir() if p.suffix == ".xml")
        if labels is not None and len(labels) != len(xmls):
            raise FormatError(
                path,
                f"{len(xmls)} XML file(s) but {len(labels)} line(s) in {gt_file}: the i-th "
                "XML in name order must belong to line i",
            )
        parser = make_parser()
        for i, xml in enumerate(xmls):
            read_objects_xml(xml, i, index, parser, objs, problems)
        ids = [x.stem for x in xmls]
        if labels is None:
            labels = _labels_from_objects(xmls, objs, problems)
    elif labels is not None:
        wnids, names = (), tuple(str(k) for k in range(1, max(labels, default=0) + 1))
        ids = [str(k) for k in range(1, len(labels) + 1)]
    else:
        raise FormatError(path, "expected a folder of XML annotations or a ground-truth file")
    bl_file = _last(data, "*clsloc_validation_blacklist.txt")
    blacklist = _read_blacklist(bl_file, problems) if bl_file is not None else []
    info = IlsvrcClslocInfo(
        wnids=wnids,
        gt_label=np.array(labels, dtype=np.int64),
        blacklist=np.array(blacklist, dtype=np.int64),
        has_boxes=path.is_dir(),
        ground_truth_file=gt_file,
        blacklist_file=bl_file,
    )
    folder = path if path.is_dir() else path.parent
    return ilsvrc_dataset(folder, devkit, names, ids, objs, problems, info)


def _labels_from_objects(
    xmls: list[Path], objs: list[XmlObject], problems: list[FormatError]
) -> list[int]:
    """Each image's ID from its objects' WNID (0 if none; the first if they disagree)."""
    per_image: dict[int, set[int]] = {}
    first: dict[int, int] = {}
    for o in objs:
        per_image.setdefault(o[0], set()).add(o[1] + 1)
        first.setdefault(o[0], o[1] + 1)
    for i, xml in enumerate(xmls):
        if i not in first:
            problems.append(FormatError(xml, "no object: the image's label is unknown"))
        elif len(per_image[i]) > 1:
            problems.append(FormatError(xml, "objects name different synsets; the first is used"))
    return [first.get(i, 0) for i in range(len(xmls))]


def read_ilsvrc_clsloc_results(dataset: Dataset, path: str | Path) -> ResultSet:
    """Read a CLS-LOC submission aligned with ``dataset``'s image rows.

    ``ResultSet.data(IlsvrcClslocInfo)`` is a ``ClslocGuesses`` with ``MAX_GUESSES`` columns.
    """
    path = Path(path)
    rows = split_lines(read_text(path).replace(",", " "))
    n_img = len(dataset.images)
    while len(rows) > n_img and not rows[-1]:
        rows.pop()
    if len(rows) != n_img:
        raise FormatError(
            path, f"{len(rows)} line(s) but {n_img} image(s): one line per image is expected"
        )
    problems: list[FormatError] = []
    nonfinite: list[int] = []
    sink = FileProblems(problems, path)
    label = np.zeros((n_img, MAX_GUESSES), dtype=np.int64)
    box = np.zeros((n_img, MAX_GUESSES, 4), dtype=np.float64)
    for i, parts in enumerate(rows):
        fields = parts[: 5 * MAX_GUESSES]
        if len(fields) % 5:
            sink.add(
                f"{len(fields)} fields: expected groups of '<label> <xmin> <ymin> <xmax> "
                "<ymax>'; read as no guesses",
                line=i + 1,
            )
            continue
        labs = [to_int(t) for t in fields[::5]]
        nums = [to_float(t) for k, t in enumerate(fields) if k % 5]
        if any(v is None or not 0 <= v < MAX_ID for v in labs) or any(v is None for v in nums):
            sink.add(
                "labels must be integers >= 0 and boxes numbers; read as no guesses", line=i + 1
            )
            continue
        if not all(math.isfinite(v) for v in nums if v is not None):
            nonfinite.append(i + 1)
        g = len(labs)
        label[i, :g] = [v for v in labs if v is not None]
        box[i, :g] = np.array([v for v in nums if v is not None], dtype=np.float64).reshape(g, 4)
    sink.close()
    guesses = ClslocGuesses(label=label, box=box, line=np.arange(1, n_img + 1, dtype=np.int64))
    return ResultSet(
        name=path.stem,
        files=(path,),
        problems=tuple(problems),
        warnings=nonfinite_warning(path, nonfinite, "a NaN/inf box coordinate"),
        family_data=(guesses,),
    )
