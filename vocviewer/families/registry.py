"""The registry of benchmark families, and opening a dataset or results through it.

Families are registered with an identifier and a priority (as glue registers data readers). The
built-in ones are listed in ``BUILTIN`` as ``"module:Class"`` and instantiated on first use
(``registered``); until then ``families`` gives each one's ``Declarations`` (its folder's
``declared.py``: name, tasks, protocols, options, file hints, a cheap ``sniff``), so building the
command line and choosing a family import no reader, and only the chosen family's benchmark is
imported (``loaded``); no
family imports the registry (a family is one folder that only implements ``base.Benchmark``), so
the registry depends on the families and never the other way. ``choose`` picks the family for a
command line (``--protocol``, then a sure ``sniff``, then the one family offering ``--task``, then
the likeliest ``sniff``); ``open_dataset`` / ``open_results`` / ``looks_like_dataset`` serve the
window; ``file_types`` gives the window's file dialogs the families' file names.
No family is named outside its own folder (``BUILTIN`` lists the classes to instantiate).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.families.base import (
    CERTAIN,
    LIKELY,
    Benchmark,
    ConvertRequest,
    Declarations,
    FileTypes,
)
from vocviewer.formats.input import check_regular

#: the families vocviewer ships, ``"module:Class"``, in registration order (one line per family)
BUILTIN = (
    "vocviewer.families.voc.benchmark:VocBenchmark",
    "vocviewer.families.coco.benchmark:CocoBenchmark",
    "vocviewer.families.visdrone.benchmark:VisDroneBenchmark",
    "vocviewer.families.ilsvrc.benchmark:IlsvrcBenchmark",
    "vocviewer.families.lvis.benchmark:LvisBenchmark",
    "vocviewer.families.openimages.benchmark:OpenImagesBenchmark",
    "vocviewer.families.yolo.benchmark:YoloBenchmark",
    "vocviewer.families.cvat.benchmark:CvatBenchmark",
)
_REGISTRY: dict[str, Benchmark] = {}
_loaded = False
_LOADING = threading.RLock()  # held while ``registered`` imports the built-in families
_loader: int | None = None  # the thread doing so
#: the built-in families imported so far, by ``BUILTIN`` line
_IMPORTED: dict[str, Benchmark] = {}


def register(benchmark: Benchmark) -> Benchmark:
    """Add ``benchmark`` under ``benchmark.name`` (replacing one of that name); returns it."""
    _REGISTRY[benchmark.name] = benchmark
    return benchmark


def unregister(name: str) -> None:
    """Remove the family ``name`` (no error if it is not registered)."""
    _REGISTRY.pop(name, None)


def registered() -> list[Benchmark]:
    """Every registered family, in registration order (the built-in ones first). Another
    thread asking while the built-in ones are imported waits for them all."""
    global _loaded, _loader
    with _LOADING:  # (the importing thread asking again gets those registered so far)
        if not _loaded:
            _loaded, _loader = True, threading.get_ident()
            try:
                for spec in BUILTIN:
                    register(_builtin(spec))
            finally:
                _loader = None
    return list(_REGISTRY.values())


def _builtin(spec: str) -> Benchmark:
    if spec not in _IMPORTED:
        _IMPORTED[spec] = load(spec)
    return _IMPORTED[spec]


def _declared(spec: str) -> Declarations:
    """The built-in family ``spec``'s declarations (``<its package>.declared``'s ``DECLARED``),
    or its benchmark if its folder declares none."""
    if spec in _IMPORTED:
        return _IMPORTED[spec]
    module = f"{spec.partition(':')[0].rpartition('.')[0]}.declared"
    try:
        declared: Declarations = importlib.import_module(module).DECLARED
    except ModuleNotFoundError as e:
        if e.name != module:
            raise
        return _builtin(spec)
    return declared


def families() -> list[Declarations]:
    """Every registered family in ``registered``'s order, a built-in one not imported yet by its
    declarations (cheap: no reader, evaluator or view is imported; also while another thread
    imports them all)."""
    if _loaded and _loader in (None, threading.get_ident()):
        return list(registered())
    found: dict[str, Declarations] = dict(_REGISTRY)
    for spec in BUILTIN:
        declared = _declared(spec)
        found[declared.name] = declared
    return list(found.values())


def loaded(family: Declarations) -> Benchmark:
    """The benchmark of ``family`` (from ``families``), imported now if it was not."""
    if isinstance(family, Benchmark):
        return family
    for spec in BUILTIN:
        if _declared(spec) is family:
            return _builtin(spec)
    raise KeyError(family.name)


def load(spec: str) -> Benchmark:
    """An instance of the family ``spec`` (``"module:Class"``), imported now."""
    module, _, cls = spec.partition(":")
    benchmark: Benchmark = getattr(importlib.import_module(module), cls)()
    return benchmark


def get(name: str) -> Benchmark:
    """The family registered as ``name`` (``KeyError`` if none)."""
    for b in families():
        if b.name == name:
            return loaded(b)
    raise KeyError(name)


def tasks() -> tuple[str, ...]:
    """Every task some family offers, in registration order."""
    return tuple(dict.fromkeys(t for b in families() for t in b.tasks))


def protocols() -> tuple[str, ...]:
    """Every ``--protocol`` value some family answers to."""
    return tuple(dict.fromkeys(p for b in families() for p in b.protocols))


def file_types() -> list[FileTypes]:
    """What the window opens, family by family in registration order (those it opens only).
    Cheap before the families are loaded (their declarations; readers are imported later, when
    something is opened)."""
    return [b.files for b in families() if b.files.dataset]


def _hint() -> str:
    hints = [b.hint for b in families() if b.hint]
    listed = ", ".join(hints[:-1]) + (f" or {hints[-1]}" if len(hints) > 1 else hints[0])
    return f"expected {listed}" if hints else "no benchmark family is registered"


def not_a_dataset(path: Path) -> FormatError:
    """The error for a path no family reads, saying what each family expects."""
    return FormatError(path, f"not a dataset vocviewer can read; {_hint()}")


def _sniffed(
    candidates: Sequence[Declarations], path: Path, sources: dict[str, Path | None]
) -> tuple[float, Declarations | None]:
    best: tuple[float, Declarations | None] = (0.0, None)
    for b in sorted(candidates, key=lambda b: -b.priority):  # a tie keeps the higher priority
        score = b.sniff(path, sources)
        if score > best[0]:
            best = (score, b)
        if score >= CERTAIN:  # nothing after it can be surer: the others are not asked
            break
    return best


def result_sets_of(
    path: str | Path | None,
    results: Sequence[str | Path],
    sources: dict[str, Path | None] | None = None,
) -> list[list[Path]]:
    """The result sets ``results`` hold for the dataset at ``path`` (``Benchmark.result_sets``
    of the family it sniffs as; each path its own set if none claims it)."""
    given = [Path(r) for r in results]
    if path is None or not given:
        return [given] if given else []
    _, family = sniff(path, sources)
    if family is None:
        return [[r] for r in given]
    return [paths for _, paths in family.result_sets(given)]


def sniff(
    path: str | Path, sources: dict[str, Path | None] | None = None
) -> tuple[float, Benchmark | None]:
    """The most confident ``sniff`` of every registered family (0 and None if none claims); only
    that family's benchmark is imported."""
    score, best = _sniffed(families(), Path(path), dict(sources or {}))
    return score, None if best is None else loaded(best)


def choose(
    path: Path,
    task: str | None = None,
    protocol: str | None = None,
    sources: dict[str, Path | None] | None = None,
    candidates: Sequence[Declarations] | None = None,
) -> Benchmark:
    """The family that evaluates ``path``: the one answering to ``protocol``; else the one whose
    ``sniff`` is sure; else the only one offering ``task``; else the likeliest ``sniff``.
    ``FormatError`` if none. Only the chosen family's benchmark is imported."""
    pool = families() if candidates is None else list(candidates)
    if protocol is not None:
        answering = [b for b in pool if protocol in b.protocols]
        if answering:  # several families may answer (a CVAT file by COCO's): the sure sniff
            score, best = _sniffed(answering, Path(path), dict(sources or {}))
            return loaded(best if best is not None and score >= CERTAIN else answering[0])
    score, best = _sniffed(pool, Path(path), dict(sources or {}))
    if best is not None and score >= CERTAIN:
        return loaded(best)
    offering = [b for b in pool if task in b.tasks]
    if task is not None and len(offering) == 1:
        return loaded(offering[0])
    if best is not None:
        return loaded(best)
    p = Path(path)
    if not p.exists() and not p.is_symlink():
        raise FormatError(p, "does not exist")
    raise not_a_dataset(p)


def open_dataset(
    path: str | Path, *, images: str | Path | None = None, devkit: str | Path | None = None
) -> Dataset:
    """Read the dataset at ``path``, whatever its family (PASCAL VOC, VisDrone, a COCO or LVIS JSON,
    or an ILSVRC annotation folder when ``devkit`` is given). ``images`` is COCO's image folder, by
    default guessed beside the annotation folder.

    Raises
    ------
    FormatError
        ``path`` does not exist or is not a format vocviewer reads; the message says what was
        expected.
    """
    p = Path(path)
    if not p.exists() and not p.is_symlink():
        raise FormatError(p, "does not exist")
    if not p.is_dir():
        check_regular(p)  # a FIFO, a device, a link loop: a message naming it
    sources = {
        "images": None if images is None else Path(images),
        "devkit": None if devkit is None else Path(devkit),
    }
    score, best = _sniffed(families(), p, sources)
    if best is None or score < LIKELY:
        raise not_a_dataset(p)
    return loaded(best).read_dataset(p, sources)


def looks_like_dataset(path: str | Path) -> bool:
    """Whether ``path`` looks like something ``open_dataset`` reads rather than results (a VOC or
    VisDrone folder, a COCO annotation JSON). Cheap: reads at most a few KB."""
    return any(b.looks_like_dataset(Path(path)) for b in families())


def refuse_foreign_options(benchmark: Declarations, args: Any, command: str = "eval") -> None:
    """``FormatError`` if ``args`` set an option (``CliOption``) that ``benchmark`` does not
    declare (another family's, e.g. VOC's ``--iou`` on a COCO file): never silently ignored."""
    own = {o.dest for o in benchmark.options}
    for b in families():
        for o in b.options:
            if o.dest not in own and getattr(args, o.dest, None) is not None:
                owners = ", ".join(x.title for x in families() if o in x.options)
                raise FormatError(
                    None,
                    f"{command}: {o.flag} is not an option of {benchmark.title} "
                    f"(it applies to {owners})",
                )


def benchmark_of(dataset: Dataset) -> Benchmark:
    """The family that read ``dataset`` (``FormatError`` if none claims it); a family
    extending another (higher ``priority``) is asked first. Until every family is imported,
    only those that may claim it are (``_may_claim``), then, if none does, all of them."""
    for pool in (_may_claim(dataset), None):
        for b in sorted(registered() if pool is None else pool, key=lambda b: -b.priority):
            if b.reads_results_of(dataset):
                return b
    raise FormatError(dataset.root, f"no benchmark evaluates {dataset.name}")


def _may_claim(dataset: Dataset) -> list[Benchmark]:
    """The families that may claim ``dataset`` without importing the others: those registered
    or imported so far, and each built-in one whose folder defines one of the dataset's
    records (``family_data``: a built-in family claims a dataset by a record of its own, or,
    VOC's, by carrying none); every family where it carries none or all are imported."""
    if _loaded or not dataset.family_data:
        return registered()
    modules = {type(x).__module__ for x in dataset.family_data}
    owners = [
        spec
        for spec in BUILTIN
        if any(m.startswith(spec.partition(":")[0].rpartition(".")[0] + ".") for m in modules)
    ]
    found = {**_REGISTRY, **{b.name: b for b in _IMPORTED.values()}}
    return list({**found, **{b.name: b for b in map(_builtin, owners)}}.values())


def open_results(
    dataset: Dataset, paths: Sequence[str | Path] | str | Path, **kw: Any
) -> ResultSet:
    """Read result files or folders for ``dataset`` with the reader of its family, the families
    asked in priority order (one whose datasets extend another's answers first) (VOC
    ``comp*_det_*`` / ``comp*_cls_*``, a VisDrone results folder, a COCO results JSON, an ILSVRC
    submission).

    Keyword arguments go to the format's reader (``read_voc_results``: ``image_set``, ``name``;
    ``read_coco_results``: ``task``, ``keep_going``).
    """
    given = [Path(paths)] if isinstance(paths, str | Path) else [Path(p) for p in paths]
    return benchmark_of(dataset).read_results(dataset, given, **kw)


def conversion_targets() -> tuple[str, ...]:
    """Every format some family converts to (``vocviewer convert --to``): the targets of the
    families' ``conversions`` (``(source family, target)`` pairs)."""
    pairs = (c for b in families() for c in getattr(b, "conversions", ()))
    return tuple(sorted({t for _, t in pairs}))


def convert(
    path: str | Path,
    to: str,
    out: str | Path,
    results: Sequence[str | Path] = (),
    task: str | None = None,
    options: dict[str, Any] | None = None,
) -> list[str]:
    """``vocviewer convert``: the ground truth at ``path`` (and ``results``) written as ``to`` in
    the folder ``out`` by the family declaring the pair (``conversions``, ``convert``); the
    messages say what was written and what the target cannot hold."""
    opts = dict(options or {})
    sources: dict[str, Path | None] = {k: v for k, v in opts.items() if isinstance(v, Path)}
    source = choose(Path(path), task, sources=sources)
    for b in families():
        if (source.name, to) in getattr(b, "conversions", ()):
            given = tuple(Path(r) for r in results)
            request = ConvertRequest(source.name, Path(path), to, Path(out), given, task, opts)
            messages: list[str] = loaded(b).convert(request)  # type: ignore[attr-defined]
            return messages
    targets = sorted(
        {t for b in families() for s, t in getattr(b, "conversions", ()) if s == source.name}
    )
    raise FormatError(
        Path(path), f"{source.title} converts to {', '.join(targets) or 'nothing'}, not {to}"
    )
