"""``vocviewer analyze --operating-point / --calibration / --lrp`` (and any other registered
analysis, ``evaluation.analyses.registry``): the analyses beyond AP (``families.beyond_ap``) of
each result set, added to what the family's own analyze returns.

Each set's analyses read the one evaluation the family's analysis made of it
(``AnalyzeOutput.evaluated``: the verdicts ``eval`` gives, at the family's official choice); its
entry in the JSON's ``"sets"`` gains ``"beyond_iou"`` and each asked analysis's keys
(``"operating_point"`` and ``"confusion"``, ``"calibration"``, ``"lrp"``, ...); the text gains a
table per set with the asked analyses' columns (``beyond_ap.beyond_text``); the figures gain each
asked analysis's (``threshold_<set>``: overall P / R / F1 against the score threshold,
``reliability_<set>``: the overall reliability diagram). An analysis's output file
(``--deploy-thresholds FILE``: the first set's best thresholds, class -> threshold) goes into the
payload under its name for the command line to write.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from vocviewer.core.errors import FormatError
from vocviewer.evaluation.analyses.registry import analyses
from vocviewer.evaluation.render.analyze_report import AnalyzeOutput
from vocviewer.families.beyond_ap import BeyondAP, BeyondOptions, beyond_ap, beyond_text
from vocviewer.families.evidence import Evaluated


@dataclass(frozen=True)
class BeyondRequest:
    """The analyses beyond AP asked for (``kinds``: analysis names, in registry order), their
    ``options``, and ``outputs``: the output files asked for (``Output.dest``), whose values go
    into the payload under that name."""

    kinds: tuple[str, ...] = ()
    options: BeyondOptions = field(default_factory=BeyondOptions)
    outputs: tuple[str, ...] = ()


def analyse_sets(out: AnalyzeOutput, beyond: BeyondRequest) -> list[BeyondAP]:
    """The analyses ``beyond`` asks for of every analysed set, in order, from the evaluation the
    family's analysis read (``out.evaluated``): nothing is evaluated again."""
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
    return [
        beyond_ap(e.dataset, e.results, e.evidence, beyond.options, beyond.kinds) for e in evaluated
    ]


def add_beyond_ap(beyond: BeyondRequest, out: AnalyzeOutput, draw: bool) -> AnalyzeOutput:
    """``out`` with the analyses ``beyond`` asks for (module docstring; ``draw``: their figures
    too); ``out`` itself if none."""
    if not beyond.kinds:
        return out
    payload = out.payload
    results = analyse_sets(out, beyond)
    names = list(payload.get("sets", {}))
    text = [out.text.rstrip("\n"), ""]
    figures = list(out.figures)
    for name, b in zip(names, results, strict=True):
        full = b.to_dict()
        entry = payload["sets"][name]
        entry["beyond_iou"] = full.pop("iou")
        entry.update(full)
        text.append(beyond_text(name, b).rstrip("\n"))
        if draw:
            for r in b.results.values():
                title = f"{name}: all classes"
                figures += [(f"{kind}_{name}.svg", svg) for kind, svg in r.figures(title)]
    for a in analyses():
        for o in a.outputs:
            if o.dest in beyond.outputs:
                payload[o.dest] = o.value(results[0][a.name])
    return replace(out, text="\n".join(text) + "\n", payload=payload, figures=figures)


def figure_kinds() -> tuple[str, ...]:
    """The kinds of figure the registered analyses draw (one file per set each)."""
    return tuple(k for a in analyses() for k in a.figures)
