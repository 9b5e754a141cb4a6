"""The analyses beyond AP of the window's current result set (``families.beyond_ap``: every
registered analysis), from the window's own evidence (``EvaluationModel.evidence``: the verdicts
at the window's choice), kept while that evidence is the same. What the Analysis tab's pages of
these analyses show (``result(name)``): at the default choice the numbers of ``vocviewer
analyze --operating-point --calibration --lrp ...``.

The computation runs in a ``Worker`` under ``state.jobs`` (key ``analysis/beyond``; latest
wins), never on the GUI thread: ``current()`` answers from what is computed and asks for the
rest; ``ready`` says when it came.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.result import ClassEvaluation
from vocviewer.families.beyond_ap import BeyondAP, BeyondOptions, beyond_ap
from vocviewer.families.evidence import Evidence
from vocviewer.gui.models.state import AppState
from vocviewer.gui.models.tasks import error_message
from vocviewer.gui.models.worker import Worker

#: the key of the job under ``AppState.jobs``
JOB = "analysis/beyond"


class BeyondSource(QObject):
    """``current()``: the current result set's ``BeyondAP`` (``None`` until its evidence is
    complete and the worker computed it), computed once per evidence and ``options``.

    Signals
    -------
    ready()
        A computation finished (or failed: ``failed`` says why); ``current()`` has it.
    """

    ready = Signal()

    def __init__(self, state: AppState, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.options = BeyondOptions()
        self._key: tuple[object, ...] = ()
        self._pending: tuple[object, ...] = ()
        self._value: BeyondAP | None = None
        self.evaluations: dict[int, ClassEvaluation] = {}
        self.failed: str | None = None  # why the current key has no value

    def _wanted(self) -> tuple[tuple[object, ...], Dataset, ResultSet, Evidence] | None:
        """(key, dataset, results, evidence) of what the window shows; ``None``: nothing to
        compute."""
        st = self.state
        i = st.current_results
        if st.dataset is None or i < 0:
            return None
        evidence = st.evaluation.evidence(i)
        if evidence is None or not evidence.views("det"):
            return None
        results = st.results[i].results
        key = (st.dataset, results, self.options, *evidence.classes)
        return key, st.dataset, results, evidence

    def current(self) -> BeyondAP | None:
        """The computed ``BeyondAP`` of what the window shows; ``None`` while it is computed
        (started here if it is not under way) or when there is nothing to compute."""
        wanted = self._wanted()
        if wanted is None:
            return None
        key = wanted[0]
        if key == self._key:
            return self._value
        if key != self._pending or not self.computing():
            self._start(*wanted)
        return None

    def result(self, name: str) -> Any | None:
        """Analysis ``name``'s result of what the window shows (``None``: see ``current``)."""
        b = self.current()
        return None if b is None else b.results.get(name)

    def computing(self) -> bool:
        """Whether the worker is computing what the window shows."""
        return JOB in self.state.jobs.running_keys()

    def waiting_words(self) -> str:
        """Why ``current()`` is ``None``, in words."""
        if self.failed is not None and self._wanted() is not None:
            return self.failed
        return "Computing …" if self.computing() else "Evaluating …"

    def _start(
        self, key: tuple[object, ...], dataset: Dataset, results: ResultSet, evidence: Evidence
    ) -> None:
        self._pending = key

        def done(value: BeyondAP) -> None:
            self._key, self._value, self.failed = key, value, None
            self.evaluations = {e.class_index: e for e in evidence.evaluations("det")}
            self.ready.emit()

        def failed(exc: BaseException) -> None:
            msg = error_message(exc, "Operating point and calibration")
            self._key, self._value, self.failed = key, None, msg.text
            self.state.post([msg])
            self.ready.emit()

        worker = Worker(beyond_ap, dataset, results, evidence, self.options)
        self.state.jobs.start(JOB, worker, on_returned=done, on_errored=failed)
