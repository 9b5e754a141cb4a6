"""``vocviewer analyze``: what each error costs (TIDE), bootstrap intervals, paired differences,
rank ranges and normalised AP for one or more result sets, as a printed summary, JSON and figures.

Families: VOC detection and classification (``--task det|cls``), COCO boxes (``--task bbox`` or an
annotation ``.json``). Each ``--results`` path is one result set, named by its file or folder
name (made unique with ``-2``, ``-3``, ...). The JSON (``run_analyze(...).payload``)::

    {"protocol", "task", "image_set", "bootstrap": {"replicates", "seed", "level"},
     "sets": {name: {"mAP", "per_class": {class: {"ap", "ap_n"}}, "normalised_ap": {"n_pos", ...},
                     "tide": {"main": {...}, "special": {...}, "ap", "counts"},   # boxes only
                     "bootstrap": {"mAP": {"point", "ci", "level", "replicates", "metric"},
                                   "per_class": {class: {"point", "ci"}}}}},
     "paired": [{"a", "b", "difference", "ci", "level", "verdict"}],   # two or more sets
     "ranks": {name: {"rank", "range"}}}                                # three or more sets

VOC: ``mAP`` is VOC's own mean AP (the evaluation's AP rule) and its bootstrap; normalised AP
(IJCV 2015 eq. 5-6) beside AP, ``N`` the paper's mean positives per class unless ``--n-pos``;
TIDE (detection) from ``tide_voc``. COCO: ``mAP`` is COCOeval's AP@[.50:.95] (summary "AP"),
``AP50`` its AP at IoU 0.5 (summary "AP50"), both bootstrapped (``bootstrap_coco``); TIDE from
``tide_coco`` (tidecv's units: AP points at IoU 0.5). COCO has no normalised AP here.
Nothing here prints; ``cli`` prints the text and writes the JSON and the figures.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vocviewer.commands import opened
from vocviewer.commands.analyze_figures import tide_svg
from vocviewer.commands.voc import check_ground_truth, infer_image_set, problems_error
from vocviewer.core.errors import FormatError
from vocviewer.evaluation.bootstrap import EvidenceSet, bootstrap
from vocviewer.evaluation.bootstrap_stats import BootstrapResult
from vocviewer.evaluation.figure_svg import pr_figure_svg
from vocviewer.evaluation.tide import TideResult

#: Recall levels of the PR bands (VOC; COCO uses its own 101 recall thresholds, the same values).
RECALL_GRID = np.linspace(0.0, 1.0, 101)
COCO_MAP = "COCO AP@[.50:.95], area all, maxDets 100 (summary 'AP')"
COCO_AP50 = "COCO AP@0.50, area all, maxDets 100 (summary 'AP50')"


@dataclass(frozen=True)
class AnalyzeOutput:
    """``text`` for stdout, ``payload`` for ``--json``, ``warnings`` for stderr, ``figures``
    (file name, SVG text) for ``--figures``."""

    text: str
    payload: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    figures: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class _Set:
    """One analysed result set: its official mean AP, payload entry and TIDE breakdown."""

    name: str
    point: float
    entry: dict[str, Any]
    tide: TideResult | None = None


def set_names(paths: Sequence[Path]) -> list[str]:
    """Each path's file or folder name, made unique (``name``, ``name-2``, ...)."""
    names: list[str] = []
    for p in paths:
        base = Path(p).name or str(p)
        name, n = base, 1
        while name in names:
            n += 1
            name = f"{base}-{n}"
        names.append(name)
    return names


def is_coco(args: argparse.Namespace) -> bool:
    """COCO when asked for (``--task bbox``, ``--protocol coco``) or given an annotation JSON."""
    return args.task == "bbox" or args.protocol == "coco" or args.path.suffix.lower() == ".json"


def run_analyze(args: argparse.Namespace) -> AnalyzeOutput:
    """Analyse ``args.results`` on ``args.path``. ``args``: ``task``, ``protocol``, ``image_set``,
    ``images``, ``bootstrap`` (replicates), ``seed``, ``level``, ``n_pos``, ``figures`` (whether
    to build figures), ``progress`` (``(done, total)`` callback or None)."""
    if args.bootstrap < 1:
        raise FormatError(
            args.path, "--bootstrap needs at least 1 replicate (1000 or more advised)"
        )
    if not 0 < args.level < 1:
        raise FormatError(args.path, f"--level must lie between 0 and 1, got {args.level}")
    if is_coco(args):
        from vocviewer.commands.analyze_coco import analyze_coco

        return analyze_coco(args)
    return _analyze_voc(args)


def _analyze_voc(args: argparse.Namespace) -> AnalyzeOutput:
    from vocviewer.evaluation.bootstrap_voc import voc_cls_evidence, voc_det_evidence
    from vocviewer.evaluation.normalised_ap import default_normalisers, normalised_aps
    from vocviewer.evaluation.tide_voc import voc_tide
    from vocviewer.evaluation.voc import PROTOCOL_AP_RULES, evaluate_voc_cls, evaluate_voc_det
    from vocviewer.formats.detect import open_dataset, open_results

    task = args.task or "det"
    if task not in ("det", "cls"):
        raise FormatError(args.path, f"analyze: --task {task} is not det, cls (VOC) or bbox (COCO)")
    image_set = args.image_set or infer_image_set(args.results, task)
    if image_set is None:
        raise FormatError(
            args.results[0],
            "cannot tell the image set from the result file names; pass --image-set",
        )
    dataset = opened(args, open_dataset(args.path))
    if task == "det":
        check_ground_truth(dataset, False)
    warnings = [str(p) for p in dataset.problems]
    rule = PROTOCOL_AP_RULES.get(args.protocol) if args.protocol else None
    sets: list[_Set] = []
    evidence: list[EvidenceSet] = []
    for name, path in zip(set_names(args.results), args.results, strict=True):
        results = open_results(dataset, [path], image_set=image_set)
        if results.problems:
            raise problems_error(results.problems)
        warnings += [f"{name}: {w}" for w in results.extras.get("warnings", ())]
        evaluate = evaluate_voc_det if task == "det" else evaluate_voc_cls
        try:
            ev = evaluate(dataset, results, image_set=image_set, ap_rule=rule, strict=True)
        except KeyError as e:  # unknown image set
            raise FormatError(args.path, str(e.args[0])) from None
        if not any(c.has_results for c in ev.classes):
            raise FormatError(path, f"no {task} results for image set {image_set} here")
        d_pos, d_neg = default_normalisers(ev)
        n_pos = d_pos if args.n_pos is None else float(args.n_pos)
        ap_n = normalised_aps(ev, n_pos=n_pos, n_neg=d_neg)
        norm: dict[str, Any] = {"n_pos": n_pos, "n_pos_default": d_pos}
        if task == "cls":
            norm["n_neg"] = d_neg
        entry: dict[str, Any] = {
            "files": len(results.files),
            "ap_rule": ev.ap_rule,
            "mAP": num(ev.mean_ap()),
            "per_class": {
                c.class_name: {"ap": num(c.ap), "ap_n": num(ap_n[c.class_name]), "npos": c.npos}
                for c in ev.classes
                if c.has_results
            },
            "normalised_ap": norm,
        }
        tide = None
        if task == "det":
            tide = voc_tide(dataset, results, ev, image_set=image_set)
            entry["tide"] = tide.to_json()
        build = voc_det_evidence if task == "det" else voc_cls_evidence
        evidence.append(build(dataset, ev, name))
        sets.append(_Set(name, ev.mean_ap(), entry, tide))
    boot = bootstrap(
        evidence,
        args.bootstrap,
        args.seed,
        recall_grid=RECALL_GRID if args.figures else None,
        progress=args.progress,
    )
    metric = f"VOC mean AP ({evidence[0].ap_rule})"
    header = (
        f"{dataset.name or 'VOC'} {task}, image set {image_set}, {evidence[0].n_units} images; "
        f"mAP = VOC mean AP ({evidence[0].ap_rule}, 0-1)"
    )
    return finish(args, "voc", task, image_set, header, sets, boot, metric, warnings)


def num(v: float) -> float | None:
    """JSON number: NaN as None."""
    return None if v is None or math.isnan(v) else float(v)


def interval_json(boot: BootstrapResult, name: str, level: float, metric: str) -> dict[str, Any]:
    """``{"point", "ci", "level", "replicates", "metric"}`` of a set's mean AP."""
    m = boot.interval(name, None, level)
    return {
        "point": num(m.point),
        "ci": [num(m.low), num(m.high)],
        "level": level,
        "replicates": m.replicates,
        "metric": metric,
    }


def finish(
    args: argparse.Namespace,
    protocol: str,
    task: str,
    image_set: str | None,
    header: str,
    sets: list[_Set],
    boot: BootstrapResult,
    metric: str,
    warnings: list[str],
    extra: dict[str, dict[str, Any]] | None = None,
    bands: BootstrapResult | None = None,
) -> AnalyzeOutput:
    """Payload, printed summary and figures, shared by the families. ``boot`` is the bootstrap
    of the sets' ``mAP`` (with PR bands when figures are asked for); ``extra`` adds entries to
    each set's ``"bootstrap"`` (COCO's ``AP50``); ``bands``: the bootstrap whose PR bands are
    drawn (default ``boot``)."""
    level = args.level
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
        "bootstrap": {"replicates": args.bootstrap, "seed": args.seed, "level": level},
        "sets": {s.name: s.entry for s in sets},
    }
    if len(sets) >= 2:
        payload["paired"] = boot.paired_summary(level)
    if len(sets) >= 3:
        payload["ranks"] = {
            r.name: {"rank": r.rank, "range": [r.low, r.high]}
            for r in boot.rank_ranges(None, level)
        }
    text = summary_text(header, sets, payload, level)
    figures = _figures(sets, bands or boot, level) if args.figures else []
    return AnalyzeOutput(text, payload, warnings, figures)


def summary_text(header: str, sets: list[_Set], payload: dict[str, Any], level: float) -> str:
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


def _f(v: float | None, sign: str = "") -> str:
    return "nan" if v is None else f"{v:{sign}.3f}"


def _figures(sets: list[_Set], boot: BootstrapResult, level: float) -> list[tuple[str, str]]:
    """``tide_<set>.svg`` per set with a breakdown and ``pr_<class>.svg`` with bands per class."""
    out: list[tuple[str, str]] = []
    for s in sets:
        if s.tide is not None:
            title = f"{s.name}: TIDE dAP (AP {s.tide.ap:.2f})"
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
        out.append((f"pr_{cls}.svg", pr_figure_svg(title, curves, bands=bands)))
    return out
