"""The window's Analysis tab over the window's own evidence (``families.evidence.Evidence``: a
result set's ``ClassView``s at the window's choice), the shared flow ``ViewAnalyser`` (TIDE, object
characteristics and ``analyze()`` curves of one result set, the bootstrap of one or more result
sets on the same resampled images; a family subclasses it in its analyze module with only its
rules, and its benchmark's ``view_analyser()`` returns one), and what they compute
(``ViewAnalysis``, ``SetsBootstrap``, ``SetInterval``, ``CurveSet``). No Qt; no registry
(``view_analysis`` dispatches)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis_curves import AnalysisCurves
from vocviewer.evaluation.bootstrap_stats import BootstrapResult
from vocviewer.evaluation.characteristics import Characteristic
from vocviewer.evaluation.tide import TideResult
from vocviewer.families.evidence import Evidence


@dataclass(frozen=True)
class SetInterval:
    """A result set's headline mean AP (``metric``, in the family's scale: ``percent`` for
    VisDrone) with its bootstrap percentile interval ``[low, high]`` at ``level`` over
    ``replicates`` resamplings of the images (``seed``)."""

    metric: str
    point: float
    low: float
    high: float
    level: float
    replicates: int
    seed: int
    percent: bool = False


@dataclass(frozen=True, eq=False)
class SetsBootstrap:
    """The bootstrap of one or more result sets on the same resampled images: ``result`` holds
    each set's per-class AP and mean AP replicates (``interval``, ``paired``, ``rank_ranges``;
    ``pr_band`` when ``result.recall_grid`` is not empty) of the family's headline ``metric``
    (``percent``: shown 0-100, as VisDrone's toolkit prints it). ``bands``: the replicates whose
    ``pr_band`` (precision bands at IoU 0.5) the PR plot draws; ``None`` if there are none."""

    result: BootstrapResult
    metric: str
    level: float
    percent: bool = False
    bands: BootstrapResult | None = None

    def interval(self, name: str) -> SetInterval:
        """Result set ``name``'s mean AP with its percentile interval."""
        m = self.result.interval(name, None, self.level)
        r = self.result
        return SetInterval(
            self.metric, m.point, m.low, m.high, self.level, r.replicates, r.seed, self.percent
        )


@dataclass(frozen=True, eq=False)
class CurveSet:
    """COCO ``analyze()``'s seven nested curves (C75, C50, Loc, Sim, Oth, BG, FN) of one result
    set: per class (by class index of the dataset) and ``overall`` (the mean over classes)."""

    overall: AnalysisCurves
    per_class: dict[int, AnalysisCurves]


@dataclass(frozen=True, eq=False)
class ViewAnalysis:
    """TIDE's breakdown, the object characteristics (by name: ``size``, ``aspect``, ...) and the
    ``analyze()`` curves (``None``: the family has none, e.g. ILSVRC) of one result set."""

    tide: TideResult
    characteristics: dict[str, Characteristic]
    curves: CurveSet | None = None


class ViewAnalyser:
    """The Analysis tab's flow, written once: a family subclasses it with only what its rules
    need (the hooks below) and its benchmark's ``view_analyser()`` returns one.

    Every analysis reads the family's evaluation record of a result set (``evidence``): the
    window's own (``from_views``: re-shaped from its ``Evidence``, re-derived at the
    analyses' IoU where the protocol allows), else the family's evaluator once
    (``evaluate``: the one function an analysis evaluates through)."""

    #: the bootstrap's headline metric, in words; ``percent``: shown 0-100 (VisDrone's scale)
    metric: str = ""
    percent: bool = False

    # --- what a family supplies -------------------------------------------------------------
    def from_views(self, ds: Dataset, res: ResultSet, window: Evidence) -> Any | None:
        """The family's evaluation record re-shaped from the window's evidence, or ``None``
        where the protocol cannot (then ``evaluate`` runs)."""
        return None

    def evaluate(self, ds: Dataset, res: ResultSet, image_set: str | None) -> Any:
        """The family's evaluator, for the analyses' settings."""
        raise NotImplementedError

    def tide(self, ds: Dataset, res: ResultSet, ev: Any, image_set: str | None) -> TideResult:
        raise NotImplementedError

    def characteristics(self, ds: Dataset, res: ResultSet, ev: Any) -> dict[str, Characteristic]:
        raise NotImplementedError

    def curves(self, ds: Dataset, res: ResultSet, ev: Any) -> CurveSet | None:
        """``analyze()``'s curves; ``None`` where the family has none."""
        return None

    def metric_of(self, ev: Any) -> str:
        """The bootstrap's headline metric of evaluation records like ``ev`` (``metric``)."""
        return self.metric

    def resample(
        self, ds: Dataset, sets: Sequence[tuple[ResultSet, Any]], n: int, seed: int, **kw: Any
    ) -> tuple[BootstrapResult, BootstrapResult | None]:
        """``n`` bootstrap replicates of every ``(results, evidence)`` pair on the same
        resampled images: (the headline's, the IoU-0.5 PR bands' or ``None``); ``kw``:
        ``progress``, ``cancelled``."""
        raise NotImplementedError

    # --- the flow ---------------------------------------------------------------------------
    def evidence(
        self, ds: Dataset, res: ResultSet, image_set: str | None, window: Evidence | None
    ) -> Any:
        """The family's evaluation record of ``res``: the window's where it has it, else one
        evaluation."""
        ev = None if window is None else self.from_views(ds, res, window)
        return self.evaluate(ds, res, image_set) if ev is None else ev

    def analyse(
        self, ds: Dataset, res: ResultSet, image_set: str | None, window: Evidence | None
    ) -> ViewAnalysis:
        """TIDE, the characteristics and the curves of ``res`` from one evaluation record."""
        ev = self.evidence(ds, res, image_set, window)
        tide = self.tide(ds, res, ev, image_set)
        return ViewAnalysis(tide, self.characteristics(ds, res, ev), self.curves(ds, res, ev))

    def bootstrap(
        self,
        ds: Dataset,
        sets: Sequence[tuple[ResultSet, Evidence | None]],
        image_set: str | None,
        n: int,
        seed: int,
        level: float,
        **kw: Any,
    ) -> SetsBootstrap:
        """The bootstrap of every result set (with the window's evidence, if any) on the same
        resampled images (``kw``: ``progress``, ``cancelled``)."""
        pairs = [(r, self.evidence(ds, r, image_set, w)) for r, w in sets]
        boot, bands = self.resample(ds, pairs, n, seed, **kw)
        return SetsBootstrap(boot, self.metric_of(pairs[0][1]), level, self.percent, bands)


def chunk_for(n: int, low: int = 10, high: int = 50) -> int:
    """Replicates per progress report: about 20 reports, each of ``low`` to ``high``."""
    return max(low, min(high, -(-n // 20)))
