"""The Analysis tab's background work: TIDE's breakdown, the object characteristics and the
``analyze()`` curves of a result set, and the bootstrap of one or several result sets on the same
resampled images (``families.view_analysis``), each in a ``Worker`` under ``state.jobs``
(``analysis/tide``, ``analysis/bootstrap``; latest wins), and which detections or objects a bar of
the breakdown (``bar_members``) or a band of the curves (``band_members``) stands for.

Both read the window's own evidence of each result set (``EvaluationModel.evidence``: its
``ClassView``s, re-derived at the analyses' IoU where the protocol allows) rather than evaluating
again; a request made while the window still evaluates that set (a bootstrap: any of its
sets) waits for it, so neither evaluates a set the window is evaluating. Neither depends on
the window's IoU or area choice (TIDE is defined at IoU 0.5, the characteristics at the family's
analysis threshold), so each analysis is kept per result set and image set and computed once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import QObject, Signal

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis import FPKind
from vocviewer.evaluation.analysis_curves import CURVE_NAMES
from vocviewer.evaluation.bootstrap import BootstrapCancelled
from vocviewer.evaluation.result import Verdict
from vocviewer.evaluation.tide import MAIN_TYPES, SPECIAL_TYPES, TideResult
from vocviewer.evaluation.tide_evidence import CLS, KIND_OF
from vocviewer.families.evidence import Evidence
from vocviewer.families.view_analyser import SetsBootstrap
from vocviewer.families.view_analysis import (
    ViewAnalysis,
    not_analysed,
    view_analysis,
    view_bootstrap,
)
from vocviewer.families.views import ClassView
from vocviewer.gui.models.state import AppState
from vocviewer.gui.models.walk import WRONG_CLASS
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
#: the detection walk's mode closest to each bar (the window's own diagnosis of its FPs): TIDE's
#: Cls and Both (a wrong class, well or poorly placed) are the window's wrong-class FPs of either
#: kind (similar or other)
WALK_OF: dict[str, str] = {
    "Cls": WRONG_CLASS,
    "Loc": f"kind:{int(FPKind.LOCALIZATION)}",
    "Both": WRONG_CLASS,
    "Dupe": f"kind:{int(FPKind.DUPLICATE)}",
    "Bkg": f"kind:{int(FPKind.BACKGROUND)}",
    "Miss": "missed",
    "FalsePos": "fp",
    "FalseNeg": "missed",
}
#: the IoU of ``analyze()``'s bands the window lists (C50's threshold; C75's is ``C75_IOU``)
BAND_IOU, C75_IOU = 0.5, 0.75
#: what each band of the ``analyze()`` curves holds (the band between the curve and the one
#: below it), in words
BAND_WORDS: dict[str, str] = {
    "C75": "true positives at IoU 0.75 (a true positive at 0.5 with IoU ≥ 0.75)",
    "C50": "true positives at IoU 0.5 that are not at 0.75 (IoU < 0.75)",
    "Loc": "localisation errors: right class, 0.1 ≤ IoU < 0.5",
    "Sim": "confusions with a similar class (same group)",
    "Oth": "confusions with another class",
    "BG": "false positives on background (and duplicates, which analyze() counts until BG)",
    "FN": "objects no detection found at IoU 0.5",
}
#: the detection walk's mode of each band
WALK_OF_BAND: dict[str, str] = {
    "C75": "tp",
    "C50": "tp",
    "Loc": f"kind:{int(FPKind.LOCALIZATION)}",
    "Sim": f"kind:{int(FPKind.SIMILAR)}",
    "Oth": f"kind:{int(FPKind.OTHER)}",
    "FN": "missed",
}
_BAND_KINDS: dict[str, tuple[int, ...]] = {
    "Loc": (int(FPKind.LOCALIZATION),),
    "Sim": (int(FPKind.SIMILAR),),
    "Oth": (int(FPKind.OTHER),),
    "BG": (int(FPKind.BACKGROUND), int(FPKind.DUPLICATE)),
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


def band_members(views: Mapping[int, ClassView], name: str, class_index: int) -> Members:
    """The detections (C75 ... BG) or objects (FN) of one band of ``analyze()``'s curves, of one
    class or all (-1), from the window's own views at IoU 0.5 (``BAND_WORDS``; C75 / C50 split
    the true positives at IoU 0.75 with their recorded IoU)."""
    if name not in CURVE_NAMES:
        raise KeyError(f"no band {name!r}")
    chosen = [v for k, v in sorted(views.items()) if class_index < 0 or k == class_index]
    if name == "FN":
        rows = [v.missed for v in chosen]
        out = np.unique(np.concatenate(rows)) if rows else np.zeros(0, np.int64)
        return Members(out.astype(np.int64), True)
    rows, scores = [], []
    for v in chosen:
        ev = v.evaluation
        if name in ("C75", "C50"):
            iou = np.nan_to_num(ev.best_iou, nan=0.0)
            hit = (ev.verdict == Verdict.TP) & ((iou >= C75_IOU) == (name == "C75"))
        elif v.false_positives is None:
            continue
        else:
            hit = np.isin(v.false_positives.kind, _BAND_KINDS[name])
        rows.append(ev.order[hit])
        scores.append(ev.score[hit])
    if not rows:
        return Members(np.zeros(0, np.int64), False)
    row, score = np.concatenate(rows), np.concatenate(scores)
    order = np.lexsort((row, -score))
    return Members(row[order].astype(np.int64), False)


def distinct_names(sets: Sequence[ResultSet]) -> list[ResultSet]:
    """``sets`` with names made distinct for the bootstrap (a repeated name gets `` (2)``,
    `` (3)``, ...; the window may hold several sets of one name)."""
    seen: dict[str, int] = {}
    out = []
    for r in sets:
        n = seen[r.name] = seen.get(r.name, 0) + 1
        out.append(r if n == 1 else replace(r, name=f"{r.name} ({n})"))
    return out


@dataclass(frozen=True, eq=False)
class BootstrapOutcome:
    """A finished bootstrap: ``boot`` of result sets ``sets`` (in order; ``names``: their names
    in ``boot``, made distinct) on ``dataset``'s image set ``image_set``."""

    boot: SetsBootstrap
    sets: tuple[ResultSet, ...]
    names: tuple[str, ...]
    dataset: Dataset
    image_set: str | None

    def name_of(self, results: ResultSet) -> str | None:
        """``results``' (this very object's) name in ``boot``; ``None`` if it is not one of the
        sets."""
        return next((n for r, n in zip(self.sets, self.names, strict=True) if r is results), None)


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
        A ``BootstrapOutcome``, or a string: why there is none (cancelled, failed, not
        analysed).
    outcome_changed()
        ``outcome`` (the latest finished bootstrap, for the PR plot's bands) changed.
    """

    tide_ready = Signal(object, object)
    tide_failed = Signal(object, str)
    boot_progress = Signal(int, int)
    boot_done = Signal(object)
    outcome_changed = Signal()

    def __init__(self, state: AppState, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self._tides: dict[tuple[int, str | None], tuple[ResultSet, ViewAnalysis | None]] = {}
        self._pending: tuple[int, str | None] | None = None
        self._waiting: ResultSet | None = None  # asked for while the window evaluates it
        #: a bootstrap asked for while the window evaluates one of its sets: (sets, n, seed)
        self._boot_waiting: tuple[tuple[ResultSet, ...], int, int] | None = None
        self.outcome: BootstrapOutcome | None = None
        state.dataset_loaded.connect(lambda _ds: self._forget())
        state.evaluation.finished.connect(self._evaluated)
        state.evaluation.evidence_replaced.connect(lambda _i: self._evaluated())  # (diagnosed)

    def _evaluated(self) -> None:
        waiting, self._waiting = self._waiting, None
        if waiting is not None and not self.cached(waiting)[0]:
            self.request_tide(waiting)
        boot, self._boot_waiting = self._boot_waiting, None
        if boot is not None:
            self.run_bootstrap(*boot)

    def _evidence(self, results: ResultSet) -> Evidence | None:
        """The window's evidence of ``results`` (``None``: it has none settled)."""
        st = self.state
        index = next((i for i, r in enumerate(st.results) if r.results is results), -1)
        return st.evaluation.evidence(index)

    def _forget(self) -> None:
        self._tides.clear()
        self.cancel_bootstrap()
        self.state.jobs.cancel("analysis/tide", notify=False)
        if self.outcome is not None:
            self.outcome = None
            self.outcome_changed.emit()

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
        window = self._evidence(results)
        if window is None and st.evaluation.is_running():
            self._waiting = results  # the window's evaluation of it comes: read that
            return
        self._pending = key

        def done(out: ViewAnalysis | None) -> None:
            self._tides[key] = (results, out)
            self.tide_ready.emit(results, out)

        st.jobs.start(
            "analysis/tide",
            Worker(view_analysis, st.dataset, results, image_set, window),
            on_returned=done,
            on_errored=lambda exc: self.tide_failed.emit(results, str(exc) or repr(exc)),
        )

    # --- the bootstrap -----------------------------------------------------------------------
    def run_bootstrap(self, sets: Sequence[ResultSet], replicates: int, seed: int = 0) -> None:
        """Bootstrap every result set of ``sets`` on the same resampled images in the background
        (``boot_progress``, then ``boot_done``); a new run replaces one under way."""
        st = self.state
        if st.dataset is None or not sets:
            return
        holder: list[Worker] = []
        ds, image_set, chosen = st.dataset, st.evaluation.image_set, tuple(sets)
        named = tuple(distinct_names(chosen))
        windows = tuple(self._evidence(r) for r in chosen)
        if None in windows and st.evaluation.is_running():
            self._boot_waiting = (chosen, replicates, seed)  # read the window's evaluation
            return
        worker = Worker(_bootstrap_job, holder, ds, named, windows, image_set, replicates, seed)
        holder.append(worker)

        def returned(out: SetsBootstrap | None) -> None:
            if out is None:
                self.boot_done.emit(self.reason_not_analysed() or "")
                return
            names = tuple(r.name for r in named)
            self.outcome = BootstrapOutcome(out, chosen, names, ds, image_set)
            self.boot_done.emit(self.outcome)
            self.outcome_changed.emit()

        st.jobs.start(
            "analysis/bootstrap",
            worker,
            on_yielded=lambda v: self.boot_progress.emit(*v),
            on_returned=returned,
            on_errored=self._boot_failed,
        )

    def bootstrap_running(self) -> bool:
        """Whether a bootstrap runs (or waits for the window's evaluation of its sets)."""
        return (
            self._boot_waiting is not None or "analysis/bootstrap" in self.state.jobs.running_keys()
        )

    def cancel_bootstrap(self) -> None:
        if self._boot_waiting is not None:
            self._boot_waiting = None
            self.boot_done.emit("Bootstrap cancelled.")
        elif self.bootstrap_running():
            self.state.jobs.cancel("analysis/bootstrap")
            self.boot_done.emit("Bootstrap cancelled.")

    def _boot_failed(self, exc: BaseException) -> None:
        if isinstance(exc, BootstrapCancelled):
            self.boot_done.emit(f"Bootstrap {exc}.")
        else:
            self.boot_done.emit(f"Bootstrap failed: {exc}")


def _bootstrap_job(
    holder: list[Worker],
    dataset: Any,
    sets: tuple[ResultSet, ...],
    windows: tuple[Evidence | None, ...],
    image_set: str | None,
    replicates: int,
    seed: int,
) -> SetsBootstrap | None:
    """Runs on the pool thread: progress goes out as the worker's ``yielded`` (delivered on the
    GUI thread), and ``Worker.quit`` stops the replicates between chunks."""
    worker = holder[0]
    return view_bootstrap(
        dataset,
        sets,
        image_set,
        replicates,
        seed,
        progress=lambda done, total: worker.signals.yielded.emit((done, total)),
        cancelled=lambda: worker.abort_requested,
        windows=windows,
    )
