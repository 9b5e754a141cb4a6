"""``vocviewer analyze`` on COCO boxes: COCOeval, TIDE (``tide_coco``) and the COCO bootstrap
(``bootstrap_coco``) of AP@[.50:.95] (the payload's ``mAP``) and AP50 (``AP50``); see ``analyze``.
"""

from __future__ import annotations

import argparse
from typing import Any

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
    return finish(
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
