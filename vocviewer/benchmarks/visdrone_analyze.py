"""``vocviewer analyze`` on a VisDrone-DET split: every ``--results`` folder is one set.

Per set: the toolkit's AP / AP50 (percent, ``evalDET.m``) and per-class AP, TIDE on the toolkit's
own verdicts at IoU 0.5 (``tide_visdrone``), the bootstrap of the summary AP (``mAP``) and AP50
with per-class intervals (``bootstrap_visdrone``), per-class normalised AP beside AP and the
object characteristics (size, aspect ratio, truncation none/partial, occlusion none/partial/heavy)
on the evaluated objects (classes 1..10, outside ignored regions, score 1), ``AP_N`` with
``VOCap`` at IoU 0.5. ``N`` (``--n-pos``) defaults to the mean number of those objects over the
classes that have any. Layout of the JSON: ``analyze``.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from vocviewer.benchmarks.analyze import RECALL_GRID
from vocviewer.benchmarks.analyze_characteristics import with_characteristics
from vocviewer.benchmarks.analyze_report import (
    AnalysedSet,
    AnalyzeOutput,
    finish,
    interval_json,
    set_names,
)
from vocviewer.benchmarks.base import opened, problems_error
from vocviewer.core.arrays import nan_to_null
from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.core.visdrone import VISDRONE_CATEGORIES, VISDRONE_EVAL_CLASSES
from vocviewer.evaluation.characteristics import (
    ASPECT_BINS,
    SIZE_BINS,
    Characteristic,
    ClassRanking,
    all_characteristics,
    aspect_bins,
    characteristics_json,
    level_bins,
    size_bins,
)
from vocviewer.evaluation.visdrone import VisDroneResult

VISDRONE_MAP = "VisDrone AP@[.50:.95], maxDets 500 (summary 'AP', percent)"
VISDRONE_AP50 = "VisDrone AP@0.50, maxDets 500 (summary 'AP50', percent)"


def analyze_visdrone(args: argparse.Namespace) -> AnalyzeOutput:
    """VisDrone-DET analysis of every ``args.results`` folder on the split ``args.path``."""
    from vocviewer.evaluation.bootstrap_visdrone import visdrone_bootstrap, visdrone_evidence
    from vocviewer.evaluation.tide_visdrone import visdrone_tide
    from vocviewer.evaluation.visdrone import evaluate_visdrone
    from vocviewer.formats.visdrone import read_visdrone, read_visdrone_results

    if args.task not in (None, "det"):
        raise FormatError(
            args.path, f"analyze: VisDrone is analysed for --task det, not {args.task}"
        )
    dataset = opened(args, read_visdrone(args.path))
    warnings = [str(p) for p in dataset.problems]
    sets: list[AnalysedSet] = []
    evidence = []
    per_set: list[tuple[str, dict[str, Characteristic]]] = []
    official = True
    for name, path in zip(set_names(args.results), args.results, strict=True):
        if not path.is_dir():
            raise FormatError(path, "VisDrone results are a folder of per-image .txt files")
        results = read_visdrone_results(dataset, [path])
        if results.problems and not args.keep_going:
            raise problems_error(results.problems)
        warnings += [f"{name}: {p}" for p in (*results.problems, *results.warnings)]
        ev = evaluate_visdrone(dataset, results)
        warnings += [f"{name}: NOT OFFICIAL: {n}" for n in ev.notes]
        official = official and ev.official
        tide = visdrone_tide(dataset, results, ev)
        chars, n_pos, d_pos = visdrone_characteristics(dataset, results, ev, args.n_pos)
        entry: dict[str, Any] = {
            "mAP": nan_to_null(ev.summary["AP"]),
            "AP50": nan_to_null(ev.summary["AP50"]),
            "per_class": {
                n: {
                    "ap": nan_to_null(ap),
                    "ap50": float(ev.ap[k, 0]),
                    "ap_n": nan_to_null(float(chars["overall"].ap_n[k, 0])),
                    "npos": int(ev.npos[k]),
                }
                for k, (n, ap) in enumerate(ev.class_ap().items())
            },
            "normalised_ap": {"n_pos": n_pos, "n_pos_default": d_pos, "iou": 0.5},
            "tide": tide.to_json(),
        }
        overall = chars.pop("overall")
        entry["normalised_ap"]["mean"] = nan_to_null(overall.overall)
        entry["characteristics"] = characteristics_json(chars, n_pos, d_pos)
        per_set.append((name, chars))
        evidence.append(visdrone_evidence(dataset, results, ev, name))
        sets.append(AnalysedSet(name, ev.summary["AP"], entry, tide))
    boot = visdrone_bootstrap(
        evidence,
        args.bootstrap,
        args.seed,
        recall_grid=RECALL_GRID if args.figures else None,
        chunk=max(1, min(100, -(-args.bootstrap // 20))),
        progress=args.progress,
    )
    extra = {
        s.name: {
            "AP50": interval_json(boot.ap50, s.name, args.level, VISDRONE_AP50),
            "per_class_AP50": boot.ap50.set_summary(s.name, args.level)["classes"],
        }
        for s in sets
    }
    header = (
        f"VisDrone-DET, {len(dataset.images)} images; mAP = VisDrone AP@[.50:.95] (percent); "
        "TIDE and the PR bands at IoU 0.5"
    )
    out = finish(
        args,
        "visdrone",
        "det",
        None,
        header,
        sets,
        boot.ap,
        VISDRONE_MAP,
        warnings,
        extra,
        bands=boot.ap50,
        official=official,
    )
    return with_characteristics(out, per_set, args.figures)


def visdrone_characteristics(
    dataset: Dataset, results: ResultSet, ev: VisDroneResult, n_pos: float | None
) -> tuple[dict[str, Characteristic], float, float]:
    """(characteristics with an ``"overall"`` one-bin entry, ``N`` used, ``N`` default)."""
    from vocviewer.evaluation.tide_visdrone import visdrone_positives

    gt = dataset.extras["visdrone"]
    obj, det = dataset.objects, results.detections
    counted = visdrone_positives(dataset, ev)
    per_class = np.bincount(obj.label[counted], minlength=len(VISDRONE_CATEGORIES))
    have = per_class[list(VISDRONE_EVAL_CLASSES)]
    d_pos = float(have[have > 0].mean()) if np.any(have > 0) else float("nan")
    n = d_pos if n_pos is None else float(n_pos)
    verdict, matched = ev.verdict[:, 0], ev.matched_gt[:, 0]
    rows = np.flatnonzero(verdict != -2)
    rank = rows[np.lexsort((rows, det.image_index[rows], -det.score[rows]))]
    rankings = []
    for c in VISDRONE_EVAL_CLASSES:
        r = rank[det.label[rank] == c]
        v = verdict[r]
        obj_hit = np.where(v != 0, matched[r], -1)
        rankings.append(ClassRanking(VISDRONE_CATEGORIES[c], c, v == 1, v == 0, obj_hit))
    box = np.column_stack([gt.ltwh[:, :2], gt.ltwh[:, :2] + gt.ltwh[:, 2:]])
    specs = {
        "overall": (("all",), np.where(counted, 0, -1)),
        "size": (SIZE_BINS, size_bins(box, obj.label, counted)),
        "aspect": (ASPECT_BINS, aspect_bins(box, obj.label, counted)),
        "truncation": (("none", "partial"), level_bins(gt.truncation, 2, counted)),
        "occlusion": (("none", "partial", "heavy"), level_bins(gt.occlusion, 3, counted)),
    }
    return all_characteristics(specs, rankings, obj.label, counted, n), n, d_pos
