"""``vocviewer analyze`` on LVIS boxes and masks (``--task bbox|segm``), under LVIS's federated
rules: every number is read off ``LVISEval``'s own verdicts (``families.lvis.evaluate``), so a detection
LVIS does not evaluate (its category neither on the image nor in its ``neg_category_ids``, over
the 300 per image, no area) or ignores (unmatched in a not-exhaustive category, on an ``ignore``
annotation) is never an error, a false positive or a data point.

Per set: ``LVISEval``'s AP (the payload's ``mAP``), AP50 and APr / APc / APf; TIDE on LVIS's
verdicts (``families.lvis.tide``; AP points at IoU 0.5); the bootstrap over images of AP, AP50
and APr / APc / APf (``families.lvis.bootstrap``; the point estimates are ``LVISEval``'s);
normalised AP beside AP as for COCO (eq. 6 on the ranked verdicts, COCO's 101-point average,
``N`` the mean number of counted annotations over the categories that have any, ``--n-pos``);
the object characteristics at IoU 0.5 — size and aspect ratio (within-category percentiles of
the annotation's box), COCO's area ranges (the ``area`` field), the category's frequency group
(r / c / f) and whether the object's category is exhaustively annotated on its image
(``not_exhaustive``: no / yes); and ``analyze()``'s nested curves under LVIS's rules
(``families.lvis.analyze_curves``). ``"analysis"`` per set holds their areas::

    {"curves": [...], "max_dets": 300, "similar": bool,       # Sim by supercategory (else = Oth)
     "overall": {area_range: {"C75": .., ..., "FN": ..}},    # mean over defined categories
     "frequencies": {"r" | "c" | "f": {...}},                # area "all"
     "supercategories": {name: {...}},                       # only if the file has them
     "categories": {name: {...}}}                            # area "all"; null: no ground truth
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from vocviewer.core.arrays import nan_to_null
from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis_curves import CURVE_NAMES, AnalysisCurves
from vocviewer.evaluation.bootstrap_stats import BootstrapResult
from vocviewer.evaluation.characteristics import (
    Characteristic,
    all_characteristics,
    characteristics_json,
    flag_bins,
)
from vocviewer.evaluation.render.analyze_characteristics import with_characteristics
from vocviewer.evaluation.render.analyze_curves_svg import analysis_svg, area_label
from vocviewer.evaluation.render.analyze_report import (
    AnalysedSet,
    AnalyzeOutput,
    finish_with_ap50,
    interval_json,
    set_names,
)
from vocviewer.evaluation.tide import TideResult
from vocviewer.families.base import AnalyzeRequest, problems_error
from vocviewer.families.coco.analyze import (
    box_specs,
    coco_normalised,
    open_boxes_or_masks,
    rankings_at_50,
)
from vocviewer.families.coco.columns import CocoAnnotations
from vocviewer.families.coco.evaluate import CocoEvalResult
from vocviewer.families.coco.view import iou_type
from vocviewer.families.evidence import Evidence, evaluated_once
from vocviewer.families.lvis import view as lvis_view
from vocviewer.families.lvis.analyze_curves import LvisAnalysis, analyze_lvis
from vocviewer.families.lvis.bootstrap import lvis_bootstrap, lvis_evidence
from vocviewer.families.lvis.columns import FREQUENCIES, MAX_DETS_PER_IMAGE, LvisAnnotations
from vocviewer.families.lvis.evaluate import LvisEvalResult, collect_lvis, evaluate_lvis, select
from vocviewer.families.lvis.reader import read_lvis, read_lvis_results
from vocviewer.families.lvis.tide import lvis_positives, lvis_tide
from vocviewer.families.view_analyser import CurveSet, ViewAnalyser, chunk_for

LVIS_MAP = "LVIS AP@[.50:.95], area all, maxDets 300, federated (LVISEval 'AP')"
LVIS_AP50 = "LVIS AP@0.50, area all, maxDets 300, federated (LVISEval 'AP50')"
GROUP_METRIC = "LVIS AP@[.50:.95] over the {} categories (LVISEval '{}')"
#: The window keeps AP50's PR bands up to this many floats (256 MB; LVIS v1 at 1,000 replicates
#: would take 1 GB per result set, and the bands are then left out).
BAND_BUDGET = 1 << 25


def run_lvis_analyze(request: AnalyzeRequest) -> AnalyzeOutput:
    """LVIS bbox / segm analysis of every ``request.results`` file against the annotation JSON."""
    task, dataset, lost, warnings = open_boxes_or_masks(request, "LVIS is analysed", read_lvis)
    sets: list[AnalysedSet] = []
    evidence = []
    analyses: list[tuple[str, LvisAnalysis]] = []
    per_set: list[tuple[str, dict[str, Characteristic]]] = []
    official = lost is None
    for name, path in zip(set_names(request.results), request.results, strict=True):
        results = read_lvis_results(dataset, path, task=task, keep_going=request.keep_going)
        if results.problems and not request.keep_going:
            raise problems_error(results.problems)
        warnings += [f"{name}: {p}" for p in (*results.problems, *results.warnings)]
        evaluated = evaluated_once(lvis_view.evaluate_lvis_views, dataset, results, task=task)
        ev = collect_lvis(evaluated.evidence.raws(), dataset, results, task)
        warnings += [f"{name}: NOT OFFICIAL: {n}" for n in ev.notes]
        official = official and ev.official
        tide = lvis_tide(dataset, results, ev)
        norm, ap_n = coco_normalised(as_coco(ev), request.n_pos)
        summary = {k: nan_to_null(v if v != -1 else float("nan")) for k, v in ev.summary().items()}
        entry: dict[str, Any] = {
            "mAP": summary["AP"],
            **{k: summary[k] for k in ("AP50", "AP75", "APr", "APc", "APf")},
            "per_class": per_class_json(ev, ap_n),
            "normalised_ap": norm,
            "tide": tide.to_json(),
        }
        chars = lvis_characteristics(dataset, results, ev, norm["n_pos"])
        entry["characteristics"] = characteristics_json(chars, norm["n_pos"], norm["n_pos_default"])
        per_set.append((name, chars))
        analysis = analyze_lvis(dataset, results, task)
        entry["analysis"] = analysis_json(analysis)
        analyses.append((name, analysis))
        evidence.append(lvis_evidence(dataset, results, ev, name))
        sets.append(AnalysedSet(name, ev.ap(), entry, tide, evaluated))
    chunk = chunk_for(request.bootstrap)
    boot = lvis_bootstrap(
        evidence,
        request.bootstrap,
        request.seed,
        chunk=chunk,
        progress=request.progress,
        bands=bool(request.figures),  # the PR figures' bands; 1 GB for LVIS v1 at 1,000 replicates
    )
    more = {
        s.name: {
            **{
                g: interval_json(b, s.name, request.level, GROUP_METRIC.format(_GROUPS[g], g))
                for g, b in boot.groups.items()
            },
            "bias": {"mAP": bias(boot.ap, s.name), "AP50": bias(boot.ap50, s.name)},
        }
        for s in sets
    }
    header = (
        f"LVIS {task}, {len(dataset.images)} images; mAP = LVIS AP@[.50:.95] (0-1, federated, "
        f"maxDets {MAX_DETS_PER_IMAGE}); TIDE and the PR bands at IoU 0.5"
    )
    boots, metrics = (boot.ap, boot.ap50), (LVIS_MAP, LVIS_AP50)
    out = finish_with_ap50(
        request, "lvis", task, header, sets, boots, metrics, warnings, official, more
    )
    figures = (
        [f for name, a in analyses for f in analysis_figures(name, a, task)]
        if request.figures
        else []
    )
    text = out.text + bias_note(boot.ap, request.level) + analysis_text(analyses)
    out = replace(out, text=text, figures=out.figures + figures)
    return with_characteristics(out, per_set, request.figures)


_GROUPS = {"APr": "rare", "APc": "common", "APf": "frequent"}


def bias(boot: BootstrapResult, name: str) -> float | None:
    """The replicates' mean minus the point estimate of set ``name``'s mean AP (``None``:
    undefined): the bootstrap's estimate of the estimator's bias."""
    i = boot.set_names.index(name)
    reps = boot.map[i][~np.isnan(boot.map[i])]
    return nan_to_null(float(reps.mean() - boot.point_map[i]) if len(reps) else float("nan"))


def bias_note(boot: BootstrapResult, level: float) -> str:
    """A warning for every set whose interval does not hold its point estimate. AP is not linear
    in the images: with many categories of few positives (LVIS) its replicates can sit above the
    point by more than their spread (measured: 2,000 generated images of 1,203 categories, bias
    +0.013, interval width 0.004)."""
    lines = []
    for name in boot.set_names:
        m = boot.interval(name, None, level)
        if not m.low <= m.point <= m.high:
            lines.append(
                f"note: {name}: the {level:.0%} interval [{m.low:.3f}, {m.high:.3f}] misses the "
                f"point {m.point:.3f} (bootstrap bias {bias(boot, name):+.3f}: categories with few "
                "positives; compare widths and paired differences, not positions)"
            )
    return "".join(f"{line}\n" for line in lines)


def as_coco(ev: LvisEvalResult) -> CocoEvalResult:
    """``ev`` as the ``CocoEvalResult`` it is (``LVISEval`` is ``COCOeval`` with one cap of 300
    and federated verdicts): the same categories and params, arrays with a ``maxDets`` axis."""
    if ev.categories:
        scores = np.stack([c.scores for c in ev.categories], axis=2)
    else:
        scores = -np.ones((*ev.precision.shape, 1))
    return CocoEvalResult(
        params=ev.params,
        category_ids=ev.category_ids,
        category_names=ev.category_names,
        precision=ev.precision[..., None],
        recall=ev.recall[..., None],
        scores=scores,
        categories=ev.categories,
        notes=ev.notes,
    )


def per_class_json(ev: LvisEvalResult, ap_n: dict[str, tuple[float, float]]) -> dict[str, Any]:
    """Per category: AP, AP_N (IoU .50:.95), AP50, AP_N50 and its frequency group."""
    at50 = ev.precision[0, :, :, 0]
    return {
        c.name: {
            "ap": nan_to_null(c.ap),
            "ap_n": nan_to_null(ap_n[c.name][0]),
            "ap50": nan_to_null(float(at50[:, k].mean()) if at50[0, k] > -1 else float("nan")),
            "ap_n50": nan_to_null(ap_n[c.name][1]),
            "frequency": str(ev.frequency[k]),
        }
        for k, c in enumerate(ev.categories)
    }


def lvis_characteristics(
    dataset: Dataset, results: ResultSet, ev: LvisEvalResult, n_pos: float
) -> dict[str, Characteristic]:
    """Size, aspect, area range, frequency group and not-exhaustive bins at IoU 0.5 over the
    annotations LVIS counts (module docstring)."""
    gt: CocoAnnotations = dataset.data(CocoAnnotations)
    lv: LvisAnnotations = dataset.data(LvisAnnotations)
    obj = dataset.objects
    counted = lvis_positives(dataset, select(dataset, results), ev)
    group = np.array([FREQUENCIES.index(f) for f in lv.frequency.tolist()], dtype=np.int64)
    n_cls = len(dataset.classes)
    not_exhaustive = np.isin(obj.image_index * n_cls + obj.label, lv.not_exhaustive_pairs())
    specs = {
        **box_specs(gt, obj.label, counted, ev.params),
        "frequency": (FREQUENCIES, np.where(counted, group[obj.label], -1)),
        "not_exhaustive": (("no", "yes"), flag_bins(not_exhaustive, counted)),
    }
    rankings = rankings_at_50(ev.categories, range(len(ev.categories)))
    return all_characteristics(specs, rankings, obj.label, counted, n_pos)


def _areas(curves: AnalysisCurves) -> dict[str, float | None]:
    return {k: nan_to_null(v) for k, v in curves.areas.items()}


def analysis_json(a: LvisAnalysis) -> dict[str, Any]:
    """The areas of ``analyze()`` under LVIS's rules (layout in the module docstring)."""
    out: dict[str, Any] = {
        "curves": list(CURVE_NAMES),
        "max_dets": MAX_DETS_PER_IMAGE,
        "similar": a.similar,
        "overall": {r: _areas(a.overall(r)) for r in a.area_names},
        "frequencies": {f: _areas(a.frequency_group(f)) for f in FREQUENCIES},
        "categories": {
            name: _areas(a.category(int(cid)))
            for cid, name in zip(a.category_ids, a.category_names, strict=True)
        },
    }
    if a.similar:
        out["supercategories"] = {s: _areas(a.supercategory(s)) for s in a.supercategory_names}
    return out


def analysis_text(analyses: list[tuple[str, LvisAnalysis]]) -> str:
    """One line per set: the overall areas (area all), as the official legend writes them."""
    width = max(12, *(len(n) for n, _ in analyses))
    lines = [
        "",
        f"analyze() under LVIS's rules: areas under the nested PR curves (area all, maxDets "
        f"{MAX_DETS_PER_IMAGE}, mean over the categories with ground truth)",
    ]
    for name, a in analyses:
        areas = a.overall().areas
        lines.append(
            f"{name:<{width}}  " + " ".join(f"{area_label(areas[c])} {c}" for c in CURVE_NAMES)
        )
    if analyses and not analyses[0][1].similar:
        lines.append(
            "(no supercategories in the file: Sim = Oth, every category counts as similar)"
        )
    return "\n".join(lines) + "\n"


def analysis_figures(name: str, a: LvisAnalysis, task: str = "bbox") -> list[tuple[str, str]]:
    """``analyze_<set>.svg`` (all categories), ``analyze_<set>_<r|c|f>.svg`` per frequency group
    and ``analyze_<set>_<supercategory>.svg`` per supercategory, area all (groups without ground
    truth are left out)."""
    views = [("", "overall", a.overall())]
    views += [(f"_{f}", f, a.frequency_group(f)) for f in FREQUENCIES]
    views += [(f"_{s}", s, a.supercategory(s)) for s in a.supercategory_names]
    return [
        (
            f"analyze_{name}{suffix}.svg",
            analysis_svg(f"{name}: {task}-{which}-all", c.recall, c.curves(), c.areas),
        )
        for suffix, which, c in views
        if not np.isnan(c.c50).any()
    ]


# --- the window's Analysis tab (``view_analysis``) --------------------------------------------
class LvisViewAnalyser(ViewAnalyser):
    """LVIS's rules for the shared flow: LVISEval's record collected from the window's
    categories; ``analyze()`` evaluates at its own IoUs under the federated rules."""

    metric = "LVIS AP@[.50:.95]"

    def from_views(self, ds: Dataset, res: ResultSet, window: Evidence) -> Any | None:
        task = _analysed_task(res)
        if len(window.by_class()) < len(ds.classes):
            return None
        return collect_lvis(window.raws(), ds, res, task)

    def evaluate(self, ds: Dataset, res: ResultSet, image_set: str | None) -> Any:
        return evaluate_lvis(ds, res, _analysed_task(res))

    def tide(self, ds: Dataset, res: ResultSet, ev: Any, image_set: str | None) -> TideResult:
        return lvis_tide(ds, res, ev)

    def characteristics(self, ds: Dataset, res: ResultSet, ev: Any) -> dict[str, Characteristic]:
        n_pos = coco_normalised(as_coco(ev), None)[0]["n_pos"]
        return lvis_characteristics(ds, res, ev, n_pos)

    def curves(self, ds: Dataset, res: ResultSet, ev: Any) -> CurveSet:
        a = analyze_lvis(ds, res, ev.params.iou_type)
        defined = a.defined()
        per_class = {int(k): a.category(int(a.category_ids[k])) for k in np.flatnonzero(defined)}
        return CurveSet(a.overall(), per_class)

    def resample(
        self, ds: Dataset, sets: Sequence[tuple[ResultSet, Any]], n: int, seed: int, **kw: Any
    ) -> tuple[BootstrapResult, BootstrapResult | None]:
        evidence = [lvis_evidence(ds, res, ev, res.name) for res, ev in sets]
        bands = len(sets) * len(ds.classes) * n * 101 <= BAND_BUDGET
        boot = lvis_bootstrap(evidence, n, seed, chunk=chunk_for(n), bands=bands, **kw)
        return boot.ap, boot.ap50 if bands else None


def _analysed_task(res: ResultSet) -> str:
    task = iou_type(res)
    if task not in ("bbox", "segm"):
        raise ValueError(f"LVIS analyses boxes and masks, not {task}")
    return task
