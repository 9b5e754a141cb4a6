"""What workers run and the GUI-side indexes they build (no widgets here).

``load_dataset`` / ``load_results`` / ``evaluate`` run off the GUI thread on immutable inputs;
``LoadedResults`` indexes a result set's detections by image; ``ResultEvaluations`` collects the
per-class evaluations on the GUI thread; ``Message`` is one line of the message area.
"""

from __future__ import annotations

import math
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis import FalsePositives, classify_false_positives, missed_objects
from vocviewer.evaluation.confusion import missed_at
from vocviewer.evaluation.result import ClassEvaluation, EvalResult
from vocviewer.gui.models.helper_process import in_process
from vocviewer.gui.models.protocol_tasks import ProtocolClass, Summary

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Message:
    """One line of the message area: ``level`` is ``"error"``, ``"warning"`` or ``"info"``;
    ``details`` (e.g. the traceback of an internal error) is shown on demand, never inline."""

    level: str
    text: str
    details: str = ""


@dataclass(frozen=True, eq=False)
class LoadedResults:
    """A ``ResultSet`` with its detections indexed by image (built in the loading worker).

    ``det_rows`` int64 (D,): detection rows sorted by image (stable); ``det_offsets`` int64 (I+1,).
    """

    results: ResultSet
    det_rows: IntArray
    det_offsets: IntArray

    @classmethod
    def build(cls, dataset: Dataset, results: ResultSet) -> LoadedResults:
        img = results.detections.image_index
        # 16-bit keys sort by radix in a few ms (a 64-bit stable sort holds the lock for tens)
        small = len(dataset.images) <= 1 << 16 and (not len(img) or img.min() >= 0)
        keys = img.astype(np.uint16) if small else img
        rows = np.argsort(keys, kind="stable").astype(np.int64)
        offsets = np.searchsorted(img[rows], np.arange(len(dataset.images) + 1)).astype(np.int64)
        return cls(results, rows, offsets)

    def detections_of(self, image: int) -> IntArray:
        """Detection rows on image row ``image``, in file order."""
        return self.det_rows[self.det_offsets[image] : self.det_offsets[image + 1]]


@dataclass(frozen=True, eq=False)
class Diagnosed:
    """A detection ``ClassEvaluation`` with what the worker derived from it: the false-positive
    diagnosis and the missed objects (``analysis.missed_objects`` on the evaluated set)."""

    evaluation: ClassEvaluation
    false_positives: FalsePositives
    missed: IntArray


class ResultEvaluations:
    """GUI-thread store of one result set's per-class evaluations, filled as classes arrive.

    ``verdict_by_row`` int8 (D,), ``fp_kind_by_row`` int8 (D,) and ``rank_by_row`` int64 (D,)
    give each detection row its ``Verdict``, ``FPKind`` and rank (-1 where not evaluated, e.g.
    images outside the evaluated set); ``missed`` bool (O,) flags the objects no TP matched.
    """

    def __init__(self, n_detections: int, n_objects: int = 0) -> None:
        self.det: dict[int, ClassEvaluation] = {}
        self.cls: dict[int, ClassEvaluation] = {}
        self.diagnosis: dict[int, FalsePositives] = {}
        self.verdict_by_row = np.full(n_detections, -1, dtype=np.int8)
        self.fp_kind_by_row = np.full(n_detections, -1, dtype=np.int8)
        self.rank_by_row = np.full(n_detections, -1, dtype=np.int64)
        self.missed = np.zeros(n_objects, dtype=bool)
        self.protocol: dict[int, ProtocolClass] = {}  # COCO / VisDrone: curve, AP at the IoU
        self.summary: Summary | None = None
        self._missed_at: tuple[float, npt.NDArray[np.bool_], set[int]] | None = None

    def missed_at(self, dataset: Dataset, threshold: float) -> npt.NDArray[np.bool_]:
        """bool (O,): objects missed as drawn at score ``threshold`` (``confusion.missed_at``:
        no true positive scoring at least that matched them). Kept per threshold and brought up
        to date class by class as evaluations arrive (classes own disjoint objects)."""
        if self._missed_at is None or self._missed_at[0] != threshold:
            self._missed_at = (threshold, np.zeros(len(self.missed), dtype=bool), set())
        _, out, done = self._missed_at
        new = {k: ev for k, ev in self.det.items() if k not in done}
        if new:
            out |= missed_at(dataset, new, self.missed, threshold)
            done.update(new)
        return out

    def mean_ap(self, task: str, n_classes: int) -> float | None:
        """``EvalResult.mean_ap`` over the arrived classes; ``None`` until all ``n_classes``
        arrived (NaN if no class qualifies)."""
        done = self.det if task == "det" else self.cls
        if not done or len(done) < n_classes:
            return None
        classes = tuple(done[k] for k in sorted(done))
        return EvalResult("", task, "", "", math.nan, classes).mean_ap()

    def add(self, ev: ClassEvaluation | Diagnosed | ProtocolClass) -> None:
        if isinstance(ev, ProtocolClass):
            self.protocol[ev.evaluation.class_index] = ev
            self.missed[ev.missed[ev.missed < len(self.missed)]] = True
            if ev.false_positives is not None:
                self.diagnosis[ev.evaluation.class_index] = ev.false_positives
                self.fp_kind_by_row[ev.evaluation.order] = ev.false_positives.kind
            ev = ev.evaluation
        if isinstance(ev, Diagnosed):
            self.diagnosis[ev.evaluation.class_index] = ev.false_positives
            self.fp_kind_by_row[ev.evaluation.order] = ev.false_positives.kind
            self.missed[ev.missed[ev.missed < len(self.missed)]] = True
            ev = ev.evaluation
        if ev.task == "cls":
            self.cls[ev.class_index] = ev
            return
        self.det[ev.class_index] = ev
        self.verdict_by_row[ev.order] = ev.verdict
        self.rank_by_row[ev.order] = np.arange(len(ev.order))


# --- worker functions (run off the GUI thread; inputs are immutable snapshots) -----------------
def load_dataset(path: str | Path, **sources: str | Path | None) -> Dataset:
    """Read a dataset (COCO: with its sibling keypoint / caption files, ``attach_companions``).
    JSON annotation files are read in the helper process (``worker.in_process``)."""
    if Path(path).suffix.lower() == ".json" and Path(path).is_file():
        return in_process(read_dataset, path, **sources)  # type: ignore[no-any-return]
    return read_dataset(path, **sources)


def read_dataset(path: str | Path, **sources: str | Path | None) -> Dataset:
    """``load_dataset`` in this process."""
    from vocviewer.benchmarks import open_dataset
    from vocviewer.gui.models.protocol_tasks import attach_companions

    dataset = open_dataset(Path(path), **sources)
    return attach_companions(dataset, Path(path)) if "coco" in dataset.extras else dataset


def load_results(
    dataset: Dataset,
    paths: Sequence[str | Path],
    image_set: str | None = None,
    fallback_set: str | None = None,
) -> LoadedResults:
    """Read result files (only those of ``image_set`` if given); if they turn out to mix image
    sets, retry keeping those of ``fallback_set``."""
    from vocviewer.benchmarks import open_results

    given = [Path(p) for p in paths]
    if "coco" in dataset.extras and len(given) == 1 and _looks_like_boxes(given[0]):
        from vocviewer.formats.coco_results import box_columns, read_coco_results

        boxes = in_process(box_columns, given[0])  # the parse holds an interpreter for seconds
        return LoadedResults.build(dataset, read_coco_results(dataset, given[0], boxes=boxes))
    if {"coco", "visdrone", "ilsvrc"} & set(dataset.extras):  # no image sets there
        return LoadedResults.build(dataset, open_results(dataset, given))
    try:
        results = open_results(dataset, given, image_set=image_set)
    except FormatError:
        if image_set is not None or fallback_set is None:
            raise
        results = open_results(dataset, given, image_set=fallback_set)
    return LoadedResults.build(dataset, results)


def _looks_like_boxes(path: Path) -> bool:
    """A ``.json`` file whose first entry (in its first 4 KB) has a ``bbox`` and no mask or
    keypoints: worth parsing in a helper process (others are read in the worker itself)."""
    if path.suffix.lower() != ".json" or not path.is_file():
        return False
    with path.open("rb") as f:
        head = f.read(4096)
    first = head.split(b"}", 1)[0]
    return b'"bbox"' in first and b'"segmentation"' not in first and b'"keypoints"' not in first


def evaluate(
    task: str, dataset: Dataset, results: ResultSet, image_set: str
) -> Iterator[Diagnosed | ClassEvaluation | Message]:
    """Per-class VOC evaluation (detection results come ``Diagnosed``); on a row the official
    code rejects, yield a warning and carry on with the rejected rows dropped (``strict=False``)."""
    from vocviewer.evaluation import voc

    fn = voc.iter_evaluate_voc_det if task == "det" else voc.iter_evaluate_voc_cls
    images = dataset.images_in_set(image_set)

    def diagnosed(ev: ClassEvaluation) -> Diagnosed | ClassEvaluation:
        if ev.task != "det":
            return ev
        fp = classify_false_positives(dataset, results, ev)
        return Diagnosed(ev, fp, missed_objects(dataset, ev, images))

    done = 0
    try:
        for ev in fn(dataset, results, image_set=image_set, strict=True):
            done += 1
            yield diagnosed(ev)
    except FormatError as err:
        # an error: the official code stops here; the window shows it at once
        yield Message("error", f"{err}; evaluating without such rows (numbers not official)")
        rest = range(done, len(dataset.classes))
        for ev in fn(dataset, results, image_set=image_set, classes=rest, strict=False):
            yield diagnosed(ev)


def guess_image_set(results: ResultSet, dataset: Dataset) -> str | None:
    """The Main set named by VOC result file names (``comp4_det_val_car.txt`` → ``val``)."""
    from vocviewer.formats.voc_results import parse_result_name

    sets = set(dataset.main_sets())
    for f in results.files:
        entry = parse_result_name(Path(f))
        if entry is not None and entry.image_set in sets:
            return entry.image_set
    return None


def evaluates_on(dataset: Dataset, results: Sequence[LoadedResults], name: str | None) -> bool:
    """Whether browsing image set ``name`` should re-evaluate ``results`` on it: a Main set,
    and no result set whose file names name another set (``comp4_det_val_*`` stays on val —
    on train every detection would lie outside the set)."""
    if name is None or name not in dataset.main_sets():
        return False
    named = {guess_image_set(r.results, dataset) for r in results} - {None}
    return not named or named == {name}


def error_message(exc: BaseException, what: str) -> Message:
    """A one-line message for a worker error. Bad input (``FormatError``) and file-system
    failures (``OSError``) name their file themselves; anything else is a bug in vocviewer,
    reported as an internal error with its traceback in ``details``."""
    if isinstance(exc, FormatError):
        return Message("error", f"{what}: {exc}")
    if isinstance(exc, OSError):
        return Message("error", f"{what}: {describe_os_error(exc)}")
    details = "".join(traceback.format_exception(exc))
    return Message("error", f"{what}: {internal_error_text(exc)}", details)


def internal_error_text(exc: BaseException | None) -> str:
    """One line for an exception that is a bug in vocviewer (not bad input)."""
    return f"internal error ({type(exc).__name__}: {exc}); please report it"


def describe_os_error(exc: OSError) -> str:
    """``file: reason`` of an ``OSError`` (``[Errno 2] No such file ...`` made readable)."""
    if exc.filename is not None and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    return str(exc)


def is_internal(exc: BaseException) -> bool:
    """Whether a worker's exception is a bug rather than bad input or a file-system failure."""
    return not isinstance(exc, FormatError | OSError)


SET_FOLDERS = ("Main", "Segmentation", "Layout", "Action")


def image_set_choices(ds: Dataset) -> list[tuple[str, str | None]]:
    """``(label, key)`` for the image-set chooser: Main sets, then other folders, then all."""
    skip = set(ds.classes) | set(ds.actions)
    out: list[tuple[str, str | None]] = [(s, s) for s in ds.main_sets()]
    for key in ds.image_sets:
        folder, _, name = key.partition("/")
        if folder in SET_FOLDERS[1:] and name.rsplit("_", 1)[0] not in skip:
            out.append((key, key))
    out.append(("All images", None))
    return out


def preferred_set(mains: Sequence[str]) -> str | None:
    """The set to evaluate by default: val, test, trainval, train, else the first."""
    for name in ("val", "test", "trainval", "train"):
        if name in mains:
            return name
    return mains[0] if mains else None
