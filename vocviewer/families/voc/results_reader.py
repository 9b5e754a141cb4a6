"""VOC results files (``<comp>_det_<set>_<class>.txt``, ``<comp>_cls_<set>_<class>.txt``).

Detection lines are ``<id> <score> <xmin> <ymin> <xmax> <ymax>`` and classification lines
``<id> <score>``, whitespace separated (VOC2011 devkit manual §3.3, §4.3). Boxes are 1-based
inclusive pixels, stored as written. Rows keep file order: files go in ``dataset.classes`` order
(detection files first), lines in file order — the tie-break order of the official ranking.

Each file is parsed by ``voc_results_lines`` (regular files only: a FIFO or ``/dev/zero`` gives a
message, never a hang; numpy's C reader in chunks, so one bad line costs one chunk, not the file).

Non-finite numbers (the program-wide rule): a line whose score or box holds NaN or ±inf is KEPT and
evaluated as the official code evaluates it: its box overlaps nothing, so it is a false positive,
and a NaN score ranks last (MATLAB's ``sort(-conf)``, numpy's ``argsort``). Each such file gets one
warning naming its first such line, in ``ResultSet.warnings`` (not ``problems``: the
numbers stay official). The window never draws such a box.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ClassScores, Detections, ResultSet
from vocviewer.families.voc.results_lines import (
    FIELDS,
    ImageIds,
    non_finite_warning,
    read_results_file,
)
from vocviewer.formats.input import check_regular
from vocviewer.formats.output import write_text
from vocviewer.formats.text_fields import FileProblems, listed_files

#: ``<competition>_<task>_<set>_<class>.txt``; the competition may contain ``_`` (py-faster-rcnn
#: writes ``comp4_<salt>_det_test_car.txt``), class names never do.
RESULT_NAME = re.compile(r"^(?P<comp>.+?)_(?P<task>det|cls)_(?P<set>.+)_(?P<cls>[^_]+)\.txt$")
_TASKS = ("det", "cls")


@dataclass(frozen=True)
class ResultFile:
    """A results file recognised by its name."""

    path: Path
    competition: str
    task: str
    image_set: str
    class_name: str


def parse_result_name(path: Path) -> ResultFile | None:
    """Split a results file name into its parts; ``None`` if it is not one."""
    m = RESULT_NAME.match(path.name)
    if m is None:
        return None
    return ResultFile(path, m["comp"], m["task"], m["set"], m["cls"])


def _is_result_name(name: str) -> bool:
    return RESULT_NAME.match(name) is not None


def collect_result_files(
    paths: Sequence[str | Path], problems: list[FormatError]
) -> list[ResultFile]:
    """Expand files and folders into recognised results files (each path once, given order).

    A folder contributes its ``Main/`` subfolder if it has one (a devkit ``results/VOC2012/``),
    else its own matching files; other files in folders are ignored, and a matching entry that is
    a link loop, a dangling link or a FIFO is a problem (file skipped). A file named explicitly
    that does not match the pattern is a problem. A path that does not exist is fatal.
    """
    found: list[ResultFile] = []
    seen: set[Path] = set()
    for given in paths:
        path = Path(given)
        if not path.exists():
            if path.is_symlink():
                check_regular(path)  # raises: a link loop or a dangling link
            raise FormatError(path, "does not exist")
        if path.is_dir():
            folder = path / "Main" if (path / "Main").is_dir() else path
            candidates = listed_files(folder, _is_result_name, problems)
            entries = [e for p in candidates if (e := parse_result_name(p)) is not None]
        else:
            entry = parse_result_name(path)
            if entry is None:
                problems.append(
                    FormatError(
                        path,
                        "not a VOC results file name: expected <comp>_det_<set>_<class>.txt "
                        "or <comp>_cls_<set>_<class>.txt; file skipped",
                    )
                )
                continue
            entries = [entry]
        for e in entries:
            key = e.path.resolve()
            if key not in seen:
                seen.add(key)
                found.append(e)
    return found


def choose_files(
    files: list[ResultFile], image_set: str | None, where: Path
) -> tuple[list[ResultFile], str]:
    """Keep the files of one image set and at most one competition per task.

    Returns the files and the default name (the competition id, or ``det+cls`` ids joined with
    ``+`` when detection and classification files come from different competitions).
    """
    if not files:
        raise FormatError(where, "no VOC results files (<comp>_det_<set>_<class>.txt) found")
    if image_set is not None:
        wanted = image_set.removeprefix("Main/")
        chosen = [f for f in files if f.image_set == wanted]
        if not chosen:
            found = ", ".join(sorted({f.image_set for f in files}))
            raise FormatError(where, f"no results for image set {wanted!r}; found: {found}")
        files = chosen
    sets = sorted({f.image_set for f in files})
    if len(sets) > 1:
        raise FormatError(
            where, f"results for several image sets ({', '.join(sets)}); choose one with image_set"
        )
    names = []
    for task in _TASKS:
        comps = sorted({f.competition for f in files if f.task == task})
        if len(comps) > 1:
            raise FormatError(
                where,
                f"{task} results of several competitions ({', '.join(comps)}); "
                "open them one at a time",
            )
        names += comps
    return files, "+".join(dict.fromkeys(names))


def read_voc_results(
    dataset: Dataset,
    paths: Sequence[str | Path] | str | Path,
    *,
    image_set: str | None = None,
    name: str | None = None,
) -> ResultSet:
    """Read VOC detection and classification results for ``dataset``.

    Parameters
    ----------
    dataset
        The ground truth; ids and class names are resolved against it.
    paths
        Any mix of results files, devkit results folders (``results/VOC2012/`` holding
        ``Main/``), ``Main/`` folders or other folders holding such files.
    image_set
        Keep only files of this set (``test`` or ``Main/test``); needed when several are present.
    name
        Display name; defaults to the competition id (``comp4``), or ``comp4+comp2`` when the
        detection and classification files come from different competitions.

    Returns
    -------
    ResultSet
        Detections (boxes 1-based inclusive pixels, as written) and class scores in file order,
        files in ``dataset.classes`` order (detection files first). Bad lines, unknown image ids
        and unknown class names are in ``problems`` (those rows or files skipped).

    Raises
    ------
    FormatError
        A path does not exist, no results file is found, or the files mix image sets (without
        ``image_set``) or competitions of one task.
    """
    given = [paths] if isinstance(paths, str | Path) else list(paths)
    if not given:
        raise FormatError(None, "no results files given")
    where = Path(given[0])
    problems: list[FormatError] = []
    files, default_name = choose_files(collect_result_files(given, problems), image_set, where)
    chosen: dict[tuple[str, int], ResultFile] = {}
    for entry in files:
        if entry.class_name not in dataset.classes:
            problems.append(
                FormatError(
                    entry.path,
                    f"unknown class {entry.class_name!r} in the file name (expected one of "
                    f"{', '.join(dataset.classes)}); file skipped",
                )
            )
            continue
        key = (entry.task, dataset.class_index(entry.class_name))
        if key in chosen:
            problems.append(
                FormatError(
                    entry.path,
                    f"a second {entry.task} file for class {entry.class_name!r} "
                    f"(first: {chosen[key].path}); file skipped",
                )
            )
            continue
        chosen[key] = entry
    order = sorted(chosen, key=lambda key: (_TASKS.index(key[0]), key[1]))
    index = ImageIds(dataset.images.id)
    parts: dict[str, list[tuple[np.ndarray, ...]]] = {"det": [], "cls": []}
    warnings: list[FormatError] = []
    for file_index, key in enumerate(order):
        fp = FileProblems(problems, chosen[key].path)
        try:
            image, numbers, lines = read_results_file(chosen[key].path, key[0], index, fp)
        except FormatError as exc:  # not a regular file, a link loop, over the size limit
            fp.add(f"{exc.message}; file skipped")
            image, lines = np.zeros(0, np.int64), np.zeros(0, np.int64)
            numbers = np.zeros((0, len(FIELDS[key[0]]) - 1))
        fp.close()
        if (warning := non_finite_warning(chosen[key].path, numbers, lines)) is not None:
            warnings.append(warning)
        label = np.full(len(image), key[1], dtype=np.int64)
        parts[key[0]].append((image, label, numbers, np.full(len(image), file_index), lines))
    return ResultSet(
        name=name if name is not None else default_name,
        files=tuple(chosen[key].path for key in order),
        detections=_detections(parts["det"]),
        class_scores=_class_scores(parts["cls"]),
        classes_with_files={t: frozenset(k for task, k in order if task == t) for t in _TASKS},
        problems=tuple(problems),
        warnings=tuple(warnings),
    )


def _join(arrays: tuple[np.ndarray, ...]) -> np.ndarray:
    """``np.concatenate`` without the copy of a single array (10M rows: 0.7 GB saved)."""
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


def _detections(parts: list[tuple[np.ndarray, ...]]) -> Detections:
    if not parts:
        return Detections.empty()
    image, label, numbers, file_index, line = (_join(c) for c in zip(*parts, strict=True))
    return Detections(image, label, numbers[:, 0], numbers[:, 1:5], file_index, line)


def _class_scores(parts: list[tuple[np.ndarray, ...]]) -> ClassScores:
    if not parts:
        return ClassScores.empty()
    image, label, numbers, file_index, line = (_join(c) for c in zip(*parts, strict=True))
    return ClassScores(image, label, numbers[:, 0], file_index, line)


def _format_numbers(values: np.ndarray) -> list[str]:
    """Shortest round-trip text of each value (``repr``), integers without ``.0``, ``Inf``."""
    out = list(map(repr, values.tolist()))
    special = np.isinf(values) | ((values == np.trunc(values)) & (np.abs(values) < 1e16))
    for i in np.flatnonzero(special).tolist():
        text = out[i]
        out[i] = text[:-2] if text.endswith(".0") else text.replace("inf", "Inf")
    return out


def write_voc_results(
    results: ResultSet,
    dataset: Dataset,
    folder: str | Path,
    *,
    competition: str,
    image_set: str,
) -> list[Path]:
    """Write ``results`` in the devkit layout: ``folder/<competition>_det_<set>_<class>.txt``.

    One file per class that has a file in ``results.classes_with_files`` or has rows (an empty
    file means "submitted, no detections"); detection lines ``id score xmin ymin xmax ymax``,
    classification lines ``id score``, in row order. Numbers are written with ``repr`` so they
    read back bit for bit. Each file is written to a temporary name and renamed into place.

    Returns
    -------
    list of Path
        The files written, detection files first, each task in class order.
    """
    image_set = image_set.removeprefix("Main/")
    probe = parse_result_name(Path(f"{competition}_det_{image_set}_{dataset.classes[0]}.txt"))
    if probe is None or (probe.competition, probe.image_set) != (competition, image_set):
        raise ValueError(
            f"competition {competition!r} / image set {image_set!r} would not read back "
            "(they must not contain '_det_', '_cls_' or path separators)"
        )
    if any(sep in competition + image_set for sep in ("/", "\\")):
        raise ValueError("competition and image set must not contain path separators")
    out_dir = Path(folder)
    out_dir.mkdir(parents=True, exist_ok=True)
    ids = dataset.images.id
    written: list[Path] = []
    det, cls = results.detections, results.class_scores
    tables = {
        "det": (det.image_index, det.label, np.column_stack([det.score, det.box])),
        "cls": (cls.image_index, cls.label, cls.score[:, None]),
    }
    for task, (image_index, label, numbers) in tables.items():
        classes = set(results.classes_with_files.get(task, ())) | set(label.tolist())
        for k in sorted(classes):
            mask = label == k
            columns = [ids[image_index[mask]].tolist()]
            columns += [_format_numbers(c) for c in numbers[mask].T]
            text = "".join(line + "\n" for line in map(" ".join, zip(*columns, strict=True)))
            target = out_dir / f"{competition}_{task}_{image_set}_{dataset.classes[k]}.txt"
            write_text(target, text)
            written.append(target)
    return written
