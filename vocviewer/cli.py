"""The ``vocviewer`` command line. The only module that writes to stdout/stderr.

Commands: ``demo`` (write and open the embedded demo), ``open`` (the GUI on a dataset or a saved
session file, optionally saving a screenshot and exiting), ``eval`` (headless evaluation with a
printed table and JSON), ``analyze``, ``suspects`` (the label-error queue), ``reconcile``,
``convert``, ``subset`` (chosen images as a new dataset folder) and ``export`` (PR figures, annotated images and AP tables to files; Qt offscreen).
Qt is imported only by the GUI commands, so ``eval`` starts fast and runs without a display.
Every file goes through ``formats.output``: a target inside the dataset's folders or over an input
is refused (before any work where the folders are known: ``cli_outputs``), with exit code 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import fields, replace
from pathlib import Path
from typing import TextIO, TypeVar

from vocviewer import cli_env, kernel  # noqa: F401  (cli_env first: before numpy loads)
from vocviewer.cli_outputs import given_roots, guard, guard_json, guard_outputs
from vocviewer.cli_parser import build_parser, command_of
from vocviewer.cli_streams import is_pipe, std_stream
from vocviewer.core.errors import FormatError, OutputError
from vocviewer.families import registry
from vocviewer.families.base import EvalRequest
from vocviewer.formats import output

R = TypeVar("R")  # a request dataclass (_request)


def _request(kind: type[R], args: argparse.Namespace) -> R:
    """The plain-valued request ``kind`` (a dataclass) from the parsed ``args`` of its fields
    (lists as tuples; a field no option gave keeps its default)."""
    names = [f.name for f in fields(kind)]  # type: ignore[arg-type]
    given = {f: getattr(args, f) for f in names if hasattr(args, f)}
    return kind(**{k: tuple(v) if isinstance(v, list) else v for k, v in given.items()})


def _sources(args: argparse.Namespace) -> dict[str, Path | None]:
    """The dataset folders given by family options (``CliOption.source``: ``--images``, ...)."""
    return {
        o.dest: getattr(args, o.dest, None)
        for b in registry.families()
        for o in b.options
        if o.source
    }


def _cmd_analyze(args: argparse.Namespace) -> int:
    from vocviewer.cli_analyze import output_files, run_analyze

    roots = given_roots(args.path, *_sources(args).values())
    files = output_files(args)  # the analyses' own (``--deploy-thresholds``)
    targets = [(args.json, "json"), (args.figures, "folder"), *((p, "json") for _, p in files)]
    check = guard_outputs(args, roots, targets)
    tty = sys.stderr.isatty()
    args.progress = (lambda d, n: sys.stderr.write(f"\rbootstrap {d}/{n}\x1b[K")) if tty else None
    out = run_analyze(args)
    if tty:
        sys.stderr.write("\r\x1b[K")
    for w in out.warnings:
        _warn(w)
    text = _text_stream(args)
    _emit(text, out.text.removesuffix("\n"))
    check()
    if args.json:
        _write_json(args.json, out.payload, roots)
    for dest, path in files:
        _write_json(path, out.payload.get(dest, {}), roots)
    for name, svg in out.figures:
        target = output.child_path(args.figures, f"{Path(name).stem}.{args.format}")
        if args.format == "svg":
            written = output.write_text(target, svg, roots)
        else:
            written = output.write_bytes(target, _raster(svg, args.format, args.dpi), roots)
        _emit(text, str(written))
    return 0


def _cmd_suspects(args: argparse.Namespace) -> int:
    from vocviewer.families.suspects import run_suspects

    roots = given_roots(args.path, *_sources(args).values())
    check = guard_outputs(args, roots, [(args.json, "json")])
    text, payload = run_suspects(
        args.path,
        args.results,
        min_score=args.min_score,
        top=args.top,
        image_set=getattr(args, "image_set", None),
        images=getattr(args, "images", None),
        devkit=getattr(args, "devkit", None),
        on_dataset=getattr(args, "on_dataset", None),
    )
    _emit(_text_stream(args), text.removesuffix("\n"))
    check()
    if args.json:
        _write_json(args.json, payload, roots)
    return 0


def _cmd_subset(args: argparse.Namespace) -> int:
    from vocviewer.families.subset_run import SubsetRequest, run_subset

    guard(args.out, given_roots(args.path, *_sources(args).values()), args.results, folder=True)
    for msg in run_subset(_request(SubsetRequest, args)):
        _emit(sys.stdout, msg)
    return 0


def _cmd_reconcile(args: argparse.Namespace) -> int:
    from vocviewer.families.reconciling import reconcile_with

    sources = _sources(args)
    roots = given_roots(args.path, *sources.values())
    check = guard_outputs(args, roots, [(args.json, "json")])
    benchmark = registry.choose(args.path, None, args.protocol, sources)  # as eval chooses
    registry.refuse_foreign_options(benchmark, args)
    request = EvalRequest(
        path=args.path,
        results=tuple(args.results),
        task=benchmark.tasks[0],  # box detection: bbox, det
        protocol=args.protocol,
        options={o.dest: getattr(args, o.dest, None) for o in benchmark.options},
        on_dataset=getattr(args, "on_dataset", None),
    )
    result = reconcile_with(benchmark, request)
    _emit(_text_stream(args), "\n".join(result.lines()))
    check()
    if args.json:
        _write_json(args.json, result.to_json(), roots)
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
    from vocviewer.gui.window.export_run import ExportRequest, run_export

    roots = given_roots(args.path)  # (--images is an output folder here)
    if args.table:
        guard(args.table, roots, args.results)
    for folder in (args.pr_curves, args.images):
        if folder:
            guard(folder, roots, args.results, folder=True)
    try:
        written = run_export(_request(ExportRequest, args), roots)
    except (KeyError, ValueError) as e:
        _error(f"export: {e}")
        return 1
    for path in written:
        _emit(sys.stdout, str(path))
    return 0


def _text_stream(args: argparse.Namespace) -> TextIO:
    """Where the printed text goes: stdout, or stderr when ``--json`` writes to stdout."""
    target = getattr(args, "json", None)
    return sys.stderr if target is not None and std_stream(target) is sys.stdout else sys.stdout


def _write_json(target: Path, payload: dict[str, object], roots: Sequence[Path]) -> None:
    """``payload`` as indented JSON to the ``--json`` target: a standard stream, a pipe (written
    as it is) or a file (``formats.output``: atomic, never inside ``roots``)."""
    text = json.dumps(payload, indent=2) + "\n"
    stream = std_stream(target)
    if stream is not None:
        stream.flush()
        _emit(stream, text.removesuffix("\n"))
        stream.flush()
    elif is_pipe(target):
        try:
            with open(target, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            raise OutputError(target, f"cannot write: {e.strerror or e}") from None
    else:
        output.write_text(target, text, roots)


def _cmd_eval(args: argparse.Namespace) -> int:
    sources = _sources(args)
    benchmark = registry.choose(args.path, args.task, args.protocol, sources)
    registry.refuse_foreign_options(benchmark, args)
    if args.task is None:
        args.task = benchmark.tasks[0]
    roots = given_roots(args.path, *sources.values())
    guard_outputs(args, roots, [(args.json, "json")])
    sets = benchmark.result_sets(args.results, args.task)
    request = EvalRequest(
        path=args.path,
        results=tuple(args.results),
        task=args.task,
        protocol=args.protocol,
        keep_going=args.keep_going,
        options={o.dest: getattr(args, o.dest, None) for o in benchmark.options},
        on_dataset=getattr(args, "on_dataset", None),
    )
    if len(sets) == 1:  # one set: the family's own output and JSON, unchanged
        out = benchmark.evaluate(request)
    else:  # each set evaluated as if given alone, then a summary with a column per set
        from vocviewer.families.eval_sets import combine

        outs = [
            (name, paths, benchmark.evaluate(replace(request, results=tuple(paths))))
            for name, paths in sets
        ]
        out = combine(outs)
    for w in out.warnings:
        _warn(w)
    _emit(_text_stream(args), out.text.removesuffix("\n"))
    if args.json:
        guard_json(args.json, roots, args.results)
        _write_json(args.json, out.payload, roots)
    return 0


def _cmd_convert(args: argparse.Namespace) -> int:
    options = {o.dest: getattr(args, o.dest, None) for b in registry.families() for o in b.options}
    task = "segm" if args.task == "boundary" else args.task  # Boundary AP's data are masks
    for msg in registry.convert(args.path, args.to, args.out, args.results, task, options):
        _emit(sys.stdout, msg)
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
    window's first frame, then its first image, were painted (``bench/bench_startup.py``)."""
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
    session: Path | None = None,
    **sources: Path | None,
) -> int:
    if shot is not None:
        guard(shot, given_roots(path, *sources.values()), results)
    problem = _display_problem(shot is not None)
    if problem:
        _error(problem)
        return 3
    sets = registry.result_sets_of(path, results, sources)
    from vocviewer.gui.startup import begin

    begin()  # (no automatic collection during the window's imports)
    if path is not None:  # a JSON dataset, its first results and evaluation start while Qt loads
        from vocviewer.gui.models.tasks import prefetch_open

        prefetch_open(path, sets[0] if sets else (), **sources)
    from vocviewer.gui.window.app import run_gui

    code = run_gui(
        path,
        result_sets=sets,
        image_set=image_set,
        screenshot=shot,
        on_shown=_startup_probe(),
        session=session,
        **sources,
    )
    if shot is not None and code == 0:
        _emit(sys.stdout, str(shot))
    return code


def _open_session(args: argparse.Namespace) -> int:
    """``vocviewer open SESSION.json``: the session's dataset, result sets and view (values it
    cannot use are warned about and left at their defaults)."""
    if args.results or args.image_set or any(_sources(args).values()):
        _error(f"{args.path}: a session names its own dataset and results; open it alone")
        return 2
    from vocviewer.formats.session import read_session

    session, problems = read_session(args.path)
    for problem in problems:
        _warn(str(problem))
    inputs = [p for paths in session.result_sets for p in paths]
    shot = args.screenshot
    if shot is not None:  # nor over the session file
        guard(shot, [], [args.path])
    return _run_gui(session.dataset, inputs, None, shot, args.path, **session.sources)


def _cmd_demo(args: argparse.Namespace) -> int:
    from vocviewer.demo import default_demo_dir, write_demo

    root = args.dir or default_demo_dir()
    if args.screenshot is not None:  # refused before the demo is written, not after
        guard(args.screenshot, [Path(root) / "VOCdevkit"])
    paths = write_demo(root, seed=args.seed)
    _emit(sys.stdout, str(paths.year_dir))
    if args.no_gui:
        return 0
    return _run_gui(paths.year_dir, list(paths.result_sets), "val", args.screenshot)


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
    """Entry point of the ``vocviewer-gui`` script: ``vocviewer-gui [DATASET [RESULTS ...]]``
    or ``vocviewer-gui SESSION.json`` (what a file manager passes)."""
    p = argparse.ArgumentParser(prog="vocviewer-gui", description="Open the vocviewer window.")
    p.add_argument("dataset", nargs="?", type=Path, help="a VOCdevkit root or year folder")
    p.add_argument("results", nargs="*", type=Path, help="result files or folders to add")
    p.add_argument("--image-set", metavar="S", help="image set to browse and evaluate")
    p.add_argument("--screenshot", type=Path, metavar="PNG", help="save the window and exit")
    args = p.parse_args(argv)
    from vocviewer.formats.session import looks_like_session  # (not imported by the other commands)

    try:
        if args.dataset is not None and looks_like_session(args.dataset):
            return _run_gui(None, (), None, args.screenshot, args.dataset)
        return _run_gui(args.dataset, args.results, args.image_set, args.screenshot)
    except (FormatError, OutputError, OSError) as e:
        _error(str(e))
        return 1


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``vocviewer`` command; returns the exit code."""
    words = sys.argv[1:] if argv is None else argv
    args = build_parser(command_of(words)).parse_args(words)
    try:
        if args.command == "eval":
            return _cmd_eval(args)
        if args.command == "demo":
            return _cmd_demo(args)
        if args.command == "export":
            return _cmd_export(args)
        if args.command == "analyze":
            return _cmd_analyze(args)
        if args.command == "convert":
            return _cmd_convert(args)
        if args.command == "subset":
            return _cmd_subset(args)
        if args.command == "suspects":
            return _cmd_suspects(args)
        if args.command == "reconcile":
            return _cmd_reconcile(args)
        from vocviewer.formats.session import looks_like_session  # (``open`` alone needs it)

        if looks_like_session(args.path):
            return _open_session(args)
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
    except MemoryError:
        _error("out of memory: the input needs more memory than this machine has")
        return 1
    finally:
        _kernel_notice()


def _kernel_notice() -> None:
    """One line on stderr when the command wanted a compiled kernel this install lacks."""
    if missing := kernel.missing():
        _emit(
            sys.stderr,
            f"vocviewer: note: compiled kernel {', '.join(missing)} not built in this install: "
            "the slower numpy path ran instead (same numbers); reinstall with a C compiler",
        )
