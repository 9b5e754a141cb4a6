"""The analyses beyond AP of the window's current result set (``families.beyond_ap``), from the
window's own evidence (``EvaluationModel.evidence``: the verdicts at the window's choice), kept
while that evidence is the same. What the Analysis tab's operating-point and calibration pages
show: at the default choice the numbers of ``vocviewer analyze --operating-point --calibration
--lrp``."""

from __future__ import annotations

from vocviewer.evaluation.result import ClassEvaluation
from vocviewer.families.beyond_ap import BeyondAP, BeyondOptions, beyond_ap
from vocviewer.gui.models.state import AppState


class BeyondSource:
    """``current()``: the current result set's ``BeyondAP`` (``None`` until its evidence is
    complete), computed once per evidence and ``options``."""

    def __init__(self, state: AppState) -> None:
        self.state = state
        self.options = BeyondOptions()
        self._key: tuple[object, ...] = ()
        self._value: BeyondAP | None = None
        self.evaluations: dict[int, ClassEvaluation] = {}

    def current(self) -> BeyondAP | None:
        st = self.state
        i = st.current_results
        if st.dataset is None or i < 0:
            return None
        evidence = st.evaluation.evidence(i)
        if evidence is None or not evidence.views("det"):
            return None
        results = st.results[i].results
        key = (st.dataset, results, self.options, *evidence.classes)
        if key != self._key:
            self._value = beyond_ap(st.dataset, results, evidence, self.options)
            self.evaluations = {e.class_index: e for e in evidence.evaluations("det")}
            self._key = key
        return self._value
