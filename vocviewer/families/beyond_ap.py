"""The analyses beyond AP (``evaluation.analyses.registry``: the operating point, calibration,
optimal LRP and any other registered) over one evaluation's ``Evidence``, at the IoU the
verdicts were decided at. The same record (``BeyondAP``) serves ``vocviewer analyze``'s text and
JSON, the Python API and the window's pages, so their numbers are one.

JSON (``BeyondAP.to_dict``): ``{"iou", ...}`` then each analysis's keys in registry order (its
result's ``to_dict``)::

    {"iou", "operating_point": {"beta", "rule", "thresholds": {class: t | null},
                                "per_class": {class: {"best", "curve"}}, "overall": {...}},
     "confusion": {..., "row_normalised"} | absent,
     "calibration": {"bins", "sample_threshold", "multivariate", "overall": {"n", "d_ece",
                     "d_mce", "bins"}, "per_class": {class: {...}}},
     "lrp": {"tau", "moLRP", "moLRP_loc", "moLRP_fp", "moLRP_fn", "per_class": {...}}
     | "lrp_note"}

No Qt; nothing prints.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ClassScores, ResultSet
from vocviewer.evaluation.analyses.base import AnalysisResult, table, verdict_iou
from vocviewer.evaluation.analyses.registry import analyses, analysis
from vocviewer.families.evidence import Evaluated, Evidence, collect
from vocviewer.families.registry import benchmark_of


class BeyondOptions:
    """Each analysis's options (``Analysis.options``) from flat keywords by field name
    (``BeyondOptions(beta=2, bins=5)``); the rest at their defaults. ``TypeError`` for a name
    no analysis has. Equal (and hashable) by value."""

    def __init__(self, **given: Any) -> None:
        chosen = []
        for a in analyses():
            mine = {f.name: given.pop(f.name) for f in a.option_fields() if f.name in given}
            chosen.append((a.name, a.options(**mine)))
        if given:
            raise TypeError(f"no analysis has the option(s) {', '.join(sorted(given))}")
        self._chosen = tuple(chosen)

    @classmethod
    def of_each(cls, chosen: Iterable[tuple[str, Any]]) -> BeyondOptions:
        """Options given per analysis name (the others at their defaults)."""
        out = cls()
        given = dict(chosen)
        out._chosen = tuple((n, given.get(n, o)) for n, o in out._chosen)
        return out

    def of(self, name: str) -> Any:
        """Analysis ``name``'s options."""
        return dict(self._chosen).get(name) or analysis(name).options()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BeyondOptions) and self._chosen == other._chosen

    def __hash__(self) -> int:
        return hash(self._chosen)

    def __repr__(self) -> str:
        return f"BeyondOptions({dict(self._chosen)!r})"


@dataclass(frozen=True, eq=False)
class BeyondAP:
    """The analyses of one result set (``results``: by analysis name, in registry order) at
    IoU ``iou``, and the detection classes ``(class index, name)`` of its evidence."""

    iou: float
    options: BeyondOptions
    results: dict[str, AnalysisResult]
    classes: tuple[tuple[int, str], ...] = ()

    def __getitem__(self, name: str) -> Any:
        """Analysis ``name``'s result (``KeyError``: not computed)."""
        return self.results[name]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"iou": self.iou}
        for r in self.results.values():
            out.update(r.to_dict())
        return out


def detections_only(results: ResultSet) -> ResultSet:
    """``results`` without its image-level classification scores (the analyses beyond AP read
    the detections: a family that evaluates both evaluates only these)."""
    if len(results.class_scores) == 0 and "cls" not in results.classes_with_files:
        return results
    held = {t: c for t, c in results.classes_with_files.items() if t != "cls"}
    return replace(results, class_scores=ClassScores.empty(), classes_with_files=held)


def evidence_for(dataset: Dataset, results: ResultSet, image_set: str | None = None) -> Evidence:
    """One evaluation of ``results``' detections at the family's official choice (verdicts at
    its IoU), undiagnosed: what the analyses read when no evidence is at hand."""
    bench = benchmark_of(dataset)
    choice = bench.view_settings(dataset).default_choice()
    if image_set is not None:
        choice = replace(choice, image_set=image_set)
    det = detections_only(results)
    return collect(bench.evaluate_views(dataset, det, choice, diagnose=False), choice)


def beyond_ap(
    dataset: Dataset,
    results: ResultSet,
    evidence: Evidence,
    options: BeyondOptions | None = None,
    names: Iterable[str] | None = None,
) -> BeyondAP:
    """The analyses ``names`` (default: every registered one) of ``results`` from its
    ``evidence``, in registry order."""
    o = options or BeyondOptions()
    subject = Evaluated(dataset, results, evidence)
    wanted = None if names is None else set(names)
    chosen = [a for a in analyses() if wanted is None or a.name in wanted]
    computed = {a.name: a.compute(subject, o.of(a.name)) for a in chosen}
    classes = tuple((e.class_index, e.class_name) for e in evidence.evaluations("det"))
    return BeyondAP(verdict_iou(subject), o, computed, classes)


def beyond_text(name: str, b: BeyondAP) -> str:
    """A printed table: per class each analysis's columns (the operating point's best threshold
    with P / R / F-beta, D-ECE, oLRP, ...), then the overall row and the notes."""
    return table(name, b.iou, b.classes, [r.text() for r in b.results.values()])
