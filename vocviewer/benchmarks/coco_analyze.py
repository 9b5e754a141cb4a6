"""``vocviewer analyze`` on COCO boxes: COCOeval, TIDE (``tide_coco``), the COCO bootstrap
(``bootstrap_coco``) of AP@[.50:.95] (the payload's ``mAP``) and AP50 (``AP50``), and the COCO
API's ``analyze()`` (``evaluation.coco_analyze``); see ``analyze``.

``"analysis"`` per set holds the areas under the seven curves (``CURVE_NAMES``), never the curves
(those are in the figures, and in ``CocoAnalysis.to_json`` from the library)::

    {"curves": [...], "max_dets": 100,
     "overall": {area_range: {"C75": .., ..., "FN": ..}},      # every area range
     "supercategories": {name: {"C75": .., ...}},             # area "all"
     "categories": {name: {"C75": .., ...}}}                  # area "all"
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any

from vocviewer.benchmarks.analyze_curves_svg import analysis_svg, area_label
from vocviewer.benchmarks.analyze_report import (
    AnalysedSet,
    AnalyzeOutput,
    finish,
    interval_json,
    set_names,
)
from vocviewer.benchmarks.base import opened
from vocviewer.core.arrays import nan_to_null
from vocviewer.core.errors import FormatError
from vocviewer.evaluation.bootstrap_coco import coco_bbox_evidence, coco_bootstrap
from vocviewer.evaluation.coco import CocoParams, evaluate_coco
from vocviewer.evaluation.coco_analyze import CURVE_NAMES, MAX_DETS, AnalysisCurves, CocoAnalysis
from vocviewer.evaluation.coco_analyze import analyze_coco as coco_analysis
from vocviewer.evaluation.tide_coco import coco_tide
from vocviewer.formats.coco import read_coco
from vocviewer.formats.coco_results import read_coco_results

COCO_MAP = "COCO AP@[.50:.95], area all, maxDets 100 (summary 'AP')"
COCO_AP50 = "COCO AP@0.50, area all, maxDets 100 (summary 'AP50')"


def analyze_coco(args: argparse.Namespace) -> AnalyzeOutput:
    """COCO bbox analysis of every ``args.results`` file against the annotation JSON."""
    if args.task not in (None, "bbox"):
        raise FormatError(args.path, f"analyze: COCO analysis is for --task bbox, not {args.task}")
    dataset = opened(args, read_coco(args.path, args.images, masks=False))
    warnings = [str(p) for p in dataset.problems]
    sets: list[AnalysedSet] = []
    evidence = []
    analyses: list[tuple[str, CocoAnalysis]] = []
    params = CocoParams.for_task("bbox")
    for name, path in zip(set_names(args.results), args.results, strict=True):
        results = read_coco_results(dataset, path, task="bbox")
        warnings += [f"{name}: {p}" for p in results.problems]
        ev = evaluate_coco(dataset, results, params)
        tide = coco_tide(dataset, results)
        stats = ev.stats()
        entry: dict[str, Any] = {
            "mAP": nan_to_null(stats["AP"]),
            "AP50": nan_to_null(stats["AP50"]),
            "per_class": {
                c.name: {
                    "ap": nan_to_null(c.ap),
                    "ap50": nan_to_null(ev.ap(0.5, category=int(c.category_id))),
                }
                for c in ev.categories
            },
            "tide": tide.to_json(),
        }
        analysis = coco_analysis(dataset, results, params)
        entry["analysis"] = analysis_json(analysis)
        analyses.append((name, analysis))
        evidence.append(coco_bbox_evidence(dataset, ev, name))
        sets.append(AnalysedSet(name, stats["AP"], entry, tide))
    boot = coco_bootstrap(
        evidence,
        args.bootstrap,
        args.seed,
        chunk=max(1, min(50, -(-args.bootstrap // 20))),
        progress=args.progress,
    )
    extra = {
        s.name: {
            "AP50": interval_json(boot.ap50, s.name, args.level, COCO_AP50),
            "per_class_AP50": boot.ap50.set_summary(s.name, args.level)["classes"],
        }
        for s in sets
    }
    header = (
        f"COCO bbox, {evidence[0].n_units} images; mAP = COCO AP@[.50:.95] (0-1); "
        "TIDE and the PR bands at IoU 0.5"
    )
    out = finish(
        args,
        "coco",
        "bbox",
        None,
        header,
        sets,
        boot.ap,
        COCO_MAP,
        warnings,
        extra,
        bands=boot.ap50,  # PR bands at IoU 0.5, on COCO's 101 recall thresholds
    )
    figures = [f for name, a in analyses for f in analysis_figures(name, a)] if args.figures else []
    return replace(out, text=out.text + analysis_text(analyses), figures=out.figures + figures)


def _areas(curves: AnalysisCurves) -> dict[str, float | None]:
    return {k: nan_to_null(v) for k, v in curves.areas.items()}


def analysis_json(a: CocoAnalysis) -> dict[str, Any]:
    """The areas of ``analyze()`` (layout in the module docstring)."""
    return {
        "curves": list(CURVE_NAMES),
        "max_dets": MAX_DETS,
        "overall": {r: _areas(a.overall(r)) for r in a.area_names},
        "supercategories": {s: _areas(a.supercategory(s)) for s in a.supercategory_names},
        "categories": {
            name: _areas(a.category(int(cid)))
            for cid, name in zip(a.category_ids, a.category_names, strict=True)
        },
    }


def analysis_text(analyses: list[tuple[str, CocoAnalysis]]) -> str:
    """One line per set: the overall areas (area all), as the official legend writes them."""
    width = max(12, *(len(n) for n, _ in analyses))
    lines = ["", f"COCO analyze(): areas under the nested PR curves (area all, maxDets {MAX_DETS})"]
    for name, a in analyses:
        areas = a.overall().areas
        lines.append(
            f"{name:<{width}}  " + " ".join(f"{area_label(areas[c])} {c}" for c in CURVE_NAMES)
        )
    return "\n".join(lines) + "\n"


def analysis_figures(name: str, a: CocoAnalysis) -> list[tuple[str, str]]:
    """``analyze_<set>.svg`` (all categories) and ``analyze_<set>_<supercategory>.svg`` per
    supercategory, area all, titled as the official plots (``bbox-<which>-all``)."""
    views = [("", "overall", a.overall())]
    views += [(f"_{s}", s, a.supercategory(s)) for s in a.supercategory_names]
    return [
        (
            f"analyze_{name}{suffix}.svg",
            analysis_svg(f"{name}: bbox-{which}-all", c.recall, c.curves(), c.areas),
        )
        for suffix, which, c in views
    ]
