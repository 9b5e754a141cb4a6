"""``EvaluationModel``: every result set evaluated at the user's choice, one path for every family.

The dataset's benchmark (``families.registry.benchmark_of``) says what may be chosen
(``ViewSettings``: IoU thresholds, area ranges, image sets) and evaluates in a worker
(``evaluate_views``), yielding one ``ClassView`` per class, notices and a ``Summary``; the model
stores them per result set (``ResultEvaluations``) on the GUI thread and announces each. A new
choice re-shapes the stored evidence in a worker where the family allows (``rederive_views``),
else evaluates anew. The evaluation leaves the false positives undiagnosed: its numbers (AP
table, curves) are shown first, then a diagnosis job diagnoses every class
(``views.diagnose_pending``) and the set's evidence is replaced by the diagnosed one
(``evidence_replaced``). Nothing outside this module writes its fields.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QObject, Signal

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.diagnosis_all import search_ahead
from vocviewer.evaluation.drawn import Thresholds
from vocviewer.families.base import Benchmark
from vocviewer.families.evidence import Evidence
from vocviewer.families.official import Reason, explain, not_official_reasons
from vocviewer.families.views import (
    AREA_CHOICES,
    BOUNDARY_DILATION,
    IOU_CHOICES,
    ClassView,
    Notice,
    Summary,
    ViewChoice,
    ViewSettings,
    diagnose_pending,
)
from vocviewer.families.views_all import objects_by_label
from vocviewer.gui.models.curve_paths import with_paths
from vocviewer.gui.models.debounce import Debounced
from vocviewer.gui.models.result_evaluations import ResultEvaluations
from vocviewer.gui.models.tasks import Message, error_message, take_evaluation
from vocviewer.gui.models.worker import Jobs, Worker


class EvaluationModel(QObject):
    """The evaluations of the open dataset's result sets, at one ``ViewChoice``.

    Signals
    -------
    started(int)
        Evaluation jobs started; the payload is the total number of classes to evaluate.
    class_evaluated(int, object)
        Result set ``index`` got one class's ``ClassEvaluation``.
    progress(int, int)
        ``done, total`` classes.
    finished()
        No evaluation job is running any more.
    summary_changed(int)
        Result set ``index`` got its protocol ``Summary``.
    evidence_replaced(int)
        Result set ``index``'s classes were re-derived at a new choice, or their false
        positives were diagnosed (after ``finished``).
    iou_changed(float), area_changed(str)
        The choice changed (verdicts, curves and AP follow).
    messages_posted(object)
        A list of ``Message`` (notices, errors) for the message area.
    """

    started = Signal(int)
    class_evaluated = Signal(int, object)
    progress = Signal(int, int)
    finished = Signal()
    summary_changed = Signal(int)
    evidence_replaced = Signal(int)
    iou_changed = Signal(float)
    area_changed = Signal(str)
    messages_posted = Signal(object)

    def __init__(self, jobs: Jobs, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.jobs = jobs
        self.dataset: Dataset | None = None
        self.benchmark: Benchmark | None = None
        # before a dataset: every choice any family offers (a remembered one is kept)
        self.settings = ViewSettings("", IOU_CHOICES, None, AREA_CHOICES)
        self.sets: list[ResultEvaluations] = []
        self._results: list[ResultSet] = []
        self.iou, self.area = 0.5, "all"
        self.iou_kind, self.dilation_ratio = "", BOUNDARY_DILATION  # mask IoU (set_iou_kind)
        self.image_set: str | None = None
        #: a session's choice for the next dataset: IoU, area, IoU kind, dilation ratio
        self._next: tuple[float | None, str | None, str | None, float | None] = (None,) * 4
        self._told: set[str] = set()  # "not official" reasons posted for this dataset
        self._done = self._total = 0
        #: result sets whose evaluation came undiagnosed, diagnosed once it is shown; the
        #: diagnosis jobs' go-ahead (``_DIAGNOSIS_WAIT_S``), given a turn after the panes drew
        self._to_diagnose: set[int] = set()
        self._go: dict[int, _Go] = {}
        self._go_turn = Debounced(self._go_ahead, 0, self)
        jobs.running_changed.connect(self._on_jobs_changed)

    # --- what is evaluated -------------------------------------------------------------------
    def reset(self, dataset: Dataset, benchmark: Benchmark, image_set: str | None) -> None:
        """A new dataset: forget every result set. It opens at its protocol's official choice
        (a deviation chosen on another dataset is not carried over), or at the choice a session
        asked for (``choose_next``) where the family offers it."""
        self.cancel()
        self.dataset, self.benchmark = dataset, benchmark
        self.settings = benchmark.view_settings(dataset)
        self.sets, self._results = [], []
        self._told = set()
        default = self.settings.default_choice()
        (iou, area, kind, ratio), self._next = self._next, (None, None, None, None)
        self.iou = iou if iou in self.settings.iou_choices else default.iou
        self.area = area if area in self.settings.areas else default.area
        self.image_set = image_set
        self.iou_kind, self.dilation_ratio = "", BOUNDARY_DILATION
        if kind in self.settings.iou_kinds and (ratio is None or ratio > 0):
            self.iou_kind = kind
            self.dilation_ratio = BOUNDARY_DILATION if ratio is None else float(ratio)
        self.iou_changed.emit(self.iou)
        self.area_changed.emit(self.area)

    def choice(self) -> ViewChoice:
        return ViewChoice(self.iou, self.area, self.image_set, self.iou_kind, self.dilation_ratio)

    def choose_next(
        self,
        iou: float | None = None,
        area: str | None = None,
        iou_kind: str | None = None,
        dilation_ratio: float | None = None,
    ) -> None:
        """Open the next dataset at ``iou`` / ``area`` and the IoU kind (``set_iou_kind``; a
        saved session's choice) instead of the protocol's official one, where its family
        offers them."""
        self._next = (None if iou is None else round(float(iou), 2), area, iou_kind, dilation_ratio)

    def official(self) -> bool:
        """Whether the numbers shown are the protocol's official ones (``not_official``)."""
        return not self.not_official()

    def not_official(self, index: int = -1) -> tuple[Reason, ...]:
        """Why result set ``index``'s numbers (``-1``: the dataset's at this choice) are not
        the official ones: the one rule of ``families.official`` (lost ground truth, result
        rows skipped, a non-official IoU, the protocol summary's notes); empty if they are."""
        res = self._results[index] if 0 <= index < len(self._results) else None
        summary = self.sets[index].summary if res is not None else None
        notes = summary.notes if summary is not None else ()
        return not_official_reasons(self.dataset, self.settings, self.choice(), res, notes)

    def _tell_not_official(self) -> None:
        """Post each new reason the numbers shown are not official, once per dataset."""
        new = [
            r
            for i in range(len(self.sets))
            for r in self.not_official(i)
            if r.text not in self._told
        ]
        new = list({r.text: r for r in new}.values())
        if new:
            self._told.update(r.text for r in new)
            self.messages_posted.emit([Message("warning", explain(new))])

    def verdict_iou(self) -> float:
        """The IoU threshold the verdicts were decided at (for words)."""
        return self.settings.verdict_iou(self.choice())

    def add_set(self, results: ResultSet) -> int:
        """Evaluate one more result set; returns its index."""
        self._results.append(results)
        self.sets.append(self._empty(results))
        index = len(self.sets) - 1
        self.start([index])
        self._tell_not_official()
        return index

    def view_of(self, index: int, class_index: int) -> ClassView | None:
        """Result set ``index``'s detection view of a class, if it arrived."""
        if not 0 <= index < len(self.sets):
            return None
        return self.sets[index].views.get(class_index)

    def evidence(self, index: int) -> Evidence | None:
        """Result set ``index``'s evidence at the current choice, once every class and the
        summary arrived, diagnosed, and no job is re-shaping it (else ``None``): what the
        analyses read."""
        running = set(self.jobs.running_keys())
        if not 0 <= index < len(self.sets) or {f"eval/{index}", f"rederive/{index}"} & running:
            return None
        evals = self.sets[index]
        if evals.summary is None or not evals.views or not evals.diagnosed():
            return None
        return Evidence(
            self.choice(),
            tuple(evals.views[k] for k in sorted(evals.views)),
            evals.summary,
            reasons=self.not_official(index),
        )

    # --- running -----------------------------------------------------------------------------
    def _empty(self, results: ResultSet) -> ResultEvaluations:
        n_objects = len(self.dataset.objects) if self.dataset is not None else 0
        return ResultEvaluations(len(results.detections), n_objects)

    def _empty_like(
        self, current: ResultEvaluations, results: ResultSet
    ) -> ResultEvaluations | None:
        """``current`` if it is what ``_empty(results)`` would make, else ``None``."""
        n_objects = len(self.dataset.objects) if self.dataset is not None else 0
        same = len(current.missed) == n_objects and len(current.rank_by_row) == len(
            results.detections
        )
        return current if same and current.pristine() else None

    def start(self, indices: Sequence[int]) -> None:
        """Evaluate result sets ``indices`` anew at the current choice."""
        ds, bench = self.dataset, self.benchmark
        if ds is None or bench is None or (self.settings.image_sets and self.image_set is None):
            return
        total = 0
        for i in indices:
            res = self._results[i]
            fresh = self._empty_like(self.sets[i], res)  # add_set's is kept: 3 arrays of N
            self.sets[i] = fresh or self._empty(res)
            self.sets[i].choice = self.choice()
            self.jobs.start(
                f"eval/{i}",
                Worker(_evaluate, bench, ds, res, self.choice()),
                on_yielded=lambda v, i=i: self._arrived(i, v),
                on_returned=lambda _v, i=i: self._to_diagnose.add(i),
                on_errored=lambda exc, i=i: self._failed(i, "evaluation", exc),
            )
            tasks = int(len(res.detections) > 0 or "det" in res.classes_with_files)
            tasks += int(len(res.class_scores) > 0 or "cls" in res.classes_with_files)
            total += tasks * len(ds.classes)  # classes to come (none: a summary only)
        if total:
            self._total += total
            self.started.emit(self._total)
            self.progress.emit(self._done, self._total)

    def _arrived(self, index: int, value: ClassView | Summary | Notice) -> None:
        if isinstance(value, Notice):
            self.messages_posted.emit([Message(value.level, value.text)])
        elif isinstance(value, Summary):
            self.sets[index].summary = value
            self.summary_changed.emit(index)
            self._tell_not_official()
        else:
            self.sets[index].add(value)
            self._done += 1
            self.class_evaluated.emit(index, value.evaluation)
            self.progress.emit(self._done, self._total)

    def _diagnose(self, index: int) -> bool:
        """Diagnose result set ``index``'s detection classes that came undiagnosed, in a
        worker (``_diagnosed``); its evidence is then replaced (``_replace``). The worker
        starts at once (the window is not idle) but waits for its go-ahead, given in the
        event-loop turn after the panes' queued refreshes (``_go_turn``): its Python would
        slow down their drawing of the numbers (both want the interpreter lock)."""
        ds, bench = self.dataset, self.benchmark
        evals = self.sets[index] if index < len(self.sets) else None
        if ds is None or bench is None or evals is None or evals.diagnosed():
            return False
        self._drop_diagnosis(index)
        go = self._go[index] = _Go()
        self.jobs.start(
            f"diagnose/{index}",
            Worker(
                _diagnosed,
                bench,
                ds,
                self._results[index],
                dict(evals.views),
                self.settings.ap_rule,
                evals.last_threshold,
                go,
            ),
            on_returned=lambda out, i=index, was=evals: out and self._replace(i, out, was),
            on_errored=lambda exc, i=index: self._failed(i, "diagnosis", exc),
        )
        return True

    def _go_ahead(self) -> None:
        """The waiting diagnosis jobs start."""
        go, self._go = self._go, {}
        for event in go.values():
            event.set()

    def _drop_diagnosis(self, index: int) -> None:
        """Cancel result set ``index``'s diagnosis job (if waiting, it ends at once)."""
        self.jobs.cancel(f"diagnose/{index}")
        go = self._go.pop(index, None)
        if go is not None:
            go.dropped = True
            go.set()

    def _failed(self, index: int, what: str, exc: BaseException) -> None:
        name = self._results[index].name
        self.messages_posted.emit([error_message(exc, f"{what.capitalize()} of {name} stopped")])

    def cancel(self) -> None:
        """Stop every evaluation (what arrived stays)."""
        self.jobs.cancel_matching("eval/")
        self.jobs.cancel_matching("rederive/")
        for i in list(self._go):
            self._drop_diagnosis(i)
        self.jobs.cancel_matching("diagnose/")
        self._to_diagnose.clear()
        self._done = self._total = 0

    def _on_jobs_changed(self, _count: int) -> None:
        if any(k.startswith(("eval/", "rederive/")) for k in self.jobs.running_keys()):
            return
        finish, self._done, self._total = bool(self._total), 0, 0
        todo, self._to_diagnose = sorted(self._to_diagnose), set()
        # started before ``finished`` (they wait): the analyses wait for them
        started = [i for i in todo if self._diagnose(i)]
        if finish:
            self.finished.emit()
        if started:
            self._go_turn.request_now()  # (after the refreshes ``finished`` queued)

    def is_running(self) -> bool:
        """Whether an evaluation, re-derive or diagnosis is under way (``evidence`` follows)."""
        jobs = ("eval/", "rederive/", "diagnose/")
        return any(k.startswith(jobs) for k in self.jobs.running_keys())

    # --- choices -----------------------------------------------------------------------------
    def set_iou(self, iou: float) -> None:
        """Use IoU threshold ``iou`` for verdicts, curves and AP (VOC: not official unless 0.5)."""
        iou = round(float(iou), 2)
        offered = self.dataset is None or iou in self.settings.iou_choices  # none open: kept
        if iou == self.iou or not offered:
            return
        self.iou = iou
        self.iou_changed.emit(iou)
        self._rederive_all()
        self._tell_not_official()

    def set_area(self, area: str) -> None:
        """Draw the curves (and AP at the threshold) of area range ``area``."""
        offered = self.dataset is None or area in self.settings.areas  # none open: kept
        if area == self.area or not offered:
            return
        self.area = area
        self.area_changed.emit(area)
        self._rederive_all()

    def set_iou_kind(self, kind: str, dilation_ratio: float = BOUNDARY_DILATION) -> None:
        """Match mask results by ``kind`` (``""``: mask IoU; ``"boundary"``: Boundary IoU at
        ``dilation_ratio`` of the image diagonal, not official unless 0.02), where the family
        offers it: every result set is evaluated anew (the evidence itself changes)."""
        if kind not in self.settings.iou_kinds or not dilation_ratio > 0:
            return
        ratio = float(dilation_ratio) if kind == "boundary" else BOUNDARY_DILATION
        if (kind, ratio) == (self.iou_kind, self.dilation_ratio):
            return
        self.iou_kind, self.dilation_ratio = kind, ratio
        self.cancel()
        self.start(range(len(self.sets)))
        self._tell_not_official()

    def set_image_set(self, name: str | None) -> None:
        """Evaluate on image set ``name`` (families with image sets)."""
        if name == self.image_set:
            return
        self.image_set = name
        if self.settings.image_sets:
            self.cancel()
            self.start(range(len(self.sets)))

    def _rederive_all(self) -> None:
        """Every result set at the new choice: re-shaped from its stored evidence where the
        family allows and every class arrived, else evaluated anew."""
        ds, bench = self.dataset, self.benchmark
        if ds is None or bench is None:
            return
        running = set(self.jobs.running_keys())
        anew = []
        for i, evals in enumerate(self.sets):
            self._drop_diagnosis(i)  # (the re-derived views come diagnosed)
            partial = len(evals.views) < len(ds.classes)
            if not self.settings.rederives or f"eval/{i}" in running or partial:
                anew.append(i)
                continue
            back = evals.back_to(self.choice())  # (the evidence shown before: no job)
            if back is not None:
                self.jobs.cancel(f"rederive/{i}")
                self._replace(i, back, evals)
                continue
            raws = {k: v.raw for k, v in evals.views.items()}
            self.jobs.start(
                f"rederive/{i}",
                Worker(
                    _rederive,
                    bench,
                    ds,
                    self._results[i],
                    raws,
                    self.choice(),
                    self.settings.ap_rule,
                    evals.last_threshold,
                    evals,
                ),
                on_returned=lambda out, i=i, was=evals: self._replace(i, out, was),
                on_errored=lambda exc, i=i: self._failed(i, "re-evaluation", exc),
            )
        if anew:
            for i in anew:
                self.jobs.cancel(f"eval/{i}")
            self._done = self._total = 0
            self.start(anew)

    def _replace(self, index: int, new: ResultEvaluations | None, old: ResultEvaluations) -> None:
        """Result set ``index``'s evidence ``old`` re-derived or diagnosed as ``new``."""
        if index >= len(self.sets) or self.sets[index] is not old:
            return  # (evaluated anew meanwhile)
        if new is None:  # the family evaluates anew
            self.jobs.cancel(f"eval/{index}")
            self.start([index])
            return
        new.replacing(old)
        self.sets[index] = new
        self.evidence_replaced.emit(index)
        if self._diagnose(index):  # (a family's re-derived views may come undiagnosed)
            self._go_turn.request_now()


def _evaluate(bench: Benchmark, ds: Dataset, res: ResultSet, choice: ViewChoice) -> Any:
    """The family's evaluation, undiagnosed (``EvaluationModel._diagnose`` follows), with its
    curves (``with_paths``), as a worker drives it (``prefetch_open``'s, if it matches)."""
    ready = take_evaluation(ds, res, choice)
    yield from with_paths(ready or bench.evaluate_views(ds, res, choice, False))


_DIAGNOSIS_WAIT_S = 2.0  # how long a diagnosis job waits for its go-ahead at most (s)


class _Go(threading.Event):
    """A diagnosis job's go-ahead; ``dropped``: it was cancelled meanwhile."""

    dropped = False


def _diagnosed(
    bench: Benchmark,
    ds: Dataset,
    res: ResultSet,
    views: dict[int, ClassView],
    ap_rule: str,
    threshold: Thresholds | None,
    go: _Go,
) -> ResultEvaluations | None:
    """The ``views`` by class with their false positives diagnosed (``diagnose_pending``),
    filled into new ``ResultEvaluations`` here in the worker as ``_rederive`` fills them,
    once ``go`` is set (at most ``_DIAGNOSIS_WAIT_S`` later; ``None`` if it was dropped)."""
    go.wait(_DIAGNOSIS_WAIT_S)
    if go.dropped:
        return None
    settings = bench.view_settings(ds)
    out = ResultEvaluations(len(res.detections), len(ds.objects))
    out.add_all([diagnose_pending(ds, res, views[k], settings.rules) for k in sorted(views)])
    if settings.rederives:  # (what a re-derive's false positives and missed objects need)
        search_ahead(ds, res, [out.det[k] for k in sorted(out.det)], settings.rules.groups)
        objects_by_label(ds)
    return out.work_ahead(ds, ap_rule, threshold)


def _rederive(
    bench: Benchmark,
    ds: Dataset,
    res: ResultSet,
    raws: Any,
    choice: ViewChoice,
    ap_rule: str,
    threshold: Thresholds | None = None,
    previous: ResultEvaluations | None = None,
) -> ResultEvaluations | None:
    """The family's views at ``choice`` from the stored evidence in new ``ResultEvaluations``
    here in the worker (per-row arrays: 500,000 rows take the GUI thread ~15 ms) with what
    ``work_ahead`` works out (AP_N under ``ap_rule``, objects missed at the score ``threshold``
    the panes last drew at, ...); ``None`` if the family evaluates anew. ``previous``: the
    evaluations re-derived from (where every class ranks the same detections, ranks shared)."""
    views = bench.rederive_views(ds, res, raws, choice)
    if views is None:
        return None
    det = {} if previous is None else previous.det
    same = [det.get(v.class_index) for v in views if v.evaluation.task == "det"]
    kept = len(same) == len(det) and all(
        e is not None and e.order is v.evaluation.order
        for e, v in zip(same, [v for v in views if v.evaluation.task == "det"], strict=True)
    )
    ranks = previous.rank_by_row if kept and previous is not None else None
    out = ResultEvaluations(len(res.detections), len(ds.objects), ranks, choice)
    out.add_all(views)
    return out.work_ahead(ds, ap_rule, threshold)
