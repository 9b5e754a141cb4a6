"""The ``vocviewer`` command line. The only module that writes to stdout/stderr.

Commands: ``demo`` (write and open the embedded demo), ``open`` (the GUI on a dataset, optionally
saving a screenshot and exiting), ``eval`` (headless evaluation with a printed table and JSON),
``export`` (PR figures, annotated images and AP tables to files; Qt offscreen).
Qt is imported only by the GUI commands, so ``eval`` starts fast and runs without a display.
Every file goes through ``formats.output``: a target inside the dataset's folders or over an input
is refused (before any work where the folders are known: ``given_roots``), with exit code 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from vocviewer import __version__
from vocviewer.benchmarks import registry
from vocviewer.benchmarks.base import Benchmark
from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError, OutputError
from vocviewer.formats import output


def _task_help(families: Sequence[Benchmark], tasks: str = "tasks") -> str:
    """``VOC: det (default), cls, ...; COCO: bbox (default), ...`` for families with a choice."""
    parts = []
    for b in families:
        offered: tuple[str, ...] = getattr(b, tasks)
        if len(offered) > 1:
            parts.append(f"{b.title}: {offered[0]} (default), {', '.join(offered[1:])}")
    return "; ".join(parts)


def _protocol_help(families: Sequence[Benchmark]) -> str:
    listed = "; ".join(f"{b.title}: {', '.join(b.protocols)}" for b in families)
    return f"{listed} (default: the family the path holds; VOC's AP rule from its year)"


def _add_family_options(
    p: argparse.ArgumentParser, families: Sequence[Benchmark], *, sources_only: bool = False
) -> None:
    """The options the families declare (``Benchmark.options``), each once; ``sources_only``:
    only the dataset folders (``CliOption.source``)."""
    seen: set[str] = set()
    for b in families:
        for o in b.options:
            if o.flag not in seen and (o.source or not sources_only):
                seen.add(o.flag)
                kind = Path if o.kind == "path" else str
                p.add_argument(o.flag, type=kind, metavar=o.metavar, help=o.help)


def _sources(args: argparse.Namespace) -> dict[str, Path | None]:
    """The dataset folders given by family options (``CliOption.source``: ``--images``, ...)."""
    return {
        o.dest: getattr(args, o.dest, None)
        for b in registry.registered()
        for o in b.options
        if o.source
    }


def _build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="vocviewer",
        description="Browse object-recognition benchmarks and evaluate results exactly as the "
        "official devkits do.",
    )
    p.add_argument("--version", action="version", version=f"vocviewer {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser("demo", help="write the embedded demo VOCdevkit and open it")
    demo.add_argument(
        "--dir", type=Path, help="where to write it (default: a per-user cache folder)"
    )
    demo.add_argument("--no-gui", action="store_true", help="only write it and print its path")
    demo.add_argument(
        "--seed", type=int, default=0, help="random seed of the generator (default 0)"
    )
    demo.add_argument("--screenshot", type=Path, metavar="PNG", help="save the window and exit")

    op = sub.add_parser("open", help="open a dataset in the GUI")
    op.add_argument(
        "path",
        type=Path,
        help="a VOCdevkit root or year folder, a COCO annotation JSON, a VisDrone split or "
        "an ILSVRC annotation folder (with --devkit)",
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
    _add_family_options(op, registry.registered(), sources_only=True)
    op.add_argument(
        "--screenshot",
        type=Path,
        metavar="PNG",
        help="after loading and evaluation finish, save the window to PNG and exit",
    )

    ev = sub.add_parser("eval", help="evaluate results headless and print the official numbers")
    ev.add_argument(
        "path",
        type=Path,
        help="the ground truth: a VOCdevkit root or year folder, a COCO annotation "
        "JSON, an ILSVRC annotation folder or a VisDrone split folder",
    )
    ev.add_argument(
        "--results",
        type=Path,
        nargs="+",
        required=True,
        metavar="R",
        help="result files or folders",
    )
    families = registry.registered()
    ev.add_argument("--task", choices=registry.tasks(), default=None, help=_task_help(families))
    ev.add_argument("--protocol", choices=registry.protocols(), help=_protocol_help(families))
    _add_family_options(ev, families)
    ev.add_argument("--json", type=Path, metavar="OUT", help="also write the results as JSON")
    ev.add_argument(
        "--keep-going",
        action="store_true",
        help="skip result rows the official code rejects instead of failing; "
        "the numbers are then marked NOT OFFICIAL",
    )
    ex = sub.add_parser("export", help="write PR figures, annotated images and the AP table")
    ex.add_argument("path", type=Path, help="a VOCdevkit root or year folder")
    ex.add_argument(
        "--results",
        type=Path,
        nargs="+",
        required=True,
        metavar="R",
        help="result sets: each file or folder is one set (compared in figures)",
    )
    ex.add_argument("--image-set", metavar="S", help="image set (default: from the file names)")
    ex.add_argument("--pr-curves", type=Path, metavar="DIR", help="write pr_<class>.<fmt> here")
    ex.add_argument(
        "--format",
        choices=("png", "svg", "pdf"),
        default="png",
        help="PR figure format (default png)",
    )
    ex.add_argument("--dpi", type=int, default=150, help="PNG/PDF resolution (default 150)")
    ex.add_argument("--classes", nargs="+", metavar="C", help="only these classes' figures")
    ex.add_argument("--images", type=Path, metavar="DIR", help="write annotated <id>.png here")
    ex.add_argument("--ids", nargs="+", metavar="ID", help="image ids for --images")
    ex.add_argument(
        "--table",
        type=Path,
        metavar="FILE",
        help="the AP table; format from the suffix: .csv, .md, .tex, .json",
    )
    _add_analyze(sub)
    return p


def _add_analyze(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    an = sub.add_parser(
        "analyze", help="error breakdown (TIDE), bootstrap intervals and paired comparisons"
    )
    an.add_argument("path", type=Path, help="a VOCdevkit root or year folder, or a COCO JSON")
    an.add_argument(
        "--results",
        type=Path,
        nargs="+",
        required=True,
        metavar="R",
        help="result sets: each file or folder is one set",
    )
    from vocviewer.benchmarks.analyze import analysed

    families = analysed()
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
        help="VOC normalised AP's N (default: mean positives per class)",
    )
    an.add_argument(
        "--keep-going",
        action="store_true",
        help="analyse even if ground-truth objects were left out (numbers marked NOT OFFICIAL)",
    )
    an.add_argument("--json", type=Path, metavar="OUT", help="write everything as JSON")
    an.add_argument("--figures", type=Path, metavar="DIR", help="write figures here")
    an.add_argument(
        "--format", choices=("svg", "png", "pdf"), default="svg", help="figure format (svg)"
    )
    an.add_argument("--dpi", type=int, default=150, help="PNG resolution (default 150)")


def _cmd_analyze(args: argparse.Namespace) -> int:
    from vocviewer.benchmarks.analyze import run_analyze

    roots = given_roots(args.path, *_sources(args).values())
    targets = [(args.json, False), (args.figures, True)]

    def check(dataset: Dataset | None = None) -> None:
        roots.extend(dataset.protected_roots if dataset else ())
        for target, folder in targets:
            if target:
                guard(target, roots, args.results, folder=folder)

    check()
    args.on_dataset = check
    tty = sys.stderr.isatty()
    args.progress = (lambda d, n: sys.stderr.write(f"\rbootstrap {d}/{n}\x1b[K")) if tty else None
    out = run_analyze(args)
    if tty:
        sys.stderr.write("\r\x1b[K")
    for w in out.warnings:
        _warn(w)
    _emit(sys.stdout, out.text.removesuffix("\n"))
    check()
    if args.json:
        output.write_text(args.json, json.dumps(out.payload, indent=2) + "\n", roots)
    for name, svg in out.figures:
        target = output.child_path(args.figures, f"{Path(name).stem}.{args.format}")
        if args.format == "svg":
            written = output.write_text(target, svg, roots)
        else:
            written = output.write_bytes(target, _raster(svg, args.format, args.dpi), roots)
        _emit(sys.stdout, str(written))
    return 0


def _raster(svg: str, fmt: str, dpi: int) -> bytes:
    """``svg`` as PNG or PDF bytes (Qt offscreen when there is no display)."""
    if sys.platform.startswith("linux") and not (
        os.environ.get("QT_QPA_PLATFORM")
        or os.environ.get("DISPLAY")
        or os.environ.get("WAYLAND_DISPLAY")
    ):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from vocviewer.gui.window.svg_raster import svg_to_bytes

    return svg_to_bytes(svg, fmt, dpi)


def _cmd_export(args: argparse.Namespace) -> int:
    if not (args.pr_curves or args.images or args.table):
        _error("export: nothing to write (give --pr-curves, --images or --table)")
        return 2
    if args.table and args.table.suffix.lower() not in (".csv", ".md", ".tex", ".json"):
        _error(f"export: --table {args.table}: use a .csv, .md, .tex or .json file name")
        return 2
    if args.images and not args.ids:
        _error("export: --images needs --ids")
        return 2
    if sys.platform.startswith("linux") and not (
        os.environ.get("QT_QPA_PLATFORM")
        or os.environ.get("DISPLAY")
        or os.environ.get("WAYLAND_DISPLAY")
    ):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"  # files only: no screen needed
    from vocviewer.gui.window.export_run import run_export

    roots = given_roots(args.path)  # (--images is an output folder here)
    if args.table:
        guard(args.table, roots, args.results)
    for folder in (args.pr_curves, args.images):
        if folder:
            guard(folder, roots, args.results, folder=True)
    try:
        written = run_export(args, roots)
    except (KeyError, ValueError) as e:
        _error(f"export: {e}")
        return 1
    for path in written:
        _emit(sys.stdout, str(path))
    return 0


def given_roots(path: Path | None, *sources: Path | None) -> list[Path]:
    """The dataset folders the arguments name, known before anything is read: ``path`` (a file's
    folder; a VOC year folder for a folder inside one), the VOCdevkit root holding it, and
    ``sources`` (COCO ``--images``, ILSVRC ``--devkit``). ``Dataset.roots`` add the rest once
    the dataset is read."""
    roots = [Path(p) for p in sources if p is not None]
    if path is not None and path.exists():
        folder = path if path.is_dir() else path.parent
        if folder.name in ("Annotations", "ImageSets", "JPEGImages"):
            folder = folder.parent
        roots += [path, folder]
        if folder.parent.name == "VOCdevkit" or (folder.parent / "VOCcode").is_dir():
            roots.append(folder.parent)
    return roots


def guard(
    target: Path, roots: Sequence[Path], inputs: Sequence[Path] = (), *, folder: bool = False
) -> Path:
    """``target`` resolved, or ``OutputError``: inside one of ``roots`` (``formats.output``), an
    existing non-file (non-folder if ``folder``), or one of the ``inputs`` or inside one."""
    real = (output.guard_folder if folder else output.guard_target)(target, roots)
    for given in inputs:
        src = Path(os.path.abspath(given)).resolve()
        if real == src:
            raise OutputError(target, f"refusing to overwrite the input {given}")
        if src in real.parents:
            raise OutputError(target, f"refusing to write inside the input folder {given}")
    return real


def _cmd_eval(args: argparse.Namespace) -> int:
    sources = _sources(args)
    benchmark = registry.choose(args.path, args.task, args.protocol, sources)
    if args.task is None:
        args.task = benchmark.tasks[0]
    roots = given_roots(args.path, *sources.values())
    if args.json:  # refused before anything is read, and again once the dataset is known
        guard(args.json, roots, args.results)

    def on_dataset(dataset: Dataset) -> None:
        roots.extend(dataset.protected_roots)
        if args.json:
            guard(args.json, roots, args.results)

    args.on_dataset = on_dataset
    out = benchmark.evaluate(args)
    for w in out.warnings:
        _warn(w)
    _emit(sys.stdout, out.text.removesuffix("\n"))
    if args.json:
        guard(args.json, roots, args.results)
        output.write_text(args.json, json.dumps(out.payload, indent=2) + "\n", roots)
    return 0


def _display_problem(screenshot: bool) -> str | None:
    """Why the GUI cannot start here, or None. Avoids Qt's platform-plugin abort."""
    if screenshot and not os.environ.get("QT_QPA_PLATFORM"):
        if sys.platform.startswith("linux") and not (
            os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
        ):
            os.environ["QT_QPA_PLATFORM"] = "offscreen"  # a screenshot needs no screen
        return None
    if os.environ.get("QT_QPA_PLATFORM") or not sys.platform.startswith("linux"):
        return None
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return None
    return (
        "no display found (neither DISPLAY nor WAYLAND_DISPLAY is set), so the window cannot open.\n"
        "  Headless alternatives:\n"
        "    vocviewer eval PATH --results R ...        evaluate and print the AP table\n"
        "    vocviewer demo --no-gui                    only write the demo dataset\n"
        "    vocviewer open PATH --screenshot out.png   render the window to a PNG\n"
        "    QT_QPA_PLATFORM=offscreen vocviewer ...    run the GUI without a screen"
    )


def _startup_probe() -> Callable[[str], None] | None:
    """With ``VOCVIEWER_STARTUP_PROBE`` set (to the launch time in seconds since the epoch, or
    to ``1`` for this process's start), a reporter that prints how long after that time the
    window's first frame, then its first image, were painted (``benchmarks/bench_startup.py``)."""
    value = os.environ.get("VOCVIEWER_STARTUP_PROBE")
    if not value:
        return None
    try:
        start = float(value)
    except ValueError:
        start = 0.0
    if start < 1e9:  # not an epoch time
        start = _process_start()

    def report(what: str) -> None:
        elapsed = time.time() - start
        cpu = time.process_time()  # this process's CPU time: less at the mercy of a busy machine
        _emit(
            sys.stderr,
            f"vocviewer: startup probe: {what} shown after {elapsed:.3f} s (CPU {cpu:.3f} s)",
        )

    return report


def _process_start() -> float:
    """When this process started (seconds since the epoch): from ``/proc`` on Linux (10 ms
    ticks), else when this module was imported."""
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - int(fields[19]) / os.sysconf("SC_CLK_TCK")
        return time.time() - age
    except (OSError, ValueError, IndexError, AttributeError):
        return _IMPORTED


_IMPORTED = time.time()


def _run_gui(
    path: Path | None,
    results: Sequence[Path],
    image_set: str | None,
    shot: Path | None,
    **sources: Path | None,
) -> int:
    if shot is not None:
        guard(shot, given_roots(path, *sources.values()), results)
    problem = _display_problem(shot is not None)
    if problem:
        _error(problem)
        return 3
    from vocviewer.gui.window.app import run_gui

    code = run_gui(
        path, results, image_set=image_set, screenshot=shot, on_shown=_startup_probe(), **sources
    )
    if shot is not None and code == 0:
        _emit(sys.stdout, str(shot))
    return code


def _cmd_demo(args: argparse.Namespace) -> int:
    from vocviewer.demo import default_demo_dir, write_demo

    root = args.dir or default_demo_dir()
    if args.screenshot is not None:  # refused before the demo is written, not after
        guard(args.screenshot, [Path(root) / "VOCdevkit"])
    paths = write_demo(root, seed=args.seed)
    _emit(sys.stdout, str(paths.year_dir))
    if args.no_gui:
        return 0
    return _run_gui(paths.year_dir, [paths.results_dir], "val", args.screenshot)


def _emit(stream: TextIO, text: str) -> None:
    """Write ``text`` and a newline. What the stream's encoding cannot hold (a non-UTF-8 file name
    kept as surrogate escapes, non-ASCII under a strict ASCII locale) is written as the file
    system's bytes (or backslash escapes), never an error."""
    line = text + "\n"
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        line.encode(encoding)
    except UnicodeEncodeError:
        try:
            data = line.encode(sys.getfilesystemencoding(), "surrogateescape")
        except UnicodeEncodeError:
            data = line.encode(encoding, "backslashreplace")
        buffer = getattr(stream, "buffer", None)
        if buffer is not None:
            stream.flush()
            buffer.write(data)
            buffer.flush()
            return
        line = line.encode(encoding, "backslashreplace").decode(encoding)
    stream.write(line)


def _error(msg: str) -> None:
    _emit(sys.stderr, f"vocviewer: error: {msg}")


def _warn(msg: str) -> None:
    _emit(sys.stderr, f"vocviewer: warning: {msg}")


def gui_main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``vocviewer-gui`` script: ``vocviewer-gui [DATASET [RESULTS ...]]``."""
    p = argparse.ArgumentParser(prog="vocviewer-gui", description="Open the vocviewer window.")
    p.add_argument("dataset", nargs="?", type=Path, help="a VOCdevkit root or year folder")
    p.add_argument("results", nargs="*", type=Path, help="result files or folders to add")
    p.add_argument("--image-set", metavar="S", help="image set to browse and evaluate")
    p.add_argument("--screenshot", type=Path, metavar="PNG", help="save the window and exit")
    args = p.parse_args(argv)
    try:
        return _run_gui(args.dataset, args.results, args.image_set, args.screenshot)
    except (FormatError, OutputError, OSError) as e:
        _error(str(e))
        return 1


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``vocviewer`` command; returns the exit code."""
    args = _build_parser().parse_args(argv)
    try:
        if args.command == "eval":
            return _cmd_eval(args)
        if args.command == "demo":
            return _cmd_demo(args)
        if args.command == "export":
            return _cmd_export(args)
        if args.command == "analyze":
            return _cmd_analyze(args)
        return _run_gui(
            args.path,
            args.results,
            args.image_set,
            args.screenshot,
            **_sources(args),
        )
    except (FormatError, OutputError) as e:
        _error(str(e))
        return 1
    except OSError as e:
        _error(f"{e.filename or ''}: {e.strerror or e}")
        return 1
