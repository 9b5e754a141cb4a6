"""``AppState``: the one observable holder of what is open and what is selected.

Views take an ``AppState`` in their constructor, connect to its ``*_changed`` signals and call its
setters; they never talk to each other. Heavy data (``Dataset``, ``ResultSet``, ``ClassEvaluation``)
is immutable and built in workers; only this object's small mutable fields change, on the GUI
thread. Loading and evaluation jobs run through ``worker.Jobs`` (latest wins, stale results
dropped).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import QObject, QThreadPool, QTimer, Signal

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis import (
    FalsePositives,
    drop_cause,
    next_false_positive,
    top_false_positive,
)
from vocviewer.evaluation.result import ClassEvaluation
from vocviewer.families.registry import benchmark_of
from vocviewer.gui.models.debounce import REFRESH_DELAY_MS, Debounced
from vocviewer.gui.models.display_settings import DisplaySettings
from vocviewer.gui.models.evaluation import EvaluationModel, ResultEvaluations
from vocviewer.gui.models.image_filter import ImageListing
from vocviewer.gui.models.listed_images import ListedImages
from vocviewer.gui.models.tasks import (
    LoadedResults,
    Message,
    error_message,
    evaluates_on,
    guess_image_set,
    load_dataset,
    load_results,
    preferred_set,
)
from vocviewer.gui.models.warm_memory import WARM_DELAY_MS, wanted_bytes, warm
from vocviewer.gui.models.worker import Jobs, Worker

__all__ = ["AppState", "Message"]

IntArray = npt.NDArray[np.int64]


class AppState(ListedImages, DisplaySettings, QObject):
    """What is open (dataset, result sets, evaluations) and what is selected.

    Signals
    -------
    dataset_loaded(object)
        A new ``Dataset`` is open (results and evaluations were cleared).
    load_failed(str)
        Loading a dataset or result files failed (the message is also posted;
        ``last_load_error`` and ``last_load_path`` say what and where).
    results_added(int)
        A result set was appended at this index.
    current_results_changed(int)
        The result set drawn and tabulated changed (-1: none).
    image_set_changed(object)
        The browsed image set (``"val"``, ``"Segmentation/val"``, ``None`` = all images).
    visible_images_changed()
        The filtered image list (``visible_images``, ``kept``: the boxes kept too) changed.
    image_filter_changed(object)
        The view's filter (``image_filter``, a ``core.view_filter.ViewFilter``) changed.
    image_changed(int)
        The current image row (-1: none).
    class_changed(int)
        The selected class (-1: all classes).
    selection_changed(object)
        The selected detection ``(class_index, rank)`` or ``None``.
    object_selected(int)
        The selected ground-truth object row (-1: none).
    pr_point_clicked(int, int)
        A PR point ``(class_index, rank)`` was clicked (the selection follows: ``drop_cause``).
    threshold_changed(float)
        The score threshold for drawn detections.
    display_changed()
        A drawing toggle (``DISPLAY_TOGGLES``) or the view mode (``VIEW_MODES``) changed.
    messages_posted(object)
        A list of ``Message`` for the message area.
    busy_changed(bool)
        Whether any loading or evaluation job is running.

    Evaluation, its choices (IoU, area) and its signals live in ``evaluation``
    (``EvaluationModel``, one path for every benchmark family); drawing toggles in the
    ``DisplaySettings`` part; the filter, the listed images and what is kept in the
    ``ListedImages`` part.
    """

    dataset_loaded = Signal(object)
    load_failed = Signal(str)
    results_added = Signal(int)
    current_results_changed = Signal(int)
    image_set_changed = Signal(object)
    visible_images_changed = Signal()
    image_filter_changed = Signal(object)
    image_changed = Signal(int)
    class_changed = Signal(int)
    selection_changed = Signal(object)
    object_selected = Signal(int)
    pr_point_clicked = Signal(int, int)
    threshold_changed = Signal(float)
    display_changed = Signal()
    messages_posted = Signal(object)
    busy_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.jobs = Jobs(self)
        self.dataset: Dataset | None = None
        self.results: list[LoadedResults] = []
        self.result_paths: list[tuple[Path, ...]] = []  # as given per set (``()``: not from files)
        self.evaluation = EvaluationModel(self.jobs, self)
        self.current_results = -1
        self.image_set: str | None = None
        self.eval_set: str | None = None
        self.current_image = -1
        self.selected_class = -1
        self.selected_detection: tuple[int, int] | None = None
        self.init_display()
        self.selected_object = -1
        self.init_listing()
        self._errors_changed = Debounced(self._refresh_errors, REFRESH_DELAY_MS, self)
        self.evaluation.evidence_replaced.connect(self._errors_changed.request_now)
        self.evaluation.evidence_replaced.connect(self._warm)
        self._warm_stop = threading.Event()
        self._warm_index = -1
        self._warm_later = QTimer(self)
        self._warm_later.setSingleShot(True)
        self._warm_later.timeout.connect(lambda: self._start_warming(self._warm_index, False))
        for changed in (self.evaluation.iou_changed, self.evaluation.area_changed):
            changed.connect(self._stop_warming)
        for signal in (
            self.evaluation.class_evaluated,
            self.threshold_changed,
            self.current_results_changed,
        ):
            signal.connect(self._errors_changed.request)
        self._pending: tuple[tuple[Path, ...], str | None] = ((), None)
        self._busy = False
        self._results_jobs = 0
        self._explicit_set = False
        self.last_load_error: BaseException | None = None
        self.last_load_path: Path | None = None
        self.evaluation.messages_posted.connect(self.messages_posted)
        self.jobs.running_changed.connect(self._on_jobs_changed)

    # --- loading -------------------------------------------------------------------------------
    def open_dataset(
        self,
        path: str | Path,
        results_paths: Sequence[str | Path] = (),
        image_set: str | None = None,
        **sources: str | Path | None,
    ) -> None:
        """Load a dataset in a worker, then results. ``sources``: where the format keeps the rest
        (``images``: a COCO JSON's image folder; ``devkit``: the ILSVRC devkit)."""
        self.jobs.cancel_all()
        self._pending = (tuple(Path(p) for p in results_paths), image_set)
        self.jobs.start(
            "dataset",
            Worker(load_dataset, path, **sources),
            on_returned=self.set_dataset,
            on_errored=lambda exc: self._load_error(  # a FormatError names the path itself
                exc, "Cannot open" if str(path) in str(exc) else f"Cannot open {path}", path
            ),
        )

    def add_results(self, paths: Sequence[str | Path]) -> None:
        """Load result files for the open dataset in a worker; evaluation starts when they arrive."""
        if self.dataset is None or not paths:
            return
        self._results_jobs += 1
        key, given = f"results/{self._results_jobs}", tuple(Path(p) for p in paths)
        self.jobs.start(
            key,
            Worker(
                load_results,
                self.dataset,
                list(paths),
                self.eval_set if self._explicit_set else None,
                self.eval_set,
            ),
            on_returned=lambda results: self.add_result_set(results, given),
            on_errored=lambda exc: self._load_error(exc, "Cannot read results", paths[0]),
        )

    def set_dataset(self, dataset: Dataset, image_set: str | None = None) -> None:
        """Make ``dataset`` the open dataset (clears results, evaluations and the selection)."""
        self.jobs.cancel_all()
        paths, requested = self._pending
        self._pending = ((), None)
        self.dataset = dataset
        self.results, self.result_paths, self.current_results = [], [], -1
        self.listing = ImageListing(dataset)
        self.selected_class, self.selected_detection, self.current_image = -1, None, -1
        chosen = image_set or requested
        self._explicit_set = chosen is not None
        mains = dataset.main_sets()
        self.eval_set = chosen if chosen in mains else preferred_set(mains)
        self.image_set = chosen if chosen is not None else self.eval_set
        self.evaluation.reset(dataset, benchmark_of(dataset), self.eval_set)
        if paths:  # (its worker reads while the panes take the dataset in)
            self.add_results(paths)
        self.dataset_loaded.emit(dataset)
        self.post([Message("warning", str(p)) for p in dataset.problems])
        self.image_set_changed.emit(self.image_set)
        self.class_changed.emit(-1)
        self.current_results_changed.emit(-1)
        self._refresh_visible()

    def add_result_set(
        self, results: ResultSet | LoadedResults, paths: Sequence[Path] = ()
    ) -> None:
        """Append a result set (e.g. from a worker, read from ``paths``) and evaluate it."""
        assert self.dataset is not None
        loaded = results if isinstance(results, LoadedResults) else None
        loaded = loaded or LoadedResults.build(self.dataset, results)  # type: ignore[arg-type]
        index = len(self.results)
        guessed = guess_image_set(loaded.results, self.dataset)
        retarget = index == 0 and not self._explicit_set and guessed not in (None, self.eval_set)
        if retarget:  # the result files name their image set: evaluate there from the start
            self.eval_set = self.image_set = guessed
            self.evaluation.set_image_set(guessed)
        self.results.append(loaded)
        self.result_paths.append(tuple(paths))
        self.evaluation.add_set(loaded.results)  # its evaluations exist before anyone hears
        self.post(
            [
                Message("warning", str(p))
                for p in (*loaded.results.problems, *loaded.results.warnings)
            ]
        )
        self.results_added.emit(index)
        if retarget:
            self.image_set_changed.emit(guessed)
            self._refresh_visible()
        if self.current_results < 0:
            self.set_current_results(index)

    def _load_error(self, exc: BaseException, what: str, path: str | Path) -> None:
        msg = error_message(exc, what)
        self.last_load_error, self.last_load_path = exc, Path(path)
        self.post([msg])
        self.load_failed.emit(msg.text)

    # --- evaluation (``self.evaluation``) ------------------------------------------------------
    @property
    def evaluations(self) -> list[ResultEvaluations]:
        """Each result set's evaluations (``evaluation.sets``; read only)."""
        return self.evaluation.sets

    def _on_jobs_changed(self, count: int) -> None:
        if (count > 0) != self._busy:
            self._busy = count > 0
            self.busy_changed.emit(self._busy)

    def _warm(self, index: int) -> None:
        """Memory for result set ``index``'s next re-derive faulted in ahead (``warm_memory``):
        just evaluated, in a job (part of the evaluation's work); re-derived, a pause later in
        the background (idle time: nothing waits for it)."""
        sets = self.evaluation.sets
        if 0 <= index < len(sets) and sets[index].before is None:
            self._start_warming(index, True)
        elif 0 <= index < len(sets):
            self._warm_index = index
            self._warm_later.start(WARM_DELAY_MS)

    def _start_warming(self, index: int, as_job: bool) -> None:
        sets = self.evaluation.sets
        nbytes = wanted_bytes(len(sets[index].rank_by_row)) if index < len(sets) else 0
        if not nbytes:
            return
        self._warm_stop = threading.Event()
        worker = Worker(warm, nbytes, self._warm_stop)
        if as_job:
            self.jobs.start("warm", worker)
        else:
            worker.start()

    def _stop_warming(self) -> None:
        self._warm_later.stop()
        self._warm_stop.set()
        self.jobs.cancel("warm")

    def is_idle(self) -> bool:
        """No loading or evaluation job is running."""
        return not self.jobs.running_keys()

    def class_evaluation(self, class_index: int, task: str = "det") -> ClassEvaluation | None:
        """The current result set's evaluation of a class, if it has arrived."""
        if self.current_results < 0 or class_index < 0:
            return None
        ev = self.evaluations[self.current_results]
        return (ev.det if task == "det" else ev.cls).get(class_index)

    def class_diagnosis(self, class_index: int) -> FalsePositives | None:
        """The current result set's false-positive diagnosis of a class, if it has arrived."""
        if self.current_results < 0:
            return None
        return self.evaluations[self.current_results].diagnosis.get(class_index)

    def selected_detection_row(self) -> int:
        """Row in the current result set's ``detections`` of the selected detection, else -1."""
        if self.selected_detection is None:
            return -1
        ev = self.class_evaluation(self.selected_detection[0])
        return -1 if ev is None else int(ev.order[self.selected_detection[1]])

    # --- selection -----------------------------------------------------------------------------
    def set_current_results(self, index: int) -> None:
        if index != self.current_results:
            self.current_results = index
            self.selected_detection = None
            self.current_results_changed.emit(index)
            self.selection_changed.emit(None)
            if self.selected_class >= 0:  # the class filter includes the results' detections
                self._refresh_visible(keep_current=True, pin=True)

    def set_image_set(self, name: str | None) -> None:
        """Browse another image set; choosing a Main set also re-evaluates on it, unless the
        result files name another set (``tasks.evaluates_on``)."""
        if self.dataset is None:
            return
        self.image_set = name
        if name != self.eval_set and evaluates_on(self.dataset, self.results, name):
            self.eval_set = name
            self.selected_detection = None
            self.selection_changed.emit(None)
            self.evaluation.set_image_set(name)
        self.image_set_changed.emit(name)
        self._refresh_visible()

    def select_class(self, class_index: int) -> None:
        """Select a class (-1: all); the image list shows only images containing it."""
        if class_index == self.selected_class:
            return
        self.selected_class = class_index
        if self.selected_detection is not None and self.selected_detection[0] != class_index:
            self.selected_detection = None
            self.selection_changed.emit(None)
        self.class_changed.emit(class_index)
        self._refresh_visible()

    def set_current_image(self, image: int) -> None:
        """Show image row ``image``. The selection never outlives its image: a selected object,
        or a selected detection on another image, is cleared with it (``image_changed`` first,
        then ``selection_changed(None)`` / ``object_selected(-1)``), so every pane that follows
        the selection (PR marker, Ranks, inspector, the walk's place) lets go at once."""
        if image == self.current_image:
            return
        self.current_image = image
        had_object, self.selected_object = self.selected_object >= 0, -1
        stale = self.selected_detection is not None and self.detection_image() != image
        if stale:
            self.selected_detection = None
        self.image_changed.emit(image)
        if stale:
            self.selection_changed.emit(None)
        if had_object:
            self.object_selected.emit(-1)

    def detection_image(self) -> int:
        """Image row of the selected detection (-1: none, or its evaluation is gone)."""
        sel = self.selected_detection
        ev = self.class_evaluation(sel[0]) if sel is not None else None
        return -1 if ev is None or sel is None else int(ev.image_index[sel[1]])

    def step_image(self, delta: int) -> None:
        """Go ``delta`` images forward/back in the visible list (clamped)."""
        vis = self.visible_images
        if not len(vis):
            return
        pos = np.flatnonzero(vis == self.current_image)
        new = int(np.clip(pos[0] + delta, 0, len(vis) - 1)) if len(pos) else 0
        self.set_current_image(int(vis[new]))

    def select_detection(self, class_index: int, rank: int, *, keep_class: bool = False) -> None:
        """Select the detection at ``rank`` of ``class_index`` and open its image (the class
        becomes the selected one unless ``keep_class``)."""
        ev = self.class_evaluation(class_index)
        if ev is None or not 0 <= rank < len(ev):
            return
        self.selected_detection = (class_index, int(rank))
        self.selected_object = -1
        if class_index != self.selected_class and not keep_class:
            self.selected_class = class_index
            self.class_changed.emit(class_index)
            self._refresh_visible(keep_current=True)
        self.set_current_image(int(ev.image_index[rank]))
        self.selection_changed.emit(self.selected_detection)

    def select_detection_row(self, row: int) -> None:
        """Select the current result set's detection ``row`` (if it was evaluated)."""
        if self.current_results < 0:
            return
        rank = int(self.evaluations[self.current_results].rank_by_row[row])
        label = int(self.results[self.current_results].results.detections.label[row])
        if rank >= 0:  # with every class listed, the list stays as it is
            self.select_detection(label, rank, keep_class=self.selected_class < 0)

    def click_pr_point(self, class_index: int, rank: int) -> None:
        """A PR point was clicked: announce it, then select the FP to blame for the drop there."""
        ev = self.class_evaluation(class_index)
        if ev is None or not 0 <= rank < len(ev):
            return
        self.pr_point_clicked.emit(class_index, rank)
        cause = drop_cause(ev, rank)
        self.select_detection(class_index, cause if cause >= 0 else rank)

    def step_false_positive(self, step: int) -> None:
        """Select the next (``step`` +1) / previous (-1) false positive in rank order of the
        selected detection's class (or the selected class; with all classes and nothing
        selected, the highest- / lowest-scoring one of any class)."""
        sel = self.selected_detection
        k = sel[0] if sel is not None else self.selected_class
        ev = self.class_evaluation(k)
        if ev is None:
            i = self.current_results
            top = top_false_positive(self.evaluations[i].det, step) if k < 0 <= i else None
            if top is not None:
                self.select_detection(*top)
            return
        start = sel[1] if sel is not None else (-1 if step > 0 else len(ev))
        rank = next_false_positive(ev, start, step)
        if rank >= 0:
            self.select_detection(k, rank)

    def select_object(self, row: int) -> None:
        """Select a ground-truth object row (-1: none)."""
        if row != self.selected_object:
            self.selected_object = row
            if row >= 0 and self.selected_detection is not None:
                self.selected_detection = None
                self.selection_changed.emit(None)
            self.object_selected.emit(row)

    def post(self, messages: Sequence[Message]) -> None:
        if messages:
            self.messages_posted.emit(list(messages))

    def shutdown(self, timeout_ms: int = 5000) -> None:
        """Quit every job and wait for the pool (window close, tests); a diagnosis job still
        waiting for its go-ahead ends at once (``EvaluationModel.cancel``)."""
        self.evaluation.cancel()
        self.jobs.cancel_all()
        QThreadPool.globalInstance().waitForDone(timeout_ms)
