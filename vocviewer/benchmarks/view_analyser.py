"""What a family gives the window's Analysis tab: a ``ViewAnalyser`` (its TIDE, object
characteristics and bootstrap for one result set, defined in the family's analyze module and
returned by its benchmark's ``view_analyser()``), and what they compute (``ViewAnalysis``,
``SetInterval``). No Qt; no registry (``view_analysis`` dispatches)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
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
class ViewAnalysis:
    """TIDE's breakdown and the object characteristics (by name: ``size``, ``aspect``, ...) of
    one result set."""

    tide: TideResult
    characteristics: dict[str, Characteristic]


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

    def bootstrap(
        self, ds: Dataset, res: ResultSet, ev: Any, n: int, seed: int, level: float, **kw: Any
    ) -> SetInterval:
        raise NotImplementedError


def interval(boot: Any, name: str, metric: str, level: float, n: int, seed: int) -> SetInterval:
    """``boot``'s percentile interval of result set ``name``'s mean AP, as a ``SetInterval``."""
    m = boot.interval(name, None, level)
    return SetInterval(metric, m.point, m.low, m.high, level, n, seed)
