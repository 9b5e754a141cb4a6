"""The seam of an analysis beyond AP: what one module declares (``Analysis``: its name and title,
its command-line flag with its options and their defaults, ``compute`` over one evaluation's
evidence giving a result with ``to_dict`` / ``text`` / ``figures``), what it reads
(``Subject``: the dataset, the results and their evidence record, typed by what an analysis
reads of them: ``families.evidence.Evaluated`` is one) and the printed table the analyses of one
result set share (``table``: one row per class, each analysis its own columns).

An analysis's options are a frozen dataclass whose fields carry their defaults and their
command-line help (``option``): ``--<field-name>`` on ``vocviewer analyze``, refused unless
the analysis's own flag is given. No Qt; nothing prints.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping, Sequence
from dataclasses import Field, dataclass, field, fields
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.result import ClassEvaluation

IntArray = npt.NDArray[np.int64]


class ChoiceLike(Protocol):
    """What the evidence was evaluated at (``families.views.ViewChoice``)."""

    @property
    def iou(self) -> float: ...

    @property
    def iou_kind(self) -> str:
        """``""`` (the task's own IoU) or ``"boundary"`` (Boundary AP's)."""
        ...


class ViewLike(Protocol):
    """One class's verdicts (``families.views.ClassView``): its ranked ``evaluation``, the
    object rows it ``missed`` and the IoU threshold of its verdicts."""

    @property
    def evaluation(self) -> ClassEvaluation: ...

    @property
    def missed(self) -> IntArray: ...

    @property
    def iou(self) -> float: ...


class EvidenceLike(Protocol):
    """One evaluation of one result set (``families.evidence.Evidence``)."""

    @property
    def choice(self) -> ChoiceLike: ...

    def views(self, task: str | None = None) -> Sequence[ViewLike]: ...

    def evaluations(self, task: str | None = None) -> Sequence[ClassEvaluation]: ...


class Subject(Protocol):
    """What an analysis reads: the ``dataset``, the ``results`` and their ``evidence``."""

    @property
    def dataset(self) -> Dataset: ...

    @property
    def results(self) -> ResultSet: ...

    @property
    def evidence(self) -> EvidenceLike: ...


def verdict_iou(subject: Subject) -> float:
    """The IoU threshold the detection verdicts were decided at."""
    views = subject.evidence.views("det")
    return views[0].iou if views else subject.evidence.choice.iou


@dataclass(frozen=True)
class TextPart:
    """An analysis's columns in the printed table: its ``phrase`` in the title, its ``header``
    cells, each class's cells by class index (``blank``: a class it has none for), the overall
    row's cells and what follows that row (``suffix``), and lines under the table."""

    phrase: str
    header: str
    rows: Mapping[int, str]
    blank: str
    overall: str
    suffix: str = ""
    notes: tuple[str, ...] = ()


class AnalysisResult(Protocol):
    """What ``Analysis.compute`` returns."""

    def to_dict(self) -> dict[str, Any]:
        """The keys it adds to a result set's JSON entry (``"lrp"``, ...)."""
        ...

    def text(self) -> TextPart: ...

    def figures(self, title: str) -> list[tuple[str, str]]:
        """``(kind, svg)`` pairs (``Analysis.figures`` kinds): written as ``<kind>_<set>.svg``."""
        ...


OptionsT = TypeVar("OptionsT")
ResultT = TypeVar("ResultT", bound=AnalysisResult)


def option(default: Any, help: str, metavar: str | None = None, type: Any = None) -> Any:
    """A field of an analysis's options: its ``default`` and command-line ``help`` (``type``:
    how the command line's text is read, default ``type(default)``; a bool is a switch)."""
    read = type or (builtins.type(default) if default is not None else str)
    return field(default=default, metadata={"help": help, "metavar": metavar, "type": read})


@dataclass(frozen=True)
class Output:
    """A file the command line writes from the first result set's result: ``--<dest>`` names
    it, ``value(result)`` is its JSON; giving it asks for the analysis."""

    dest: str
    help: str
    metavar: str
    value: Callable[[Any], Any]

    @property
    def flag(self) -> str:
        return "--" + self.dest.replace("_", "-")


def _no_check(_options: Any) -> None:
    return None


@dataclass(frozen=True, eq=False)
class Analysis(Generic[OptionsT, ResultT]):
    """One analysis beyond AP, declared by its module (``ANALYSIS``).

    ``name``: its key (the JSON's, the registry's; the flag ``--name-with-dashes``);
    ``title``: in words (the window's page); ``help``: the flag's; ``options``: its options'
    frozen dataclass (fields made by ``option``); ``compute(subject, options)``; ``check``:
    ``ValueError`` naming the flag of a bad option value; ``outputs``: files it writes;
    ``figures``: the kinds of figure its result draws."""

    name: str
    title: str
    help: str
    options: type[OptionsT]
    compute: Callable[[Subject, OptionsT], ResultT]
    check: Callable[[OptionsT], None] = _no_check
    outputs: tuple[Output, ...] = ()
    figures: tuple[str, ...] = ()

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def option_fields(self) -> tuple[Field[Any], ...]:
        return fields(self.options)  # type: ignore[arg-type]


def table(
    name: str, iou: float, classes: Sequence[tuple[int, str]], parts: Sequence[TextPart]
) -> str:
    """The printed table of one result set ``name``: a row per class ``(index, name)``, then
    the overall row, each analysis's columns in order, its notes under the table."""
    if not parts:
        return ""
    phrases = [p.phrase for p in parts]
    said = phrases[0] if len(phrases) == 1 else f"{', '.join(phrases[:-1])} and {phrases[-1]}"
    lines = [
        f"{name}: {said} at IoU {iou:.2f}",
        f"{'class':<16} " + " ".join(p.header for p in parts),
    ]
    for k, cname in classes:
        lines.append(f"{cname[:16]:<16} " + " ".join(p.rows.get(k, p.blank) for p in parts))
    overall = " ".join(p.overall for p in parts)
    lines.append(f"{'overall':<16} {overall}" + "".join(p.suffix for p in parts))
    lines += [n for p in parts for n in p.notes]
    return "\n".join(x for x in lines if x) + "\n"
