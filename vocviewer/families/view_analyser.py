"""What a family gives the window's Analysis tab: a ``ViewAnalyser`` (its TIDE, object
characteristics and ``analyze()`` curves for one result set, and the bootstrap of one or more
result sets on the same resampled images, defined in the family's analyze module and returned by
its benchmark's ``view_analyser()``), and what they compute (``ViewAnalysis``, ``SetsBootstrap``,
``SetInterval``, ``CurveSet``). No Qt; no registry (``view_analysis`` dispatches)."""

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
    """One family's TIDE, characteristics and bootstrap for the window (its benchmark's
    ``view_analyser()``, from the family's own analyze module); ``evaluate`` gives what they
    read."""

    def evaluate(self, ds: Dataset, res: ResultSet, image_set: str | None) -> Any:
        raise NotImplementedError

    def tide(self, ds: Dataset, res: ResultSet, ev: Any, image_set: str | None) -> TideResult:
        raise NotImplementedError

    def characteristics(self, ds: Dataset, res: ResultSet, ev: Any) -> dict[str, Characteristic]:
        raise NotImplementedError

    def curves(self, ds: Dataset, res: ResultSet, ev: Any) -> CurveSet | None:
        """``analyze()``'s curves; ``None`` where the family has none."""
        return None

    def bootstrap(
        self,
        ds: Dataset,
        sets: Sequence[tuple[ResultSet, Any]],
        n: int,
        seed: int,
        level: float,
        **kw: Any,
    ) -> SetsBootstrap:
        """The bootstrap of every ``(results, evaluate(...))`` pair on the same resampled
        images (``kw``: ``progress``, ``cancelled``)."""
        raise NotImplementedError
