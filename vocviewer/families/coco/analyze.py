"""``vocviewer analyze`` on COCO boxes and masks (``--task bbox|segm``): COCOeval, TIDE
(``tide_coco``; masks: tidecv's ``TIDE.MASK`` mode), the COCO bootstrap (``bootstrap_coco``) of
AP@[.50:.95] (the payload's ``mAP``) and AP50 (``AP50``), normalised AP beside AP, the object
characteristics and the COCO API's ``analyze()`` (``families.coco.analyze_curves``); see ``analyze``.
Keypoints are not analysed: TIDE has no keypoint mode and ``analyze()`` is defined for boxes and
masks only.

Normalised AP (IJCV 2015 eq. 6, COCO's 101-point average): per category ``"ap_n"`` (mean over
IoU .50:.95) beside ``"ap"`` and ``"ap_n50"`` beside ``"ap50"``, on COCOeval's own ranked verdicts
(area all, maxDets 100); ``N`` (``--n-pos``) defaults to the mean number of non-crowd objects over
the categories that have any. Characteristics at IoU 0.5 (``AP_N`` with ``VOCap``): size and
aspect ratio (within-category percentiles of the annotation's box), COCO's area ranges
(small / medium / large by the ``area`` field) and crowd (its "yes" bin: the crowd regions, hit
by the detections COCOeval ignored).

``"analysis"`` per set holds the areas under the seven curves (``CURVE_NAMES``), never the curves
(those are in the figures, and in ``CocoAnalysis.to_json`` from the library)::

    {"curves": [...], "max_dets": 100,
     "overall": {area_range: {"C75": .., ..., "FN": ..}},      # every area range
     "supercategories": {name: {"C75": .., ...}},             # area "all"
     "categories": {name: {"C75": .., ...}}}                  # area "all"
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core.arrays import nan_to_null
from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis_curves import CURVE_NAMES, AnalysisCurves
from vocviewer.evaluation.bootstrap_stats import BootstrapResult
from vocviewer.evaluation.characteristics import (
    ASPECT_BINS,
    SIZE_BINS,
    Characteristic,
    ClassRanking,
    all_characteristics,
    aspect_bins,
    characteristics_json,
    flag_bins,
    range_bins,
    size_bins,
)
from vocviewer.evaluation.normalised_ap import normalised_ap_101
from vocviewer.evaluation.render.analyze_characteristics import with_characteristics
from vocviewer.evaluation.render.analyze_curves_svg import analysis_svg, area_label
from vocviewer.evaluation.render.analyze_report import (
    AnalysedSet,
    AnalyzeOutput,
    finish_with_ap50,
    set_names,
)
from vocviewer.evaluation.result import Verdict
from vocviewer.evaluation.tide import TideResult
from vocviewer.families.base import AnalyzeRequest, check_ground_truth, opened
from vocviewer.families.coco import view as coco_view
from vocviewer.families.coco.analyze_curves import MAX_DETS, CocoAnalysis
from vocviewer.families.coco.analyze_curves import analyze_coco as coco_analysis
from vocviewer.families.coco.bootstrap import coco_bbox_evidence, coco_bootstrap
from vocviewer.families.coco.chosen_params import chosen_params, param_notes
from vocviewer.families.coco.columns import CocoAnnotations, CocoResults
from vocviewer.families.coco.evaluate import (
    CocoCategoryEvaluation,
    CocoEvalResult,
    CocoParams,
    collect_coco,
    evaluate_coco,
)
from vocviewer.families.coco.params import reading_task
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results
from vocviewer.families.coco.tide import coco_tide
from vocviewer.families.evidence import Evidence, evaluated_once
from vocviewer.families.view_analyser import CurveSet, ViewAnalyser, chunk_for
from vocviewer.families.views import ViewChoice

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
COCO_MAP = "COCO AP@[.50:.95], area all, maxDets 100 (summary 'AP')"
COCO_AP50 = "COCO AP@0.50, area all, maxDets 100 (summary 'AP50')"


def analyze_coco(
    request: AnalyzeRequest,
    read: Callable[..., Dataset] = read_coco,
    read_results: Callable[..., ResultSet] = read_coco_results,
) -> AnalyzeOutput:
    """COCO bbox / segm analysis of every ``request.results`` file against the annotation JSON
    (``read`` / ``read_results``: COCO's readers, or those of a family read as COCO's)."""
    task, dataset, lost, warnings = open_boxes_or_masks(
        request, "COCO analysis is", read, boundary=True
    )
    sets: list[AnalysedSet] = []
    evidence = []
    analyses: list[tuple[str, CocoAnalysis]] = []
    per_set: list[tuple[str, dict[str, Characteristic]]] = []
    params = chosen_params(task, request.options)  # the protocol's unless --max-dets & co. say
    warnings += list(param_notes(params))
    if param_notes(params):
        warnings.append("TIDE keeps COCO's own parameters; the bootstrap averages at the last cap")
    choice = None  # the evidence says what it was evaluated at: the official choice, ...
    if task == "boundary":  # ... or Boundary IoU
        warnings.append("TIDE's error types are at mask IoU (tidecv has no Boundary IoU)")
        choice = ViewChoice(iou_kind="boundary", dilation_ratio=params.dilation_ratio)
    for name, path in zip(set_names(request.results), request.results, strict=True):
        results = read_results(dataset, path, task=reading_task(task))
        warnings += [f"{name}: {p}" for p in results.problems]
        evaluated = evaluated_once(
            coco_view.evaluate_coco_views, dataset, results, choice, task=task, params=params
        )
        ev = collect_coco(evaluated.evidence.raws(), params, results)
        tide = coco_tide(dataset, results)
        stats = ev.stats()
        norm, ap_n = coco_normalised(ev, request.n_pos)
        entry: dict[str, Any] = {
            "mAP": nan_to_null(stats["AP"]),
            "AP50": nan_to_null(stats["AP50"]),
            "per_class": {
                c.name: {
                    "ap": nan_to_null(c.ap),
                    "ap_n": nan_to_null(ap_n[c.name][0]),
                    "ap50": nan_to_null(ev.ap(0.5, category=int(c.category_id))),
                    "ap_n50": nan_to_null(ap_n[c.name][1]),
                }
                for c in ev.categories
            },
            "normalised_ap": norm,
            "tide": tide.to_json(),
        }
        chars = coco_characteristics(dataset, ev, norm["n_pos"])
        entry["characteristics"] = characteristics_json(chars, norm["n_pos"], norm["n_pos_default"])
        per_set.append((name, chars))
        analysis = coco_analysis(dataset, results, params)
        entry["analysis"] = analysis_json(analysis)
        analyses.append((name, analysis))
        evidence.append(coco_bbox_evidence(dataset, ev, name))
        sets.append(AnalysedSet(name, stats["AP"], entry, tide, evaluated))
    boot = coco_bootstrap(
        evidence,
        request.bootstrap,
        request.seed,
        chunk=chunk_for(request.bootstrap),
        progress=request.progress,
    )
    header = (
        f"COCO {task}, {evidence[0].n_units} images; mAP = COCO AP@[.50:.95] (0-1); "
        "TIDE and the PR bands at IoU 0.5"
    )
    boots, metrics = (boot.ap, boot.ap50), (COCO_MAP, COCO_AP50)  # bands: 101 recall levels
    official = lost is None and not param_notes(params)
    out = finish_with_ap50(request, "coco", task, header, sets, boots, metrics, warnings, official)
    figures = (
        [f for name, a in analyses for f in analysis_figures(name, a, task)]
        if request.figures
        else []
    )
    out = replace(out, text=out.text + analysis_text(analyses), figures=out.figures + figures)
    return with_characteristics(out, per_set, request.figures)


def open_boxes_or_masks(
    request: AnalyzeRequest, what: str, read: Callable[..., Dataset], boundary: bool = False
) -> tuple[str, Dataset, str | None, list[str]]:
    """(task, dataset, why it is not official or ``None``, warnings) of an analysis of a COCO
    annotation JSON (``read(path, images, masks=...)``: COCO's reader or a family's built on
    it); ``what`` names the analysis in the message refusing another task than bbox or segm
    (or boundary, Boundary AP, with ``boundary``)."""
    task = request.task or "bbox"
    if task not in ("bbox", "segm", "boundary")[: 3 if boundary else 2]:
        tasks = "bbox, segm or boundary" if boundary else "bbox or segm"
        raise FormatError(request.path, f"analyze: {what} for --task {tasks}, not {task}")
    masks = reading_task(task) == "segm"
    dataset = opened(request, read(request.path, request.option("images"), masks=masks))
    lost = check_ground_truth(dataset, request.keep_going, reading_task(task))
    warnings = [str(p) for p in dataset.problems]
    warnings += [f"NOT OFFICIAL: {lost}"] if lost is not None else []
    return task, dataset, lost, warnings


def coco_normalised(
    ev: CocoEvalResult, n_pos: float | None
) -> tuple[dict[str, Any], dict[str, tuple[float, float]]]:
    """(``"normalised_ap"`` entry, per category (AP_N over .50:.95, AP_N at .50)): eq. 6 on
    COCOeval's ranked verdicts (area all, largest cap) with COCO's 101-point average."""
    counts = np.array([int(c.npig[0]) for c in ev.categories])
    have = counts[counts > 0]
    d_pos = float(have.mean()) if len(have) else float("nan")
    n = d_pos if n_pos is None else float(n_pos)
    rt = ev.params.recall_thresholds
    out: dict[str, tuple[float, float]] = {}
    for c, npos in zip(ev.categories, counts, strict=True):
        per_thr = [
            normalised_ap_101(v == Verdict.TP, v == Verdict.FP, int(npos), n, rt) for v in c.verdict
        ]
        with np.errstate(invalid="ignore"):
            out[c.name] = (float(np.mean(per_thr)), per_thr[0])
    defined = [a for a, _ in out.values() if a == a]
    entry = {
        "n_pos": n,
        "n_pos_default": d_pos,
        "mean": nan_to_null(float(np.mean(defined))) if defined else None,
        "rule": "eq. 6 with COCO's 101-point average; ap_n over IoU .50:.95, ap_n50 at .50",
        "columns": {"AP_N[.5:.95]": "ap_n", "AP_N@0.50": "ap_n50"},  # label -> per-class key
    }
    return entry, out


def coco_characteristics(
    dataset: Dataset, ev: CocoEvalResult, n_pos: float
) -> dict[str, Characteristic]:
    """Size, aspect, area range and crowd bins at IoU 0.5 (module docstring)."""
    gt: CocoAnnotations = dataset.data(CocoAnnotations)
    obj = dataset.objects
    counted = ~gt.iscrowd
    if ev.params.iou_type == "boundary" and gt.ignore is not None:  # boundary-iou-api's rule
        counted &= ~gt.ignore
    ks = [int(np.flatnonzero(gt.category_id == cid)[0]) for cid in ev.category_ids]
    specs = {
        **box_specs(gt, obj.label, counted, ev.params),
        "crowd": (("no", "yes"), flag_bins(gt.iscrowd, np.ones(len(obj.label), dtype=bool))),
    }
    return all_characteristics(specs, rankings_at_50(ev.categories, ks), obj.label, counted, n_pos)


def rankings_at_50(
    categories: Sequence[CocoCategoryEvaluation], class_index: Sequence[int]
) -> list[ClassRanking]:
    """Each category's ranking at IoU 0.5, area all (``class_index``: its dataset class); an
    ignored detection's object counts as hit (the crowd / ignore bins)."""
    out = []
    for c, k in zip(categories, class_index, strict=True):
        v, hit = c.verdict[0], c.matched_gt[0]
        obj_hit = np.where(np.isin(v, (Verdict.TP, Verdict.IGNORED)), hit, -1)
        out.append(ClassRanking(c.name, k, v == Verdict.TP, v == Verdict.FP, obj_hit))
    return out


def box_specs(
    gt: CocoAnnotations, label: IntArray, counted: BoolArray, params: CocoParams
) -> dict[str, tuple[tuple[str, ...], IntArray]]:
    """The size and aspect bins of the annotations' ``x, y, w, h`` boxes and the bins of
    COCO's area ranges (``params``' less "all") by the ``area`` field."""
    xyxy = np.column_stack([gt.bbox[:, :2], gt.bbox[:, :2] + gt.bbox[:, 2:]])
    ranges = params.area_ranges[1:]
    edges = [ranges[0][0], *(hi for _, hi in ranges)]
    return {
        "size": (SIZE_BINS, size_bins(xyxy, label, counted)),
        "aspect": (ASPECT_BINS, aspect_bins(xyxy, label, counted)),
        "area": (tuple(params.area_names[1:]), range_bins(gt.area, edges, counted)),
    }


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


def analysis_figures(name: str, a: CocoAnalysis, task: str = "bbox") -> list[tuple[str, str]]:
    """``analyze_<set>.svg`` (all categories) and ``analyze_<set>_<supercategory>.svg`` per
    supercategory, area all, titled as the official plots (``bbox-<which>-all``, ``segm-...``)."""
    views = [("", "overall", a.overall())]
    views += [(f"_{s}", s, a.supercategory(s)) for s in a.supercategory_names]
    return [
        (
            f"analyze_{name}{suffix}.svg",
            analysis_svg(f"{name}: {task}-{which}-all", c.recall, c.curves(), c.areas),
        )
        for suffix, which, c in views
    ]


# --- the window's Analysis tab (``view_analysis``) --------------------------------------------
class CocoViewAnalyser(ViewAnalyser):
    """COCO's rules for the shared flow: COCOeval's record collected from the window's
    categories (every IoU .50:.95 is in it); ``analyze()`` evaluates at its own IoUs."""

    metric = "COCO AP@[.50:.95]"

    def from_views(self, ds: Dataset, res: ResultSet, window: Evidence) -> Any | None:
        kind = _analysed_kind(res)
        if len(window.by_class()) < len(ds.classes):
            return None
        return collect_coco(window.raws(), CocoParams.for_task(kind), res)

    def evaluate(self, ds: Dataset, res: ResultSet, image_set: str | None) -> Any:
        return evaluate_coco(ds, res, CocoParams.for_task(_analysed_kind(res)))

    def tide(self, ds: Dataset, res: ResultSet, ev: Any, image_set: str | None) -> TideResult:
        return coco_tide(ds, res)

    def characteristics(self, ds: Dataset, res: ResultSet, ev: Any) -> dict[str, Characteristic]:
        return coco_characteristics(ds, ev, coco_normalised(ev, None)[0]["n_pos"])

    def curves(self, ds: Dataset, res: ResultSet, ev: Any) -> CurveSet:
        a = coco_analysis(ds, res, CocoParams.for_task(ev.params.iou_type))
        ids = ds.data(CocoAnnotations).category_id.tolist()
        per_class = {ids.index(int(c)): a.category(int(c)) for c in a.category_ids}
        return CurveSet(a.overall(), per_class)

    def resample(
        self, ds: Dataset, sets: Sequence[tuple[ResultSet, Any]], n: int, seed: int, **kw: Any
    ) -> tuple[BootstrapResult, BootstrapResult | None]:
        evidence = [coco_bbox_evidence(ds, ev, res.name) for res, ev in sets]
        boot = coco_bootstrap(evidence, n, seed, chunk=chunk_for(n), **kw)
        return boot.ap, boot.ap50


def _analysed_kind(res: ResultSet) -> str:
    kind = str(res.data(CocoResults).kind)
    if kind not in ("bbox", "segm"):
        raise ValueError(f"TIDE and the bootstrap analyse boxes and masks, not {kind}")
    return kind
