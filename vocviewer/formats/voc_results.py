"""VOC results files (``<comp>_det_<set>_<class>.txt``, ``<comp>_cls_<set>_<class>.txt``).

Detection lines are ``<id> <score> <xmin> <ymin> <xmax> <ymax>`` and classification lines
``<id> <score>``, whitespace separated (VOC2011 devkit manual §3.3, §4.3). Boxes are 1-based
inclusive pixels, stored as written. Rows keep file order: files go in ``dataset.classes`` order
(detection files first), lines in file order — the tie-break order of the official ranking.

The file is read through ``formats.input`` (regular files only: a FIFO or ``/dev/zero`` gives a
message, never a hang) and parsed in chunks of about ``CHUNK_BYTES`` by numpy's C text reader (ids
mapped by a sorted search, unknown ids reported from the arrays); only a chunk that reader refuses
(blank or malformed lines) is read again line by line to name every offending line, so one bad line
costs one chunk, not the file.

Non-finite numbers (the program-wide rule): a line whose score or box holds NaN or ±inf is KEPT and
evaluated as the official code evaluates it: its box overlaps nothing, so it is a false positive,
and a NaN score ranks last (MATLAB's ``sort(-conf)``, numpy's ``argsort``). Each such file gets one
warning naming its first such line, in ``ResultSet.extras["warnings"]`` (not ``problems``: the
numbers stay official). The window never draws such a box.
"""

from __future__ import annotations

import codecs
import io
import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ClassScores, Detections, ResultSet
from vocviewer.formats.input import check_regular, read_bytes
from vocviewer.formats.output import write_text
from vocviewer.formats.voc_common import (
    FileProblems,
    describe,
    listed_files,
    split_lines,
    to_float,
)

#: ``<competition>_<task>_<set>_<class>.txt``; the competition may contain ``_`` (py-faster-rcnn
#: writes ``comp4_<salt>_det_test_car.txt``), class names never do.
RESULT_NAME = re.compile(r"^(?P<comp>.+?)_(?P<task>det|cls)_(?P<set>.+)_(?P<cls>[^_]+)\.txt$")
_FIELDS = {"det": ("id", "score", "xmin", "ymin", "xmax", "ymax"), "cls": ("id", "score")}
_TASKS = ("det", "cls")
#: Bytes parsed per call of numpy's reader; a bad line costs re-reading only its chunk slowly.
CHUNK_BYTES = 1 << 20
#: A line longer than this is reported without being split into tokens.
MAX_LINE_CHARS = 4096


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


class ImageIds:
    """Image id → dataset row, for one id at a time (dict) or a whole column (sorted search)."""

    def __init__(self, ids: np.ndarray) -> None:
        self.row_of = {image_id: row for row, image_id in enumerate(ids.tolist())}
        self._order = np.argsort(ids, kind="stable")
        self._sorted = ids[self._order]
        #: Longer ids cannot be dataset ids; a fixed-width column one char wider shows them.
        self.width = max((len(i) for i in self.row_of), default=0) + 1

    def rows(self, ids: np.ndarray) -> np.ndarray:
        """Rows of a ``str`` array of ids, int64, -1 where unknown."""
        if len(self._sorted) == 0:
            return np.full(len(ids), -1, dtype=np.int64)
        pos = np.searchsorted(self._sorted, ids).clip(max=len(self._sorted) - 1)
        return np.where(self._sorted[pos] == ids, self._order[pos], -1).astype(np.int64)


def read_results_file(
    entry: ResultFile, index: ImageIds, fp: FileProblems
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Parse one file: ``(image rows int64 (n,), numbers float64 (n, k), lines int64 (n,))``.

    ``numbers`` holds score then box (det: k = 5; cls: k = 1). Bad lines are reported to ``fp``
    in line order and skipped: wrong field count, a non-numeric field, an unknown image id.
    NaN and ±inf are kept (see the module docstring). The file is read through
    ``formats.input`` (regular files only, bounded) and parsed in chunks of about
    ``CHUNK_BYTES``; only a chunk holding a doubtful line is read again line by line.
    """
    data = read_bytes(entry.path)
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    width = len(_FIELDS[entry.task])
    parts = []
    first_line = 1
    for chunk in _chunks(data, CHUNK_BYTES):
        text = chunk.decode("utf-8", errors="replace")
        part = _read_fast(text, width, index, first_line, fp)
        if part is None:
            part = _read_carefully(text, entry.task, index.row_of, fp, first_line)
        parts.append(part)
        first_line += chunk.count(b"\n")
    if not parts:
        return np.zeros(0, np.int64), np.zeros((0, width - 1)), np.zeros(0, np.int64)
    image, numbers, lines = (np.concatenate(c) for c in zip(*parts, strict=True))
    return image, numbers, lines


def _chunks(data: bytes, size: int) -> Iterator[bytes]:
    """``data`` in pieces of about ``size`` bytes, each ending after a newline (but the last)."""
    start, n = 0, len(data)
    while start < n:
        end = data.find(b"\n", start + size) + 1 if start + size < n else n
        end = end or n
        yield data[start:end]
        start = end


def _read_fast(
    text: str, width: int, index: ImageIds, first_line: int, fp: FileProblems
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """numpy's C parser on a chunk starting at line ``first_line``; ``None`` if any line does
    not parse (wrong field count, not a number, a blank line), so that the careful reader can
    name it. Unknown image ids are reported here and their rows dropped."""
    body = text.rstrip()
    if not body:
        return np.zeros(0, np.int64), np.zeros((0, width - 1)), np.zeros(0, np.int64)
    dtype = np.dtype([("id", f"U{index.width}")] + [(f"v{j}", "f8") for j in range(1, width)])
    try:
        table = np.loadtxt(io.StringIO(body), dtype=dtype, comments=None, ndmin=1)
    except ValueError:
        return None
    n = len(table)
    if n != body.count("\n") + 1:
        return None
    numbers = np.column_stack([table[f"v{j}"] for j in range(1, width)])
    image = index.rows(table["id"])
    lines = np.arange(first_line, first_line + n, dtype=np.int64)
    unknown = np.flatnonzero(image < 0)
    if len(unknown):
        shown = unknown[: max(fp.limit - fp.count, 0)]
        rows = body.split("\n") if len(shown) else []
        for i in shown.tolist():
            fp.add(_unknown_id(rows[i].split()[0]), line=int(lines[i]))
        if len(unknown) > len(shown):
            fp.hide(len(unknown) - len(shown), int(lines[unknown[len(shown)]]))
        ok = image >= 0
        image, numbers, lines = image[ok], numbers[ok], lines[ok]
    return image, numbers, lines


def _unknown_id(image_id: str) -> str:
    return f"unknown image id {describe([image_id])}; line skipped"


def _read_carefully(
    text: str, task: str, row_of: dict[str, int], fp: FileProblems, first_line: int = 1
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Line by line, reporting every bad line (see ``read_results_file``)."""
    fields = _FIELDS[task]
    width = len(fields)
    rows = split_lines(text, max_chars=MAX_LINE_CHARS)
    found: list[tuple[int, str]] = []  # (line, message), reported sorted by line at the end
    kept = [k for k, r in enumerate(rows, start=1) if r]
    if len(kept) != len(rows) or any(len(r) != width for r in rows):
        expected = f"expected {width} fields ({' '.join(fields)})"
        found += [
            (k, f"{expected}, found {describe(rows[k - 1])}; line skipped")
            for k in kept
            if len(rows[k - 1]) != width
        ]
        kept = [k for k in kept if len(rows[k - 1]) == width]
        rows = [rows[k - 1] for k in kept]
    lines = np.array(kept, dtype=np.int64) + (first_line - 1)
    if not rows:
        _report(found, fp, first_line)
        return np.zeros(0, np.int64), np.zeros((0, width - 1)), lines
    columns = list(zip(*rows, strict=True))
    try:
        text_of_numbers = "".join(itertools.chain.from_iterable(columns[1:]))
        if "_" in text_of_numbers or not text_of_numbers.isascii():  # forms to_float rejects
            raise ValueError
        numbers = np.array(columns[1:], dtype=np.float64).T
        rejected = np.zeros(len(rows), dtype=bool)
    except ValueError:
        numbers, rejected = _numbers_slowly(columns[1:], lines, fields, found, first_line)
    image = np.array([row_of.get(s, -1) for s in columns[0]], dtype=np.int64)
    for i in np.flatnonzero((image < 0) & ~rejected).tolist():
        found.append((int(lines[i]) - first_line + 1, _unknown_id(columns[0][i])))
    _report(found, fp, first_line)
    ok = (image >= 0) & ~rejected
    if not ok.all():
        image, numbers, lines = image[ok], numbers[ok], lines[ok]
    return image, numbers, lines


def _report(found: list[tuple[int, str]], fp: FileProblems, first_line: int) -> None:
    for line, message in sorted(found, key=lambda item: item[0]):
        fp.add(message, line=line + first_line - 1)


def _numbers_slowly(
    columns: list[tuple[str, ...]],
    lines: np.ndarray,
    fields: Sequence[str],
    found: list[tuple[int, str]],
    first_line: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-field conversion after the bulk one failed; returns numbers and the rejected rows."""
    n, k = len(lines), len(columns)
    out = np.full((n, k), np.nan)
    rejected = np.zeros(n, dtype=bool)
    for i in range(n):
        for j in range(k):
            text = columns[j][i]
            value = to_float(text)
            if value is None:
                message = f"{fields[j + 1]} is not a number: {describe([text])}; line skipped"
                found.append((int(lines[i]) - first_line + 1, message))
                rejected[i] = True
                break
            out[i, j] = value
    return out, rejected


def _non_finite_warning(path: Path, numbers: np.ndarray, lines: np.ndarray) -> FormatError | None:
    """One warning for the rows of a file holding NaN or ±inf (kept: see the module docstring)."""
    bad = np.flatnonzero(~np.isfinite(numbers).all(axis=1))
    if not len(bad):
        return None
    return FormatError(
        path,
        f"{len(bad)} line(s) hold NaN or ±inf (first here); kept and evaluated as the official "
        "code does: such a box overlaps nothing (a false positive), a NaN score ranks last; "
        "never drawn",
        line=int(lines[bad[0]]),
    )


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
            image, numbers, lines = read_results_file(chosen[key], index, fp)
        except FormatError as exc:  # not a regular file, a link loop, over the size limit
            fp.add(f"{exc.message}; file skipped")
            image, lines = np.zeros(0, np.int64), np.zeros(0, np.int64)
            numbers = np.zeros((0, len(_FIELDS[key[0]]) - 1))
        fp.close()
        if (warning := _non_finite_warning(chosen[key].path, numbers, lines)) is not None:
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
        extras={"warnings": tuple(warnings)},
    )


def _detections(parts: list[tuple[np.ndarray, ...]]) -> Detections:
    if not parts:
        return Detections.empty()
    image, label, numbers, file_index, line = (np.concatenate(c) for c in zip(*parts, strict=True))
    return Detections(image, label, numbers[:, 0], numbers[:, 1:5], file_index, line)


def _class_scores(parts: list[tuple[np.ndarray, ...]]) -> ClassScores:
    if not parts:
        return ClassScores.empty()
    image, label, numbers, file_index, line = (np.concatenate(c) for c in zip(*parts, strict=True))
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
