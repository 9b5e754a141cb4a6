"""``vocviewer analyze --operating-point / --calibration / --lrp``: the analyses beyond AP
(``families.beyond_ap``) of each result set, added to what the family's own analyze returns.

Each set's analyses read the one evaluation the family's analysis made of it
(``AnalyzeOutput.evaluated``: the verdicts ``eval`` gives, at the family's official choice); its
entry in the JSON's ``"sets"`` gains ``"operating_point"``
(and ``"confusion"``), ``"calibration"``, ``"lrp"`` as asked; the text gains a table per set
(``beyond_ap.beyond_text``); the figures gain ``threshold_<set>`` (overall P / R / F1 against
the score threshold) and ``reliability_<set>`` (overall reliability diagram).
``--deploy-thresholds FILE`` writes the first set's best thresholds (class -> threshold) as JSON.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any

from vocviewer.core.errors import FormatError
from vocviewer.evaluation.render.analyze_report import AnalyzeOutput
from vocviewer.evaluation.render.beyond_ap_svg import reliability_svg, threshold_svg
from vocviewer.families.beyond_ap import (
    BeyondAP,
    BeyondOptions,
    beyond_ap,
    beyond_text,
)

#: The sections of the JSON each flag adds.
SECTIONS = {
    "operating_point": ("operating_point", "confusion"),
    "calibration": ("calibration",),
    "lrp": ("lrp", "lrp_note"),
}


#: Options of one analysis: refused without it (never silently ignored), with their defaults.
NEEDS: dict[str, dict[str, Any]] = {
    "operating_point": {
        "beta": 1.0,
        "target_precision": None,
        "target_recall": None,
        "threshold": None,
    },
    "calibration": {"bins": 10, "sample_threshold": 1, "multivariate": False},
}


def asked(args: argparse.Namespace) -> list[str]:
    """The analyses beyond AP that ``args`` ask for (``--deploy-thresholds``: the operating
    point)."""
    deploy = getattr(args, "deploy_thresholds", None) is not None
    return [k for k in SECTIONS if getattr(args, k, False) or (deploy and k == "operating_point")]


def check_options(args: argparse.Namespace) -> None:
    """``FormatError`` for an option of an analysis not asked for, or a bad value."""
    kinds = asked(args)
    for kind, defaults in NEEDS.items():
        for dest, default in defaults.items():
            if kind not in kinds and getattr(args, dest, default) != default:
                flag, need = dest.replace("_", "-"), kind.replace("_", "-")
                raise FormatError(None, f"analyze: --{flag} needs --{need}")
    if kinds:
        options_of(args)


def options_of(args: argparse.Namespace) -> BeyondOptions:
    """The ``BeyondOptions`` of ``args`` (``FormatError`` for a bad value)."""
    o = BeyondOptions(
        beta=getattr(args, "beta", 1.0),
        target_precision=getattr(args, "target_precision", None),
        target_recall=getattr(args, "target_recall", None),
        bins=getattr(args, "bins", 10),
        sample_threshold=getattr(args, "sample_threshold", 1),
        multivariate=getattr(args, "multivariate", False),
        threshold=getattr(args, "threshold", None),
    )
    if not o.beta > 0:
        raise FormatError(None, f"--beta must be positive, got {o.beta}")
    if o.target_precision is not None and o.target_recall is not None:
        raise FormatError(None, "give --target-precision or --target-recall, not both")
    for flag, t in (
        ("--target-precision", o.target_precision),
        ("--target-recall", o.target_recall),
    ):
        if t is not None and not 0 <= t <= 1:
            raise FormatError(None, f"{flag} must lie in [0, 1], got {t}")
    if o.bins < 1:
        raise FormatError(None, f"--bins needs at least 1 bin, got {o.bins}")
    return o


def analyse_sets(out: AnalyzeOutput, opts: BeyondOptions) -> list[BeyondAP]:
    """The analyses beyond AP of every analysed set, in order, from the evaluation the family's
    analysis read (``out.evaluated``): nothing is evaluated again."""
    names = list(out.payload.get("sets", {}))
    if len(out.evaluated) != len(names):
        raise FormatError(None, f"{len(out.evaluated)} evaluations for {len(names)} analysed sets")
    for e in out.evaluated:
        if not e.evidence.evaluations("det"):
            task = out.payload.get("task")
            raise FormatError(None, f"analyze: the analyses beyond AP read detections, not {task}")
        if len(e.results.detections) == 0:
            raise FormatError(
                e.results.files[0] if e.results.files else None, "no detections to analyse"
            )
    return [beyond_ap(e.dataset, e.results, e.evidence, opts) for e in out.evaluated]


def add_beyond_ap(args: argparse.Namespace, out: AnalyzeOutput) -> AnalyzeOutput:
    """``out`` with the analyses ``args`` ask for (module docstring); ``out`` itself if none."""
    kinds = asked(args)
    if not kinds:
        return out
    payload = out.payload
    results = analyse_sets(out, options_of(args))
    names = list(payload.get("sets", {}))
    text = [out.text.rstrip("\n"), ""]
    figures = list(out.figures)
    for name, b in zip(names, results, strict=True):
        full = b.to_dict()
        entry = payload["sets"][name]
        entry["beyond_iou"] = full["iou"]
        for kind in kinds:
            entry.update({k: full[k] for k in SECTIONS[kind] if k in full})
        text.append(beyond_text(name, b).rstrip("\n"))
        if not getattr(args, "figures", None):
            continue
        if "operating_point" in kinds:
            figures.append(
                (
                    f"threshold_{name}.svg",
                    threshold_svg(f"{name}: all classes", b.op.overall, b.op.overall_best),
                )
            )
        if "calibration" in kinds:
            figures.append(
                (f"reliability_{name}.svg", reliability_svg(f"{name}: all classes", b.overall))
            )
    deploy: Path | None = getattr(args, "deploy_thresholds", None)
    if deploy is not None:
        payload["deploy_thresholds"] = results[0].op.thresholds()
    return replace(out, text="\n".join(text) + "\n", payload=payload, figures=figures)
