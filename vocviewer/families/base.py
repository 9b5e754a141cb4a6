"""The ``Benchmark`` protocol every family implements, and the helpers its ``evaluate`` shares.

A benchmark owns, for its family: sniffing a path (``sniff``: a confidence in [0, 1]), reading the
dataset and results (through ``formats``), the tasks it offers (the first is the default), the
``--protocol`` values it answers to, its CLI options, the evaluation behind ``vocviewer eval``
(``evaluate(request) -> EvalOutput``: its official printed layout, its JSON payload, its
warnings; ``EvalRequest`` holds plain values, which ``cli`` maps its arguments onto and the Python
API builds directly) and, if it has one, ``vocviewer analyze`` (``analyze``). Nothing here prints;
``cli.py`` does. Bad input raises ``FormatError``. ``evaluate`` passes the ground truth it read
through ``opened(request, dataset)`` before reading results, so the CLI can refuse an output inside
the dataset's folders before anything is evaluated. ``result_sets`` says which result sets the
``--results`` paths hold (the same for ``open``, ``eval``, ``analyze`` and ``export``): ``cli`` runs
``evaluate`` once per set, with that set's paths. A family that writes other formats lists the
``(source family, target)`` pairs in ``conversions`` and writes them in ``convert(request:
ConvertRequest)`` (``vocviewer convert``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.result_sets import one_set_per_path
from vocviewer.core.results import ResultSet
from vocviewer.families.official import lost_note
from vocviewer.formats.input import check_regular
from vocviewer.formats.problem_kinds import LEFT_OUT_ENDS, lost_ground_truth

if TYPE_CHECKING:
    from collections.abc import Iterator

    from vocviewer.evaluation.render.analyze_report import AnalyzeOutput
    from vocviewer.families.view_analyser import ViewAnalyser
    from vocviewer.families.views import ClassView, Notice, Summary, ViewChoice, ViewSettings

#: ``sniff`` confidences: the path is surely this family's / might be (its reader will say why not)
CERTAIN, LIKELY = 1.0, 0.3


@dataclass(frozen=True)
class CliOption:
    """A command-line option a benchmark accepts beyond the common ones (``path``, ``--results``,
    ``--task``, ``--protocol``, ``--json``, ``--keep-going``): ``flag`` (``--images``), its
    ``help``, ``kind`` (``"path"``, ``"str"`` or ``"float"``) and ``source``: a folder of the dataset (the CLI
    never writes inside it)."""

    flag: str
    help: str
    kind: str = "path"
    metavar: str = "DIR"
    source: bool = False

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")


@dataclass(frozen=True)
class FileTypes:
    """How the window names a family's files (its dialogs, tool tips, drop message and help).

    ``dataset`` is what it opens ("a VOCdevkit year"), a folder or, with ``annotation_file``, a
    file matching ``dataset_patterns``; ``result_patterns`` are its result files' glob patterns;
    ``results_folder`` names a folder of results Add results folder takes (if it has one). An
    empty ``dataset``: the family is not opened in the window."""

    dataset: str = ""
    annotation_file: bool = False
    dataset_patterns: tuple[str, ...] = ()
    result_patterns: tuple[str, ...] = ()
    results_folder: str | None = None


@dataclass(frozen=True)
class EvalRequest:
    """What ``vocviewer eval`` evaluates, in plain values.

    ``path``: the ground truth (a devkit folder, an annotation file); ``results``: the result
    files or folders of one result set; ``task``: one of the family's ``tasks``; ``protocol``: a
    ``--protocol`` value (``None``: the family's default); ``keep_going``: evaluate past input
    problems (the numbers are then NOT OFFICIAL); ``options``: the family's ``CliOption`` values
    by ``dest`` (``image_set``, ``iou``; sources such as ``images`` / ``devkit`` as ``Path``);
    ``on_dataset``: called with the ground truth once read (the CLI's output guard)."""

    path: Path
    results: tuple[Path, ...]
    task: str
    protocol: str | None = None
    keep_going: bool = False
    options: Mapping[str, Any] = field(default_factory=dict)
    on_dataset: Callable[[Dataset], None] | None = None

    def option(self, dest: str) -> Any:
        """The value of the family option ``dest`` (``None`` if not given)."""
        return self.options.get(dest)


@dataclass(frozen=True)
class AnalyzeRequest:
    """What ``vocviewer analyze`` analyses, in plain values: as ``EvalRequest`` (``results``:
    every result set, one per file or folder; ``task`` ``None``: the family's first analysed
    task), with the bootstrap's ``bootstrap`` replicates, ``seed`` and interval ``level``,
    normalised AP's ``n_pos`` (``None``: the mean positives per class), ``figures`` (build
    them) and ``progress(done, total)`` of the bootstrap."""

    path: Path
    results: tuple[Path, ...]
    task: str | None = None
    protocol: str | None = None
    keep_going: bool = False
    options: Mapping[str, Any] = field(default_factory=dict)
    on_dataset: Callable[[Dataset], None] | None = None
    bootstrap: int = 1000
    seed: int = 0
    level: float = 0.95
    n_pos: float | None = None
    figures: bool = False
    progress: Callable[[int, int], None] | None = None

    def option(self, dest: str) -> Any:
        """The value of the family option ``dest`` (``None`` if not given)."""
        return self.options.get(dest)


@dataclass(frozen=True)
class ConvertRequest:
    """``vocviewer convert`` in plain values: the ground truth ``path``, read as the ``source``
    family's, written as the format ``to`` into the folder ``out`` with ``results``; ``task``
    (what to write; ``None``: boxes) and the families' options by name (``images``,
    ``image_set``, ``split``, ...)."""

    source: str
    path: Path
    to: str
    out: Path
    results: tuple[Path, ...] = ()
    task: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

    def option(self, dest: str) -> Any:
        """The option ``dest`` (``None`` if not given)."""
        return self.options.get(dest)


@runtime_checkable
class Declarations(Protocol):
    """What the command line and the registry know of a family before it is imported: a
    built-in family declares them in ``<family>/declared.py`` (``DECLARED``), which its
    ``Benchmark`` inherits. ``priority`` breaks ties of ``sniff`` (higher first); ``hint`` says
    what its dataset looks like (for "not a dataset")."""

    @property
    def name(self) -> str:
        """The identifier (``vocviewer.families.<name>`` for the built-in ones)."""
        ...

    @property
    def title(self) -> str: ...
    @property
    def tasks(self) -> tuple[str, ...]:
        """The ``--task`` values it evaluates; the first is the default."""
        ...

    @property
    def protocols(self) -> tuple[str, ...]:
        """The ``--protocol`` values that choose it."""
        ...

    @property
    def options(self) -> tuple[CliOption, ...]: ...
    @property
    def analyze_tasks(self) -> tuple[str, ...]: ...
    @property
    def priority(self) -> int: ...
    @property
    def hint(self) -> str | None: ...
    @property
    def files(self) -> FileTypes:
        """What the window's dialogs and help call its files."""
        ...

    def sniff(self, path: Path, sources: dict[str, Path | None]) -> float:
        """How surely ``path`` (with ``sources`` such as ``images``/``devkit``) is this family's:
        ``CERTAIN``, ``LIKELY`` or 0. Cheap: reads at most a few KB, imports no reader."""
        ...

    def looks_like_dataset(self, path: Path) -> bool:
        """Whether ``path`` is this family's ground truth rather than results (cheap)."""
        ...


@runtime_checkable
class Benchmark(Declarations, Protocol):
    """One benchmark family (its ``Declarations`` and the work). Registered with
    ``registry.register``."""

    def read_dataset(
        self, path: Path, sources: dict[str, Path | None], task: str | None = None
    ) -> Dataset:
        """The ground truth at ``path`` for ``task`` (default: what the window browses)."""
        ...

    def reads_results_of(self, dataset: Dataset) -> bool:
        """Whether ``dataset`` is this family's (it was read by ``read_dataset``)."""
        ...

    def read_results(self, dataset: Dataset, paths: list[Path], **kw: Any) -> ResultSet:
        """Result files or folders for ``dataset``; ``kw`` go to the format's reader."""
        ...

    def result_sets(
        self, paths: Sequence[Path], task: str | None = None
    ) -> list[tuple[str, list[Path]]]:
        """``(name, paths)`` of each result set the ``--results`` ``paths`` hold for ``task``
        (``None``: the window's): ``result_sets.one_set_per_path`` unless the family groups
        files (VOC's per-class files of one competition)."""
        ...

    def evaluate(self, request: EvalRequest) -> EvalOutput:
        """``vocviewer eval`` of one result set: read, evaluate once (the window's
        ``evaluate_views`` where the protocol's evaluation is the same), and render the official
        layout and JSON."""
        ...

    def analyze(self, request: AnalyzeRequest) -> AnalyzeOutput:
        """``vocviewer analyze`` (only called when ``analyze_tasks`` is not empty)."""
        ...

    # --- the window (``families.views``) ---------------------------------------------------
    def view_settings(self, dataset: Dataset) -> ViewSettings:
        """What the window offers for ``dataset`` (IoU choices, area ranges, diagnosis rules)."""
        ...

    def prepare_view(self, dataset: Dataset, path: Path) -> Dataset:
        """``dataset`` (read from ``path``) with what the window draws beside it."""
        ...

    def read_view_results(
        self,
        dataset: Dataset,
        paths: list[Path],
        image_set: str | None,
        fallback_set: str | None,
        offload: Callable[..., Any],
    ) -> ResultSet:
        """Result files for the window: only those of ``image_set`` if the family has image
        sets (if they mix sets, those of ``fallback_set``); ``offload(fn, *args)`` runs a long
        parse away from the window's interpreter."""
        ...

    def parse_results_ahead(self, paths: list[Path]) -> Callable[..., Any] | None:
        """Start parsing the result files ``paths`` now, in a thread, where that needs no
        dataset (the window's open: while the dataset is read); the ``offload`` for
        ``read_view_results`` that hands the parse over, else ``None`` (nothing started)."""
        ...

    def evaluate_views(
        self, dataset: Dataset, results: ResultSet, choice: ViewChoice, diagnose: bool = True
    ) -> Iterator[ClassView | Summary | Notice]:
        """Per class a ``ClassView`` at ``choice``, ``Notice`` lines on the way, the
        ``Summary`` last (if the protocol has one); ``diagnose`` False: the views' false
        positives are left undiagnosed (``views.diagnosed``)."""
        ...

    def rederive_views(
        self,
        dataset: Dataset,
        results: ResultSet,
        raws: Mapping[int, Any],
        choice: ViewChoice,
    ) -> list[ClassView] | None:
        """Every class again at another ``choice`` from the stored evidence (``ClassView.raw``
        by class index), or ``None`` if the family must evaluate anew."""
        ...

    def image_set_named(self, dataset: Dataset, results: ResultSet) -> str | None:
        """The image set of ``dataset`` that ``results``' file names name (VOC's
        ``comp4_det_val_car.txt``: ``val``), or ``None``."""
        ...

    def view_analyser(self) -> ViewAnalyser | None:
        """What the window's Analysis tab computes for this family (its analyze module's
        ``ViewAnalyser``, imported on first use), or ``None`` if it is not analysed."""
        ...


#: a family's ``evaluate_views``: (dataset, results, choice, diagnose) -> the views' stream
EvaluateViews = Callable[..., "Iterator[ClassView | Summary | Notice]"]
#: a family's ``rederive_views``: (dataset, results, raws by class, choice) -> views or ``None``
RederiveViews = Callable[..., "list[ClassView] | None"]


@dataclass(frozen=True)
class FamilyViews:
    """What a family gives the window, named once: how it evaluates the views, how it
    re-derives them at another choice from their evidence (``None``: evaluate anew), and its
    Analysis tab's ``ViewAnalyser`` as ``"module:Class"`` (imported on first use; ``None``: no
    analysis)."""

    evaluate: EvaluateViews
    rederive: RederiveViews | None = None
    analyser: str | None = None


class ViewDefaults:
    """What most families do in the window: draw the dataset as read, read results as
    ``read_results`` does (no image sets, nothing to offload) and evaluate through ``views``
    (their ``FamilyViews``). A family that the window opens says so in ``files``."""

    files = FileTypes()
    views: FamilyViews

    def read_results(self, dataset: Dataset, paths: list[Path], **kw: Any) -> ResultSet:
        raise NotImplementedError

    def analyze(self, request: AnalyzeRequest) -> AnalyzeOutput:
        """Only a family with ``analyze_tasks`` analyses (``families.analyze`` asks no other)."""
        raise NotImplementedError(f"{type(self).__name__} has no analyze")

    def result_sets(
        self, paths: Sequence[Path], task: str | None = None
    ) -> list[tuple[str, list[Path]]]:
        return one_set_per_path(paths)

    def prepare_view(self, dataset: Dataset, path: Path) -> Dataset:
        return dataset

    def read_view_results(
        self,
        dataset: Dataset,
        paths: list[Path],
        image_set: str | None,
        fallback_set: str | None,
        offload: Callable[..., Any],
    ) -> ResultSet:
        return self.read_results(dataset, paths)

    def parse_results_ahead(self, paths: list[Path]) -> Callable[..., Any] | None:
        return None

    def evaluate_views(
        self, dataset: Dataset, results: ResultSet, choice: ViewChoice, diagnose: bool = True
    ) -> Iterator[ClassView | Summary | Notice]:
        return self.views.evaluate(dataset, results, choice, diagnose=diagnose)

    def rederive_views(
        self,
        dataset: Dataset,
        results: ResultSet,
        raws: Mapping[int, Any],
        choice: ViewChoice,
    ) -> list[ClassView] | None:
        rederive = self.views.rederive
        return None if rederive is None else rederive(dataset, results, raws, choice)

    def image_set_named(self, dataset: Dataset, results: ResultSet) -> str | None:
        return None

    def view_analyser(self) -> ViewAnalyser | None:
        spec = self.views.analyser
        if spec is None:
            return None
        module, _, name = spec.partition(":")
        analyser: ViewAnalyser = getattr(importlib.import_module(module), name)()
        return analyser


def refuse_json_results(
    given: Sequence[Path | str], dataset: Dataset | str, expects: str = "its own result files"
) -> None:
    """JSON results are COCO-style: refuse them for a dataset (or family title) of another
    family, saying what it ``expects`` instead."""
    json_files = [Path(p) for p in given if Path(p).suffix.lower() == ".json"]
    if json_files:
        name = dataset if isinstance(dataset, str) else dataset.name
        raise FormatError(
            json_files[0],
            f"a COCO results JSON (for a COCO or LVIS annotation file); the open {name} "
            f"dataset expects {expects}",
        )


@dataclass(frozen=True)
class EvalOutput:
    """What ``vocviewer eval`` shows: ``text`` for stdout, ``payload`` for ``--json``,
    ``warnings`` for stderr (non-fatal input problems, "not official" notes)."""

    text: str
    payload: dict[str, Any]
    warnings: list[str] = field(default_factory=list)


def existing_input(path: str | Path) -> Path:
    """``path`` if it exists and is a folder or a regular file (``FormatError`` naming it if not:
    missing, a FIFO, a device, a link loop)."""
    p = Path(path)
    if not p.exists() and not p.is_symlink():
        raise FormatError(p, "does not exist")
    if not p.is_dir():
        check_regular(p)
    return p


def opened(request: EvalRequest | AnalyzeRequest, dataset: Dataset) -> Dataset:
    """``dataset``, after telling the CLI it was read (``request.on_dataset(dataset)``, if
    set)."""
    if request.on_dataset is not None:
        request.on_dataset(dataset)
    return dataset


def problems_error(
    problems: Sequence[FormatError], shown: int = 10, where: str = "the results"
) -> FormatError:
    """One error for a list of input problems: the first, then up to ``shown`` more listed."""
    first, rest = problems[0], problems[1:]
    lines = [first.message] + [f"  {p}" for p in rest[:shown]]
    if len(rest) > shown:
        lines.append(f"  ... and {len(rest) - shown} more")
    lines.append(f"{len(problems)} problem(s) in {where}; fix them or pass --keep-going")
    return FormatError(first.path, "\n".join(lines), line=first.line, element=first.element)


def check_ground_truth(dataset: Dataset, keep_going: bool, task: str | None = None) -> str | None:
    """Refuse (``FormatError``) a dataset whose annotations lost ground truth or lack a field
    the official evaluator reads (under ``task``: ``formats.problem_kinds.lost_ground_truth``),
    unless ``keep_going``; then return the "not official" note to attach to the numbers."""
    lost = lost_ground_truth(dataset.problems, task)
    if not lost:
        return None
    left_out = [p.message.endswith(LEFT_OUT_ENDS) for p in lost]
    if not keep_going:
        what = "objects left out" if all(left_out) else "what the official evaluator fails on"
        raise problems_error(lost, where=f"the ground truth ({what})")
    return lost_note(lost)  # the window's reason too (``families.official``)
