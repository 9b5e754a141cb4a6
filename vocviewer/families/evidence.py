"""One evaluation of one result set at one choice, kept: what ``evaluate_views`` yields.

The same record serves the CLI (``collect`` over the stream) and the window (its
``EvaluationModel.evidence``: the classes as they arrived, re-derived at the window's choice),
and the analyses read it (``families.view_analyser``) instead of evaluating again.

A family's ``evaluate_views(dataset, results, choice)`` streams ``ClassView``s, ``Notice``s and a
``Summary``; ``collect`` keeps them as one ``Evidence`` record, the input of ``vocviewer eval``'s
printed layout and JSON (and of the Python API) as of the window's panes: one evaluation per
result set and choice reaches all of them. ``reasons`` are why the numbers are not official
(``families.official``: the one rule); empty when they are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.result import ClassEvaluation
from vocviewer.families.official import Reason
from vocviewer.families.views import ClassView, Notice, Summary, ViewChoice


@dataclass(frozen=True, eq=False)
class Evidence:
    """The per-class ``ClassView``s (stream order), the protocol's ``Summary`` (``None`` if it
    has none), the ``Notice`` lines and the not-official ``reasons`` of one evaluation."""

    choice: ViewChoice
    classes: tuple[ClassView, ...]
    summary: Summary | None = None
    notices: tuple[Notice, ...] = ()
    reasons: tuple[Reason, ...] = ()

    @property
    def official(self) -> bool:
        """Whether the numbers are what the protocol's own code gives."""
        return not self.reasons

    def views(self, task: str | None = None) -> tuple[ClassView, ...]:
        """The class views of ``task`` (``ClassEvaluation.task``: ``det``, ``cls``; all if
        ``None``)."""
        return tuple(v for v in self.classes if task is None or v.evaluation.task == task)

    def evaluations(self, task: str | None = None) -> tuple[ClassEvaluation, ...]:
        """The ranked ``ClassEvaluation`` of each class of ``task``."""
        return tuple(v.evaluation for v in self.views(task))

    def raws(self) -> tuple[Any, ...]:
        """The protocol's own per-class evidence (``ClassView.raw``), in class order."""
        return tuple(v.raw for v in self.classes)

    def one_raw(self) -> Any | None:
        """The protocol's record every view holds (a toolkit that evaluates all classes at
        once: VisDrone, ILSVRC); ``None`` if there is no view."""
        return self.classes[0].raw if self.classes else None

    def by_class(self, task: str = "det") -> dict[int, ClassView]:
        """The views of ``task`` by class index."""
        return {v.class_index: v for v in self.views(task)}


def collect(
    stream: Iterable[ClassView | Summary | Notice],
    choice: ViewChoice,
    reasons: Iterable[Reason] = (),
) -> Evidence:
    """Consume a family's ``evaluate_views`` stream into one ``Evidence`` (the last
    ``Summary`` wins; there is one)."""
    classes: list[ClassView] = []
    notices: list[Notice] = []
    summary: Summary | None = None
    for item in stream:
        if isinstance(item, ClassView):
            classes.append(item)
        elif isinstance(item, Notice):
            notices.append(item)
        else:
            summary = item
    return Evidence(choice, tuple(classes), summary, tuple(notices), tuple(reasons))


@dataclass(frozen=True, eq=False)
class Evaluated:
    """The one evaluation of a result set that every analysis of it reads (``vocviewer
    analyze``): the ``dataset``, the ``results`` and their ``evidence``."""

    dataset: Dataset
    results: ResultSet
    evidence: Evidence


def evaluated_once(
    views: Callable[..., Iterable[ClassView | Summary | Notice]],
    dataset: Dataset,
    results: ResultSet,
    choice: ViewChoice | None = None,
    **kw: Any,
) -> Evaluated:
    """The one evaluation of ``results`` every analysis of it reads (``vocviewer analyze``):
    the family's ``views`` stream (its ``evaluate_views``; ``kw``: its own parameters) without
    diagnosis, collected at ``choice`` (default: the official ``ViewChoice()``)."""
    at = choice or ViewChoice()
    stream = views(dataset, results, at, diagnose=False, **kw)
    return Evaluated(dataset, results, collect(stream, at))
