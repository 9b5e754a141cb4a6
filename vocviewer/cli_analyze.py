"""``vocviewer analyze``'s command line into plain values: the family chosen as ``eval`` chooses,
the ``AnalyzeRequest`` it analyses and the ``BeyondRequest`` of ``--operating-point`` /
``--calibration`` / ``--lrp``; whatever cannot be honoured is refused before anything is read
(``FormatError``). ``families.analyze.analyze`` does the rest; ``cli`` prints."""

from __future__ import annotations

import argparse
from typing import Any

from vocviewer.core.errors import FormatError
from vocviewer.evaluation.render.analyze_report import AnalyzeOutput
from vocviewer.families.analyze import analysed, analyze
from vocviewer.families.analyze_beyond import SECTIONS, BeyondRequest, checked
from vocviewer.families.base import CERTAIN, AnalyzeRequest, Benchmark
from vocviewer.families.beyond_ap import BeyondOptions
from vocviewer.families.registry import choose, refuse_foreign_options, sniff
from vocviewer.formats.input import check_exist

#: Options of one analysis beyond AP: refused without it (never silently ignored), with their
#: defaults.
NEEDS: dict[str, dict[str, Any]] = {
    "operating_point": {
        "beta": 1.0,
        "target_precision": None,
        "target_recall": None,
        "threshold": None,
    },
    "calibration": {"bins": 10, "sample_threshold": 1, "multivariate": False},
}


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
    """The analyses beyond AP ``args`` ask for (``--deploy-thresholds``: the operating point
    too); ``FormatError`` for an option of an analysis not asked for, or a bad value."""
    deploy = getattr(args, "deploy_thresholds", None) is not None
    kinds = tuple(
        k for k in SECTIONS if getattr(args, k, False) or (deploy and k == "operating_point")
    )
    for kind, defaults in NEEDS.items():
        for dest, default in defaults.items():
            if kind not in kinds and getattr(args, dest, default) != default:
                flag, need = dest.replace("_", "-"), kind.replace("_", "-")
                raise FormatError(None, f"analyze: --{flag} needs --{need}")
    given = {dest: getattr(args, dest, d) for v in NEEDS.values() for dest, d in v.items()}
    options = checked(BeyondOptions(**given)) if kinds else BeyondOptions()
    return BeyondRequest(kinds, options, deploy)
