"""The Analysis tab's background work: TIDE's breakdown and the object characteristics of a result
set, and the bootstrap interval of its mean AP (``benchmarks.view_analysis``), each in a
``Worker`` under ``state.jobs`` (``analysis/tide``, ``analysis/bootstrap``; latest wins), and which
detections or objects a bar of the breakdown stands for (``bar_members``).

Neither depends on the window's IoU or area choice (TIDE is defined at IoU 0.5, the
characteristics at the family's analysis threshold), so each analysis is kept per result set and
image set and computed once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import QObject, Signal

from vocviewer.benchmarks.view_analyser import SetInterval
from vocviewer.benchmarks.view_analysis import (
    ViewAnalysis,
    not_analysed,
    view_analysis,
    view_bootstrap,
)
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis import FPKind
from vocviewer.evaluation.bootstrap import BootstrapCancelled
from vocviewer.evaluation.tide import MAIN_TYPES, SPECIAL_TYPES, TideResult
from vocviewer.evaluation.tide_evidence import CLS, KIND_OF
from vocviewer.gui.models.state import AppState
from vocviewer.gui.models.worker import Worker

IntArray = npt.NDArray[np.int64]
#: every bar of the chart, in its order
BARS: tuple[str, ...] = (*MAIN_TYPES, *SPECIAL_TYPES)
#: what each bar fixes, in words (tooltips and the list's caption)
BAR_WORDS: dict[str, str] = {
    "Cls": "right place, wrong class (IoU ≥ 0.5 with another class's object)",
    "Loc": "right class, poorly localised (0.1 ≤ IoU < 0.5 with an object of its class)",
    "Both": "wrong class and poorly localised",
    "Dupe": "duplicate of a detection that already found its object",
    "Bkg": "on background (IoU ≤ 0.1 with every object)",
    "Miss": "objects no detection found nor targeted",
    "FalsePos": "every false positive (fixed: perfect precision at the same recall)",
    "FalseNeg": "every object not found (fixed: perfect recall at the same precision)",
}
#: the detection walk's mode closest to each bar (the window's own diagnosis of its FPs)
WALK_OF: dict[str, str] = {
    "Cls": f"kind:{int(FPKind.SIMILAR)}",
    "Loc": f"kind:{int(FPKind.LOCALIZATION)}",
    "Dupe": f"kind:{int(FPKind.DUPLICATE)}",
    "Bkg": f"kind:{int(FPKind.BACKGROUND)}",
    "Miss": "missed",
    "FalsePos": "fp",
    "FalseNeg": "missed",
}


@dataclass(frozen=True)
class Members:
    """What a bar stands for: detection rows (``objects`` False; ``ResultSet.detections`` rows)
    or object rows (``Dataset.objects`` rows), highest score first for detections."""

    rows: IntArray
    objects: bool


def bar_values(tide: TideResult, class_index: int) -> dict[str, float]:
    """dAP of every bar (AP points): the mean over classes (``class_index`` -1) or one class."""
    if class_index < 0:
        return {**tide.main, **tide.special}
    return {n: float(tide.class_delta(n)[class_index]) for n in BARS}


def bar_members(tide: TideResult, name: str, class_index: int) -> Members:
    """The detections (Cls, Loc, Both, Dupe, Bkg, FalsePos) or objects (Miss, FalseNeg) of one
    bar, of one class or all (-1)."""
    ev = tide.evidence
    if name in ("Miss", "FalseNeg"):
        hit = ev.gt_missed if name == "Miss" else ev.gt_counted & ~ev.gt_matched
        if class_index >= 0:
            hit = hit & (ev.gt_label == class_index)
        return Members(np.flatnonzero(hit).astype(np.int64), True)
    hit = ev.kind >= CLS if name == "FalsePos" else ev.kind == KIND_OF[name]
    if class_index >= 0:
        hit = hit & (ev.label == class_index)
    rows = np.flatnonzero(hit)
    rows = rows[np.argsort(-ev.score[rows], kind="stable")]
    return Members(rows.astype(np.int64), False)


class AnalysisJobs(QObject):
    """TIDE and bootstrap jobs of the current result set.

    Signals
    -------
    tide_ready(object, object)
        The ``ResultSet`` and its ``ViewAnalysis`` (``None``: the family is not analysed).
    tide_failed(object, str)
        The ``ResultSet`` and why it cannot be analysed.
    boot_progress(int, int)
        ``done, total`` replicates.
    boot_done(object)
        A ``SetInterval``, or a string: why there is none (cancelled, failed, not analysed).
    """

    tide_ready = Signal(object, object)
    tide_failed = Signal(object, str)
    boot_progress = Signal(int, int)
    boot_done = Signal(object)

    def __init__(self, state: AppState, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self._tides: dict[tuple[int, str | None], tuple[ResultSet, ViewAnalysis | None]] = {}
        self._pending: tuple[int, str | None] | None = None
        self._boot: Worker | None = None
        state.dataset_loaded.connect(lambda _ds: self._forget())

    def _forget(self) -> None:
        self._tides.clear()
        self.cancel_bootstrap()
        self.state.jobs.cancel("analysis/tide", notify=False)

    def reason_not_analysed(self) -> str | None:
        ds = self.state.dataset
        return None if ds is None else not_analysed(ds)

    def cached(self, results: ResultSet) -> tuple[bool, ViewAnalysis | None]:
        """(known, analysis) of ``results`` at the current image set."""
        hit = self._tides.get((id(results), self.state.evaluation.image_set))
        return (hit is not None and hit[0] is results), (hit[1] if hit else None)

    def request_tide(self, results: ResultSet) -> None:
        """Analyse ``results`` (``tide_ready`` / ``tide_failed`` follow) unless it is under way."""
        st = self.state
        if st.dataset is None:
            return
        image_set = st.evaluation.image_set
        key = (id(results), image_set)
        if key == self._pending and "analysis/tide" in st.jobs.running_keys():
            return
        self._pending = key

        def done(out: ViewAnalysis | None) -> None:
            self._tides[key] = (results, out)
            self.tide_ready.emit(results, out)

        st.jobs.start(
            "analysis/tide",
            Worker(view_analysis, st.dataset, results, image_set),
            on_returned=done,
            on_errored=lambda exc: self.tide_failed.emit(results, str(exc) or repr(exc)),
        )

    # --- the bootstrap -----------------------------------------------------------------------
    def run_bootstrap(self, results: ResultSet, replicates: int, seed: int = 0) -> None:
        """Bootstrap ``results``' mean AP over images in the background (``boot_progress``,
        then ``boot_done``)."""
        st = self.state
        if st.dataset is None:
            return
        holder: list[Worker] = []
        worker = Worker(
            _bootstrap_job, holder, st.dataset, results, st.evaluation.image_set, replicates, seed
        )
        holder.append(worker)
        self._boot = worker
        st.jobs.start(
            "analysis/bootstrap",
            worker,
            on_yielded=lambda v: self.boot_progress.emit(*v),
            on_returned=self._boot_returned,
            on_errored=self._boot_failed,
        )

    def bootstrap_running(self) -> bool:
        return "analysis/bootstrap" in self.state.jobs.running_keys()

    def cancel_bootstrap(self) -> None:
        if self.bootstrap_running():
            self.state.jobs.cancel("analysis/bootstrap")
            self.boot_done.emit("Bootstrap cancelled.")

    def _boot_returned(self, out: SetInterval | None) -> None:
        self.boot_done.emit(out if out is not None else self.reason_not_analysed() or "")

    def _boot_failed(self, exc: BaseException) -> None:
        if isinstance(exc, BootstrapCancelled):
            self.boot_done.emit(f"Bootstrap {exc}.")
        else:
            self.boot_done.emit(f"Bootstrap failed: {exc}")


def _bootstrap_job(
    holder: list[Worker],
    dataset: Any,
    results: ResultSet,
    image_set: str | None,
    replicates: int,
    seed: int,
) -> SetInterval | None:
    """Runs on the pool thread: progress goes out as the worker's ``yielded`` (delivered on the
    GUI thread), and ``Worker.quit`` stops the replicates between chunks."""
    worker = holder[0]
    out = view_bootstrap(
        dataset,
        [results],
        image_set,
        replicates,
        seed,
        progress=lambda done, total: worker.signals.yielded.emit((done, total)),
        cancelled=lambda: worker.abort_requested,
    )
    return None if out is None else out.interval(results.name)
