"""What the window's Analysis tab computes for one result set, as ``vocviewer analyze`` does it per
family: TIDE's error breakdown (``evaluation.tide``; AP points 0-100 at IoU 0.5, whatever IoU the
window shows), the object characteristics (``evaluation.characteristics``: normalised AP per bin,
``N`` the paper's default), COCO ``analyze()``'s nested curves where the family has them, and the
bootstrap of one or more result sets on the same resampled images (``evaluation.bootstrap*``:
each set's headline mean AP with its percentile interval, paired differences, rank ranges, PR
bands).

The family arrives through its benchmark (``registry.benchmark_of``): its ``view_analyser()``
gives the ``ViewAnalyser`` its own analyze module defines (the shared flow with the family's
rules). A family without one answers ``None`` with a reason (``not_analysed``). Each function
reads the window's evidence of a result set (``Evidence``: its ``ClassView``s, re-derived
at the analyses' IoU where the protocol allows); without it (or where the protocol cannot) the
family's evaluator runs once. Either may take seconds: call it in a worker.
Nothing here imports Qt; the families' modules are imported when first needed (the window
starts without them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.families.evidence import Evidence
from vocviewer.families.registry import benchmark_of
from vocviewer.families.view_analyser import (
    SetsBootstrap,
    ViewAnalyser,
    ViewAnalysis,
)

Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]


def not_analysed(dataset: Dataset) -> str | None:
    """Why the Analysis tab has nothing for ``dataset``'s family (``None``: it has). Cheap:
    the family's analysis modules are not imported."""
    bench = benchmark_of(dataset)
    if bench.analyze_tasks:
        return None
    return f"{bench.title} is not analysed (no TIDE breakdown or bootstrap for this family yet)"


def _family(dataset: Dataset) -> ViewAnalyser | None:
    return benchmark_of(dataset).view_analyser()


def view_analysis(
    dataset: Dataset,
    results: ResultSet,
    image_set: str | None,
    window: Evidence | None = None,
) -> ViewAnalysis | None:
    """TIDE's breakdown, the object characteristics and the curves of ``results`` (``None`` if the
    family is not analysed; ``image_set``: VOC's Main set the window evaluates; ``window``: the
    window's evidence of ``results``). ``ValueError`` if these results cannot be analysed (no
    detections, COCO keypoints, VOC without an image set)."""
    fam = _family(dataset)
    if fam is None:
        return None
    if len(results.detections) == 0:
        raise ValueError(f"{results.name} has no detections to analyse")
    return fam.analyse(dataset, results, image_set, window)


def view_bootstrap(
    dataset: Dataset,
    sets: Sequence[ResultSet],
    image_set: str | None,
    replicates: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    *,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
    windows: Sequence[Evidence | None] = (),
) -> SetsBootstrap | None:
    """The bootstrap of every result set in ``sets`` on the same resampled images, as
    ``vocviewer analyze --results A B ... --bootstrap replicates --seed seed`` computes it
    (``None``: the family is not analysed). ``progress(done, total)`` after each chunk of
    replicates; ``cancelled()`` before each (raises ``evaluation.bootstrap.BootstrapCancelled``);
    ``windows``: the window's evidence of each set (none: evaluated here). Result sets need
    distinct names."""
    fam = _family(dataset)
    if fam is None:
        return None
    for results in sets:
        if len(results.detections) == 0:
            raise ValueError(f"{results.name} has no detections to analyse")
    names = [r.name for r in sets]
    if len(set(names)) < len(names):
        raise ValueError(f"the result sets need distinct names to be compared: {names}")
    given = list(windows) or [None] * len(sets)
    pairs = list(zip(sets, given, strict=True))
    kw = {"progress": progress, "cancelled": cancelled}
    return fam.bootstrap(dataset, pairs, image_set, replicates, seed, level, **kw)


__all__ = [
    "Evidence",
    "SetsBootstrap",
    "ViewAnalysis",
    "not_analysed",
    "view_analysis",
    "view_bootstrap",
]
