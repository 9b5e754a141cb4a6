"""What loading workers run and the GUI-side indexes they build (no widgets here).

``load_dataset`` / ``load_results`` run off the GUI thread on immutable inputs, through the
dataset's benchmark family; ``LoadedResults`` indexes a result set's detections by image;
``Message`` is one line of the message area. ``prefetch_open`` starts a JSON dataset, its results
and their evaluation before the window exists — in a thread of this process (``open_ahead``)
where the compiled JSON kernel reads them without the interpreter lock, else in the helper
process (the results read and evaluated in a thread of the helper as soon as the dataset is read,
while the answers are sent back); ``load_dataset``, ``load_results`` and ``take_evaluation`` then
take what it computed.
"""

from __future__ import annotations

import collections
import itertools
import pickle
import threading
import traceback
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import LabelImageResults, ResultSet
from vocviewer.gui.models import open_ahead
from vocviewer.gui.models.helper_process import (
    END,
    forget_prefetched,
    held,
    hold,
    in_process,
    needed,
    prefetch,
    send,
    take,
    take_stream,
)

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
        """Index ``results`` by image; its box column (a ``Derived`` one, made when first read:
        the panes read it whole, 500,000 rows take ~40 ms) is made here in the worker too."""
        _ = results.detections.box
        img = results.detections.image_index
        # 16-bit keys sort by radix in a few ms (a 64-bit stable sort holds the lock for tens)
        small = len(dataset.images) <= 1 << 16 and (not len(img) or img.min() >= 0)
        keys = img.astype(np.uint16) if small else img
        rows = np.argsort(keys, kind="stable").astype(np.int64)
        offsets = np.searchsorted(img[rows], np.arange(len(dataset.images) + 1)).astype(np.int64)
        return cls(results, rows, offsets)

    @property
    def has_curves(self) -> bool:
        """Whether the set ranks detections or class scores (a PR curve and an AP per class);
        a folder of segmentation label PNGs has none: its numbers are the Summary tab's."""
        r = self.results
        return not r.has_data(LabelImageResults) or bool(len(r.detections) or len(r.class_scores))

    def detections_of(self, image: int) -> IntArray:
        """Detection rows on image row ``image``, in file order."""
        return self.det_rows[self.det_offsets[image] : self.det_offsets[image + 1]]


# --- worker functions (run off the GUI thread; inputs are immutable snapshots) -----------------
def load_dataset(path: str | Path, **sources: str | Path | None) -> Dataset:
    """Read a dataset (COCO: with its sibling keypoint / caption files, ``attach_companions``),
    or take the one ``prefetch_open`` read. Without the compiled JSON kernel, JSON annotation
    files are read in the helper process (``helper_process.in_process``)."""
    if _is_json(path):
        from vocviewer.families.registry import benchmark_of

        ready = open_ahead.take_dataset(path, sources) or take(
            ("dataset", _dataset_key(path, sources))
        )
        if isinstance(ready, Dataset):
            benchmark_of(ready).view_settings(ready)  # (and what choosing them imports)
            return ready
        if needed():
            return in_process(read_dataset, path, **sources)  # type: ignore[no-any-return]
    return read_dataset(path, **sources)


def _is_json(path: str | Path) -> bool:
    return Path(path).suffix.lower() == ".json" and Path(path).is_file()


def offload() -> Any:
    """How a family's window reader runs a long parse (``read_view_results``' ``offload``):
    in the helper process where the compiled JSON kernel is missing, else right here."""
    from vocviewer.families.eval_sets import run_here

    return in_process if needed() else run_here


def read_dataset(path: str | Path, **sources: str | Path | None) -> Dataset:
    """``load_dataset`` in this process: the dataset as its family draws it in the window."""
    from vocviewer.families.registry import benchmark_of, open_dataset

    dataset = open_dataset(Path(path), **sources)
    return benchmark_of(dataset).prepare_view(dataset, Path(path))


def load_results(
    dataset: Dataset,
    paths: Sequence[str | Path],
    image_set: str | None = None,
    fallback_set: str | None = None,
) -> LoadedResults:
    """Read result files with the dataset's family (only those of ``image_set`` if given, where
    the family has image sets; if they turn out to mix sets, those of ``fallback_set``)."""
    from vocviewer.families.registry import benchmark_of

    bench = benchmark_of(dataset)
    given = [Path(p) for p in paths]
    rkey = _results_key(given, image_set, fallback_set)
    ahead = open_ahead.take_results(dataset, rkey)
    if ahead is not None:
        made = open_ahead.indexed(ahead)  # (made ahead while the window was being built)
        return made if isinstance(made, LoadedResults) else LoadedResults.build(dataset, ahead)
    ready = take(("results", rkey))
    if isinstance(ready, tuple) and ready[0] == _fingerprint(dataset):
        return LoadedResults.build(dataset, ready[1])
    results = bench.read_view_results(dataset, given, image_set, fallback_set, offload())
    return LoadedResults.build(dataset, results)


# --- prefetching (vocviewer open DATASET.json --results R: the helper starts before the window) ---
def prefetch_open(
    path: str | Path, results_paths: Sequence[str | Path] = (), **sources: str | Path | None
) -> None:
    """Start reading the JSON dataset ``path``, its result files and their evaluation at the
    family's default choice, one after the other, while this process builds the window: in a
    thread here (``open_ahead``), or in the helper process where the compiled JSON kernel is
    missing; ``load_dataset``, ``load_results`` and ``take_evaluation`` take the answers
    (where their arguments match; else they do the work as usual). Other datasets: nothing."""
    forget_prefetched()
    open_ahead.forget()
    if not _is_json(path):
        return
    dkey = _dataset_key(path, sources)
    rkey = _results_key([Path(p) for p in results_paths], None, None) if results_paths else None
    if not needed():
        open_ahead.start(path, rkey, read_dataset, LoadedResults.build, **sources)
        return
    prefetch(("dataset", dkey), _read_dataset_held, (dkey, rkey), path, **sources)
    if rkey is not None:
        prefetch(("results", rkey), _read_results_held, dkey, rkey)
        prefetch(("evaluation", rkey), _evaluate_held, dkey, ("evaluation", rkey))


def take_evaluation(dataset: Dataset, results: ResultSet, choice: Any) -> Iterator[Any] | None:
    """The evaluation (``ClassView``s undiagnosed, notices, summary) of ``results`` at
    ``choice`` that ``prefetch_open`` computes ahead (in a thread here or in the helper), class
    by class as it comes, if it is exactly that (else ``None``); the window diagnoses the
    views after it (``EvaluationModel._diagnose``).

    If the helper fails on the way, the rest is evaluated here (what came is not repeated)."""
    ahead = open_ahead.take_evaluation(results, choice)
    if ahead is not None:
        return _completed(dataset, results, choice, ahead)
    stream = take_stream(("evaluation", _results_key([Path(p) for p in results.files], None, None)))
    if stream is None:
        return None
    header = next(stream, None)
    if header != (_fingerprint(dataset), choice, len(results.detections)):
        threading.Thread(target=collections.deque, args=(stream, 0), daemon=True).start()  # drain
        return None
    unpickled = (b if isinstance(b, str) else pickle.loads(b) for b in stream)
    return _completed(dataset, results, choice, unpickled)


def _completed(
    dataset: Dataset, results: ResultSet, choice: Any, items: Iterator[Any]
) -> Iterator[Any]:
    """``items`` (views evaluated elsewhere, undiagnosed; then a ``COMPLETE`` mark) as the
    window's evaluation yields them; if they stop without the mark (the helper died, an
    error), the rest is evaluated here (undiagnosed too)."""
    from vocviewer.families.registry import benchmark_of

    bench = benchmark_of(dataset)
    done = 0
    for item in items:
        if isinstance(item, str) and item in (_COMPLETE, open_ahead.COMPLETE):
            return
        if isinstance(item, str):  # STOPPED
            break
        done += 1
        yield item
    rest = bench.evaluate_views(dataset, results, choice, diagnose=False)
    yield from itertools.islice(rest, done, None)


def _dataset_key(path: str | Path, sources: dict[str, str | Path | None]) -> Hashable:
    return open_ahead.dataset_key(path, sources)


def _results_key(paths: Sequence[Path], image_set: str | None, fallback: str | None) -> Hashable:
    return (tuple(str(p) for p in paths), image_set, fallback)


def _fingerprint(dataset: Dataset) -> Hashable:
    """What tells the prefetched dataset from another one (cheap)."""
    sizes = (len(dataset.images), len(dataset.objects))
    return (dataset.name, str(dataset.root), dataset.classes, sizes)


def _read_dataset_held(
    key: tuple[Hashable, Hashable | None], path: str | Path, **sources: str | Path | None
) -> Dataset:
    """In the helper process: ``read_dataset``; if ``key[1]`` (the results' key) is given, its
    results are read and evaluated at once in a thread of their own (``_Chain``, held for
    ``_read_results_held`` and ``_evaluate_held``), while this dataset is sent back."""
    dataset = read_dataset(path, **sources)
    if key[1] is not None:
        hold(("chain", key[0]), _Chain(dataset, key[1]))
    return dataset


class _Chain:
    """In the helper process: the prefetched results of a dataset read, then evaluated at the
    family's default choice, in a thread, one step right after the other (not waiting for the
    answers to be sent back): the evaluation is sent as it comes (undiagnosed, pickled) under
    ``("evaluation", rkey)`` after a header ``(dataset fingerprint, choice, detections)``."""

    def __init__(self, dataset: Dataset, rkey: Hashable) -> None:
        self.dataset, self.rkey = dataset, rkey
        self.results: ResultSet | None = None
        self.error: BaseException | None = None
        self.read = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        from vocviewer.families.eval_sets import run_here
        from vocviewer.families.registry import benchmark_of

        skey = ("evaluation", self.rkey)
        try:
            bench = benchmark_of(self.dataset)
            paths = [Path(p) for p in self.rkey[0]]  # type: ignore[index]
            try:
                results = bench.read_view_results(self.dataset, paths, None, None, run_here)
                self.results = results
            except BaseException as exc:  # _read_results_held raises it
                self.error = exc
                return
            finally:
                self.read.set()
            choice = bench.view_settings(self.dataset).default_choice()
            send(skey, (_fingerprint(self.dataset), choice, len(results.detections)))
            # the window diagnoses the views after the evaluation (``diagnose_pending``)
            for view in bench.evaluate_views(self.dataset, results, choice, diagnose=False):
                send(skey, pickle.dumps(view, protocol=5))
            send(skey, _COMPLETE)
        except Exception:  # no _COMPLETE: the window evaluates the rest itself and reports it
            pass
        finally:
            send(skey, END)


def _read_results_held(dkey: Hashable, rkey: Hashable) -> tuple[Hashable, ResultSet] | None:
    """In the helper process: the results ``_Chain`` read for the held dataset, with the
    dataset's ``_fingerprint`` (``None`` if there is no such chain)."""
    chain = held(("chain", dkey))
    if not isinstance(chain, _Chain) or chain.rkey != rkey:
        return None
    hold(("chain", dkey), chain)  # for _evaluate_held
    chain.read.wait()
    if chain.error is not None or chain.results is None:
        raise chain.error or RuntimeError("no results")
    return _fingerprint(chain.dataset), chain.results


def _evaluate_held(dkey: Hashable, skey: Hashable) -> None:
    """In the helper process: wait until the held ``_Chain`` has sent its evaluation (so the
    helper takes no other job meanwhile); ``END`` under ``skey`` if there is none."""
    chain = held(("chain", dkey))
    if isinstance(chain, _Chain) and ("evaluation", chain.rkey) == skey:
        chain.thread.join()
    else:
        send(skey, END)


_COMPLETE = "<complete>"


def guess_image_set(results: ResultSet, dataset: Dataset) -> str | None:
    """The Main set that ``results``' file names name (``comp4_det_val_car.txt`` → ``val``; the
    dataset's family decides, ``Benchmark.image_set_named``)."""
    from vocviewer.families.registry import benchmark_of

    return benchmark_of(dataset).image_set_named(dataset, results)


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
