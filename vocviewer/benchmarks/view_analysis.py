"""What the window's Analysis tab computes for one result set, as ``vocviewer analyze`` does it per
family: TIDE's error breakdown (``evaluation.tide``; AP points 0-100 at IoU 0.5, whatever IoU the
window shows), the object characteristics (``evaluation.characteristics``: normalised AP per bin,
``N`` the paper's default) and the bootstrap percentile interval of the result set's headline mean
AP over images (``evaluation.bootstrap*``).

The family arrives through its benchmark (``registry.benchmark_of``); ``_ANALYSERS`` maps its
name to the functions its ``analyze`` uses. A family without (LVIS) answers ``None`` with a
reason (``not_analysed``). Every function re-evaluates the result set itself (the window's own
evaluation may sit at another IoU threshold), so it may run for seconds: call it in a worker.
Nothing here imports Qt; the families' modules are imported when first needed (the window
starts without them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from vocviewer.benchmarks.registry import benchmark_of
from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.characteristics import Characteristic
from vocviewer.evaluation.tide import TideResult

Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]


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


class _Family:
    """One family's TIDE, characteristics and bootstrap for the window; ``evaluate`` gives what
    they read."""

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


def _interval(boot: Any, name: str, metric: str, level: float, n: int, seed: int) -> SetInterval:
    m = boot.interval(name, None, level)
    return SetInterval(metric, m.point, m.low, m.high, level, n, seed)


class _Voc(_Family):
    def evaluate(self, ds: Dataset, res: ResultSet, image_set: str | None) -> Any:
        from vocviewer.evaluation.voc import evaluate_voc_det

        if image_set is None:
            raise ValueError("choose an image set first")
        return evaluate_voc_det(ds, res, image_set=image_set, strict=False)

    def tide(self, ds: Dataset, res: ResultSet, ev: Any, image_set: str | None) -> TideResult:
        from vocviewer.evaluation.tide_voc import voc_tide

        assert image_set is not None
        return voc_tide(ds, res, ev, image_set=image_set)

    def characteristics(self, ds: Dataset, res: ResultSet, ev: Any) -> dict[str, Characteristic]:
        from vocviewer.benchmarks.voc_analyze import voc_characteristics
        from vocviewer.evaluation.normalised_ap import default_normalisers

        return voc_characteristics(ds, ev, default_normalisers(ev)[0])

    def bootstrap(
        self, ds: Dataset, res: ResultSet, ev: Any, n: int, seed: int, level: float, **kw: Any
    ) -> SetInterval:
        from vocviewer.benchmarks.analyze import progress_chunk
        from vocviewer.evaluation.bootstrap import bootstrap
        from vocviewer.evaluation.bootstrap_voc import voc_det_evidence

        evidence = [voc_det_evidence(ds, ev, res.name)]
        boot = bootstrap(evidence, n, seed, chunk=progress_chunk(evidence, n), **kw)
        return _interval(boot, res.name, f"VOC mean AP ({ev.ap_rule})", level, n, seed)


class _Coco(_Family):
    def evaluate(self, ds: Dataset, res: ResultSet, image_set: str | None) -> Any:
        from vocviewer.evaluation.coco import CocoParams, evaluate_coco

        kind = str(res.extras["coco"].kind)
        if kind not in ("bbox", "segm"):
            raise ValueError(f"TIDE and the bootstrap analyse boxes and masks, not {kind}")
        return evaluate_coco(ds, res, CocoParams.for_task(kind))

    def tide(self, ds: Dataset, res: ResultSet, ev: Any, image_set: str | None) -> TideResult:
        from vocviewer.evaluation.tide_coco import coco_tide

        return coco_tide(ds, res)

    def characteristics(self, ds: Dataset, res: ResultSet, ev: Any) -> dict[str, Characteristic]:
        from vocviewer.benchmarks.coco_analyze import coco_characteristics, coco_normalised

        return coco_characteristics(ds, ev, coco_normalised(ev, None)[0]["n_pos"])

    def bootstrap(
        self, ds: Dataset, res: ResultSet, ev: Any, n: int, seed: int, level: float, **kw: Any
    ) -> SetInterval:
        from vocviewer.evaluation.bootstrap_coco import coco_bbox_evidence, coco_bootstrap

        evidence = [coco_bbox_evidence(ds, ev, res.name)]
        boot = coco_bootstrap(evidence, n, seed, chunk=min(50, max(10, -(-n // 20))), **kw)
        return _interval(boot.ap, res.name, "COCO AP@[.50:.95]", level, n, seed)


class _VisDrone(_Family):
    def evaluate(self, ds: Dataset, res: ResultSet, image_set: str | None) -> Any:
        from vocviewer.evaluation.visdrone import evaluate_visdrone

        return evaluate_visdrone(ds, res)

    def tide(self, ds: Dataset, res: ResultSet, ev: Any, image_set: str | None) -> TideResult:
        from vocviewer.evaluation.tide_visdrone import visdrone_tide

        return visdrone_tide(ds, res, ev)

    def characteristics(self, ds: Dataset, res: ResultSet, ev: Any) -> dict[str, Characteristic]:
        from vocviewer.benchmarks.visdrone_analyze import visdrone_characteristics

        chars = visdrone_characteristics(ds, res, ev, None)[0]
        chars.pop("overall", None)
        return chars

    def bootstrap(
        self, ds: Dataset, res: ResultSet, ev: Any, n: int, seed: int, level: float, **kw: Any
    ) -> SetInterval:
        from dataclasses import replace

        from vocviewer.evaluation.bootstrap_visdrone import visdrone_bootstrap, visdrone_evidence

        evidence = [visdrone_evidence(ds, res, ev, res.name)]
        boot = visdrone_bootstrap(evidence, n, seed, chunk=max(1, min(100, -(-n // 20))), **kw)
        out = _interval(boot.ap, res.name, "VisDrone AP@[.50:.95]", level, n, seed)
        return replace(out, percent=True)


class _Ilsvrc(_Family):
    def evaluate(self, ds: Dataset, res: ResultSet, image_set: str | None) -> Any:
        from vocviewer.evaluation.ilsvrc import evaluate_ilsvrc_det

        return evaluate_ilsvrc_det(ds, res)

    def tide(self, ds: Dataset, res: ResultSet, ev: Any, image_set: str | None) -> TideResult:
        from vocviewer.evaluation.tide_ilsvrc import ilsvrc_tide

        return ilsvrc_tide(ds, res, ev)

    def characteristics(self, ds: Dataset, res: ResultSet, ev: Any) -> dict[str, Characteristic]:
        from vocviewer.benchmarks.ilsvrc_analyze import ilsvrc_characteristics

        chars = ilsvrc_characteristics(ds, res, ev, None)[0]
        chars.pop("overall", None)
        return chars

    def bootstrap(
        self, ds: Dataset, res: ResultSet, ev: Any, n: int, seed: int, level: float, **kw: Any
    ) -> SetInterval:
        from vocviewer.benchmarks.analyze import progress_chunk
        from vocviewer.evaluation.bootstrap import bootstrap
        from vocviewer.evaluation.bootstrap_ilsvrc import ilsvrc_det_evidence

        evidence = [ilsvrc_det_evidence(ds, res, ev, res.name)]
        boot = bootstrap(evidence, n, seed, chunk=progress_chunk(evidence, n), **kw)
        return _interval(boot, res.name, "ILSVRC mean AP (defined classes)", level, n, seed)


#: benchmark name -> what its ``analyze`` computes, for one result set in the window
_ANALYSERS: dict[str, _Family] = {
    "voc": _Voc(),
    "coco": _Coco(),
    "visdrone": _VisDrone(),
    "ilsvrc": _Ilsvrc(),
}


def not_analysed(dataset: Dataset) -> str | None:
    """Why the Analysis tab has nothing for ``dataset``'s family (``None``: it has)."""
    bench = benchmark_of(dataset)
    if bench.name in _ANALYSERS:
        return None
    return f"{bench.title} is not analysed (no TIDE breakdown or bootstrap for this family yet)"


def _family(dataset: Dataset) -> _Family | None:
    return _ANALYSERS.get(benchmark_of(dataset).name)


def view_analysis(
    dataset: Dataset, results: ResultSet, image_set: str | None
) -> ViewAnalysis | None:
    """TIDE's breakdown and the object characteristics of ``results`` (``None`` if the family is
    not analysed; ``image_set``: VOC's Main set the window evaluates). ``ValueError`` if these
    results cannot be analysed (no detections, COCO keypoints, VOC without an image set)."""
    fam = _family(dataset)
    if fam is None:
        return None
    if len(results.detections) == 0:
        raise ValueError(f"{results.name} has no detections to analyse")
    ev = fam.evaluate(dataset, results, image_set)
    return ViewAnalysis(
        fam.tide(dataset, results, ev, image_set), fam.characteristics(dataset, results, ev)
    )


def view_bootstrap(
    dataset: Dataset,
    results: ResultSet,
    image_set: str | None,
    replicates: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    *,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> SetInterval | None:
    """The bootstrap interval of ``results``' headline mean AP, as ``vocviewer analyze
    --bootstrap replicates --seed seed`` prints it (``None``: the family is not analysed).
    ``progress(done, total)`` after each chunk of replicates; ``cancelled()`` before each
    (raises ``evaluation.bootstrap.BootstrapCancelled``)."""
    fam = _family(dataset)
    if fam is None:
        return None
    if len(results.detections) == 0:
        raise ValueError(f"{results.name} has no detections to analyse")
    ev = fam.evaluate(dataset, results, image_set)
    kw = {"progress": progress, "cancelled": cancelled}
    return fam.bootstrap(dataset, results, ev, replicates, seed, level, **kw)


__all__ = ["SetInterval", "ViewAnalysis", "not_analysed", "view_analysis", "view_bootstrap"]
