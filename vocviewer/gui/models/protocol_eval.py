"""``ProtocolEvaluation``: how ``AppState`` evaluates COCO and VisDrone datasets, at a chosen IoU.

The protocol runs in a worker (``protocol_tasks.evaluate_protocol``) under the same ``eval/``
job keys and progress counters as VOC; its per-class results feed ``ResultEvaluations`` like VOC
classes do, so every view (image, PR curve, tables, side panel) works unchanged. Changing the IoU
threshold re-derives the verdicts from the stored evidence in a worker (no re-matching).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from PySide6.QtCore import QObject, Signal

from vocviewer.core.dataset import Dataset
from vocviewer.gui.models.protocol_tasks import (
    ProtocolClass,
    Summary,
    evaluate_protocol,
    protocol_of,
    rederive,
)
from vocviewer.gui.models.tasks import LoadedResults, ResultEvaluations
from vocviewer.gui.models.worker import Jobs, Worker


class EvaluationHost(Protocol):
    """What ``ProtocolEvaluation`` needs of its owner (``AppState``), without importing it."""

    dataset: Dataset | None
    results: list[LoadedResults]
    evaluations: list[ResultEvaluations]
    jobs: Jobs
    current_results: int

    def count_started(self, n: int) -> None: ...
    def reset_progress(self) -> None: ...
    def add_class_result(self, index: int, value: Any) -> None: ...
    def report_eval_error(self, index: int, task: str, exc: BaseException) -> None: ...


class ProtocolEvaluation(QObject):
    """COCO / VisDrone evaluation of ``AppState``'s result sets.

    Signals
    -------
    iou_changed(float)
        The IoU threshold for verdicts, curves and per-threshold AP changed.
    area_changed(str)
        The COCO area range of the curves changed (``COCO_AREAS``; verdicts stay area "all").
    summary_changed(int)
        Result set ``index`` got its protocol summary (``ResultEvaluations.summary``).
    evidence_replaced(int)
        Result set ``index``'s verdicts were re-derived at the new threshold.
    """

    iou_changed = Signal(float)
    area_changed = Signal(str)
    summary_changed = Signal(int)
    evidence_replaced = Signal(int)

    def __init__(self, state: EvaluationHost, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.iou = 0.5
        self.area = "all"

    def protocol(self) -> str | None:
        """``"coco"``, ``"visdrone"``, ``"ilsvrc"`` or ``None`` (VOC: the state evaluates it
        itself)."""
        ds = self.state.dataset
        return protocol_of(ds) if ds is not None else None

    def verdict_iou(self) -> float:
        """The IoU threshold of the verdicts: COCO / VisDrone's chosen one, else 0.5 (VOC;
        ILSVRC's, lower for small objects)."""
        return self.iou if self.protocol() in ("coco", "visdrone") else 0.5

    def start(self, indices: Sequence[int]) -> bool:
        """Start evaluating result sets ``indices``; ``False`` if the dataset is not ours."""
        st = self.state
        if st.dataset is None or self.protocol() is None:
            return False
        started = 0
        for i in indices:
            res = st.results[i].results
            st.evaluations[i] = ResultEvaluations(len(res.detections), len(st.dataset.objects))
            st.jobs.start(
                f"eval/{i}/protocol",
                Worker(evaluate_protocol, st.dataset, res, self.iou, self.area),
                on_yielded=lambda v, i=i: self._on_yielded(i, v),
                on_errored=lambda exc, i=i: st.report_eval_error(i, str(self.protocol()), exc),
            )
            started += 1
        if started:
            st.count_started(started * len(st.dataset.classes))
        return True

    def _on_yielded(self, index: int, value: ProtocolClass | Summary) -> None:
        if isinstance(value, Summary):
            self.state.evaluations[index].summary = value
            self.summary_changed.emit(index)
        else:
            self.state.add_class_result(index, value)

    def set_iou(self, iou: float) -> None:
        """Use IoU threshold ``iou`` (0.50 … 0.95) for verdicts and curves."""
        iou = round(float(iou), 2)
        if iou == self.iou:
            return
        self.iou = iou
        self.iou_changed.emit(iou)
        self._rederive_all()

    def set_area(self, area: str) -> None:
        """Draw the curves (and per-threshold AP) of COCO area range ``area``."""
        if area == self.area:
            return
        self.area = area
        self.area_changed.emit(area)
        self._rederive_all()

    def _rederive_all(self) -> None:
        """Re-derive every result set's classes at the chosen IoU and area (restart those still
        evaluating)."""
        iou, st = self.iou, self.state
        if st.dataset is None or self.protocol() is None:
            return
        running = set(st.jobs.running_keys())
        restart = []
        for i, evals in enumerate(st.evaluations):
            if f"eval/{i}/protocol" in running or len(evals.protocol) < len(st.dataset.classes):
                restart.append(i)
                continue
            raws = {k: p.raw for k, p in evals.protocol.items()}
            st.jobs.start(
                f"iou/{i}",
                Worker(rederive, st.dataset, st.results[i].results, raws, iou, self.area),
                on_returned=lambda out, i=i: self._replace(i, out),
                on_errored=lambda exc, i=i: st.report_eval_error(i, "IoU change", exc),
            )
        if restart:
            st.jobs.cancel_matching("eval/")
            st.reset_progress()
            self.start(restart)

    def _replace(self, index: int, classes: list[ProtocolClass]) -> None:
        st = self.state
        old = st.evaluations[index]
        new = ResultEvaluations(len(old.verdict_by_row), len(old.missed))
        for pc in classes:
            new.add(pc)
        new.summary = old.summary
        st.evaluations[index] = new
        self.evidence_replaced.emit(index)

    def class_curve(self, class_index: int) -> Any:
        """The current result set's ``ProtocolClass`` of a class, if it arrived."""
        st = self.state
        if st.current_results < 0:
            return None
        return st.evaluations[st.current_results].protocol.get(class_index)
