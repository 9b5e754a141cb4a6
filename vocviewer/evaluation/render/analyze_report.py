"""What ``vocviewer analyze`` returns, shared by its families: the JSON payload (layout in
``analyze``), the printed summary and the SVG figures, from the sets' entries and a bootstrap."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from vocviewer.core.arrays import nan_to_null
from vocviewer.core.result_sets import set_names as set_names
from vocviewer.evaluation.bootstrap_stats import BootstrapResult
from vocviewer.evaluation.figure_svg import pr_figure_svg
from vocviewer.evaluation.render.analyze_figures import legend_below, tide_svg
from vocviewer.evaluation.tide import TideResult


class Resampled(Protocol):
    """What the report needs of the request (``families.base.AnalyzeRequest``): the
    bootstrap's ``bootstrap`` replicates, ``seed`` and ``level``, and whether to draw
    ``figures``."""

    @property
    def bootstrap(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def level(self) -> float: ...
    @property
    def figures(self) -> bool: ...


@dataclass(frozen=True)
class AnalyzeOutput:
    """``text`` for stdout, ``payload`` for ``--json``, ``warnings`` for stderr, ``figures``
    (file name, SVG text) for ``--figures``."""

    text: str
    payload: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    figures: list[tuple[str, str]] = field(default_factory=list)
    #: per analysed set, the one evaluation its analyses read (``families.evidence.Evaluated``)
    evaluated: list[Any] = field(default_factory=list)


@dataclass
class AnalysedSet:
    """One analysed result set: its official mean AP, payload entry, TIDE breakdown and the
    evaluation they came from (``families.evidence.Evaluated``; ``None``: none kept)."""

    name: str
    point: float
    entry: dict[str, Any]
    tide: TideResult | None = None
    evaluated: Any = None


def interval_json(boot: BootstrapResult, name: str, level: float, metric: str) -> dict[str, Any]:
    """``{"point", "ci", "level", "replicates", "metric"}`` of a set's mean AP."""
    m = boot.interval(name, None, level)
    return {
        "point": nan_to_null(m.point),
        "ci": [nan_to_null(m.low), nan_to_null(m.high)],
        "level": level,
        "replicates": m.replicates,
        "metric": metric,
    }


def finish_with_ap50(
    request: Resampled,
    protocol: str,
    task: str,
    header: str,
    sets: list[AnalysedSet],
    boots: tuple[BootstrapResult, BootstrapResult],
    metrics: tuple[str, str],
    warnings: list[str],
    official: bool,
    more: Mapping[str, dict[str, Any]] | None = None,
) -> AnalyzeOutput:
    """``finish`` for a headline averaged over IoU .50:.95 (COCO, LVIS, VisDrone): ``boots`` and
    ``metrics`` are the headline's and AP50's; each set's ``"bootstrap"`` adds ``"AP50"`` (its
    interval) and ``"per_class_AP50"`` (then ``more``'s entries), and the PR bands drawn are
    AP50's (IoU 0.5)."""
    ap, ap50 = boots
    level = request.level
    extra = {
        s.name: {
            "AP50": interval_json(ap50, s.name, level, metrics[1]),
            "per_class_AP50": ap50.set_summary(s.name, level)["classes"],
            **(more or {}).get(s.name, {}),
        }
        for s in sets
    }
    return finish(
        request, protocol, task, None, header, sets, ap, metrics[0], warnings, extra, ap50, official
    )


def paired_json(boot: BootstrapResult, level: float, classes: list[str]) -> list[dict[str, Any]]:
    """``boot.paired_summary`` (mAP, A before B) with, per pair, ``"per_class"``: the difference
    of each class's AP (of ``classes`` the bootstrap holds) with its interval and verdict."""
    pairs: list[dict[str, Any]] = boot.paired_summary(level)
    known = [c for c in classes if c in boot.class_names]
    for p in pairs:
        per: dict[str, Any] = {}
        for c in known:
            d = boot.paired(p["a"], p["b"], c, level)
            per[c] = {
                "difference": nan_to_null(d.difference.point),
                "ci": [nan_to_null(d.difference.low), nan_to_null(d.difference.high)],
                "verdict": d.verdict,
            }
        p["per_class"] = per
    return pairs


def finish(
    request: Resampled,
    protocol: str,
    task: str,
    image_set: str | None,
    header: str,
    sets: list[AnalysedSet],
    boot: BootstrapResult,
    metric: str,
    warnings: list[str],
    extra: dict[str, dict[str, Any]] | None = None,
    bands: BootstrapResult | None = None,
    official: bool = True,
) -> AnalyzeOutput:
    """Payload, printed summary and figures, shared by the families. ``boot`` is the bootstrap
    of the sets' ``mAP`` (with PR bands when figures are asked for); ``extra`` adds entries to
    each set's ``"bootstrap"`` (COCO's ``AP50``); ``bands``: the bootstrap whose PR bands are
    drawn (default ``boot``); ``official`` is False when ``--keep-going`` let ground truth go."""
    level = request.level
    for s in sets:
        per_class = boot.set_summary(s.name, level)["classes"]
        s.entry["bootstrap"] = {
            "mAP": interval_json(boot, s.name, level, metric),
            **(extra or {}).get(s.name, {}),
            "per_class": per_class,
        }
    payload: dict[str, Any] = {
        "protocol": protocol,
        "task": task,
        "image_set": image_set,
        "official": official,
        "bootstrap": {"replicates": request.bootstrap, "seed": request.seed, "level": level},
        "sets": {s.name: s.entry for s in sets},
    }
    if len(sets) >= 2:
        payload["paired"] = paired_json(boot, level, list(sets[0].entry["per_class"]))
    if len(sets) >= 3:
        payload["ranks"] = {
            r.name: {"rank": r.rank, "range": [r.low, r.high]}
            for r in boot.rank_ranges(None, level)
        }
    text = summary_text(header, sets, payload, level)
    figures = _figures(sets, bands or boot, level) if request.figures else []
    evaluated = [s.evaluated for s in sets if s.evaluated is not None]
    return AnalyzeOutput(text, payload, warnings, figures, evaluated)


def summary_text(
    header: str, sets: list[AnalysedSet], payload: dict[str, Any], level: float
) -> str:
    """The printed summary: per set mAP [lo, hi] and TIDE's main dAP; paired verdicts; ranks."""
    b = payload["bootstrap"]
    lines = [
        header,
        f"bootstrap over images: {b['replicates']} replicates, seed {b['seed']}, "
        f"{level:.0%} percentile intervals",
        "",
    ]
    width = max(12, *(len(s.name) for s in sets))
    lines.append(f"{'set':<{width}}  {'mAP':>6}  {level:.0%} interval")
    for s in sets:
        m = s.entry["bootstrap"]["mAP"]
        lo, hi = m["ci"]
        lines.append(f"{s.name:<{width}}  {_f(m['point'])}  [{_f(lo)}, {_f(hi)}]")
    tide = [s for s in sets if s.tide is not None]
    if tide:
        main, special = ("Cls", "Loc", "Both", "Dupe", "Bkg", "Miss"), ("FalsePos", "FalseNeg")
        lines += [
            "",
            "TIDE: AP points gained by fixing each error type alone (IoU 0.5), and the special",
            f"{'set':<{width}}  "
            + " ".join(f"{c:>5}" for c in main)
            + "  "
            + " ".join(f"{c:>8}" for c in special),
        ]
        lines += [
            f"{s.name:<{width}}  "
            + " ".join(f"{s.tide.main[c]:5.2f}" for c in main)
            + "  "
            + " ".join(f"{s.tide.special[c]:8.2f}" for c in special)
            for s in tide
            if s.tide is not None
        ]
    for s in sets:
        lines += per_class_lines(s, level)
    for p in payload.get("paired", ()):
        if p is payload["paired"][0]:
            lines += ["", "paired difference of mAP (A - B, same resampled images):"]
        lo, hi = p["ci"]
        lines.append(
            f"  {p['a']} - {p['b']}: {_f(p['difference'], '+')} [{_f(lo, '+')}, {_f(hi, '+')}]"
            f"  {p['verdict']}"
        )
    if "ranks" in payload:
        lines += ["", "rank by mAP (range over the replicates):"]
        lines += [
            f"  {n}: {r['rank']} [{r['range'][0]}, {r['range'][1]}]"
            for n, r in payload["ranks"].items()
        ]
    return "\n".join(lines) + "\n"


def per_class_lines(s: AnalysedSet, level: float) -> list[str]:
    """A set's table: per class its AP with the bootstrap interval and its normalised AP (eq.
    5-6, with the ``N`` used), in the family's units; none if the entry has no per-class AP.
    Each normalised AP column is labelled by its IoU (``normalised_ap.columns``: label -> key
    of ``per_class``, e.g. ``AP_N[.5:.95]`` and ``AP_N@0.50``), as the window labels its own."""
    per_class, boot = s.entry.get("per_class", {}), s.entry["bootstrap"].get("per_class", {})
    rows = [(c, v) for c, v in per_class.items() if isinstance(v, dict) and "ap" in v]
    if not rows:
        return []
    norm = s.entry.get("normalised_ap", {})
    n_pos, columns = norm.get("n_pos"), norm.get("columns", {"AP_N": "ap_n"})
    n = "" if n_pos is None else f", N = {n_pos:.1f}"
    width = max(12, *(len(c) for c, _ in rows))
    heads = "  ".join(f"{label:>{max(7, len(label))}}" for label in columns)
    lines = [
        "",
        f"{s.name}: per class AP, its {level:.0%} interval and normalised AP (AP_N{n})",
        f"{'class':<{width}}  {'AP':>7}  {'interval':<18}  {heads}",
    ]
    for c, v in rows:
        lo, hi = boot.get(c, {}).get("ci", (None, None))
        ci = f"[{_f(lo)}, {_f(hi)}]"
        cells = "  ".join(f"{_f(v.get(k)):>{max(7, len(lb))}}" for lb, k in columns.items())
        lines.append(f"{c:<{width}}  {_f(v['ap']):>7}  {ci:<18}  {cells}")
    return lines


def _f(v: float | None, sign: str = "") -> str:
    return "nan" if v is None else f"{v:{sign}.3f}"


def _figures(sets: list[AnalysedSet], boot: BootstrapResult, level: float) -> list[tuple[str, str]]:
    """``tide_<set>.svg`` per set with a breakdown and ``pr_<class>.svg`` with bands per class."""
    out: list[tuple[str, str]] = []
    for s in sets:
        if s.tide is not None:
            title = f"{s.name}: TIDE dAP (TIDE AP50 {s.tide.ap:.2f})"
            out.append((f"tide_{s.name}.svg", tide_svg(title, s.tide.main, s.tide.special)))
    if not len(boot.recall_grid):
        return out
    for k, cls in enumerate(boot.class_names):
        if cls not in sets[0].entry["per_class"] or np.all(np.isnan(boot.point_ap[:, k])):
            continue  # not submitted (VOC) or no ground truth
        curves, bands = [], []
        for s in sets:
            grid, point, lo, hi = boot.pr_band(s.name, cls, level)
            curves.append(
                (s.name, grid, point, float(boot.point_ap[boot.set_names.index(s.name), k]))
            )
            bands.append((grid, lo, hi))
        title = f"{cls} (interpolated precision, {level:.0%} bootstrap band)"
        out.append((f"pr_{cls}.svg", legend_below(pr_figure_svg(title, curves, bands=bands))))
    return out
