"""``vocviewer analyze``'s command line into plain values: the family chosen as ``eval`` chooses,
the ``AnalyzeRequest`` it analyses and the ``BeyondRequest`` of ``--operating-point`` /
``--calibration`` / ``--lrp``; whatever cannot be honoured is refused before anything is read
(``FormatError``). ``families.analyze.analyze`` does the rest; ``cli`` prints."""

from __future__ import annotations

import argparse
from pathlib import Path

from vocviewer.core.errors import FormatError
from vocviewer.evaluation.analyses.registry import analyses
from vocviewer.evaluation.render.analyze_report import AnalyzeOutput
from vocviewer.families.analyze import analysed, analyze
from vocviewer.families.analyze_beyond import BeyondRequest
from vocviewer.families.base import CERTAIN, AnalyzeRequest, Benchmark
from vocviewer.families.beyond_ap import BeyondOptions
from vocviewer.families.registry import choose, refuse_foreign_options, sniff
from vocviewer.formats.input import check_exist


def run_analyze(args: argparse.Namespace) -> AnalyzeOutput:
    """Analyse ``args.results`` on ``args.path`` (``args.progress``: ``(done, total)`` of the
    bootstrap, or None)."""
    if args.bootstrap < 1:
        raise FormatError(
            args.path, "--bootstrap needs at least 1 replicate (1000 or more advised)"
        )
    if not 0 < args.level < 1:
        raise FormatError(args.path, f"--level must lie between 0 and 1, got {args.level}")
    check_exist(args.results)
    sources = {o.dest: getattr(args, o.dest, None) for b in analysed() for o in b.options}
    score, sniffed = sniff(args.path, sources)
    if sniffed is not None and score >= CERTAIN and not sniffed.analyze_tasks:
        titles = ", ".join(b.title for b in analysed())
        raise FormatError(
            args.path, f"analyze: {sniffed.title} is not analysed yet (only {titles})"
        )
    benchmark = choose(args.path, args.task, args.protocol, sources, analysed())
    refuse_foreign_options(benchmark, args, "analyze")
    if getattr(args, "iou", None) is not None:  # analyze works at the protocols' own thresholds
        raise FormatError(None, "analyze: --iou is for eval (analyze uses the devkit's 0.5)")
    beyond = beyond_request(args)  # a bad value refused before anything is evaluated
    return analyze(benchmark, request_of(benchmark, args), beyond)


def request_of(benchmark: Benchmark, args: argparse.Namespace) -> AnalyzeRequest:
    """The ``AnalyzeRequest`` of ``args`` for ``benchmark`` (its options by ``dest``)."""
    return AnalyzeRequest(
        path=args.path,
        results=tuple(args.results),
        task=args.task,
        protocol=args.protocol,
        keep_going=args.keep_going,
        options={o.dest: getattr(args, o.dest, None) for o in benchmark.options},
        on_dataset=getattr(args, "on_dataset", None),
        bootstrap=args.bootstrap,
        seed=args.seed,
        level=args.level,
        n_pos=args.n_pos,
        figures=bool(getattr(args, "figures", None)),
        progress=getattr(args, "progress", None),
    )


def beyond_request(args: argparse.Namespace) -> BeyondRequest:
    """The analyses beyond AP ``args`` ask for (an output file asks for its analysis too:
    ``--deploy-thresholds``, the operating point); ``FormatError`` for an option of an analysis
    not asked for, or a bad value (the analysis's ``check``)."""
    kinds, outputs = [], []
    for a in analyses():
        given = [o.dest for o in a.outputs if getattr(args, o.dest, None) is not None]
        outputs += given
        if getattr(args, a.name, False) or given:
            kinds.append(a.name)
    values = {
        a.name: {f.name: getattr(args, f.name, f.default) for f in a.option_fields()}
        for a in analyses()
    }
    for a in analyses():
        for f in a.option_fields():
            if a.name not in kinds and values[a.name][f.name] != f.default:
                raise FormatError(None, f"analyze: --{f.name.replace('_', '-')} needs {a.flag}")
    chosen = []
    for a in analyses():
        if a.name in kinds:
            options = a.options(**values[a.name])
            try:
                a.check(options)
            except ValueError as err:
                raise FormatError(None, str(err)) from None
            chosen.append((a.name, options))
    return BeyondRequest(tuple(kinds), BeyondOptions.of_each(chosen), tuple(outputs))


def output_files(args: argparse.Namespace) -> list[tuple[str, Path]]:
    """The output files of the analyses beyond AP given (``Output.dest``, path): each is
    written from the payload's value of that name."""
    return [
        (o.dest, path)
        for a in analyses()
        for o in a.outputs
        if (path := getattr(args, o.dest, None)) is not None
    ]
