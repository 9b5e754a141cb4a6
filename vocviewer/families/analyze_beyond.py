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

from dataclasses import dataclass, field, replace

from vocviewer.core.errors import FormatError
from vocviewer.evaluation.render.analyze_report import AnalyzeOutput
from vocviewer.evaluation.render.beyond_ap_svg import reliability_svg, threshold_svg
from vocviewer.families.beyond_ap import (
    BeyondAP,
    BeyondOptions,
    beyond_ap,
    beyond_text,
)
from vocviewer.families.evidence import Evaluated

#: The sections of the JSON each flag adds.
SECTIONS = {
    "operating_point": ("operating_point", "confusion"),
    "calibration": ("calibration",),
    "lrp": ("lrp", "lrp_note"),
}


@dataclass(frozen=True)
class BeyondRequest:
    """The analyses beyond AP asked for (``kinds``: keys of ``SECTIONS``, in that order), their
    ``options``, and ``deploy``: the first set's best thresholds go into the payload's
    ``"deploy_thresholds"``."""

    kinds: tuple[str, ...] = ()
    options: BeyondOptions = field(default_factory=BeyondOptions)
    deploy: bool = False


def checked(o: BeyondOptions) -> BeyondOptions:
    """``o``, or ``FormatError`` naming the flag of a bad value."""
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
    evaluated: list[Evaluated] = out.evaluated
    if len(evaluated) != len(names):
        raise FormatError(None, f"{len(evaluated)} evaluations for {len(names)} analysed sets")
    for e in evaluated:
        if not e.evidence.evaluations("det"):
            task = out.payload.get("task")
            raise FormatError(None, f"analyze: the analyses beyond AP read detections, not {task}")
        if len(e.results.detections) == 0:
            raise FormatError(
                e.results.files[0] if e.results.files else None, "no detections to analyse"
            )
    return [beyond_ap(e.dataset, e.results, e.evidence, opts) for e in evaluated]


def add_beyond_ap(beyond: BeyondRequest, out: AnalyzeOutput, draw: bool) -> AnalyzeOutput:
    """``out`` with the analyses ``beyond`` asks for (module docstring; ``draw``: their figures
    too); ``out`` itself if none."""
    kinds = beyond.kinds
    if not kinds:
        return out
    payload = out.payload
    results = analyse_sets(out, beyond.options)
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
        if not draw:
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
    if beyond.deploy:
        payload["deploy_thresholds"] = results[0].op.thresholds()
    return replace(out, text="\n".join(text) + "\n", payload=payload, figures=figures)
