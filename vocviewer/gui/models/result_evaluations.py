"""``ResultEvaluations``: one result set's evaluation as the window stores it (per class, per
detection row). Filled on the GUI thread as classes arrive, or in a worker (a re-derive, the
diagnosis) and handed over whole."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.evaluation.analysis import FalsePositives
from vocviewer.evaluation.confusion import missed_at
from vocviewer.evaluation.diagnosis_all import lay_out
from vocviewer.evaluation.drawn import Thresholds, threshold_key
from vocviewer.evaluation.polylines import remember_polylines
from vocviewer.evaluation.result import ClassEvaluation, EvalResult
from vocviewer.families.views import ClassView, Summary, ViewChoice
from vocviewer.gui.models.ap_n import normalised_aps
from vocviewer.gui.models.curve_paths import remember_paths


class ResultEvaluations:
    """One result set's per-class evaluations, filled as classes arrive.

    ``verdict_by_row`` int8 (D,), ``fp_kind_by_row`` int8 (D,) and ``rank_by_row`` int64 (D,)
    give each detection row its ``Verdict``, ``FPKind`` and rank (-1 where not evaluated, e.g.
    images outside the evaluated set); ``missed`` bool (O,) flags the objects no TP matched;
    ``views`` the detection ``ClassView`` by class; ``summary`` the protocol's, once it came;
    ``normalised``: (AP rule, N, AP_N by class) of the views, where the worker that re-derived
    them computed it (``normalised_aps``; the AP table computes it itself otherwise).
    """

    def __init__(
        self,
        n_detections: int,
        n_objects: int = 0,
        ranks: npt.NDArray[np.int64] | None = None,
        choice: ViewChoice | None = None,
    ) -> None:
        self.det: dict[int, ClassEvaluation] = {}
        self.cls: dict[int, ClassEvaluation] = {}
        self.views: dict[int, ClassView] = {}
        self.diagnosis: dict[int, FalsePositives] = {}
        self.verdict_by_row = np.full(n_detections, -1, dtype=np.int8)
        self.fp_kind_by_row = np.full(n_detections, -1, dtype=np.int8)
        #: (``ranks``: another's, of the same ranked detections; then ``add`` leaves it be)
        self.rank_by_row = np.full(n_detections, -1, dtype=np.int64) if ranks is None else ranks
        self._ranked = ranks is not None
        self.missed = np.zeros(n_objects, dtype=bool)
        self.summary: Summary | None = None
        self.normalised: tuple[str, float, dict[int, float]] | None = None
        self._missed_at: tuple[object, npt.NDArray[np.bool_], set[int]] | None = None
        #: the score threshold ``missed_at`` was last asked for (a re-derive works it out ahead)
        self.last_threshold: Thresholds | None = None
        #: the choice they were evaluated at (``None``: not known yet, see ``replacing``) and
        #: the diagnosed evaluations of another choice they replaced (``back_to``)
        self.choice = choice
        self.before: ResultEvaluations | None = None

    def pristine(self) -> bool:
        """Nothing arrived yet (as made)."""
        return not (self.det or self.cls or self.views or self.diagnosis) and self.summary is None

    def diagnosed(self) -> bool:
        """Whether every detection view came with its false positives diagnosed (the window's
        evaluation leaves them to a diagnosis job, ``EvaluationModel._diagnose``)."""
        return all(v.false_positives is not None for v in self.views.values())

    def add(self, view: ClassView) -> None:
        """Store one class's view (detection or classification)."""
        ev, k = view.evaluation, view.class_index
        if ev.task == "cls":
            self.cls[k] = ev
            return
        self.views[k] = view
        self.missed[view.missed[view.missed < len(self.missed)]] = True
        if view.false_positives is not None:
            self.diagnosis[k] = view.false_positives
            self.fp_kind_by_row[ev.order] = view.false_positives.kind
        self.det[k] = ev
        self.verdict_by_row[ev.order] = ev.verdict
        if not self._ranked:
            self.rank_by_row[ev.order] = np.arange(len(ev.order))

    def add_all(self, views: list[ClassView]) -> None:
        """``add`` each of ``views`` (one per class; detection classes rank disjoint detection
        rows), the per-row arrays filled in one step each."""
        det = [v for v in views if v.evaluation.task == "det"]
        classes = {v.class_index for v in det}
        if len(det) < 2 or len(classes) < len(det) or any(v.class_index in self.det for v in det):
            for view in views:
                self.add(view)
            return
        for view in views:
            if view.evaluation.task == "cls":
                self.add(view)
        evs = [v.evaluation for v in det]
        order = lay_out(evs)[0]  # (the same ranked detections again: kept, no copy)
        self.verdict_by_row[order] = np.concatenate([ev.verdict for ev in evs])
        diagnosed = [v for v in det if v.false_positives is not None]
        if diagnosed:
            rows = order if len(diagnosed) == len(det) else None
            if rows is None:
                rows = np.concatenate([v.evaluation.order for v in diagnosed])
            kinds = [v.false_positives.kind for v in diagnosed if v.false_positives is not None]
            self.fp_kind_by_row[rows] = np.concatenate(kinds)
        if not self._ranked:
            self.rank_by_row[order] = np.concatenate([np.arange(len(ev)) for ev in evs])
        missed = np.concatenate([v.missed for v in det])
        self.missed[missed[missed < len(self.missed)]] = True
        for view in det:
            k = view.class_index
            self.views[k], self.det[k] = view, view.evaluation
            if view.false_positives is not None:
                self.diagnosis[k] = view.false_positives

    def missed_at(self, dataset: Dataset, threshold: Thresholds) -> npt.NDArray[np.bool_]:
        """bool (O,): objects missed as drawn at score ``threshold`` (one number or per class;
        ``confusion.missed_at``: no true positive scoring at least that matched them). Kept per
        threshold and brought up to date class by class as evaluations arrive (classes own
        disjoint objects)."""
        key = threshold_key(threshold)
        self.last_threshold = (
            np.array(threshold) if isinstance(threshold, np.ndarray) else threshold
        )
        if self._missed_at is None or self._missed_at[0] != key:
            self._missed_at = (key, np.zeros(len(self.missed), dtype=bool), set())
        _, out, done = self._missed_at
        new = {k: ev for k, ev in self.det.items() if k not in done}
        if new:
            out |= missed_at(dataset, new, self.missed, threshold)
            done.update(new)
        return out

    def work_ahead(
        self, dataset: Dataset, ap_rule: str, threshold: Thresholds | None
    ) -> ResultEvaluations:
        """Work out here (a worker that filled them) what the GUI thread or the next re-derive
        would otherwise work out while the user waits, and return them: the AP_N under
        ``ap_rule`` (``normalised_aps``; 80 classes: ~30 ms), the objects missed at the score
        ``threshold`` the panes last drew at (``missed_at``, ~10 ms; ``None``: none), every
        class's PR polyline and its path (``remember_polylines``, ``remember_paths``: the PR
        plot draws them; ~10 ms on the GUI thread) and their ranks laid end to end (``lay_out``: a re-derive at another IoU
        threshold reads them; ~6 ms)."""
        self.normalised = (ap_rule, *normalised_aps(self.views, ap_rule))
        det = [self.det[k] for k in sorted(self.det)]
        remember_polylines(det)
        remember_paths(det)
        lay_out(det)
        if threshold is not None:
            self.missed_at(dataset, threshold)
        return self

    def replacing(self, old: ResultEvaluations) -> None:
        """These evaluations take ``old``'s place (re-derived or diagnosed from it): its
        classification results and summary, its choice where these came without one (a
        diagnosis), and ``old`` itself to go back to (``back_to``) where it is diagnosed at
        another choice, else what ``old`` could go back to (one step back is kept, no more)."""
        self.cls, self.summary = old.cls, old.summary
        if self.choice is None:
            self.choice = old.choice
        back = old if old.choice not in (None, self.choice) and old.diagnosed() else old.before
        old.before = None
        self.before = back if back is not self else None

    def back_to(self, choice: ViewChoice) -> ResultEvaluations | None:
        """The evaluations these replaced (``replacing``), if they are of ``choice`` and of the
        same stored evidence, every class diagnosed: going back to the choice shown before
        takes them again, no re-derive."""
        back = self.before
        if back is None or back.choice != choice or back.views.keys() != self.views.keys():
            return None
        same = all(back.views[k].raw is v.raw for k, v in self.views.items())
        return back if same and back.diagnosed() and back.summary is not None else None

    def mean_ap(self, task: str, n_classes: int) -> float | None:
        """``EvalResult.mean_ap`` over the arrived classes; ``None`` until all ``n_classes``
        arrived (NaN if no class qualifies)."""
        done = self.det if task == "det" else self.cls
        if not done or len(done) < n_classes:
            return None
        classes = tuple(done[k] for k in sorted(done))
        return EvalResult("", task, "", "", math.nan, classes).mean_ap()

    def headline(self, task: str, n_classes: int) -> float | None:
        """The result set's one number: the protocol summary's headline (COCO's AP, VisDrone's
        AP as a fraction, ILSVRC's mAP) once it came, else the mean AP (``mean_ap``)."""
        s = self.summary
        if task == "det" and s is not None and s.headline is not None:
            value = float(s.stats[s.headline])
            return value / 100 if s.percent else value
        return self.mean_ap(task, n_classes)
