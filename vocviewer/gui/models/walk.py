"""``DetectionWalk``: viewdet's walk and more — step through the detections of the chosen class
(or of every class) in rank order, each opened and explained, optionally only some of them.

Modes: ``all``; ``tp`` (viewdet's ``onlytp``); ``fp`` (every false positive, duplicates
included); ``kind:N`` (one ``FPKind``) or ``kind:N,M`` (any of several: ``WRONG_CLASS``, the wrong
class of either kind, as TIDE's Cls counts it); ``missed`` (the class's objects no drawn true positive
found, image by image). With all classes, detections come by descending score (ties by class,
then rank). A step past either end stays where it is and says so (``ended``). While the view's
filter narrows the list, the walk visits only what it keeps (``AppState.walked_rows``, ``kept``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import QObject, Signal

from vocviewer.evaluation.analysis import FPKind
from vocviewer.evaluation.result import ClassEvaluation, Verdict
from vocviewer.gui.models.display_settings import mode_kinds
from vocviewer.gui.models.evaluation import ResultEvaluations
from vocviewer.gui.models.state import AppState

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class WalkMode:
    """One way to walk: ``key`` (``all``, ``tp``, ``fp``, ``kind:N[,M...]``, ``missed``) and
    ``label``."""

    key: str
    label: str

    @property
    def kinds(self) -> tuple[int, ...]:
        """The ``FPKind`` values walked (empty: not a kind mode)."""
        return mode_kinds(self.key)


#: the key of the walk through wrong-class false positives of both kinds (similar and other)
WRONG_CLASS = f"kind:{int(FPKind.SIMILAR)},{int(FPKind.OTHER)}"


WALK_MODES: tuple[WalkMode, ...] = (
    WalkMode("all", "Every detection"),
    WalkMode("tp", "Only true positives"),
    WalkMode("fp", "Only false positives"),
    *(
        WalkMode(f"kind:{int(k)}", f"Only FP: {k.label}")
        for k in FPKind
        if k not in (FPKind.NOT_FP,)
    ),
    WalkMode(WRONG_CLASS, "Only FP: wrong class (similar or other)"),
    WalkMode("missed", "Missed objects"),
)


def eligible(ev: ClassEvaluation, evals: ResultEvaluations, mode: WalkMode) -> IntArray:
    """Ranks of ``ev`` the mode walks through (ascending)."""
    v = ev.verdict
    if mode.key == "tp":
        keep = v == Verdict.TP
    elif mode.key == "fp" or mode.kinds:
        keep = v >= Verdict.FP
        if mode.kinds:
            keep &= np.isin(evals.fp_kind_by_row[ev.order], mode.kinds)
    else:
        keep = np.ones(len(ev), dtype=bool)
    return np.flatnonzero(keep).astype(np.int64)


def kept_ranks(
    ev: ClassEvaluation, ranks: IntArray, walked: npt.NDArray[np.bool_] | None
) -> IntArray:
    """``ranks`` of ``ev`` whose detection row the view keeps (``AppState.walked_rows``; all
    when ``None``)."""
    return ranks if walked is None else ranks[walked[ev.order[ranks]]]


def next_in(candidates: IntArray, current: int, step: int) -> int:
    """The candidate after (``step`` > 0) or before ``current``; -1 past the end. ``current``
    -1 with a forward step gives the first."""
    if step > 0:
        after = candidates[candidates > current]
        return int(after[0]) if len(after) else -1
    before = candidates[candidates < current] if current >= 0 else candidates[:0]
    return int(before[-1]) if len(before) else -1


class DetectionWalk(QObject):
    """Walks ``state``'s current result set.

    Signals
    -------
    mode_changed(str)
        The mode key changed.
    ended(str)
        A step found nothing further: what the user should know ("Last true positive of dog").
    stepped(str)
        A step landed: where ("Rank 4 of 20 · dog · only TP").
    """

    mode_changed = Signal(str)
    ended = Signal(str)
    stepped = Signal(str)

    def __init__(self, state: AppState, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state

    @property
    def mode(self) -> WalkMode:
        """The walk's mode; it lives in the state (``walk_mode``), which the drawing follows."""
        key = self.state.walk_mode
        return next((m for m in WALK_MODES if m.key == key), WALK_MODES[0])

    def set_mode(self, key: str) -> None:
        """Walk in mode ``key`` (a ``WALK_MODES`` key)."""
        mode = next((m for m in WALK_MODES if m.key == key), None)
        if mode is None or mode == self.mode:
            return
        self.state.set_walk_mode(key)
        self.mode_changed.emit(key)

    def step(self, step: int, *, same_verdict: bool = False) -> bool:
        """Go ``step`` (+1 / -1) along the walk (``same_verdict``: to the next detection with the
        selected one's verdict). ``False`` (and ``ended``) if there is nothing further."""
        st = self.state
        if st.current_results < 0 or st.dataset is None:
            return False
        if self.mode.key == "missed":
            return self._step_missed(step)
        sel, k = st.selected_detection, st.selected_class
        evals = st.evaluations[st.current_results]
        if k < 0:
            return self._step_all_classes(evals, step, same_verdict)
        ev = st.class_evaluation(k)
        if ev is None:
            return False
        candidates = kept_ranks(ev, eligible(ev, evals, self.mode), st.walked_rows())
        if same_verdict and sel is not None:
            candidates = candidates[ev.verdict[candidates] == ev.verdict[sel[1]]]
        current = sel[1] if sel is not None and sel[0] == k else -1
        rank = next_in(candidates, current, step)
        if rank < 0:
            self._end(st.dataset.classes[k], step, len(candidates))
            return False
        st.select_detection(k, rank)
        where = int(np.searchsorted(candidates, rank)) + 1
        self.stepped.emit(
            f"{where} of {len(candidates)} · {st.dataset.classes[k]} rank {rank + 1} · "
            f"{self.mode.label.lower()}"
        )
        return True

    def _step_all_classes(self, evals: ResultEvaluations, step: int, same: bool) -> bool:
        st = self.state
        assert st.dataset is not None
        sel = st.selected_detection
        walked = st.walked_rows()
        pairs = [
            (k, kept_ranks(ev, eligible(ev, evals, self.mode), walked))
            for k, ev in sorted(evals.det.items())
            if len(ev)
        ]
        if same and sel is not None:
            v = st.class_evaluation(sel[0]).verdict[sel[1]]  # type: ignore[union-attr]
            pairs = [(k, r[evals.det[k].verdict[r] == v]) for k, r in pairs]
        if not pairs:
            return False
        cls = np.concatenate([np.full(len(r), k, np.int64) for k, r in pairs])
        ranks = np.concatenate([r for _, r in pairs])
        score = np.concatenate([evals.det[k].score[r] for k, r in pairs])
        n, extra = len(cls), 0  # ``extra``: the selection was added to find its place
        if sel is not None:  # the selection's place in the order, a candidate or not
            other = ~((cls == sel[0]) & (ranks == sel[1]))
            extra = int(np.all(other))
            cls, ranks, score = cls[other], ranks[other], score[other]
            here = st.class_evaluation(sel[0]).score[sel[1]]  # type: ignore[union-attr]
            cls, ranks = np.append(cls, sel[0]), np.append(ranks, sel[1])
            score = np.append(score, here)
        order = np.lexsort((ranks, cls, -np.nan_to_num(score, nan=-np.inf)))
        cls, ranks = cls[order], ranks[order]
        at = -1  # the selection's own place (-1: none)
        if sel is None:
            pos = 0 if step > 0 else -1
        else:
            at = int(np.flatnonzero((cls == sel[0]) & (ranks == sel[1]))[0])
            pos = at + (1 if step > 0 else -1)
        if not 0 <= pos < len(cls):
            self._end("all classes", step, n)
            return False
        k, rank = int(cls[pos]), int(ranks[pos])
        st.select_detection(k, rank, keep_class=True)
        where = pos + 1 - extra * int(0 <= at < pos)  # among the walk's own detections
        self.stepped.emit(
            f"{where} of {n} by score · all classes · {self.mode.label.lower()} · "
            f"{st.dataset.classes[k]} rank {rank + 1}"
        )
        return True

    def _step_missed(self, step: int) -> bool:
        st = self.state
        assert st.dataset is not None
        evals = st.evaluations[st.current_results]
        missed = evals.missed_at(st.dataset, st.drawn_thresholds)
        k = st.selected_class
        if k >= 0:
            missed = missed & (st.dataset.objects.label == k)
        if st.image_filter.narrows:  # only the objects the view keeps
            missed = missed & st.kept.objects
        rows = np.flatnonzero(missed).astype(np.int64)  # object rows follow image order
        rank = next_in(rows, st.selected_object, step)
        name = st.dataset.classes[k] if k >= 0 else "all classes"
        if rank < 0:
            self._end(name, step, len(rows))
            return False
        st.set_current_image(int(st.dataset.objects.image_index[rank]))
        st.select_object(rank)
        where = int(np.searchsorted(rows, rank)) + 1
        self.stepped.emit(f"{where} of {len(rows)} · {name} · missed objects")
        return True

    def _end(self, name: str, step: int, n: int) -> None:
        what = self.mode.label.lower()
        if not n:
            self.ended.emit(f"Nothing to walk: no {what} for {name}")
        else:
            edge = "Last" if step > 0 else "First"
            self.ended.emit(f"{edge} of {n} ({what}, {name}): the walk ends here")
