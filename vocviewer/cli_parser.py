"""The ``vocviewer`` argument parser: commands, their options, and each benchmark family's own
options and tasks taken from the registry (so no family is named here). ``cli`` dispatches."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

from vocviewer import __version__
from vocviewer.families import registry
from vocviewer.families.base import Declarations

#: ``--dpi`` bounds (a 640x480 px figure at 1200 dpi is 8000x6000 px; Qt fails far above)
DPI_MIN, DPI_MAX = 1, 1200
DPI_RANGE = f"an integer from {DPI_MIN} to {DPI_MAX}"


def dpi(value: str) -> int:
    """``--dpi``: an integer from 1 to 1200, else argparse's usage error naming the range."""
    try:
        n = int(value)
    except ValueError:
        n = None
    if n is None or not DPI_MIN <= n <= DPI_MAX:
        raise argparse.ArgumentTypeError(f"expected {DPI_RANGE}, got {value!r}")
    return n


def _task_help(families: Sequence[Declarations], tasks: str = "tasks") -> str:
    """``VOC: det (default), cls, ...; COCO: bbox (default), ...`` for families with a choice."""
    parts = []
    for b in families:
        offered: tuple[str, ...] = getattr(b, tasks)
        if len(offered) > 1:
            parts.append(f"{b.title}: {offered[0]} (default), {', '.join(offered[1:])}")
    return "; ".join(parts)


def _protocol_help(families: Sequence[Declarations]) -> str:
    listed = "; ".join(f"{b.title}: {', '.join(b.protocols)}" for b in families)
    return f"{listed} (default: the family the path holds; VOC's AP rule from its year)"


def _add_family_options(
    p: argparse.ArgumentParser, families: Sequence[Declarations], *, sources_only: bool = False
) -> None:
    """The options the families declare (``Benchmark.options``), each once; ``sources_only``:
    only the dataset folders (``CliOption.source``)."""
    seen: set[str] = set()
    for b in families:
        for o in b.options:
            if o.flag not in seen and (o.source or not sources_only):
                seen.add(o.flag)
                kind = {"path": Path, "float": float}.get(o.kind, str)
                p.add_argument(o.flag, type=kind, metavar=o.metavar, help=o.help)


def _paths_help(families: Sequence[Declarations]) -> str:
    """What each family reads, from their ``hint`` (``a PASCAL VOC folder …, a COCO …``)."""
    hints = [b.hint for b in families if b.hint]
    return ", ".join(hints[:-1]) + (f" or {hints[-1]}" if len(hints) > 1 else "".join(hints))


def _add_sets(
    parser: argparse.ArgumentParser, families: Sequence[Declarations], results_help: str
) -> None:
    """The ground truth ``path`` (what ``families`` read) and ``--results`` (one or more)."""
    parser.add_argument("path", type=Path, help=f"the ground truth: {_paths_help(families)}")
    parser.add_argument(
        "--results", type=Path, nargs="+", required=True, metavar="R", help=results_help
    )


def _add_json(parser: argparse.ArgumentParser, what: str) -> None:
    """``--json OUT``: ``what`` as JSON; to stdout with ``-``, the printed text then to stderr."""
    parser.add_argument(
        "--json",
        type=Path,
        metavar="OUT",
        help=f"{what} as JSON (- or /dev/stdout: to stdout, the text to stderr)",
    )


def command_of(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names (its first word not an option: the top level's own options,
    ``-h`` and ``--version``, take no value), or None when it names none of ``COMMANDS``."""
    word = next((a for a in argv if not a.startswith("-")), None)
    return word if word in COMMANDS else None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``vocviewer`` parser. Every command is listed (``--help``, the choice of command);
    with ``command`` only that one's options are built (``main`` parses one command: the others'
    options, the analyses' and the families' help texts, are not built for nothing)."""
    p = argparse.ArgumentParser(
        prog="vocviewer",
        description="Browse object-recognition benchmarks and evaluate results exactly as the "
        "official devkits do.",
    )
    p.add_argument("--version", action="version", version=f"vocviewer {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (help_text, add) in COMMANDS.items():
        parser = sub.add_parser(name, help=help_text)
        if command is None or command == name:
            add(parser)
    return p


def _add_demo(demo: argparse.ArgumentParser) -> None:
    demo.add_argument(
        "--dir", type=Path, help="where to write it (default: a per-user cache folder)"
    )
    demo.add_argument("--no-gui", action="store_true", help="only write it and print its path")
    demo.add_argument(
        "--seed", type=int, default=0, help="random seed of the generator (default 0)"
    )
    demo.add_argument("--screenshot", type=Path, metavar="PNG", help="save the window and exit")


def _add_open(op: argparse.ArgumentParser) -> None:
    families = registry.families()
    op.add_argument(
        "path",
        type=Path,
        help=f"{_paths_help(families)}, or a session file saved by the window "
        "(File > Save session)",
    )
    op.add_argument(
        "--results",
        type=Path,
        nargs="+",
        default=[],
        metavar="R",
        help="result files or folders (devkit layout) to add",
    )
    op.add_argument("--image-set", metavar="S", help="image set to show and evaluate (e.g. val)")
    _add_family_options(op, families, sources_only=True)
    op.add_argument(
        "--screenshot",
        type=Path,
        metavar="PNG",
        help="after loading and evaluation finish, save the window to PNG and exit",
    )


def _add_eval(ev: argparse.ArgumentParser) -> None:
    families = registry.families()
    _add_sets(ev, families, "result files or folders")
    ev.add_argument("--task", choices=registry.tasks(), default=None, help=_task_help(families))
    ev.add_argument("--protocol", choices=registry.protocols(), help=_protocol_help(families))
    _add_family_options(ev, families)
    _add_json(ev, "also write the results")
    ev.add_argument(
        "--keep-going",
        action="store_true",
        help="skip result rows the official code rejects instead of failing; "
        "the numbers are then marked NOT OFFICIAL",
    )


def _add_export(ex: argparse.ArgumentParser) -> None:
    families = registry.families()
    _add_sets(ex, families, "result sets: each file or folder is one set (compared in figures)")
    ex.add_argument("--image-set", metavar="S", help="image set (default: from the file names)")
    ex.add_argument("--pr-curves", type=Path, metavar="DIR", help="write pr_<class>.<fmt> here")
    ex.add_argument(
        "--format",
        choices=("png", "svg", "pdf"),
        default="png",
        help="PR figure format (default png)",
    )
    ex.add_argument(
        "--dpi", type=dpi, default=150, help=f"PNG/PDF resolution, {DPI_RANGE} (default 150)"
    )
    ex.add_argument("--classes", nargs="+", metavar="C", help="only these classes' figures")
    ex.add_argument("--images", type=Path, metavar="DIR", help="write annotated <id>.png here")
    ex.add_argument("--ids", nargs="+", metavar="ID", help="image ids for --images")
    ex.add_argument(
        "--table",
        type=Path,
        metavar="FILE",
        help="the AP table; format from the suffix: .csv, .md, .tex, .json",
    )


def _add_reconcile(rc: argparse.ArgumentParser) -> None:
    families = registry.families()
    _add_sets(rc, families, "one result set (COCO / YOLO: its file or folder; VOC: its det files)")
    rc.add_argument("--protocol", choices=registry.protocols(), help="the family, as for eval")
    _add_family_options(rc, families)
    _add_json(rc, "also write the report")


def _add_convert(cv: argparse.ArgumentParser) -> None:
    targets = registry.conversion_targets()
    families = registry.families()
    cv.add_argument("path", type=Path, help="the ground truth to convert")
    cv.add_argument("--to", required=True, choices=targets, help="the target format")
    cv.add_argument("out", type=Path, help="the folder to write (never inside the dataset)")
    cv.add_argument("--results", type=Path, nargs="+", default=[], metavar="R", help="results too")
    cv.add_argument(
        "--task", choices=registry.tasks(), default=None, help="what to write (boxes by default)"
    )
    _add_family_options(cv, families)


def _add_subset(ss: argparse.ArgumentParser) -> None:
    from vocviewer.core.subset import IMAGE_MODES

    families = registry.families()
    ss.add_argument("path", type=Path, help=f"the ground truth: {_paths_help(families)}")
    ss.add_argument(
        "--to", required=True, choices=registry.conversion_targets(), help="the format to write"
    )
    ss.add_argument("--out", required=True, type=Path, metavar="DIR", help="a new or empty folder")
    ss.add_argument(
        "--ids", nargs="+", metavar="ID", help="these image ids (or files listing one a line)"
    )
    ss.add_argument("--tag", metavar="TAG", help="images tagged TAG in --session")
    ss.add_argument("--session", type=Path, metavar="FILE", help="the session file of --tag")
    ss.add_argument(
        "--class", dest="classes", nargs="+", metavar="C", help="images with an object of C"
    )
    ss.add_argument("--image-set", metavar="S", help="images of the image set S")
    ss.add_argument(
        "--results", type=Path, nargs="+", default=[], metavar="R", help="result sets too"
    )
    ss.add_argument(
        "--image-mode",
        choices=IMAGE_MODES,
        default="copy",
        help="how the images reach the folder (default copy)",
    )
    ss.add_argument(
        "--name", default="subset", help="the COCO split / VOC image set (default subset)"
    )
    _add_family_options(ss, families, sources_only=True)


def _add_suspects(su: argparse.ArgumentParser) -> None:
    families = registry.families()
    _add_sets(
        su,
        families,
        "result sets: each file or folder is one set (agreeing sets make a suspect stronger)",
    )
    su.add_argument("--image-set", metavar="S", help="image set (default: from the file names)")
    _add_family_options(su, families, sources_only=True)
    su.add_argument(
        "--min-score", type=float, default=0.3, metavar="S", help="ignore detections below (0.3)"
    )
    su.add_argument("--top", type=int, default=20, metavar="N", help="suspects printed per kind")
    _add_json(su, "write every suspect")


def _add_beyond_ap(an: argparse.ArgumentParser) -> None:
    """``analyze``'s analyses beyond AP, as the registry declares them: each one's flag, then
    its options (``--<field>``, default and help from its options' fields) and output files."""
    from vocviewer.evaluation.analyses import registry as analysis_registry  # (``analyze`` only)

    g = an.add_argument_group("beyond AP (at the protocol's IoU)")
    for a in analysis_registry.analyses():
        g.add_argument(a.flag, action="store_true", help=a.help)
        for f in a.option_fields():
            flag, meta = "--" + f.name.replace("_", "-"), f.metadata
            if meta["type"] is bool:
                g.add_argument(flag, action="store_true", help=meta["help"])
                continue
            extra = {"metavar": meta["metavar"]} if meta["metavar"] else {}
            g.add_argument(flag, type=meta["type"], default=f.default, help=meta["help"], **extra)
        for o in a.outputs:
            g.add_argument(o.flag, type=Path, metavar=o.metavar, help=o.help)


def _add_analyze(an: argparse.ArgumentParser) -> None:
    families = [b for b in registry.families() if b.analyze_tasks]  # as ``analyze`` chooses
    _add_sets(an, families, "result sets: each file or folder is one set")
    tasks = tuple(dict.fromkeys(t for b in families for t in b.analyze_tasks))
    an.add_argument("--task", choices=tasks, help=_task_help(families, "analyze_tasks"))
    protocols = tuple(dict.fromkeys(p for b in families for p in b.protocols))
    an.add_argument("--protocol", choices=protocols, help="as for eval")
    _add_family_options(an, families)
    an.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="replicates (1000)")
    an.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    an.add_argument("--level", type=float, default=0.95, metavar="L", help="interval level (0.95)")
    an.add_argument(
        "--n-pos",
        type=float,
        metavar="N",
        help="normalised AP's N (default: mean positives per class)",
    )
    an.add_argument(
        "--keep-going",
        action="store_true",
        help="analyse even if ground-truth objects were left out (numbers marked NOT OFFICIAL)",
    )
    _add_json(an, "write everything")
    an.add_argument("--figures", type=Path, metavar="DIR", help="write figures here")
    _add_beyond_ap(an)
    an.add_argument(
        "--format", choices=("svg", "png", "pdf"), default="svg", help="figure format (svg)"
    )
    an.add_argument(
        "--dpi", type=dpi, default=150, help=f"PNG/PDF resolution, {DPI_RANGE} (default 150)"
    )


#: every command in ``--help``'s order: its help line and what adds its arguments
COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None]]] = {
    "demo": ("write the embedded demo VOCdevkit and open it", _add_demo),
    "open": ("open a dataset in the GUI", _add_open),
    "eval": ("evaluate results headless and print the official numbers", _add_eval),
    "export": ("write PR figures, annotated images and the AP table", _add_export),
    "analyze": (
        "error breakdown (TIDE), bootstrap intervals and paired comparisons",
        _add_analyze,
    ),
    "convert": ("convert ground truth and results between formats", _add_convert),
    "subset": (
        "write the images chosen by id, tag or class, with their annotations (and "
        "results), as a new COCO, VOC or YOLO dataset folder",
        _add_subset,
    ),
    "suspects": (
        "the label-error queue: likely missing annotations, wrong labels, loose boxes "
        "and duplicate ground truth, ranked",
        _add_suspects,
    ),
    "reconcile": (
        "the same detections under every protocol that reads them (COCO AP50, VOC2012, "
        "VOC2007, Ultralytics' for YOLO) and the rules that move the number, one at a time",
        _add_reconcile,
    ),
}
